// SPDX-License-Identifier: Apache-2.0
/*
 * Exec-to-result timer for CNI plugins, as a runtime calls them: fork, stdin from a file, stdout to a pipe read
 * to EOF, wait; the clock runs from before fork to after waitpid. No shell in between (a shell costs more than
 * the plugins being compared). Usage: cni-exec RUNS CONFIG PLUGIN COMMAND[,COMMAND...] -- commands alternate
 * (ADD,DEL), each timed separately; prints "COMMAND median p90 mean" in milliseconds per command.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: cni-exec RUNS CONFIG PLUGIN CMD[,CMD]\n"); return 2; }
    int runs = atoi(argv[1]);
    char *cmds[8]; int ncmd = 0;
    for (char *t = strtok(argv[4], ","); t && ncmd < 8; t = strtok(NULL, ",")) cmds[ncmd++] = t;
    double *ms = calloc((size_t) runs * ncmd, sizeof *ms);
    for (int i = 0; i < runs; i++) {
        for (int c = 0; c < ncmd; c++) {
            setenv("CNI_COMMAND", cmds[c], 1);
            int out[2];
            if (pipe(out) < 0) return 1;
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            pid_t pid = fork();
            if (pid == 0) {
                int in = open(argv[2], O_RDONLY);
                dup2(in, 0);
                dup2(out[1], 1);
                close(out[0]);
                execl(argv[3], argv[3], (char *) NULL);
                _exit(127);
            }
            close(out[1]);
            char buf[65536];
            while (read(out[0], buf, sizeof buf) > 0) { }
            close(out[0]);
            int status;
            waitpid(pid, &status, 0);
            clock_gettime(CLOCK_MONOTONIC, &t1);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "%s %s failed (status %d) at run %d\n", argv[3], cmds[c], status, i);
                return 1;
            }
            ms[c * runs + i] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
        }
    }
    for (int c = 0; c < ncmd; c++) {
        double *v = ms + c * runs, sum = 0;
        for (int i = 0; i < runs; i++) sum += v[i];
        qsort(v, (size_t) runs, sizeof *v, cmp);
        printf("%s %.3f %.3f %.3f\n", cmds[c], v[runs / 2], v[runs * 9 / 10], sum / runs);
    }
    return 0;
}
