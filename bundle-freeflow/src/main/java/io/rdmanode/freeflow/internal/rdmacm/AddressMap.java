// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The overlay-to-host address map of rdma_cm ({@code freeflow.addressMap}): the genuine router's hard-coded
 * {@code vip_map}, applied as it does ({@code map_vip}) to the addresses of BIND_IP, BIND, RESOLVE_IP and
 * RESOLVE_ADDR before the command reaches the kernel (freeflow.md §2.7). Entries are {@code overlay=host}: the
 * overlay side an IPv4 address (what containers know each other by), the host side the IPv4 or IPv6 address of
 * the host's RDMA netdev; an IPv6 one may carry a scope ({@code fe80::1%veth0}, or the interface index), needed
 * for link-local addresses. An overlay address also matches written IPv4-mapped ({@code ::ffff:10.44.0.1}), as
 * getaddrinfo gives it on a host without IPv4 addresses. Addresses not in the map go to the kernel unchanged.
 * Literals only: nothing is looked up in DNS.
 */
public final class AddressMap {
    public static final AddressMap EMPTY = new AddressMap(Map.of(), new String[0]);
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");
    private static final Pattern SCOPE = Pattern.compile("[A-Za-z0-9_.-]{1,15}");
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;

    private final Map<Inet4Address, Host> map;
    private final String[] entries;

    /** A host address: IPv4 (scope unused) or IPv6 with its scope id (0: none). */
    record Host(InetAddress address, int scopeId) {
    }

    private AddressMap(Map<Inet4Address, Host> map, String[] entries) {
        this.map = map;
        this.entries = entries;
    }

    /**
     * Parses {@code overlay=host} entries; an IllegalArgumentException names the first bad one (and is what the
     * configuration check reports).
     */
    public static AddressMap parse(String[] entries) {
        Map<Inet4Address, Host> m = new LinkedHashMap<>();
        for (String e : entries) {
            String[] kv = e.split("=", -1);
            if (kv.length != 2) {
                throw new IllegalArgumentException("addressMap entry '" + e + "': expected overlay=host");
            }
            Inet4Address overlay = ipv4(kv[0].trim(), e);
            if (m.put(overlay, host(kv[1].trim(), e)) != null) {
                throw new IllegalArgumentException("addressMap entry '" + e + "': overlay address "
                        + overlay.getHostAddress() + " mapped twice");
            }
        }
        return m.isEmpty() ? EMPTY : new AddressMap(Map.copyOf(m), entries.clone());
    }

    private static Inet4Address ipv4(String s, String entry) {
        var mt = IPV4.matcher(s);
        if (!mt.matches()) {
            throw new IllegalArgumentException("addressMap entry '" + entry + "': overlay '" + s
                    + "' is not an IPv4 address");
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            int v = Integer.parseInt(mt.group(i + 1));
            if (v > 255) {
                throw new IllegalArgumentException("addressMap entry '" + entry + "': '" + s + "' is not an IPv4 address");
            }
            b[i] = (byte) v;
        }
        try {
            return (Inet4Address) InetAddress.getByAddress(b);
        } catch (UnknownHostException x) {
            throw new IllegalStateException(x);                 // 4 bytes are always an address
        }
    }

    private static Host host(String s, String entry) {
        if (IPV4.matcher(s).matches()) {
            return new Host(ipv4(s, entry), 0);
        }
        int pct = s.indexOf('%');
        String addr = pct < 0 ? s : s.substring(0, pct);
        String scope = pct < 0 ? null : s.substring(pct + 1);
        if (!IPV6.matcher(addr).matches() || scope != null && !SCOPE.matcher(scope).matches()) {
            throw new IllegalArgumentException("addressMap entry '" + entry + "': host '" + s
                    + "' is not an IPv4 or IPv6 address");
        }
        try {
            InetAddress a = InetAddress.getByName(addr);        // a literal with ':': parsed, never resolved
            if (!(a instanceof Inet6Address)) {
                throw new IllegalArgumentException("addressMap entry '" + entry + "': host '" + s + "' is not IPv6");
            }
            return new Host(a, scope == null ? 0 : scopeId(scope, entry));
        } catch (UnknownHostException x) {
            throw new IllegalArgumentException("addressMap entry '" + entry + "': host '" + s
                    + "' is not an IPv6 address");
        }
    }

    private static int scopeId(String scope, String entry) {
        if (scope.chars().allMatch(Character::isDigit)) {
            return Integer.parseInt(scope);
        }
        try {
            NetworkInterface ni = NetworkInterface.getByName(scope);
            if (ni == null) {
                throw new IllegalArgumentException("addressMap entry '" + entry + "': no network interface '"
                        + scope + "' on this host");
            }
            return ni.getIndex();
        } catch (SocketException x) {
            throw new IllegalArgumentException("addressMap entry '" + entry + "': cannot read interface '" + scope
                    + "': " + x.getMessage());
        }
    }

    /**
     * An IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}): what glibc's getaddrinfo gives for an IPv4 literal
     * on a host without IPv4 addresses (AI_ADDRCONFIG with AI_V4MAPPED, its defaults; rping asks so).
     */
    private static boolean v4mapped(ByteBuffer b, int at) {
        for (int i = 0; i < 10; i++) {
            if (b.get(at + i) != 0) {
                return false;
            }
        }
        return b.get(at + 10) == (byte) 0xff && b.get(at + 11) == (byte) 0xff;
    }

    public int size() {
        return map.size();
    }

    public String[] entries() {
        return entries.clone();
    }

    /**
     * Rewrites the sockaddr at {@code off} of the kernel command {@code k} (room {@code room} bytes; its u16 size
     * field at {@code sizeOff}, -1 for none) when it is an IPv4 overlay address of the map; the port stays. An
     * IPv6 host address needs 28 bytes, which every rewritten field has. Returns whether it rewrote.
     */
    boolean rewrite(ByteBuffer k, int off, int room, int sizeOff) {
        ByteBuffer b = k.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        byte[] a = new byte[4];
        int family = b.getShort(off) & 0xffff;
        if (family == AF_INET) {
            b.get(off + 4, a);
        } else if (family == AF_INET6 && room >= 28 && v4mapped(b, off + 8)) {
            b.get(off + 20, a);                         // ::ffff:a.b.c.d
        } else {
            return false;
        }
        Host h;
        try {
            h = map.get((Inet4Address) InetAddress.getByAddress(a));
        } catch (UnknownHostException x) {
            return false;
        }
        if (h == null) {
            return false;
        }
        short port = b.getShort(off + 2);
        byte[] host = h.address().getAddress();
        for (int i = 0; i < Math.min(room, 28); i++) {
            b.put(off + i, (byte) 0);
        }
        b.putShort(off + 2, port);
        if (host.length == 4) {
            b.putShort(off, (short) AF_INET);
            b.put(off + 4, host);
        } else {
            b.putShort(off, (short) AF_INET6);
            b.put(off + 8, host);
            b.putInt(off + 24, h.scopeId());
        }
        if (sizeOff >= 0) {
            b.putShort(sizeOff, (short) (host.length == 4 ? 16 : 28));
        }
        return true;
    }
}
