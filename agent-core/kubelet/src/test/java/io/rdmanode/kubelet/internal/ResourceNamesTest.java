// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ResourceNamesTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "rdma/hca_a                 | ",
        "intel.com/sriov_rdma       | ",
        "rdma/hca.shared-1          | ",
        "hca_a                      | must be <domain>/<name>",
        "a/b/c                      | must be <domain>/<name>",
        "kubernetes.io/hca          | reserved",
        "node.kubernetes.io/hca     | reserved",
        "RDMA/hca                   | not a DNS subdomain",
        "rdma/-hca                  | alphanumeric at both ends",
        "rdma/                      | alphanumeric at both ends",
        "rdma/hca a                 | alphanumeric at both ends"})
    void acceptsOnlyExtendedResourceNames(String name, String problem) {
        if (problem == null) {
            assertThat(ResourceNames.problem(name)).isEmpty();
        } else {
            assertThat(ResourceNames.problem(name)).hasValueSatisfying(p -> assertThat(p).contains(problem));
        }
    }

    /** The longest name kubelet accepts: a 253-character domain and a 63-character name. */
    static String longestResourceName(char last) {
        String label = "d".repeat(62) + ".";
        String domain = (label.repeat(4) + "abc").substring(0, 253);
        return domain + "/" + "n".repeat(62) + last;
    }

    @Test
    void socketNamesFitSunPathForEveryAcceptedResourceNameAndStayDistinct() {
        String a = longestResourceName('a');
        String b = longestResourceName('b');
        assertThat(ResourceNames.problem(a)).isEmpty();
        String longestTag = "z".repeat(ResourceNames.MAX_INSTANCE_TAG);
        Set<String> names = new HashSet<>();
        for (String resource : new String[] {a, b, "rdma/hca_a", "example.com/" + "n".repeat(63)}) {
            String name = ResourceNames.socketFileName(resource, longestTag);
            assertThat(name.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(ResourceNames.MAX_SOCKET_NAME);
            assertThat(name).startsWith("rdma-node-agent.").endsWith("." + longestTag + ".sock");
            assertThat(Path.of("/var/lib/kubelet/device-plugins", name).toString().length())
                    .isLessThanOrEqualTo(ResourceNames.SUN_PATH_MAX);
            assertThat(ResourceNames.socketFileName(resource, longestTag)).isEqualTo(name);      // stable
            names.add(name);
        }
        assertThat(names).hasSize(4);
        assertThat(ResourceNames.socketFileName("rdma/hca_a", "m3x7k2ab"))
                .isEqualTo("rdma-node-agent.rdma_hca_a.m3x7k2ab.sock");
    }

    /** A surge upgrade: two instances, one resource, two sockets that tell their instance and resource. */
    @Test
    void eachInstanceHasItsOwnSocketNameForOneResource() {
        String first = InstanceTags.next();
        String second = InstanceTags.next();
        assertThat(InstanceTags.newer(second, first)).isTrue();
        assertThat(InstanceTags.newer(first, second)).isFalse();
        assertThat(first).hasSizeLessThanOrEqualTo(ResourceNames.MAX_INSTANCE_TAG);
        for (String resource : new String[] {"rdma/hca_a", "intel.com/" + "s".repeat(63)}) {
            String a = ResourceNames.socketFileName(resource, first);
            String b = ResourceNames.socketFileName(resource, second);
            assertThat(a).isNotEqualTo(b);
            assertThat(ResourceNames.instanceOf(a)).contains(first);
            assertThat(ResourceNames.instanceOf(b)).contains(second);
            assertThat(ResourceNames.resourcePartOf(a)).isPresent().isEqualTo(ResourceNames.resourcePartOf(b));
        }
        assertThat(ResourceNames.resourcePartOf(ResourceNames.socketFileName("rdma/hca_b", first)))
                .isNotEqualTo(ResourceNames.resourcePartOf(ResourceNames.socketFileName("rdma/hca_a", first)));
        assertThat(ResourceNames.instanceOf("kubelet.sock")).isEmpty();
        assertThatThrownBy(() -> ResourceNames.socketFileName("rdma/a", "Not/A.Tag"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A clock stepped back between two starts still gives the successor the newer tag. */
    @Test
    void aSuccessorsTagIsNewerThanEveryTagInTheDirectoryWhateverTheClock() {
        String future = Long.toString(System.currentTimeMillis() + 3_600_000L, 36);    // a predecessor's, clock ahead
        String next = InstanceTags.nextAfter(java.util.Optional.of(future));
        assertThat(InstanceTags.newer(next, future)).isTrue();
        assertThat(next).hasSizeLessThanOrEqualTo(ResourceNames.MAX_INSTANCE_TAG);
    }

    @Test
    void refusesADirectoryInWhichNoSocketFits() {
        assertThat(ResourceNames.socketDirProblem(Path.of("/var/lib/kubelet/device-plugins"))).isEmpty();
        assertThat(ResourceNames.socketDirProblem(Path.of("/host/var/lib/kubelet/plugins_registry"))).isEmpty();
        Path deep = Path.of("/" + "d".repeat(70));
        assertThat(ResourceNames.socketDirProblem(deep)).hasValueSatisfying(p -> assertThat(p)
                .contains(deep.toString()).contains("71 bytes").contains("sun_path").contains("at most 58"));
    }
}
