// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Routers the component makes, each with the verbs transport on a fresh {@link FakeVerbsDevice} (no RDMA device on
 * a build host), recording the settings each was made with: which device the component asked for.
 */
public final class FakeDeviceRouters implements Function<RouterSettings, Router> {

    public final List<RouterSettings> made = new ArrayList<>();

    @Override
    public synchronized Router apply(RouterSettings settings) {
        made.add(settings);
        return settings.backend().verbs() ? new Router(settings, new FakeVerbsDevice(3)) : new Router(settings);
    }

    /** The device names the component's routers were made on, in order. */
    public synchronized List<String> devices() {
        return made.stream().map(s -> s.backend().device()).toList();
    }
}
