// SPDX-License-Identifier: Apache-2.0
/*
 * The `rdma` CNI executable: forwards the command, the CNI_* environment and stdin to rdma-node-agent over a
 * Unix socket and prints the agent's answer. It holds no logic: a JVM start costs 65-90 ms on every pod
 * start, this costs about a millisecond. Wire format (agent side: io.rdmanode.cni.internal.CniServer):
 *   request  = "RDMACNI1\n" then "KEY=VALUE\0" per CNI_* variable, an empty "\0", then stdin to EOF
 *   response = "<exit code>\n" then the bytes for stdout
 * Unreachable agent -> CNI error code 11 (try again later) naming the socket, exit 1; except DEL, which the
 * runtime must be able to finish without the agent (it stops a chain's cleanup at the first failing plugin):
 *   - nothing recorded for CNI_CONTAINERID + CNI_IFNAME in the agent's CNI state dir (files
 *     <network>:<containerId>:<ifname>.json): success, per the spec there is nothing to release;
 *   - an attachment recorded: a tombstone <network>:<containerId>:<ifname>.del goes in next to it (temp file,
 *     fsync, rename), and the answer is error 11; the agent finishes the DEL when it starts (CniHandler).
 * Socket path: $RDMA_AGENT_CNI_SOCKET, else the path the agent wrote into SOCKET_SLOT when it installed us.
 * State dir: $RDMA_AGENT_CNI_STATE_DIR, else the agent's cni.stateDir, written into STATE_SLOT the same way.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Patched in place by the agent's installer (same length, NUL-padded): keep the marker and the size. */
static volatile const char SOCKET_SLOT[108] = "@@RDMA_AGENT_CNI_SOCKET@@/run/rdma-node-agent/cni.sock";
static volatile const char STATE_SLOT[256] = "@@RDMA_AGENT_CNI_STATE_DIR@@/var/lib/rdma-node-agent/cni";
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

/* A CNI_CONTAINERID / CNI_IFNAME the agent could have recorded: non-empty, no '/', ':' or whitespace. */
static int plain_name(const char *s, size_t max) {
    if (!s || !*s || strlen(s) > max || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) return 0;
    for (; *s; s++) {
        if (*s == '/' || *s == ':' || *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '"' || *s == '\\')
            return 0;
    }
    return 1;
}

/* Writes dir/<key>.del through a temp name (fsync, rename, fsync of the directory). 0, or an errno. */
static int tombstone(const char *dir, const char *key, const char *netns) {
    char tmp[4096], target[4096], body[8192];
    if (snprintf(tmp, sizeof tmp, "%s/.%s.del.tmp", dir, key) >= (int) sizeof tmp) return ENAMETOOLONG;
    if (snprintf(target, sizeof target, "%s/%s.del", dir, key) >= (int) sizeof target) return ENAMETOOLONG;
    /* For the agent's log only; a path it would have to escape is left out (it has the attachment's own). */
    if (!netns || strlen(netns) > 4000 || strpbrk(netns, "\"\\\n")) netns = "";
    int len = snprintf(body, sizeof body, "{\"requestedAt\": %ld, \"netns\": \"%s\"}\n", (long) time(NULL), netns);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return errno;
    if (write_all(fd, body, (size_t) len) < 0 || fsync(fd) < 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return e;
    }
    close(fd);
    if (rename(tmp, target) < 0) {
        int e = errno;
        unlink(tmp);
        return e;
    }
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d >= 0) {
        fsync(d);
        close(d);
    }
    return 0;
}

/*
 * DEL with the agent unreachable (connect failed: nothing reached it). Returns the exit code, or -1 when it
 * cannot decide (inputs it could not have recorded): then the caller answers "agent down" as for ADD.
 */
static int del_without_agent(const char *path, int connect_err) {
    const char *dir = getenv("RDMA_AGENT_CNI_STATE_DIR");
    if (!dir || !*dir) dir = (const char *) STATE_SLOT + strlen("@@RDMA_AGENT_CNI_STATE_DIR@@");
    const char *cid = getenv("CNI_CONTAINERID");
    const char *ifname = getenv("CNI_IFNAME");
    if (!plain_name(cid, 1024) || !plain_name(ifname, 15)) return -1;
    char suffix[1100];
    snprintf(suffix, sizeof suffix, ":%s:%s.json", cid, ifname);
    size_t sl = strlen(suffix);
    DIR *d = opendir(dir);
    if (!d && errno == ENOENT) {
        fprintf(stderr, "rdma: rdma-node-agent unreachable at %s; no state dir %s: nothing to release\n", path, dir);
        return 0;
    }
    char v[32];
    cni_version(in, v, sizeof v);
    if (!d) {
        printf("{\n    \"cniVersion\": \"%s\",\n    \"code\": 11,\n    \"msg\": \"rdma-node-agent is unreachable"
               " (cannot connect to %s: %s) and its CNI state dir %s cannot be read (%s); try again later\"\n}\n",
               v, path, strerror(connect_err), dir, strerror(errno));
        return 1;
    }
    char key[1200] = "";
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name);
        if (e->d_name[0] != '.' && nl > sl && strcmp(e->d_name + nl - sl, suffix) == 0 && nl - 5 < sizeof key) {
            memcpy(key, e->d_name, nl - 5);
            key[nl - 5] = 0;
            break;
        }
    }
    closedir(d);
    if (!*key) {
        fprintf(stderr, "rdma: rdma-node-agent unreachable at %s; nothing recorded for %s/%s in %s: nothing to"
                " release\n", path, cid, ifname, dir);
        return 0;
    }
    int err = tombstone(dir, key, getenv("CNI_NETNS"));
    if (err != 0) {
        printf("{\n    \"cniVersion\": \"%s\",\n    \"code\": 11,\n    \"msg\": \"rdma-node-agent is unreachable"
               " (cannot connect to %s: %s) and attachment %s is recorded in %s, but this DEL could not be recorded"
               " for it (%s); try again later\"\n}\n", v, path, strerror(connect_err), key, dir, strerror(err));
        return 1;
    }
    printf("{\n    \"cniVersion\": \"%s\",\n    \"code\": 11,\n    \"msg\": \"rdma-node-agent is unreachable"
           " (cannot connect to %s: %s) and attachment %s is recorded in %s: the agent will finish this DEL"
           " (return the RDMA device to the host) when it starts; try again later\"\n}\n",
           v, path, strerror(connect_err), key, dir);
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
    if (fd < 0 || connect(fd, (struct sockaddr *) &addr, sizeof addr) < 0) {
        int err = errno;
        const char *command = getenv("CNI_COMMAND");
        if (command && strcmp(command, "DEL") == 0) {
            int code = del_without_agent(path, err);
            if (code >= 0) return code;
        }
        return agent_down(path, "cannot connect to", err, in);
    }

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
