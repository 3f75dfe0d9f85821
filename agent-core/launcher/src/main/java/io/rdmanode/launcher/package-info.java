// SPDX-License-Identifier: Apache-2.0
/**
 * The agent's launcher, a plain jar (not a bundle): {@link io.rdmanode.launcher.Main} embeds Apache Felix with
 * the platform API, typesafe-config and SLF4J exported by the system bundle ({@code AgentFramework}), owns the
 * logging backend, and answers SIGTERM with a bounded stop; {@code status} and {@code check-config} are its
 * subcommands.
 * <p>
 * Hot swap: {@code BundleDirectory} keeps the framework's bundles equal to the jars of {@code bundles/}, and
 * {@code BundleDirectoryWatcher} calls it when the directory has been quiet for 250 ms. A jar is identified by
 * the SHA-256 digest of its bytes, so an unchanged jar ({@code touch}, the same build copied over it) is never
 * swapped; a changed one is read only once settled (same size and time stamp across the read), checked to be a
 * complete bundle (refused with one log line otherwise, the running build staying), and its bundle restarts
 * once: stopped, updated, refreshed once with its dependents, started.
 */
package io.rdmanode.launcher;
