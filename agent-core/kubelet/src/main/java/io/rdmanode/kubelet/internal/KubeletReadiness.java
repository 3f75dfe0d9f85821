// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.health.HealthStatus;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code kubelet} readiness verdict: ready only while every served resource is registered with kubelet and
 * kubelet holds its {@code ListAndWatch} stream, since only then does the node advertise the resource. A
 * resource with no healthy device (a pool that matches nothing) is registered like any other and does not hold
 * readiness back; the message names it. Kubelet not there yet (its socket or directory absent, registration in
 * flight, the plugin watcher not asked yet) is {@link HealthStatus#waiting}: the agent has done its part. A
 * kubelet that refuses a resource, or a socket the agent cannot serve, is failing.
 */
final class KubeletReadiness {

    private KubeletReadiness() {
    }

    static HealthStatus of(KubeletDevicePluginHost host) {
        if (host.problem().isPresent()) {
            return HealthStatus.failing("cannot serve device plugins: " + host.problem().get());
        }
        List<DevicePluginServer> servers = host.servers();
        String how = "registration " + host.registration().describe();
        if (servers.isEmpty()) {
            return HealthStatus.ok("no resource served (" + how + ")");
        }
        List<String> names = servers.stream().map(DevicePluginServer::resourceName).toList();
        if (host.registration().mode() == AutoRegistration.Mode.PROBING) {
            return HealthStatus.waiting("waiting for kubelet's plugin watcher to call GetInfo on the sockets in "
                    + host.settings().socketDir() + " of " + names + " (" + how + ")");
        }
        HostSettings settings = host.settings();
        if (!settings.watcher() && !Files.exists(settings.kubeletSocket())) {
            return HealthStatus.waiting("waiting for kubelet: " + settings.kubeletSocket() + " absent; to register: "
                    + names + " (" + how + ")");
        }
        if (settings.watcher() && !Files.isDirectory(settings.socketDir())) {
            return HealthStatus.waiting("waiting for kubelet: " + settings.socketDir() + " absent; to register: "
                    + names + " (" + how + ")");
        }
        return verdict(servers, how);
    }

    private static HealthStatus verdict(List<DevicePluginServer> servers, String how) {
        Map<String, String> refused = new LinkedHashMap<>();
        List<String> registering = new ArrayList<>();
        List<String> noStream = new ArrayList<>();
        List<String> noDevice = new ArrayList<>();
        for (DevicePluginServer s : servers) {
            if (!s.registered()) {
                if (s.lastError().isEmpty()) {
                    registering.add(s.resourceName());
                } else {
                    refused.put(s.resourceName(), s.lastError());
                }
            } else if (s.listAndWatchStreams() == 0) {
                noStream.add(s.resourceName());
            }
            if (s.figures().devicesHealthy() == 0) {
                noDevice.add(s.resourceName());
            }
        }
        if (!refused.isEmpty()) {
            return HealthStatus.failing("not registered with kubelet: " + String.join("; ",
                    refused.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList()));
        }
        if (!registering.isEmpty()) {
            return HealthStatus.waiting("registering with kubelet: " + registering + " (" + how + ")");
        }
        if (!noStream.isEmpty()) {
            return HealthStatus.waiting("registered, but kubelet holds no ListAndWatch stream of " + noStream);
        }
        String ready = servers.size() + " resource(s) registered with kubelet, each with its ListAndWatch stream ("
                + how + ")";
        return HealthStatus.ok(noDevice.isEmpty() ? ready
                : ready + "; no healthy device in " + noDevice + " (not counted against readiness)");
    }
}
