// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

/**
 * What {@link ConfigCollector} reads at scrape time, a service inside this bundle (its package is not exported):
 * the config bridge provides it.
 */
public interface ReloadCounts {

    /** Revisions applied since the config bundle started. */
    long appliedCount();

    /** Revisions rejected since the config bundle started. */
    long rejectedCount();
}
