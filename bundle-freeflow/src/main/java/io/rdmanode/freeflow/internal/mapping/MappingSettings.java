// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.mapping;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The inter-host MR mapping: the hosts whose routers this one announces its MRs to and accepts announcements from
 * ({@code freeflow.hosts}, IP literals), the UDP port every router listens on (the genuine routers' 11232), the
 * local address it binds, and how long an announcement waits for each host's acknowledgement and how often it is
 * sent (UDP loses datagrams; the genuine router waits forever for one).
 */
public record MappingSettings(List<InetAddress> hosts, int port, InetAddress bind, long ackTimeoutMillis, int attempts) {

    public static final int GENUINE_PORT = 11232;

    public MappingSettings {
        hosts = List.copyOf(hosts);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("freeflow.mappingPort must be 1-65535, got " + port);
        }
        if (ackTimeoutMillis < 1 || attempts < 1) {
            throw new IllegalArgumentException("freeflow mapping acknowledgement timeout and attempts must be >= 1");
        }
    }

    /** Parses the configured host list: IPv4 or IPv6 literals only (a name would need DNS on the verb's path). */
    public static MappingSettings of(String[] hosts, int port, String bind, long ackTimeoutMillis, int attempts) {
        List<InetAddress> list = new ArrayList<>();
        for (String h : hosts == null ? new String[0] : hosts) {
            list.add(literal("freeflow.hosts", h));
        }
        if (Set.copyOf(list).size() != list.size()) {
            throw new IllegalArgumentException("freeflow.hosts lists a host twice: " + List.of(hosts));
        }
        return new MappingSettings(list, port, literal("freeflow.mappingBind", bind), ackTimeoutMillis, attempts);
    }

    /** The service runs whenever the host list is non-empty, whatever the transport. */
    public boolean enabled() {
        return !hosts.isEmpty();
    }

    private static InetAddress literal(String key, String value) {
        String v = value == null ? "" : value.trim();
        boolean looksLiteral = !v.isEmpty() && (v.indexOf(':') >= 0 || v.chars().allMatch(c -> c == '.' || Character.isDigit(c)));
        if (!looksLiteral) {
            throw new IllegalArgumentException(key + ": '" + value + "' is not an IP address");
        }
        try {
            return InetAddress.getByName(v);          // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(key + ": '" + value + "' is not an IP address", e);
        }
    }
}
