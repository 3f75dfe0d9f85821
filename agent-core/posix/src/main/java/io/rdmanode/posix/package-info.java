// SPDX-License-Identifier: Apache-2.0
/**
 * The agent's one native layer: every libc call the agent makes, bound once through jnr-ffi in the posix bundle
 * and offered here with no jnr type in sight ({@link io.rdmanode.posix.Posix#libc()}): Unix and netlink
 * sockets (with {@code SCM_RIGHTS} and {@code SO_PEERCRED}), pipes, eventfd, poll, pidfd, open/close,
 * setns/unshare/mount for work inside a network namespace, prctl. Errors are
 * {@link io.rdmanode.posix.PosixException}s that name the call and the errno ({@link io.rdmanode.posix.Errno}).
 *
 * <p>The bundle is also the agent's only copy of jnr-ffi and jffi, whose packages it exports for bundles that bind
 * a library other than libc (verbs binds libibverbs); such a bundle keeps jnr types in its internal packages.
 *
 * <p>1.1: {@link io.rdmanode.posix.Posix#dup3}, {@code connect}, {@code flock} and {@code F_DUPFD_CLOEXEC} (listening
 * sockets and the state directory passed at a handover).
 *
 * <p>1.2: {@link io.rdmanode.posix.FdLines}, the line protocol with descriptors that the handover and the Freeflow
 * router's drain speak.
 *
 * <p>1.3: {@link io.rdmanode.posix.Posix#openat}, for files read often relative to an open directory (discovery's
 * counter files).
 *
 * <p>1.4: {@link io.rdmanode.posix.Posix#pidfdSendSignal}, {@link io.rdmanode.posix.Posix#peerPidfd}, {@code SIGKILL}
 * and {@code MSG_PEEK} (a handover's successor that stopped
 * answering is ended).
 *
 * @since 1.0
 */
@Export
@Version("1.4.0")
package io.rdmanode.posix;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
