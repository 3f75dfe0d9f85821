// SPDX-License-Identifier: Apache-2.0
/*
 * The `rdma` CNI executable: forwards the command, the CNI_* environment and stdin to rdma-node-agent over a
 * Unix socket and prints the agent's answer. It holds no logic: a JVM start costs 65-90 ms on every pod
 * start, this costs about a millisecond. Wire format (agent side: io.rdmanode.cni.internal.CniServer):
 *   request  = "RDMACNI1\n" then "KEY=VALUE\0" per CNI_* variable, an empty "\0", then stdin to EOF
 *   response = "<exit code>\n" then the bytes for stdout
 * Unreachable agent -> CNI error code 11 (try again later) naming the socket, exit 1.
 * Socket path: $RDMA_AGENT_CNI_SOCKET, else the path the agent wrote into SOCKET_SLOT when it installed us.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

/* Patched in place by the agent's installer (same length, NUL-padded): keep the marker and the size. */
static volatile const char SOCKET_SLOT[108] = "@@RDMA_AGENT_CNI_SOCKET@@/run/rdma-node-agent/cni.sock";
__attribute__((used)) static const char VERSION[] = "@@RDMA_CNI_CLIENT_VERSION@@" CLIENT_VERSION;

static char in[1 << 20];

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t) w;
    }
    return 0;
}

/* The request's cniVersion, for the error object only; "1.0.0" when absent. Not a JSON parser. */
static void cni_version(const char *stdin_buf, char *out, size_t cap) {
    const char *k = strstr(stdin_buf, "\"cniVersion\"");
    snprintf(out, cap, "1.0.0");
    if (!k) return;
    k = strchr(k + 12, '"');
    if (!k) return;
    const char *e = strchr(k + 1, '"');
    if (!e || (size_t) (e - k - 1) >= cap) return;
    memcpy(out, k + 1, (size_t) (e - k - 1));
    out[e - k - 1] = 0;
}

static int agent_down(const char *path, const char *what, int err, const char *stdin_buf) {
    char v[32];
    cni_version(stdin_buf, v, sizeof v);
    printf("{\n    \"cniVersion\": \"%s\",\n    \"code\": 11,\n"
           "    \"msg\": \"rdma-node-agent is down (%s %s: %s); try again later\"\n}\n", v, what, path, strerror(err));
    return 1;
}

int main(void) {
    size_t n = 0;
    ssize_t r;
    while (n < sizeof in - 1 && (r = read(0, in + n, sizeof in - 1 - n)) != 0) {
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        n += (size_t) r;
    }
    in[n] = 0;

    const char *path = getenv("RDMA_AGENT_CNI_SOCKET");
    if (!path || !*path) path = (const char *) SOCKET_SLOT + strlen("@@RDMA_AGENT_CNI_SOCKET@@");
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) return agent_down(path, "socket path too long", ENAMETOOLONG, in);
    strcpy(addr.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *) &addr, sizeof addr) < 0)
        return agent_down(path, "cannot connect to", errno, in);

    if (write_all(fd, "RDMACNI1\n", 9) < 0) return agent_down(path, "cannot write to", errno, in);
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "CNI_", 4) == 0 && write_all(fd, *e, strlen(*e) + 1) < 0)
            return agent_down(path, "cannot write to", errno, in);
    }
    if (write_all(fd, "", 1) < 0 || write_all(fd, in, n) < 0) return agent_down(path, "cannot write to", errno, in);
    shutdown(fd, SHUT_WR);

    static char out[1 << 20];
    size_t m = 0;
    while (m < sizeof out - 1 && (r = read(fd, out + m, sizeof out - 1 - m)) != 0) {
        if (r < 0) {
            if (errno == EINTR) continue;
            return agent_down(path, "lost the connection to", errno, in);
        }
        m += (size_t) r;
    }
    out[m] = 0;
    char *nl = memchr(out, '\n', m);
    if (!nl) return agent_down(path, "no answer (the agent stopped while handling the request) from", ECONNRESET, in);
    int code = atoi(out);
    size_t head = (size_t) (nl - out) + 1;
    write_all(1, out + head, m - head);
    return code;
}
