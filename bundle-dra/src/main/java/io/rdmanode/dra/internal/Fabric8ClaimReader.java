// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Optional;

/** {@link ClaimReader} on the API server: {@code GET resource.k8s.io/v1 resourceclaims/<name>} in the namespace. */
final class Fabric8ClaimReader implements ClaimReader {

    private final KubernetesClient client;

    Fabric8ClaimReader(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public Optional<AllocatedClaim> read(String namespace, String name) throws ClaimReadException {
        ResourceClaim claim;
        try {
            claim = client.resources(ResourceClaim.class).inNamespace(namespace).withName(name).get();
        } catch (KubernetesClientException e) {
            throw new ClaimReadException("API server answered " + e.getCode() + ": " + e.getMessage(), e);
        }
        if (claim == null) {
            return Optional.empty();
        }
        List<Result> results = Optional.ofNullable(claim.getStatus()).map(ResourceClaimStatus::getAllocation)
                .map(AllocationResult::getDevices).map(DeviceAllocationResult::getResults).orElse(List.of())
                .stream().map(r -> new Result(r.getRequest(), r.getDriver(), r.getPool(), r.getDevice())).toList();
        List<String> pods = Optional.ofNullable(claim.getStatus()).map(ResourceClaimStatus::getReservedFor)
                .orElse(List.of()).stream().filter(r -> "pods".equals(r.getResource()) && r.getUid() != null)
                .map(r -> r.getUid()).toList();
        return Optional.of(new AllocatedClaim(claim.getMetadata().getUid(), results, pods));
    }
}
