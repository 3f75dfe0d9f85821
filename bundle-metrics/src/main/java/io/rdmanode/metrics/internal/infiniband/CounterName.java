// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How one kernel counter file becomes a metric family. Known files take node_exporter's infiniband collector
 * names (suffix, unit, help) so its dashboards work with our prefix; any other file is reported too, under a
 * name made from the file name.
 *
 * @param suffix family name after {@code rdma_agent_infiniband_}, without {@code _total}
 * @param scale  multiplier from the file's unit to the metric's (4 for the word-counting data counters)
 * @param gauge  a setting rather than a counter ({@code lifespan})
 */
record CounterName(String suffix, String help, double scale, boolean gauge, boolean bytes) {

    static final String PREFIX = "rdma_agent_infiniband_";
    private static final Pattern NOT_NAME = Pattern.compile("[^a-z0-9_]");

    private static CounterName counter(String suffix, String help) {
        return new CounterName(suffix, help, 1, false, false);
    }

    /**
     * {@code ports/N/counters/*}, the PMA port counters of the InfiniBand Architecture Specification (Vol. 1,
     * 16.1.3.5 PortCounters and PortCountersExtended), as the kernel names them
     * ({@code Documentation/ABI/stable/sysfs-class-infiniband}).
     */
    private static final Map<String, CounterName> PMA = Map.ofEntries(
            Map.entry("port_rcv_data", new CounterName("port_data_received_bytes",
                    "Number of data octets received on all links", 4, false, true)),
            Map.entry("port_xmit_data", new CounterName("port_data_transmitted_bytes",
                    "Number of data octets transmitted on all links", 4, false, true)),
            Map.entry("port_rcv_packets", counter("port_packets_received",
                    "Number of packets received on all VLs by this port (including errors)")),
            Map.entry("port_xmit_packets", counter("port_packets_transmitted",
                    "Number of packets transmitted on all VLs from this port (including errors)")),
            Map.entry("unicast_rcv_packets", counter("unicast_packets_received",
                    "Number of unicast packets received (including errors)")),
            Map.entry("unicast_xmit_packets", counter("unicast_packets_transmitted",
                    "Number of unicast packets transmitted (including errors)")),
            Map.entry("multicast_rcv_packets", counter("multicast_packets_received",
                    "Number of multicast packets received (including errors)")),
            Map.entry("multicast_xmit_packets", counter("multicast_packets_transmitted",
                    "Number of multicast packets transmitted (including errors)")),
            Map.entry("port_rcv_errors", counter("port_errors_received",
                    "Number of packets containing an error that were received on this port")),
            Map.entry("port_rcv_discards", counter("port_discards_received",
                    "Number of inbound packets discarded by the port because the port is down or congested")),
            Map.entry("port_xmit_discards", counter("port_discards_transmitted",
                    "Number of outbound packets discarded by the port because the port is down or congested")),
            Map.entry("port_rcv_constraint_errors", counter("port_constraint_errors_received",
                    "Number of packets received on the switch physical port that are discarded")),
            Map.entry("port_xmit_constraint_errors", counter("port_constraint_errors_transmitted",
                    "Number of packets not transmitted from the switch physical port")),
            Map.entry("port_xmit_wait", counter("port_transmit_wait", "Number of ticks during which the port had"
                    + " data to transmit but no data was sent during the entire tick")),
            Map.entry("link_downed", counter("link_downed",
                    "Number of times the link failed to recover from an error state and went down")),
            Map.entry("link_error_recovery", counter("link_error_recovery",
                    "Number of times the link successfully recovered from an error state")),
            Map.entry("local_link_integrity_errors", counter("local_link_integrity_errors", "Number of times that"
                    + " the count of local physical errors exceeded the threshold specified by LocalPhyErrors.")),
            Map.entry("excessive_buffer_overrun_errors", counter("excessive_buffer_overrun_errors",
                    "Number of times that OverrunErrors consecutive flow control update periods occurred, each"
                            + " having at least one overrun error.")),
            Map.entry("port_rcv_remote_physical_errors", counter("port_receive_remote_physical_errors",
                    "Number of packets marked with the EBP (End of Bad Packet) delimiter received on the port.")),
            Map.entry("port_rcv_switch_relay_errors", counter("port_receive_switch_relay_errors",
                    "Number of packets that could not be forwarded by the switch.")),
            Map.entry("symbol_error", counter("symbol_error",
                    "Number of minor link errors detected on one or more physical lanes.")),
            Map.entry("VL15_dropped", counter("vl15_dropped",
                    "Number of incoming VL15 packets dropped due to resource limitations.")));

    /** {@code ports/N/hw_counters/*}: mlx5 driver counters, named as node_exporter (procfs) names them. */
    private static final Map<String, CounterName> HW = Map.ofEntries(
            Map.entry("lifespan", new CounterName("lifespan_seconds",
                    "The maximum age of the hw_counters values the kernel returns (a setting, not a counter)",
                    0.001, true, false)),
            Map.entry("duplicate_request", counter("duplicate_requests_packets",
                    "Number of received duplicate request packets")),
            Map.entry("implied_nak_seq_err", counter("implied_nak_seq_errors",
                    "Number of times the requester decided an ACK with a PSN larger than expected was received")),
            Map.entry("local_ack_timeout_err", counter("local_ack_timeout_errors",
                    "Number of times the QP's ack timer expired (RC, XRC, DCT QPs at the sender side)")),
            Map.entry("np_cnp_sent", counter("np_cnp_packets_sent",
                    "Number of CNP packets sent by the Notification Point when it noticed congestion")),
            Map.entry("np_ecn_marked_roce_packets", counter("np_ecn_marked_roce_packets_received",
                    "Number of RoCEv2 packets received by the notification point which were ECN-marked")),
            Map.entry("out_of_buffer", counter("out_of_buffer_drops",
                    "Number of drops which occurred due to lack of WQE for the associated QPs")),
            Map.entry("out_of_sequence", counter("out_of_sequence_packets_received",
                    "Number of out-of-sequence packets received")),
            Map.entry("packet_seq_err", counter("packet_sequence_errors",
                    "Number of received NAK sequence error packets")),
            Map.entry("req_cqe_error", counter("req_cqes_errors", "Number of times requester detected CQEs"
                    + " completed with errors")),
            Map.entry("req_cqe_flush_error", counter("req_cqes_flush_errors", "Number of times requester detected"
                    + " CQEs completed with flushed errors")),
            Map.entry("req_remote_access_errors", counter("req_remote_access_errors",
                    "Number of times requester detected remote access errors")),
            Map.entry("req_remote_invalid_request", counter("req_remote_invalid_request_errors",
                    "Number of times requester detected remote invalid request errors")),
            Map.entry("resp_cqe_error", counter("resp_cqes_errors", "Number of times responder detected CQEs"
                    + " completed with errors")),
            Map.entry("resp_cqe_flush_error", counter("resp_cqes_flush_errors", "Number of times responder"
                    + " detected CQEs completed with flushed errors")),
            Map.entry("resp_local_length_error", counter("resp_local_length_errors",
                    "Number of times responder detected local length errors")),
            Map.entry("resp_remote_access_errors", counter("resp_remote_access_errors",
                    "Number of times responder detected remote access errors")),
            Map.entry("rnr_nak_retry_err", counter("rnr_nak_retry_packets_received",
                    "Number of received RNR NAK packets")),
            Map.entry("roce_adp_retrans", counter("roce_adp_retransmits",
                    "Number of adaptive retransmissions for RoCE traffic")),
            Map.entry("roce_adp_retrans_to", counter("roce_adp_retransmits_timeout",
                    "Number of times RoCE traffic reached timeout due to adaptive retransmission")),
            Map.entry("roce_slow_restart", counter("roce_slow_restart_used",
                    "Number of times RoCE slow restart was used")),
            Map.entry("roce_slow_restart_cnps", counter("roce_slow_restart_cnps",
                    "Number of times RoCE slow restart generated CNP packets")),
            Map.entry("roce_slow_restart_trans", counter("roce_slow_restart",
                    "Number of times RoCE slow restart changed state to slow restart")),
            Map.entry("rp_cnp_handled", counter("rp_cnp_packets_handled",
                    "Number of CNP packets handled by the Reaction Point HCA to throttle the transmission rate")),
            Map.entry("rp_cnp_ignored", counter("rp_cnp_ignored_packets_received",
                    "Number of CNP packets received and ignored by the Reaction Point HCA")),
            Map.entry("rx_atomic_requests", counter("rx_atomic_requests",
                    "Number of received ATOMIC request for the associated QPs")),
            Map.entry("rx_dct_connect", counter("rx_dct_connect_requests",
                    "Number of received connection requests for the associated DCTs")),
            Map.entry("rx_read_requests", counter("rx_read_requests",
                    "Number of received READ requests for the associated QPs")),
            Map.entry("rx_write_requests", counter("rx_write_requests",
                    "Number of received WRITE requests for the associated QPs")),
            Map.entry("rx_icrc_encapsulated", counter("rx_icrc_encapsulated_errors",
                    "Number of RoCE packets with ICRC errors")));

    /**
     * {@code ports/N/counters_ext/*}: the 64-bit PortCountersExtended values mlx4/mlx5 keep beside
     * {@code counters/}, under node_exporter's {@code legacy_*} names (its infiniband collector, procfs
     * {@code parseInfiniBandCounters}); the data counters count 4-byte words, as in {@code counters/}.
     */
    private static final Map<String, CounterName> EXT = Map.ofEntries(
            Map.entry("port_multicast_rcv_packets", counter("legacy_multicast_packets_received",
                    "Number of multicast packets received")),
            Map.entry("port_multicast_xmit_packets", counter("legacy_multicast_packets_transmitted",
                    "Number of multicast packets transmitted")),
            Map.entry("port_rcv_data_64", new CounterName("legacy_data_received_bytes",
                    "Number of data octets received on all links", 4, false, true)),
            Map.entry("port_rcv_packets_64", counter("legacy_packets_received",
                    "Number of data packets received on all links")),
            Map.entry("port_unicast_rcv_packets", counter("legacy_unicast_packets_received",
                    "Number of unicast packets received")),
            Map.entry("port_unicast_xmit_packets", counter("legacy_unicast_packets_transmitted",
                    "Number of unicast packets transmitted")),
            Map.entry("port_xmit_data_64", new CounterName("legacy_data_transmitted_bytes",
                    "Number of data octets transmitted on all links", 4, false, true)),
            Map.entry("port_xmit_packets_64", counter("legacy_packets_transmitted",
                    "Number of data packets transmitted on all links")));

    /** The family of a {@code counters_ext/} file. */
    static CounterName ofCounterExt(String file) {
        CounterName known = EXT.get(file);
        return known != null ? known : counter("counters_ext_" + sanitize(file),
                "Extended port counter " + file + " (counters_ext/" + file + "), as the driver reports it");
    }

    /** The family of a {@code counters/} file. */
    static CounterName ofCounter(String file) {
        CounterName known = PMA.get(file);
        return known != null ? known : counter("counters_" + sanitize(file),
                "Port counter " + file + " (counters/" + file + "), as the kernel reports it");
    }

    /** The family of a port-level {@code hw_counters/} file. */
    static CounterName ofHwCounter(String file) {
        CounterName known = HW.get(file);
        return known != null ? known : counter("hw_" + sanitize(file),
                "Driver counter " + file + " (hw_counters/" + file + "), as the driver reports it");
    }

    /** The family of a device-level {@code hw_counters/} file (no port label). */
    static CounterName ofDeviceHwCounter(String file) {
        return file.equals("lifespan")
                ? new CounterName("device_lifespan_seconds", HW.get("lifespan").help(), 0.001, true, false)
                : counter("device_hw_" + sanitize(file),
                        "Device-wide driver counter " + file + " (hw_counters/" + file + ")");
    }

    String name() {
        return PREFIX + suffix;
    }

    static String sanitize(String file) {
        return NOT_NAME.matcher(file.toLowerCase(Locale.ROOT)).replaceAll("_");
    }
}
