// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

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
}
