// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.agent.ConfigValidator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.osgi.annotation.bundle.Header;

/**
 * The HTTP endpoint's own check of {@code agent.http { ... }} beyond MetaType's port range: {@code host} is an
 * address to bind (an IPv4 or IPv6 literal, or a host name), checked without a name lookup.
 * {@link AgentHttpServer} runs the same check on activation ({@link #require}).
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class HttpConfigCheck implements ConfigValidator {

    private static final Pattern IPV4_LIKE = Pattern.compile("[0-9.]+");
    private static final Pattern IPV4 = Pattern.compile(
            "((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");
    private static final Pattern IPV6 = Pattern.compile("\\[?[0-9A-Fa-f:.]*:[0-9A-Fa-f:.%a-z0-9]*]?");
    private static final Pattern HOST_NAME = Pattern.compile(
            "(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");

    @Override
    public List<Refusal> validate(Proposal proposal) {
        Map<String, Object> p = proposal.configurations().get(AgentHttpServer.PID);
        if (p != null && p.get("host") instanceof String host && hostProblem(host) != null) {
            return List.of(new Refusal(AgentHttpServer.PID, "host", hostProblem(host)));
        }
        return List.of();
    }

    /** Throws what {@link #validate} would refuse in {@code config}: the component's activation check. */
    static void require(AgentHttpServer.Config config) {
        String problem = hostProblem(config.host());
        if (problem != null) {
            throw new IllegalArgumentException("agent.http.host: " + problem);
        }
    }

    static String hostProblem(String host) {
        boolean ok = IPV4_LIKE.matcher(host).matches() ? IPV4.matcher(host).matches()
                : IPV6.matcher(host).matches() || HOST_NAME.matcher(host).matches();
        return ok ? null : "'" + host + "' is not an address to bind: an IPv4 address (127.0.0.1, 0.0.0.0 for every"
                + " interface; each part 0..255), an IPv6 address (::1) or a host name";
    }
}
