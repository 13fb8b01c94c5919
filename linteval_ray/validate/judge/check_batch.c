/* check_batch PLAN WALL_MS: run a problem's checker on several tests, one after the other, in one box.
 *
 * PLAN has one check per line: the file its stdout goes to, the file its stderr goes to, then the
 * checker's argv, tab-separated. Each check runs as a child in a process group of its own, with
 * /dev/null as stdin, under the box's rlimits (per process: each check gets the whole RLIMIT_CPU
 * and RLIMIT_AS a check in a box of its own gets), and is killed with its group after WALL_MS or
 * when it exits. For every check one line goes to stdout, in plan order:
 * "<exit code or -1> <signal or 0> <1 if killed at WALL_MS else 0>".
 *
 * Why: a box costs ~23 ms of CPU to set up and tear down, more than a testlib checker's run; one
 * box per revision instead of one per test. The caller reads the output files and judges. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 64

static int open_or_die(const char *path, int flags) {
    int fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        perror(path);
        _exit(126);
    }
    return fd;
}

static void exec_check(char **fields) {
    setpgid(0, 0);
    dup2(open_or_die("/dev/null", O_RDONLY), 0);
    dup2(open_or_die(fields[0], O_WRONLY | O_CREAT | O_TRUNC), 1);
    dup2(open_or_die(fields[1], O_WRONLY | O_CREAT | O_TRUNC), 2);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execv(fields[2], fields + 2);
    perror(fields[2]);
    _exit(127);
}

/* Wait for the check to exit or WALL_MS to pass (SIGCHLD is blocked: sigtimedwait takes it). */
static int wait_check(pid_t child, long wall_ms, int *status) {
    struct timespec deadline, now;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += wall_ms / 1000;
    deadline.tv_nsec += (wall_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (;;) {
        if (waitpid(child, status, WNOHANG) == child) {
            return 0;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left_ns = (deadline.tv_sec - now.tv_sec) * 1000000000L + (deadline.tv_nsec - now.tv_nsec);
        if (left_ns <= 0) {
            kill(-child, SIGKILL);
            waitpid(child, status, 0);
            return 1;
        }
        struct timespec left = {left_ns / 1000000000L, left_ns % 1000000000L};
        sigtimedwait(&chld, NULL, &left);
    }
}

static int split_tabs(char *line, char **fields) {
    int count = 0;
    for (char *field = strtok(line, "\t\n"); field && count < MAX_ARGS; field = strtok(NULL, "\t\n")) {
        fields[count++] = field;
    }
    fields[count] = NULL;
    return count;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fputs("usage: check_batch PLAN WALL_MS\n", stderr);
        return 125;
    }
    /* A check cannot open this process's report pipe through /proc. */
    prctl(PR_SET_DUMPABLE, 0);
    long wall_ms = atol(argv[2]);
    FILE *plan = fopen(argv[1], "re");
    if (!plan) {
        perror(argv[1]);
        return 125;
    }
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    char line[8192];
    char *fields[MAX_ARGS + 1];
    while (fgets(line, sizeof line, plan)) {
        if (split_tabs(line, fields) < 3) {
            fputs("check_batch: a plan line needs two files and a command\n", stderr);
            return 125;
        }
        pid_t child = fork();
        if (child < 0) {
            perror("check_batch: fork");
            return 125;
        }
        if (child == 0) {
            exec_check(fields);
        }
        int status = 0;
        int killed = wait_check(child, wall_ms, &status);
        kill(-child, SIGKILL); /* whatever the check left running */
        if (WIFSIGNALED(status)) {
            printf("-1 %d %d\n", WTERMSIG(status), killed);
        } else {
            printf("%d 0 %d\n", WEXITSTATUS(status), killed);
        }
        fflush(stdout);
    }
    return 0;
}
