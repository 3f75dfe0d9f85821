// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourcePoolBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes one pool of this node as ResourceSlices ({@code resource.k8s.io/v1}): at most 128 devices per slice,
 * every slice with the pool's generation and slice count. A changed pool is published as a new generation first,
 * then the older slices are deleted, so the scheduler always sees one complete generation. An unchanged pool is
 * left alone. The driver's slices are found by labels (node, pool), and checked against their spec.
 */
final class SlicePublisher {

    static final int MAX_DEVICES_PER_SLICE = 128;
    private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

    private final KubernetesClient client;
    private final String driver;
    private final String node;

    SlicePublisher(KubernetesClient client, String driver, String node) {
        this.client = client;
        this.driver = driver;
        this.node = node;
    }

    /** What a publish did. */
    record Published(long generation, int slices, boolean changed) { }

    /**
     * Makes the API server hold exactly {@code devices} for {@code pool}.
     *
     * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API server refuses or is
     *         unreachable; the caller retries (a half-done publish is finished by the next one)
     */
    Published publish(String pool, List<Device> devices) {
        List<ResourceSlice> existing = ours(pool);
        long current = existing.stream().mapToLong(s -> s.getSpec().getPool().getGeneration()).max().orElse(0);
        List<ResourceSlice> latest = existing.stream()
                .filter(s -> s.getSpec().getPool().getGeneration() == current).toList();
        if (!latest.isEmpty() && latest.size() == existing.size() && complete(latest) && devices(latest).equals(devices)) {
            return new Published(current, latest.size(), false);
        }
        long generation = current + 1;
        List<List<Device>> chunks = chunks(devices);
        for (int i = 0; i < chunks.size(); i++) {
            client.resource(slice(pool, generation, i, chunks.size(), chunks.get(i))).create();
        }
        for (ResourceSlice old : existing) {
            client.resource(old).delete();
        }
        LOG.info("published pool {} of driver {} on node {}: generation {}, {} devices in {} slices", pool, driver,
                node, generation, devices.size(), chunks.size());
        return new Published(generation, chunks.size(), true);
    }

    /**
     * Deletes this driver's slices of this node whose pool is not in {@code keep}: a pool removed from the
     * configuration (or the single pool replaced by {@code pools}).
     *
     * @return the pools whose slices were deleted
     * @throws io.fabric8.kubernetes.client.KubernetesClientException as {@link #publish}
     */
    java.util.Set<String> deleteOtherPools(java.util.Set<String> keep) {
        java.util.Set<String> deleted = new java.util.TreeSet<>();
        for (ResourceSlice s : client.resources(ResourceSlice.class).withLabel(driver + "/node", labelValue(node))
                .list().getItems()) {
            if (s.getSpec() != null && driver.equals(s.getSpec().getDriver()) && node.equals(s.getSpec().getNodeName())
                    && s.getSpec().getPool() != null && !keep.contains(s.getSpec().getPool().getName())) {
                client.resource(s).delete();
                deleted.add(s.getSpec().getPool().getName());
            }
        }
        if (!deleted.isEmpty()) {
            LOG.info("deleted the ResourceSlices of pools {} of driver {} on node {}: no longer configured", deleted,
                    driver, node);
        }
        return deleted;
    }

    /** The driver's slices of this node and pool now, in slice-name order. */
    List<ResourceSlice> ours(String pool) {
        return client.resources(ResourceSlice.class).withLabels(labels(pool)).list().getItems().stream()
                .filter(s -> s.getSpec() != null && driver.equals(s.getSpec().getDriver())
                        && node.equals(s.getSpec().getNodeName()) && s.getSpec().getPool() != null
                        && pool.equals(s.getSpec().getPool().getName()))
                .sorted(Comparator.comparing(s -> s.getMetadata().getName())).toList();
    }

    /** Label values hold 63 characters; a longer node or pool name is labelled by a digest (the spec says which). */
    private Map<String, String> labels(String pool) {
        return Map.of(driver + "/node", labelValue(node), driver + "/pool", labelValue(pool));
    }

    static String labelValue(String value) {
        return value.length() <= 63 ? value : "sha256-" + digest(value).substring(0, 56);
    }

    private static String digest(String value) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(value.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has SHA-256", e);
        }
    }

    private static boolean complete(List<ResourceSlice> generation) {
        return generation.stream().allMatch(s -> Objects.equals(s.getSpec().getPool().getResourceSliceCount(),
                (long) generation.size()));
    }

    private static List<Device> devices(List<ResourceSlice> slices) {
        List<Device> all = new ArrayList<>();
        slices.forEach(s -> all.addAll(s.getSpec().getDevices()));
        return all;
    }

    /** An empty pool is one slice without devices: it tells the scheduler the pool exists and is empty. */
    private static List<List<Device>> chunks(List<Device> devices) {
        List<List<Device>> out = new ArrayList<>();
        for (int i = 0; i < devices.size(); i += MAX_DEVICES_PER_SLICE) {
            out.add(devices.subList(i, Math.min(devices.size(), i + MAX_DEVICES_PER_SLICE)));
        }
        if (out.isEmpty()) {
            out.add(List.of());
        }
        return out;
    }

    private ResourceSlice slice(String pool, long generation, int index, int count, List<Device> devices) {
        // Slice names: zero-padded index so that name order is slice order; a name past the 253 characters of a
        // DNS subdomain (long node and pool names) keeps its generation and index after a digest of the rest.
        String base = node + "-" + driver + "-" + pool;
        String suffix = String.format("-g%d-%03d", generation, index);
        String name = base.length() + suffix.length() <= 253 ? base + suffix : "sha256-" + digest(base) + suffix;
        return new ResourceSliceBuilder()
                .withMetadata(new ObjectMetaBuilder().withName(name).withLabels(labels(pool)).build())
                .withNewSpec().withDriver(driver).withNodeName(node)
                .withPool(new ResourcePoolBuilder().withName(pool).withGeneration(generation)
                        .withResourceSliceCount((long) count).build())
                .withDevices(devices).endSpec().build();
    }
}
