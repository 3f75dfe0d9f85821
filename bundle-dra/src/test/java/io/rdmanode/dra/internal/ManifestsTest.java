// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example manifests ({@code bundle-dra/kubernetes}) parse as the API objects they claim to be, are accepted by
 * the mock API server, and name only attributes the driver publishes for the recorded host.
 */
@EnableKubernetesMockClient(crud = true)
class ManifestsTest {

    private static final Path DIR = Path.of("kubernetes");
    private static final Path SHIPPED_DAEMONSET = Path.of("../dist/src/main/dist/kubernetes/daemonset.yaml");
    private static final Pattern ATTRIBUTE = Pattern.compile("device\\.attributes\\[\"([^\"]+)\"\\]\\.(\\w+)");

    KubernetesClient client;

    @TempDir
    Path hostDir;

    private List<HasMetadata> load(String file) throws Exception {
        try (InputStream in = Files.newInputStream(DIR.resolve(file))) {
            return client.load(in).items();
        }
    }

    @Test
    void theExamplesAreValidObjectsTheApiServerAccepts() throws Exception {
        // The role is the shipped DaemonSet's, bound to the ServiceAccount its pods run as.
        List<HasMetadata> daemonSet;
        try (InputStream in = Files.newInputStream(SHIPPED_DAEMONSET)) {
            daemonSet = client.load(in).items();
        }
        ClusterRole role = daemonSet.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast)
                .filter(r -> r.getMetadata().getName().equals("rdma-node-agent-dra")).findFirst().orElseThrow();
        assertThat(role.getRules()).anyMatch(r -> r.getResources().contains("resourceslices")
                && r.getVerbs().containsAll(List.of("create", "list", "delete")));
        assertThat(role.getRules()).anyMatch(r -> r.getResources().contains("resourceclaims")
                && r.getVerbs().contains("get"));
        var binding = daemonSet.stream().filter(io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class::isInstance)
                .map(io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding.class::cast).findFirst().orElseThrow();
        var pods = daemonSet.stream().filter(io.fabric8.kubernetes.api.model.apps.DaemonSet.class::isInstance)
                .map(io.fabric8.kubernetes.api.model.apps.DaemonSet.class::cast).findFirst().orElseThrow();
        assertThat(binding.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
        assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
            assertThat(s.getName()).isEqualTo(pods.getSpec().getTemplate().getSpec().getServiceAccountName());
            assertThat(s.getNamespace()).isEqualTo(pods.getMetadata().getNamespace());
        });

        List<HasMetadata> classes = load("deviceclass.yaml");
        assertThat(classes).allMatch(DeviceClass.class::isInstance).hasSize(2);
        List<HasMetadata> claim = load("resourceclaimtemplate.yaml");
        assertThat(claim.get(0)).isInstanceOf(ResourceClaimTemplate.class);
        assertThat(claim.get(1)).isInstanceOf(Pod.class);
        ResourceClaimTemplate template = (ResourceClaimTemplate) claim.get(0);
        assertThat(template.getSpec().getSpec().getDevices().getRequests().get(0).getExactly().getDeviceClassName())
                .isEqualTo(classes.get(1).getMetadata().getName());

        for (HasMetadata o : List.of(classes.get(0), classes.get(1), template)) {
            assertThat(client.resource(o).create().getMetadata().getName()).isEqualTo(o.getMetadata().getName());
        }
    }

    @Test
    void theDeviceClassesSelectOnAttributesTheDriverPublishes() throws Exception {
        var host = RecordedHostDiscovery.unpack("cx5-roce-sriov", hostDir).snapshot();
        List<Device> devices = new SliceDevices(new PcieRoots(hostDir.resolve("sys"))).of(host);
        for (HasMetadata o : load("deviceclass.yaml")) {
            String cel = ((DeviceClass) o).getSpec().getSelectors().get(0).getCel().getExpression();
            assertThat(cel).contains("device.driver == \"" + DraSettings.DEFAULT_DRIVER + "\"");
            Matcher m = ATTRIBUTE.matcher(cel);
            while (m.find()) {
                String name = m.group(1).equals(DraSettings.DEFAULT_DRIVER) ? m.group(2) : m.group(1) + "/" + m.group(2);
                assertThat(devices).as("devices with attribute %s", name)
                        .anyMatch(d -> d.getAttributes().containsKey(name));
            }
        }
    }
}
