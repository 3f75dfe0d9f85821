// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.DeviceInfo;
import io.rdmanode.deviceplugin.PoolView;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.kubelet.DevicePluginException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One served pool's NPWG device-info files, kept to what running containers hold under its resource (the
 * allocation ledger): written at Allocate, kept while the pod runs whether the pool still has the device or an
 * edit took it out (not a VF gone from the host), written again when missing (the agent restarted), removed once
 * released. {@link #allocated} and {@link #sync} exclude each other, and Allocate writes after the ledger recorded
 * the allocation, so a file Allocate just wrote is never taken for a stale one. Allocates do not exclude each other
 * (issue #23: with one monitor every Allocate of a pool waited for the others' file stat or write): they share the
 * read side of {@link #lock}, {@link #sync} takes the write side, and two Allocates of one device take turns on that
 * device's lock, so one file is written by one call at a time. Stopping the pool removes nothing
 * (the pods read the files while they run, a successor keeps them); a pool retired from the configuration leaves
 * its files to the layer, which removes each as its device is released ({@link DeviceInfoDirs}). No file is
 * removed once a successor owns the state directory.
 */
final class HeldDeviceInfo {

    private static final Logger LOG = LoggerFactory.getLogger(HeldDeviceInfo.class);

    private final ResourcePool pool;
    private final HeldDevices held;
    private final DeviceInfoFiles files;
    /** Read side: an Allocate writing its files. Write side: {@link #sync}, which lists and removes them. */
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    /** File (its PCI address) to the lock Allocates writing it take turns on; only devices the pool has info for. */
    private final ConcurrentMap<String, Object> deviceLocks = new ConcurrentHashMap<>();
    private volatile String problem = "";

    HeldDeviceInfo(ResourcePool pool, HeldDevices held, Path dir) {
        this.pool = pool;
        this.held = held;
        this.files = new DeviceInfoFiles(dir, pool.resourceName());
    }

    /** Why the files could not be kept last time; empty when fine. */
    String problem() {
        return problem;
    }

    /**
     * Brings the files in line with the ledger.
     *
     * @param host the snapshot {@code view} comes from; null when unknown (the pool stops)
     */
    void sync(PoolView view, HostSnapshot host) {
        lock.writeLock().lock();
        try {
            syncExclusively(view, host);
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void syncExclusively(PoolView view, HostSnapshot host) {
        String mine = pool.resourceName();
        Set<String> mineHeld = new TreeSet<>();
        java.util.Map<String, String> heldBy = held.heldBy();
        // While the ledger is unknown (its file was not trusted and kubelet was not asked yet) every ID answers as
        // held and none is listed: no file goes then, the pods may still run.
        boolean unknown = heldBy.isEmpty() && heldBy.containsKey("");
        heldBy.forEach((id, resource) -> {
            if (mine.equals(resource) && (host == null || onHost(host, id))) {
                mineHeld.add(id);
            }
        });
        try {
            // Only with kubelet's word on the holders, asked in this process (as the layer's sweep): an instance
            // handed over but still alive serves Allocates kubelet sent it, recorded in its memory only.
            List<String> removed = unknown || !held.known() || !held.mayRemoveFiles() ? List.of()
                    : files.removeAllBut(mineHeld);
            if (!removed.isEmpty()) {
                LOG.info("device-info removed resource={} devices={}: no running container holds them", mine,
                        removed);
            }
            for (String id : mineHeld) {
                Optional<DeviceInfo> info = files.exists(id) ? Optional.empty() : pool.deviceInfo(view, id);
                if (info.isPresent()) {
                    files.write(info.get());
                    LOG.info("device-info written again resource={} device={}: a running container holds it",
                            mine, id);
                }
            }
            problem = "";
        } catch (IOException e) {
            problem = "device-info files in " + files.dir() + ": " + e.getMessage();
            LOG.warn("pool={}: {}", pool.name(), problem);
        }
    }

    /**
     * Writes the files of an allocation the ledger recorded.
     *
     * @throws DevicePluginException UNAVAILABLE when a file cannot be written (a full disk: the message says so)
     */
    void allocated(PoolView view, List<String> deviceIds) {
        lock.readLock().lock();
        try {
            for (String id : new LinkedHashSet<>(deviceIds)) {
                Optional<DeviceInfo> info = pool.deviceInfo(view, id);
                if (info.isPresent()) {
                    write(id, info.get());
                }
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    private void write(String id, DeviceInfo info) {
        if (files.current(info)) {
            return;             // only a stat: Allocates of one VF whose file is in place need no turn
        }
        synchronized (deviceLocks.computeIfAbsent(info.pciAddress(), k -> new Object())) {
            try {
                files.write(info);
            } catch (IOException e) {
                throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, pool.resourceName(),
                        "cannot write device-info file " + files.file(id) + ": " + e.getMessage(), e);
            }
        }
    }

    private static boolean onHost(HostSnapshot host, String deviceId) {
        return PciAddress.parse(deviceId).map(a -> host.pciFunction(a).isPresent()).orElse(true);
    }
}
