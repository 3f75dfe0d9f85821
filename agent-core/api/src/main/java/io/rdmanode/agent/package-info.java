// SPDX-License-Identifier: Apache-2.0
/**
 * The platform API shared by the launcher and every agent bundle: the framework property and manifest header
 * names ({@link io.rdmanode.agent.AgentProperties}), the launcher's logging control service
 * ({@link io.rdmanode.agent.LoggingControl}), the one directory watcher ({@link io.rdmanode.agent.DirectoryWatcher}),
 * the HOCON substitution helper ({@link io.rdmanode.agent.Hocon}), the recorded-host text archive
 * ({@link io.rdmanode.agent.Ttar}), the contract of a component's own configuration check
 * ({@link io.rdmanode.agent.ConfigValidator}) and the refusal its settings code throws, naming the property
 * ({@link io.rdmanode.agent.SettingException}).
 *
 * <p>1.2: {@code SettingException} and {@code ConfigValidator.Refusal.of} are new.
 * <p>1.3: {@link io.rdmanode.agent.LogText} (untrusted text made safe for a log line) and
 * {@link io.rdmanode.agent.RefusalLog} (refusals logged once per key and interval, with a count) and
 * {@link io.rdmanode.agent.StartupGate} (a start-up resource a component cannot get stops the starting agent) are new.
 * <p>1.4: {@link io.rdmanode.agent.Handover} (listening sockets and the state directory passed to a successor) is new.
 * <p>1.5: {@code Handover.writer()} (whether this process is the state directory's one writer now) and
 * {@code Handover.tookOver()} (whether it took over from a predecessor) are new.
 * <p>1.6: {@link io.rdmanode.agent.RdmaDeviceChooser} (an RDMA device chosen by the pools' selectors, offered by
 * the device-plugin layer to components that must not wire to its packages) and
 * {@link io.rdmanode.agent.StartupBarrier} (start-up work the launcher lets settle before it starts the bundles
 * not needed to serve kubelet) are new.
 *
 * <p>1.7: {@code Hocon.MAX_FILE_BYTES} and {@code Hocon.tooLarge} (the one size limit of a configuration file,
 * for the launcher and the config bundle) and {@code StartupGate.invalidConfiguration} (a start-up configuration
 * refused by a component's check ends the start with exit 6) are new.
 *
 * <p>In the distribution the system bundle exports this package (the jar is on the launcher's class path), so
 * the launcher and the bundles share one copy of every class here.
 *
 * @since 1.0
 */
@Export
@Version("1.8.0")
package io.rdmanode.agent;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
