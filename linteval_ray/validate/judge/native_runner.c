/* native_runner INPUTS OUTPUT_CAP OUTPUT_BUDGET HEAD TAIL PROGRAM [ARG...] < PLAN: a C++ or Python
 * revision's tests, one after the other, in one box (see linteval_ray/validate/judge/native_runner.py).
 *
 * It runs as the box's pid 1 (no other process of the box holds its report pipe, and no program can
 * signal it) and refuses to run as any other pid: it ends each test with kill(-1), which outside a
 * pid namespace would reach every process of the uid.
 *
 * PLAN (stdin: no file of it in the box; INPUTS is the folder of the test inputs): one test a line, tab-separated: name, input file, CPU
 * budget ms, CPU limit s, wall budget ms, wall cap ms. Each test runs PROGRAM as a child with the
 * input file as stdin, BOX/.stdout and BOX/.stderr (files) as stdout and stderr, only those three
 * descriptors, no right to read any file of INPUTS (Landlock: the test's own input is its stdin, and
 * no test reads another's), and RLIMIT_CPU at the test's limit (the other rlimits are the box's, per process: the
 * same a box of its own gives). After the child exits, or at the wall cap, every other process of
 * the box is killed and reaped; the test's CPU time is what this process's reaped children used
 * meanwhile (RUSAGE_CHILDREN: the child and every process it left behind).
 *
 * A test is kept only if it ended normally and left nothing behind: exit status 0, CPU time and wall
 * time within their budgets, no process still alive, stdout and stderr regular files under the
 * output cap, and the box's writable file systems exactly as before the test (names, inodes, sizes,
 * times). Then "done NAME CPU_NS WALL_NS SIZE\n" and the SIZE bytes of its stdout go to this
 * process's stdout. At the first test that was not kept the runner exits, after "stop NAME
 * REASON\n": that test and the later ones are judged afresh, a box each. Or, when the test's process
 * was killed by SIGXCPU or SIGKILL before the wall cap (it may have run out of CPU time), after
 * "ended NAME SIGNAL CPU_NS WALL_NS MAXRSS_KB OUT_SIZE ERR_SIZE HEAD TAIL\n", the first HEAD bytes of
 * its stdout and the last TAIL of its stderr: the judge decides whether that is a time limit.
 * So no test can leave state for a later one (files, processes; SysV and POSIX IPC, which outlive a
 * process in the box's IPC namespace, end the test that asks for them: a seccomp filter kills it),
 * and no test's CPU time is spent elsewhere. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS 4096
#define STDOUT_FILE "/box/.stdout"
#define STDERR_FILE "/box/.stderr"

/* The file systems a program can write to: the box's root and /dev (tmpfs, writable when the box
 * runs in a user namespace), /tmp and the work dir. A walk stays on the file system it starts in. */
static const char *const WRITABLE_ROOTS[] = {"/", "/dev", "/tmp", "/box"};

struct test {
    char *name, *input;
    long cpu_budget_ms, cpu_limit_s, wall_budget_ms, wall_cap_ms;
};

extern char **environ;

static void fail(const char *what) {
    fprintf(stderr, "native_runner: %s: %s\n", what, strerror(errno));
    exit(125);
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t children_cpu_ns(void) {
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return ((int64_t)u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000000 +
           ((int64_t)u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000;
}

/* SysV shared memory, semaphores and message queues and POSIX message queues outlive the process that
 * made them (they belong to the box's IPC namespace): a test asking for one is killed, so it is not
 * kept and runs again in a box of its own, where they are allowed. */
static void forbid_lasting_ipc(void) {
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_shmget, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_semget, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_msgget, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mq_open, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    };
    struct sock_fprog prog = {sizeof code / sizeof code[0], code};
    /* The box's init set no_new_privs and refused foreign ABIs already. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        fail("seccomp");
}

/* FNV-1a over what a walk saw. */
static void mix(uint64_t *h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        *h ^= p[i];
        *h *= 1099511628211ULL;
    }
}

/* Every entry below DIR on DIR's own file system: its name, inode, type and mode, and for anything
 * but a directory its size, link count and times (a write changes ctime, which no program can set). */
static void walk(int dir, dev_t dev, uint64_t *h, long *entries) {
    DIR *d = fdopendir(dir);
    if (!d) {
        close(dir);
        mix(h, "?", 1);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != dev)
            continue; /* another file system: a read-only bind, /proc, devpts */
        (*entries)++;
        mix(h, e->d_name, strlen(e->d_name) + 1);
        mix(h, &st.st_ino, sizeof st.st_ino);
        mix(h, &st.st_mode, sizeof st.st_mode);
        mix(h, &st.st_uid, sizeof st.st_uid);
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                walk(sub, dev, h, entries);
            else
                mix(h, "?", 1);
        } else {
            mix(h, &st.st_size, sizeof st.st_size);
            mix(h, &st.st_nlink, sizeof st.st_nlink);
            mix(h, &st.st_mtim, sizeof st.st_mtim);
            mix(h, &st.st_ctim, sizeof st.st_ctim);
        }
    }
    closedir(d);
}

static uint64_t writable_state(void) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < sizeof WRITABLE_ROOTS / sizeof WRITABLE_ROOTS[0]; i++) {
        int dir = open(WRITABLE_ROOTS[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct stat st;
        if (dir < 0 || fstat(dir, &st) != 0) {
            if (dir >= 0)
                close(dir);
            mix(&h, "?", 1);
            continue;
        }
        long entries = 0;
        mix(&h, &st.st_mode, sizeof st.st_mode);
        walk(dir, st.st_dev, &h, &entries);
        mix(&h, &entries, sizeof entries);
    }
    return h;
}

static int read_plan(FILE *plan, struct test *tests) {
    char *line = NULL;
    size_t size = 0;
    int count = 0;
    while (getline(&line, &size, plan) > 0 && count < MAX_TESTS) {
        char *fields[6];
        char *rest = line;
        for (int i = 0; i < 6; i++)
            fields[i] = strsep(&rest, "\t\n");
        if (!fields[5]) {
            errno = EINVAL;
            fail("a plan line needs 6 fields");
        }
        struct test *t = &tests[count++];
        t->name = strdup(fields[0]);
        t->input = strdup(fields[1]);
        t->cpu_budget_ms = atol(fields[2]);
        t->cpu_limit_s = atol(fields[3]);
        t->wall_budget_ms = atol(fields[4]);
        t->wall_cap_ms = atol(fields[5]);
    }
    free(line);
    return count;
}

static int create_file(const char *path) {
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        fail(path);
    return fd;
}

/* A Landlock ruleset under which no file of /HIDDEN can be opened for reading and every other file
 * can (reading is the only access it handles: writes, listings and execs stay as they were); -1
 * where the kernel has no Landlock. */
static int ruleset_hiding(const char *hidden) {
    struct landlock_ruleset_attr attr = {.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE};
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    DIR *root = ruleset >= 0 ? opendir("/") : NULL;
    if (!root)
        return -1;
    struct dirent *e;
    while ((e = readdir(root))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, hidden))
            continue;
        int fd = openat(dirfd(root), e->d_name, O_PATH | O_CLOEXEC);
        struct landlock_path_beneath_attr rule = {.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE, .parent_fd = fd};
        if (fd < 0 || syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
            closedir(root);
            return -1;
        }
        close(fd);
    }
    closedir(root);
    return ruleset;
}

static void exec_test(const struct test *t, int out, int err, int ruleset, char **argv) {
    int in = open(t->input, O_RDONLY | O_CLOEXEC);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        _exit(126);
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
        _exit(126);
    close_range(3, ~0U, 0);
    struct rlimit cpu = {(rlim_t)t->cpu_limit_s, (rlim_t)t->cpu_limit_s + 1}; /* as a box's prlimit sets it */
    setrlimit(RLIMIT_CPU, &cpu);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(argv[0], argv, environ);
    _exit(127);
}

/* Wait for CHILD until DEADLINE (SIGCHLD is blocked: sigtimedwait takes it); 1 if it exited in time. */
static int wait_until(pid_t child, int64_t deadline, int *status, struct rusage *usage) {
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (;;) {
        if (wait4(child, status, WNOHANG, usage) == child)
            return 1;
        int64_t left = deadline - now_ns();
        if (left <= 0)
            return 0;
        struct timespec wait = {left / 1000000000, left % 1000000000};
        sigtimedwait(&chld, NULL, &wait);
    }
}

/* Reap what already exited, then kill and reap the rest; 1 if any process was still alive. */
static int end_every_process(void) {
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    int alive = kill(-1, SIGKILL) == 0;
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {
    }
    return alive;
}

/* An output file as the test left it: a regular file under CAP bytes, opened without following
 * links and without blocking on a FIFO put in its place; -1 if not. */
static int open_output(const char *path, long cap, off_t *size) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size >= cap) {
        close(fd);
        return -1;
    }
    *size = st.st_size;
    return fd;
}

static void write_all(const char *data, size_t n) {
    while (n) {
        ssize_t done = write(1, data, n);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            fail("report");
        data += done;
        n -= (size_t)done;
    }
}

/* SIZE bytes of FD from offset FROM to the report. */
static void send_range(int fd, off_t from, off_t size) {
    char buffer[1 << 16];
    for (off_t end = from + size; from < end;) {
        ssize_t got = pread(fd, buffer, sizeof buffer, from);
        if (got <= 0)
            fail("read the output");
        if (got > end - from)
            got = end - from;
        write_all(buffer, (size_t)got);
        from += got;
    }
}

/* A test whose process ran out of CPU time: how it ended, the first HEAD bytes of its stdout and the
 * last TAIL of its stderr. */
static void ended(const char *name, int sig, int64_t cpu, int64_t wall, long maxrss_kb, off_t head, off_t tail) {
    off_t size = 0, err_size = 0;
    int out = open_output(STDOUT_FILE, LONG_MAX, &size), err = open_output(STDERR_FILE, LONG_MAX, &err_size);
    if (out < 0 || err < 0)
        return; /* not files any more: the box-per-test path judges it */
    head = size < head ? size : head;
    tail = err_size < tail ? err_size : tail;
    printf("ended %s %d %lld %lld %ld %lld %lld %lld %lld\n", name, sig, (long long)cpu, (long long)wall, maxrss_kb,
           (long long)size, (long long)err_size, (long long)head, (long long)tail);
    fflush(stdout);
    send_range(out, 0, head);
    send_range(err, err_size - tail, tail);
    exit(0);
}

static void stop(const char *name, const char *reason) {
    printf("stop %s %s\n", name, reason);
    fflush(stdout);
    exit(0);
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fputs("usage: native_runner INPUTS OUTPUT_CAP OUTPUT_BUDGET HEAD TAIL PROGRAM [ARG...] < PLAN\n", stderr);
        return 125;
    }
    if (getpid() != 1) {
        fputs("native_runner: must be the box's pid 1\n", stderr);
        return 125;
    }
    prctl(PR_SET_DUMPABLE, 0); /* no program opens our report pipe through /proc */
    static struct test tests[MAX_TESTS];
    int count = read_plan(stdin, tests);
    const char *inputs = argv[1];
    long cap = atol(argv[2]);
    long budget = atol(argv[3]);
    off_t head = atol(argv[4]), tail = atol(argv[5]);
    int ruleset = inputs[0] == '/' && !strchr(inputs + 1, '/') ? ruleset_hiding(inputs + 1) : -1;
    if (ruleset < 0)
        stop(count ? tests[0].name : "end", "landlock"); /* no test may read another's input */
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    forbid_lasting_ipc();
    uint64_t before = writable_state();
    for (int i = 0; i < count; i++) {
        const struct test *t = &tests[i];
        int out = create_file(STDOUT_FILE), err = create_file(STDERR_FILE);
        int64_t cpu_before = children_cpu_ns(), started = now_ns();
        pid_t child = fork();
        if (child < 0)
            fail("fork");
        if (child == 0)
            exec_test(t, out, err, ruleset, argv + 6);
        close(out);
        close(err);
        int status = 0;
        struct rusage usage = {0};
        int exited = wait_until(child, started + t->wall_cap_ms * 1000000L, &status, &usage);
        int64_t wall = now_ns() - started;
        int left_running = end_every_process();
        int64_t cpu = children_cpu_ns() - cpu_before;
        if (exited && WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL))
            ended(t->name, WTERMSIG(status), cpu, wall, usage.ru_maxrss, head, tail);
        off_t size = 0, err_size = 0;
        out = open_output(STDOUT_FILE, cap, &size);
        err = open_output(STDERR_FILE, cap, &err_size);
        unlink(STDOUT_FILE);
        unlink(STDERR_FILE);
        const char *why = !exited ? "wall"
                          : !WIFEXITED(status) || WEXITSTATUS(status) != 0 ? "status"
                          : cpu > t->cpu_budget_ms * 1000000L ? "cpu"
                          : wall > t->wall_budget_ms * 1000000L ? "wall"
                          : left_running ? "processes"
                          : out < 0 || err < 0 ? "output"
                          : size > budget ? "budget"
                          : writable_state() != before ? "files" : NULL;
        if (why)
            stop(t->name, why);
        printf("done %s %lld %lld %lld\n", t->name, (long long)cpu, (long long)wall, (long long)size);
        fflush(stdout);
        send_range(out, 0, size);
        close(out);
        close(err);
        budget -= size;
    }
    stop("end", "end");
}
