// SPDX-License-Identifier: Apache-2.0
/*
 * The `rdma` CNI executable: forwards the command, the CNI_* environment and stdin to rdma-node-agent over a
 * Unix socket and prints the agent's answer. It holds no logic: a JVM start costs 65-90 ms on every pod
 * start, this costs about a millisecond. Wire format (agent side: io.rdmanode.cni.internal.CniServer):
 *   request  = "RDMACNI1\n" then "KEY=VALUE\0" per CNI_* variable, an empty "\0", then stdin to EOF
 *   response = "<exit code>\n" then the bytes for stdout
 * Every error is a CNI error object (cniVersion, code, msg, details) on stdout, its strings JSON-escaped (stdin
 * and the environment are read as UTF-8 bytes whatever the locale; an invalid byte shows as U+FFFD), exit 1.
 * Bounds: the whole call (stdin, connect, send, answer) has a deadline, $RDMA_AGENT_CNI_TIMEOUT_MS else the
 * agent's cni.clientTimeout written into LIMITS_SLOT (default 30 s, well below kubelet's 2-minute
 * runtime-request-timeout for the whole sandbox): past it, error 11 naming the socket and what it waited for.
 * A request (CNI_* environment plus stdin) over $RDMA_AGENT_CNI_MAX_REQUEST_BYTES else cni.maxRequestBytes is
 * error 6 (decode) here, naming the limit, without bothering the agent; the agent enforces the same limit.
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Patched in place by the agent's installer (same length, NUL-padded): keep the marker and the size. */
static volatile const char SOCKET_SLOT[108] = "@@RDMA_AGENT_CNI_SOCKET@@/run/rdma-node-agent/cni.sock";
static volatile const char STATE_SLOT[256] = "@@RDMA_AGENT_CNI_STATE_DIR@@/var/lib/rdma-node-agent/cni";
static volatile const char LIMITS_SLOT[64] = "@@RDMA_AGENT_CNI_LIMITS@@timeout_ms=30000 max_request=1048576";
__attribute__((used)) static const char VERSION[] = "@@RDMA_CNI_CLIENT_VERSION@@" CLIENT_VERSION;

#define TRY_AGAIN 11
#define DECODE 6

static char *in = "";      /* stdin, NUL-terminated */
static size_t in_len;
static long timeout_ms = 30000;
static long max_request = 1 << 20;

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

/* A bounded string builder: output past the capacity is dropped, the text stays NUL-terminated. */
struct buf {
    char p[16384];
    size_t n;
};

static void put(struct buf *b, const char *s, size_t n) {
    if (n > sizeof b->p - 1 - b->n) n = sizeof b->p - 1 - b->n;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void puts_(struct buf *b, const char *s) {
    put(b, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, surrogates or values over U+10FFFF), or 0. */
static int utf8_len(const unsigned char *s) {
    unsigned c = s[0];
    int n;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) n = 3;
    else if (c >= 0xf0 && c <= 0xf4) n = 4;
    else return 0;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
    if (s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf) return 0;
    }
    return n;
}

/* s as a JSON string: quotes, backslashes and control characters escaped, valid UTF-8 kept, other bytes U+FFFD. */
static void json_string(struct buf *b, const char *str) {
    const unsigned char *s = (const unsigned char *) str;
    puts_(b, "\"");
    while (*s) {
        unsigned c = *s;
        char esc[8];
        if (c == '"') puts_(b, "\\\"");
        else if (c == '\\') puts_(b, "\\\\");
        else if (c == '\n') puts_(b, "\\n");
        else if (c == '\r') puts_(b, "\\r");
        else if (c == '\t') puts_(b, "\\t");
        else if (c < 0x20 || c == 0x7f) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            puts_(b, esc);
        } else if (c < 0x80) {
            put(b, (const char *) s, 1);
        } else {
            int n = utf8_len(s);
            if (n == 0) {
                puts_(b, "\\ufffd");
            } else {
                put(b, (const char *) s, (size_t) n);
                s += n;
                continue;
            }
        }
        s++;
    }
    puts_(b, "\"");
}

/* The request's cniVersion, for the error object only; "1.0.0" when absent or odd. Not a JSON parser. */
static void cni_version(const char *stdin_buf, char *out, size_t cap) {
    const char *k = strstr(stdin_buf, "\"cniVersion\"");
    snprintf(out, cap, "1.0.0");
    if (!k) return;
    k = strchr(k + 12, '"');
    if (!k) return;
    const char *e = strchr(k + 1, '"');
    if (!e || e == k + 1 || (size_t) (e - k - 1) >= cap || strspn(k + 1, "0123456789.") != (size_t) (e - k - 1)) return;
    memcpy(out, k + 1, (size_t) (e - k - 1));
    out[e - k - 1] = 0;
}

/* The CNI error object for code and msg (details when not NULL), escaped, into b. */
static void format_error(struct buf *b, int code, const char *msg, const char *details) {
    char v[32], num[16];
    cni_version(in, v, sizeof v);
    b->n = 0;
    b->p[0] = 0;
    puts_(b, "{\n    \"cniVersion\": ");
    json_string(b, v);
    snprintf(num, sizeof num, "%d", code);
    puts_(b, ",\n    \"code\": ");
    puts_(b, num);
    puts_(b, ",\n    \"msg\": ");
    json_string(b, msg);
    if (details && *details) {
        puts_(b, ",\n    \"details\": ");
        json_string(b, details);
    }
    puts_(b, "\n}\n");
}

/*
 * The deadline: SIGALRM prints the error prepared for the current step (prepared in advance, since a signal
 * handler may only write) and exits. Two buffers, so the one the handler may read is never being rewritten.
 */
static struct buf timeout_answer[2];
static volatile sig_atomic_t timeout_current;

static void on_deadline(int sig) {
    (void) sig;
    struct buf *b = &timeout_answer[timeout_current];
    write_all(1, b->p, b->n);
    _exit(1);
}

static void waiting_for(const char *what, const char *path) {
    char msg[1024];
    snprintf(msg, sizeof msg, "timed out after %ld ms (cni.clientTimeout) %s rdma-node-agent at %s; try again"
             " later", timeout_ms, what, path);
    int next = 1 - timeout_current;
    format_error(&timeout_answer[next], TRY_AGAIN, msg, NULL);
    timeout_current = next;
}

static void disarm(void) {
    struct itimerval off = {0};
    setitimer(ITIMER_REAL, &off, NULL);
}

/* Prints the error (the deadline first disarmed, so only one answer is ever printed) and returns exit code 1. */
static int fail(int code, const char *msg, const char *details) {
    static struct buf b;
    disarm();
    format_error(&b, code, msg, details);
    write_all(1, b.p, b.n);
    return 1;
}

static int agent_down(const char *path, const char *what, int err) {
    char msg[1024];
    snprintf(msg, sizeof msg, "rdma-node-agent is down (%s %s: %s); try again later", what, path, strerror(err));
    return fail(TRY_AGAIN, msg, NULL);
}

/* A CNI_CONTAINERID / CNI_IFNAME the agent could have recorded: non-empty, no '/', ':', whitespace or controls. */
static int plain_name(const char *s, size_t max) {
    if (!s || !*s || strlen(s) > max || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) return 0;
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        if (c == '/' || c == ':' || c == ' ' || c < 0x20 || c == 0x7f || c == '"' || c == '\\') return 0;
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
    char msg[8192];
    DIR *d = opendir(dir);
    if (!d && errno == ENOENT) {
        disarm();
        fprintf(stderr, "rdma: rdma-node-agent unreachable at %s; no state dir %s: nothing to release\n", path, dir);
        return 0;
    }
    if (!d) {
        snprintf(msg, sizeof msg, "rdma-node-agent is unreachable (cannot connect to %s: %s) and its CNI state dir %s"
                 " cannot be read (%s); try again later", path, strerror(connect_err), dir, strerror(errno));
        return fail(TRY_AGAIN, msg, NULL);
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
        disarm();
        fprintf(stderr, "rdma: rdma-node-agent unreachable at %s; nothing recorded for %s/%s in %s: nothing to"
                " release\n", path, cid, ifname, dir);
        return 0;
    }
    int err = tombstone(dir, key, getenv("CNI_NETNS"));
    if (err != 0) {
        snprintf(msg, sizeof msg, "rdma-node-agent is unreachable (cannot connect to %s: %s) and attachment %s is"
                 " recorded in %s, but this DEL could not be recorded for it (%s); try again later", path,
                 strerror(connect_err), key, dir, strerror(err));
        return fail(TRY_AGAIN, msg, NULL);
    }
    snprintf(msg, sizeof msg, "rdma-node-agent is unreachable (cannot connect to %s: %s) and attachment %s is"
             " recorded in %s: the agent will finish this DEL (return the RDMA device to the host) when it starts;"
             " try again later", path, strerror(connect_err), key, dir);
    return fail(TRY_AGAIN, msg, NULL);
}

/* timeout_ms and max_request: the environment, else the limits slot the installer wrote, else the defaults. */
static void read_limits(void) {
    const char *slot = (const char *) LIMITS_SLOT + strlen("@@RDMA_AGENT_CNI_LIMITS@@");
    long t, m;
    if (sscanf(slot, "timeout_ms=%ld max_request=%ld", &t, &m) == 2) {
        if (t > 0) timeout_ms = t;
        if (m > 0) max_request = m;
    }
    const char *e = getenv("RDMA_AGENT_CNI_TIMEOUT_MS");
    if (e && *e && atol(e) > 0) timeout_ms = atol(e);
    e = getenv("RDMA_AGENT_CNI_MAX_REQUEST_BYTES");
    if (e && *e && atol(e) > 0) max_request = atol(e);
}

/* Reads stdin, at most cap bytes; returns 1 if there was more, -1 when out of memory. */
static int read_stdin(size_t cap) {
    size_t size = 65536;
    char *p = malloc(size + 1);
    size_t n = 0;
    if (!p) return -1;
    for (;;) {
        if (n == size) {
            if (size > cap) break;
            size *= 2;
            char *q = realloc(p, size + 1);
            if (!q) return -1;
            p = q;
        }
        ssize_t r = read(0, p + n, size - n);
        if (r == 0) break;
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        n += (size_t) r;
        if (n > cap) break;
    }
    p[n] = 0;
    in = p;
    in_len = n;
    return n > cap;
}

int main(void) {
    signal(SIGPIPE, SIG_IGN); /* a closed socket is EPIPE, then the agent's answer is read */
    read_limits();
    const char *path = getenv("RDMA_AGENT_CNI_SOCKET");
    if (!path || !*path) path = (const char *) SOCKET_SLOT + strlen("@@RDMA_AGENT_CNI_SOCKET@@");

    waiting_for("reading the network configuration on stdin, before asking", path);
    signal(SIGALRM, on_deadline);
    struct itimerval deadline = {.it_value = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000}};
    setitimer(ITIMER_REAL, &deadline, NULL);

    size_t env_bytes = 9 + 1;
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "CNI_", 4) == 0) env_bytes += strlen(*e) + 1;
    }
    size_t cap = env_bytes < (size_t) max_request ? (size_t) max_request - env_bytes : 0;
    int over = read_stdin(cap);
    if (over < 0) return fail(TRY_AGAIN, "the rdma executable ran out of memory reading stdin; try again later", NULL);
    if (over) {
        char msg[512];
        snprintf(msg, sizeof msg, "the CNI request is larger than the agent's limit of %ld bytes"
                 " (cni.maxRequestBytes): the CNI_* environment is %zu bytes and the network configuration on stdin"
                 " more than %zu", max_request, env_bytes, cap);
        return fail(DECODE, msg, NULL);
    }

    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) return agent_down(path, "socket path too long", ENAMETOOLONG);
    strcpy(addr.sun_path, path);
    waiting_for("connecting to", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *) &addr, sizeof addr) < 0) {
        int err = errno;
        const char *command = getenv("CNI_COMMAND");
        if (command && strcmp(command, "DEL") == 0) {
            int code = del_without_agent(path, err);
            if (code >= 0) return code;
        }
        return agent_down(path, "cannot connect to", err);
    }

    /* A write the agent cut short (it refused the request and closed) is not the end: its answer says why. */
    waiting_for("sending the request to", path);
    int sent = write_all(fd, "RDMACNI1\n", 9) == 0;
    for (char **e = environ; sent && *e; e++) {
        if (strncmp(*e, "CNI_", 4) == 0 && write_all(fd, *e, strlen(*e) + 1) < 0) sent = 0;
    }
    if (sent && (write_all(fd, "", 1) < 0 || write_all(fd, in, in_len) < 0)) sent = 0;
    int write_err = sent ? 0 : errno;
    shutdown(fd, SHUT_WR);

    waiting_for("waiting for the answer of", path);
    size_t cap_out = (size_t) max_request * 2 + 65536, size = 65536, m = 0;
    char *out = malloc(size + 1);
    if (!out) return agent_down(path, "out of memory talking to", ENOMEM);
    int read_err = 0;
    for (;;) {
        if (m == size) {
            if (size >= cap_out) break;
            size *= 2;
            char *q = realloc(out, size + 1);
            if (!q) break;
            out = q;
        }
        ssize_t r = read(fd, out + m, size - m);
        if (r == 0) break;
        if (r < 0) {
            if (errno == EINTR) continue;
            read_err = errno;
            break;
        }
        m += (size_t) r;
    }
    disarm();
    out[m] = 0;
    char *nl = memchr(out, '\n', m);
    if (!nl) {
        if (write_err) return agent_down(path, "cannot write to", write_err);
        if (read_err) return agent_down(path, "lost the connection to", read_err);
        return agent_down(path, "no answer (the agent stopped while handling the request) from", ECONNRESET);
    }
    int code = atoi(out);
    size_t head = (size_t) (nl - out) + 1;
    write_all(1, out + head, m - head);
    return code;
}
