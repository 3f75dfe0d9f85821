// SPDX-License-Identifier: Apache-2.0
/**
 * The Freeflow router, in parts (internal: nothing outside the bundle calls it).
 *
 * <ul>
 *   <li>{@link io.rdmanode.freeflow.internal.router.ControlServer}: the Unix control socket; {@code ControlLoop},
 *       the one thread that polls connections in use and reads requests without blocking; {@code IdleSet}, the
 *       thread that polls quiet ones; a resizable pool of workers running the
 *       {@link io.rdmanode.freeflow.internal.router.Dispatcher} on complete requests (call the router, answer);
 *       GET_CQ_EVENT parked on its channel ({@code CqEventWaiter}); connection caps and timeouts
 *       ({@link io.rdmanode.freeflow.internal.router.ControlSettings}); and the reaper of exited clients.</li>
 *   <li>{@link io.rdmanode.freeflow.internal.router.Router}: the control verbs (PD, CQ, completion channel, QP,
 *       SRQ, MR), checked against the caller's own tables and quotas ({@link
 *       io.rdmanode.freeflow.internal.router.Limits}, replaced live; refusals counted by
 *       {@link io.rdmanode.freeflow.internal.router.Resource}) before anything is created; it holds the
 *       parts below under its monitor.</li>
 *   <li>{@code TenantTable}: the client processes by peer pid, each a {@code Tenant} with its handle tables;
 *       {@code QpnSpace}: the QP numbers shared by every tenant, where a transport finds a QP's peer;
 *       {@code ShmStore}: the MR files and mailboxes in the shm directory; {@code CompletionChannels}: the
 *       completion channels (eventfds) and CQ events, fired when a transport reports a completion;
 *       {@code AsyncEvents}: each tenant's async events (port, QP, CQ, SRQ), only ever its own objects'.</li>
 *   <li>{@code Transport}: what moves the data and owns QP state and completions. {@code SoftwareTransport}
 *       (RC and UC inside one host, one copy between MR files, RNR retries on the poller's timer) and
 *       {@code VerbsTransport} (real PD/CQ/QP/SRQ/AH/MR over the tenant's shm on an RDMA device, its completion
 *       channel and async events read by one {@code DeviceEvents} thread per device).</li>
 *   <li>{@link io.rdmanode.freeflow.internal.router.MailboxPoller} and {@code FastPath}: the one router thread
 *       that serves POST_SEND/POST_RECV/POLL_CQ from shm mailboxes, with back-off settings
 *       ({@link io.rdmanode.freeflow.internal.router.PollerSettings}) that change while it runs.</li>
 * </ul>
 *
 * The component ({@code io.rdmanode.freeflow.internal.FreeflowComponent}) builds a router from a configuration's
 * identity (socket path, shm directory) and applies its tuning (limits, poller, control bounds, reap interval)
 * in place.
 */
package io.rdmanode.freeflow.internal.router;
