// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One kernel uevent (NETLINK_KOBJECT_UEVENT group 1): {@code ACTION@DEVPATH\0KEY=VALUE\0…}
 * ({@code lib/kobject_uevent.c}).
 */
public record Uevent(Map<String, String> env) {

    public Uevent {
        env = Map.copyOf(env);
    }

    public String action() {
        return env.getOrDefault("ACTION", "");
    }

    public String subsystem() {
        return env.getOrDefault("SUBSYSTEM", "");
    }

    public String devpath() {
        return env.getOrDefault("DEVPATH", "");
    }

    public String get(String key, String otherwise) {
        return env.getOrDefault(key, otherwise);
    }

    /** Parses one datagram's first {@code n} bytes; the header line has no '=' and is skipped. */
    public static Uevent parse(byte[] buf, int n) {
        Map<String, String> env = new LinkedHashMap<>();
        int start = 0;
        for (int i = 0; i <= n; i++) {
            if (i == n || buf[i] == 0) {
                String kv = new String(buf, start, i - start, StandardCharsets.UTF_8);
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                start = i + 1;
            }
        }
        return new Uevent(env);
    }
}
