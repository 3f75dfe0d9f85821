// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Sources a test fills in and changes while the server runs; stands in for the framework and SCR. */
final class FixedHealthSources implements HealthSources {

    final List<HealthCheck> checks = new CopyOnWriteArrayList<>();
    final List<BundleInfo> bundles = new CopyOnWriteArrayList<>();
    final List<ComponentInfo> components = new CopyOnWriteArrayList<>();
    volatile AgentInfo agent;
    volatile RuntimeException bundlesFailure;

    FixedHealthSources(AgentInfo agent) {
        this.agent = agent;
    }

    @Override
    public List<HealthCheck> checks() {
        return List.copyOf(checks);
    }

    @Override
    public List<BundleInfo> bundles() {
        if (bundlesFailure != null) {
            throw bundlesFailure;
        }
        return List.copyOf(bundles);
    }

    @Override
    public List<ComponentInfo> components() {
        return List.copyOf(components);
    }

    @Override
    public AgentInfo agent() {
        return agent;
    }
}
