// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class InternalImportsTest {

    @Test
    void readsPackageNamesFromHeadersWithQuotedCommasAndSharedClauses() {
        assertThat(InternalImports.packages("a.b;version=\"[1.0,2)\",c.d;e.f;version=1;uses:=\"x.y,z\",g"))
                .containsExactly("a.b", "c.d", "e.f", "g");
        assertThat(InternalImports.packages(null)).isEmpty();
    }

    @Test
    void flagsAnAgentBundleImportingAnotherBundlesInternalPackage() {
        InternalImports metrics = new InternalImports("io.rdmanode.metrics", "rdma-agent-metrics.jar",
                List.of("io.rdmanode.health", "io.rdmanode.discovery.internal.sysfs"), List.of());
        assertThat(metrics.violations()).containsExactly("io.rdmanode.metrics (rdma-agent-metrics.jar): imports"
                + " another bundle's internal package io.rdmanode.discovery.internal.sysfs");
    }

    @Test
    void flagsAnyBundleImportingAnAgentInternalPackageAndAnAgentBundleExportingOne() {
        InternalImports thirdParty = new InternalImports("org.example", "x.jar",
                List.of("io.rdmanode.kubelet.internal"), List.of());
        InternalImports exporter = new InternalImports("io.rdmanode.kubelet", "k.jar",
                List.of("io.rdmanode.kubelet.internal"), List.of("io.rdmanode.kubelet.internal"));
        assertThat(thirdParty.violations()).hasSize(1);
        assertThat(exporter.violations()).containsExactly(
                "io.rdmanode.kubelet (k.jar): exports its internal package io.rdmanode.kubelet.internal");
    }

    @Test
    void flagsDynamicImportsThatReachInternalPackages() {
        InternalImports wildcard = new InternalImports("io.rdmanode.metrics", "m.jar", List.of(), List.of(),
                List.of("io.rdmanode.*"));
        InternalImports named = new InternalImports("io.rdmanode.metrics", "m.jar", List.of(), List.of(),
                List.of("io.rdmanode.discovery.internal"));
        InternalImports api = new InternalImports("io.rdmanode.metrics", "m.jar", List.of(), List.of(),
                List.of("io.rdmanode.discovery"));
        assertThat(wildcard.violations()).hasSize(1);
        assertThat(named.violations()).hasSize(1);
        assertThat(api.violations()).isEmpty();
    }

    @Test
    void leavesThirdPartyProjectsOwnInternalsAndTheDocumentedExceptionsAlone() {
        InternalImports netty = new InternalImports("io.netty.buffer", "netty-buffer.jar",
                List.of("io.netty.util.internal"), List.of("io.netty.buffer"));
        InternalImports grpc = new InternalImports("io.rdmanode.lib.grpc", "rdma-agent-lib-grpc.jar",
                List.of("io.grpc.internal", "io.netty.util.internal"), List.of("io.grpc", "io.grpc.internal"));
        assertThat(netty.violations()).isEmpty();
        assertThat(grpc.violations()).isEmpty();
    }
}
