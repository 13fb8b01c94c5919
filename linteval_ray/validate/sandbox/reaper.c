/* reaper FD CGROUP_PROCS PROGRAM [ARG...]: run PROGRAM as a child, then write "<maxrss KiB>\n" to FD
 * and end as the child did (its exit code, or the same signal). Unless CGROUP_PROCS is "-", the child
 * first moves itself into that cgroup (its cgroup.procs file), so the whole run is counted there.
 *
 * Why: the first process a big parent (a Ray actor) spawns inherits the parent's peak resident size
 * at exec, so the rusage of that process says nothing of the program's memory. A child forked from
 * this small process starts small: its peak (the maximum over its whole tree) is the program's own.
 * FD is close-on-exec here, so nothing in the box sees it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fputs("usage: reaper FD CGROUP_PROCS PROGRAM [ARG...]\n", stderr);
        return 125;
    }
    int report = atoi(argv[1]);
    fcntl(report, F_SETFD, FD_CLOEXEC);
    pid_t child = fork();
    if (child < 0) {
        perror("reaper: fork");
        return 125;
    }
    if (child == 0) {
        if (strcmp(argv[2], "-") != 0) {
            int procs = open(argv[2], O_WRONLY | O_CLOEXEC);
            if (procs < 0 || write(procs, "0", 1) != 1) {
                perror("reaper: join the run's memory cgroup");
                _exit(125);
            }
            close(procs);
        }
        execv(argv[3], argv + 3);
        perror("reaper: exec");
        _exit(127);
    }
    int status;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("reaper: wait4");
            return 125;
        }
    }
    dprintf(report, "%ld\n", usage.ru_maxrss);
    if (WIFSIGNALED(status)) {
        /* Die of the same signal, without a core file. */
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        prctl(PR_SET_DUMPABLE, 0);
        signal(WTERMSIG(status), SIG_DFL);
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        raise(WTERMSIG(status));
    }
    return WEXITSTATUS(status);
}
