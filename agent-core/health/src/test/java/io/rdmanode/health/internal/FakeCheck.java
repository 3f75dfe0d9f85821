// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import java.util.function.Supplier;

/** A health check whose answer the test sets, and may change while the server runs. */
final class FakeCheck implements HealthCheck {

    private final String name;
    private final Kind kind;
    private volatile Supplier<HealthStatus> status;

    FakeCheck(String name, Kind kind, Supplier<HealthStatus> status) {
        this.name = name;
        this.kind = kind;
        this.status = status;
    }

    static FakeCheck ok(String name, Kind kind, String message) {
        return new FakeCheck(name, kind, () -> HealthStatus.ok(message));
    }

    void answer(HealthStatus next) {
        this.status = () -> next;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Kind kind() {
        return kind;
    }

    @Override
    public HealthStatus check() {
        return status.get();
    }
}
