/* native_runner INPUTS_FD OUTPUT_CAP OUTPUT_BUDGET HEAD TAIL PROGRAM [ARG...] < PLAN: a C++ or Python
 * revision's tests, one after the other, in one box (see linteval_ray/validate/judge/native_runner.py).
 *
 * It runs as the box's pid 1 (no other process of the box holds its report pipe, and no program can
 * signal it) and refuses to run as any other pid: it ends each test with kill(-1), which outside a
 * pid namespace would reach every process of the uid.
 *
 * PLAN (stdin: no file of it in the box): one test a line, tab-separated: name, input file, CPU budget
 * ms, CPU limit s, wall budget ms, wall cap ms. The inputs are not in the box: INPUTS_FD is a directory
 * descriptor the judge opened on the host, which only this process holds (it is not dumpable, and no
 * test inherits it), so no test can list, stat or read another test's input. Each test runs PROGRAM as
 * a child with its input file as stdin, a pipe each as stdout and stderr (as a box of its own has; a
 * memfd was a file the program could seek back over, read, or reopen through /proc/self/fd), which
 * this process drains into memfds only it holds, only those three descriptors, and RLIMIT_CPU at the test's limit (the other rlimits
 * are the box's, per process: the same a box of its own gives). After the child exits, or at the wall
 * cap, every other process of the box is killed and reaped; the test's CPU time is what this process's
 * reaped children used meanwhile (RUSAGE_CHILDREN: the child and every process it left behind).
 *
 * A test is kept only if it ended normally and left nothing a later test could observe: exit status 0,
 * CPU time and wall time within their budgets, no process still alive and no pid used but its own (the
 * pid counter is readable: /proc/sys/kernel/ns_last_pid), stdout and stderr under the output cap, the
 * box's writable file systems exactly as before (every entry and each root: name, inode, type and mode,
 * owner, size, links, access, change and modification times, extended attributes) and the network
 * namespace's tables and counters as before (sockets in any state, TIME_WAIT included, and every
 * packet counted: a test that used the network at all is not kept). Then "done NAME CPU_NS WALL_NS
 * SIZE\n" and the SIZE bytes of its stdout go to this process's stdout. At the first test that was
 * not kept the runner exits, after "stop NAME REASON\n": that test and the later ones are judged
 * afresh, a box each. Or, when the test's process was killed by SIGXCPU or SIGKILL before the wall cap
 * (it may have run out of CPU time), after "ended NAME SIGNAL CPU_NS WALL_NS MAXRSS_KB OUT_SIZE
 * ERR_SIZE HEAD TAIL\n", the first HEAD bytes of its stdout and the last TAIL of its stderr: the judge
 * decides whether that is a time limit. SysV and POSIX IPC objects, which would outlive a process in
 * the box's IPC namespace, end the test that asks for one (a seccomp filter kills it). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <linux/audit.h>
#include <linux/filter.h>
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS 4096
#define XATTR_BYTES 65536

/* The file systems a program can write to: the box's root and /dev (tmpfs, writable when the box
 * runs in a user namespace), its ptys, /tmp and the work dir. A walk stays on the file system it
 * starts in. */
static const char *const WRITABLE_ROOTS[] = {"/", "/dev", "/dev/pts", "/tmp", "/box"};
/* The network namespace's socket tables and counters (sockstat's fields for the whole host are left
 * out: see network_state). */
static const char *const NETWORK_FILES[] = {
    "/proc/net/sockstat", "/proc/net/sockstat6", "/proc/net/dev", "/proc/net/snmp", "/proc/net/snmp6",
    "/proc/net/netstat", "/proc/net/unix", "/proc/net/ip6_flowlabel",
};

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

/* Extended attributes of the entry NAME in DIR (names and values). */
static void mix_xattrs(uint64_t *h, int dir, const char *name) {
    static char names[XATTR_BYTES], value[XATTR_BYTES];
    char path[64];
    int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        mix(h, "?", 1);
        return;
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd); /* the entry itself, opened without following it */
    ssize_t size = listxattr(path, names, sizeof names);
    mix(h, &size, sizeof size);
    for (ssize_t at = 0; at < size; at += (ssize_t)strlen(names + at) + 1) {
        ssize_t got = getxattr(path, names + at, value, sizeof value);
        mix(h, names + at, strlen(names + at) + 1);
        mix(h, &got, sizeof got);
        if (got > 0)
            mix(h, value, (size_t)got);
    }
    close(fd);
}

/* What stat says of an entry that a later test could read: a write or an explicit time changes ctime,
 * which no program can set back; atime too (see settle). */
static void mix_stat(uint64_t *h, const struct stat *st) {
    mix(h, &st->st_ino, sizeof st->st_ino);
    mix(h, &st->st_mode, sizeof st->st_mode);
    mix(h, &st->st_uid, sizeof st->st_uid);
    mix(h, &st->st_gid, sizeof st->st_gid);
    mix(h, &st->st_size, sizeof st->st_size);
    mix(h, &st->st_nlink, sizeof st->st_nlink);
    mix(h, &st->st_atim, sizeof st->st_atim);
    mix(h, &st->st_mtim, sizeof st->st_mtim);
    mix(h, &st->st_ctim, sizeof st->st_ctim);
}

/* Every entry below DIR on DIR's own file system, with its stat and extended attributes. Symbolic links
 * are read (which sets their access time once: see settle). */
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
            continue; /* another file system: a read-only bind, /proc, devpts (a root of its own) */
        (*entries)++;
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof target);
            mix(h, &n, sizeof n);
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW);
        }
        mix(h, e->d_name, strlen(e->d_name) + 1);
        mix_stat(h, &st);
        mix_xattrs(h, dirfd(d), e->d_name);
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0)
                walk(sub, dev, h, entries);
            else
                mix(h, "?", 1);
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
        mix_stat(&h, &st);
        mix_xattrs(&h, AT_FDCWD, WRITABLE_ROOTS[i]);
        walk(dir, st.st_dev, &h, &entries);
        mix(&h, &entries, sizeof entries);
    }
    return h;
}

/* The network namespace's tables and counters. sockstat's "orphan", "alloc" and "mem" count the whole
 * host's sockets: they are left out (its "inuse", "tw" and "used" are this namespace's). */
static uint64_t network_state(void) {
    uint64_t h = 1469598103934665603ULL;
    static char text[1 << 16];
    for (size_t i = 0; i < sizeof NETWORK_FILES / sizeof NETWORK_FILES[0]; i++) {
        int fd = open(NETWORK_FILES[i], O_RDONLY | O_CLOEXEC);
        ssize_t size = 0, got;
        while (fd >= 0 && size < (ssize_t)sizeof text - 1 && (got = read(fd, text + size, sizeof text - 1 - size)) > 0)
            size += got;
        if (fd >= 0)
            close(fd);
        text[size] = 0;
        mix(&h, &size, sizeof size);
        int host_wide = 0;
        for (char *word = strtok(text, " \n"); word; word = strtok(NULL, " \n")) {
            if (host_wide) {
                host_wide = 0;
                continue;
            }
            host_wide = i == 0 && (!strcmp(word, "orphan") || !strcmp(word, "alloc") || !strcmp(word, "mem"));
            if (!host_wide)
                mix(&h, word, strlen(word) + 1);
        }
    }
    return h;
}

/* The box's file systems and network namespace as a test starts them. Reading an entry sets its access
 * time once after each change (relatime): until then a test could read whether an earlier one read it,
 * and when; two walks clock ticks apart leave every access time past its entry's change, so no later
 * read sets it again (the walk that records reads too). And the network namespace settles: bwrap's own socket (it brought up lo) is freed a
 * little after the box starts. */
static void settle(uint64_t *files, uint64_t *network) {
    struct timespec tick = {0, 10 * 1000 * 1000};
    writable_state();
    *network = network_state();
    for (int i = 0; i < 50; i++) {
        nanosleep(&tick, NULL);
        uint64_t now = network_state();
        if (now == *network && i > 0)
            break;
        *network = now;
    }
    writable_state();
    *files = writable_state();
}

/* Whether the network namespace is back as it was: a socket's memory is freed a little after its last
 * process (RCU), so a test that closed one is given a moment; a TIME_WAIT lasts a minute. */
static int network_settled(uint64_t network) {
    struct timespec ms = {0, 1000 * 1000};
    for (int i = 0; i < 50; i++) {
        if (network_state() == network)
            return 1;
        nanosleep(&ms, NULL);
    }
    return 0;
}

/* The last pid the box's pid namespace gave out. */
static long last_pid(void) {
    char text[32] = {0};
    int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, text, sizeof text - 1) <= 0)
        fail("read ns_last_pid");
    close(fd);
    return atol(text);
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

static int new_memfd(const char *name) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        fail("memfd_create");
    return fd;
}

/* A test's stdout or stderr: the read end of its pipe, and what came through it (the first CAP bytes in
 * a memfd only the runner holds; SIZE counts them all). */
struct sink {
    int pipe;
    int keep;
    off_t size;
};

/* A sink, and the write end of its pipe for the test. The pipe's mode is 0, as a box of its own
 * gives (its pipes are the host's): a program cannot reopen or read it through /proc/self/fd. */
static int open_sink(struct sink *s, const char *name) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0 || fchmod(ends[1], 0) != 0)
        fail("an output pipe");
    s->pipe = ends[0];
    s->keep = new_memfd(name);
    s->size = 0;
    return ends[1];
}

/* Move what the pipe holds into the sink; 0 at its end (every writer gone). */
static int drain(struct sink *s, long cap) {
    char buffer[1 << 16];
    ssize_t got = read(s->pipe, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR)
        return 1;
    if (got < 0)
        fail("read an output");
    for (ssize_t at = 0, room = s->size < cap ? (ssize_t)(cap - s->size) : 0, n = got < room ? got : room; at < n;) {
        ssize_t done = write(s->keep, buffer + at, (size_t)(n - at));
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            fail("keep an output");
        at += done;
    }
    s->size += got;
    return got > 0;
}

static void exec_test(const struct test *t, int inputs, int out, int err, char **argv) {
    int in = openat(inputs, t->input, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        _exit(126);
    close_range(3, ~0U, 0);
    struct rlimit cpu = {(rlim_t)t->cpu_limit_s, (rlim_t)t->cpu_limit_s + 1}; /* as a box's prlimit sets it */
    setrlimit(RLIMIT_CPU, &cpu);
    sigset_t none; /* no signal blocked, as a program in a box of its own starts */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(argv[0], argv, environ);
    _exit(127);
}

/* Wait for CHILD until DEADLINE, draining its outputs meanwhile: 1 if it exited in time, 0 at the
 * deadline, -1 as soon as an output went past CAP (a box of its own stops there too). */
static int wait_until(pid_t child, int64_t deadline, int *status, struct rusage *usage, struct sink *outputs,
                      long cap) {
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    if (pidfd < 0)
        fail("pidfd_open");
    struct pollfd fds[3] = {{pidfd, POLLIN, 0}, {outputs[0].pipe, POLLIN, 0}, {outputs[1].pipe, POLLIN, 0}};
    int result = 0;
    for (;;) {
        if (wait4(child, status, WNOHANG, usage) == child) {
            result = 1;
            break;
        }
        int64_t left = deadline - now_ns();
        if (left <= 0)
            break;
        if (poll(fds, 3, (int)((left + 999999) / 1000000)) < 0 && errno != EINTR)
            fail("poll");
        for (int i = 1; i < 3; i++)
            if (fds[i].revents && !drain(&outputs[i - 1], cap))
                fds[i].fd = -1;
        if (outputs[0].size > cap || outputs[1].size > cap) {
            result = -1;
            break;
        }
    }
    close(pidfd);
    return result;
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

/* The size of an output, or -1 when it is at or past CAP. */
static off_t output_size(const struct sink *s, long cap) {
    return s->size < cap ? s->size : -1;
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
static void ended(const char *name, int sig, int64_t cpu, int64_t wall, long maxrss_kb, const struct sink *out,
                  const struct sink *err, off_t head, off_t tail) {
    off_t size = output_size(out, LONG_MAX), err_size = output_size(err, LONG_MAX);
    head = size < head ? size : head;
    tail = err_size < tail ? err_size : tail;
    printf("ended %s %d %lld %lld %ld %lld %lld %lld %lld\n", name, sig, (long long)cpu, (long long)wall, maxrss_kb,
           (long long)size, (long long)err_size, (long long)head, (long long)tail);
    fflush(stdout);
    send_range(out->keep, 0, head);
    send_range(err->keep, err_size - tail, tail);
    exit(0);
}

static void stop(const char *name, const char *reason) {
    printf("stop %s %s\n", name, reason);
    fflush(stdout);
    exit(0);
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fputs("usage: native_runner INPUTS_FD OUTPUT_CAP OUTPUT_BUDGET HEAD TAIL PROGRAM [ARG...] < PLAN\n", stderr);
        return 125;
    }
    if (getpid() != 1) {
        fputs("native_runner: must be the box's pid 1\n", stderr);
        return 125;
    }
    prctl(PR_SET_DUMPABLE, 0); /* no program opens our report pipe or the inputs' descriptor through /proc */
    static struct test tests[MAX_TESTS];
    int count = read_plan(stdin, tests);
    int inputs = atoi(argv[1]);
    long cap = atol(argv[2]);
    long budget = atol(argv[3]);
    off_t head = atol(argv[4]), tail = atol(argv[5]);
    if (fcntl(inputs, F_SETFD, FD_CLOEXEC) != 0)
        fail("the inputs' descriptor");
    forbid_lasting_ipc();
    uint64_t files, network;
    settle(&files, &network);
    for (int i = 0; i < count; i++) {
        const struct test *t = &tests[i];
        struct sink outputs[2];
        int out = open_sink(&outputs[0], "stdout"), err = open_sink(&outputs[1], "stderr");
        int64_t cpu_before = children_cpu_ns(), started = now_ns();
        pid_t child = fork();
        if (child < 0)
            fail("fork");
        if (child == 0)
            exec_test(t, inputs, out, err, argv + 6);
        close(out);
        close(err);
        int status = 0;
        struct rusage usage = {0};
        int exited = wait_until(child, started + t->wall_cap_ms * 1000000L, &status, &usage, outputs, cap);
        int64_t wall = now_ns() - started;
        int left_running = end_every_process();
        int64_t cpu = children_cpu_ns() - cpu_before;
        if (exited < 0)
            stop(t->name, "output");
        for (int k = 0; k < 2; k++)
            while (drain(&outputs[k], cap)) { /* every writer is gone: up to a pipe's buffer left */
            }
        if (outputs[0].size > cap || outputs[1].size > cap)
            stop(t->name, "output"); /* the box-per-test path stops such a run at its cap */
        if (exited > 0 && WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL))
            ended(t->name, WTERMSIG(status), cpu, wall, usage.ru_maxrss, &outputs[0], &outputs[1], head, tail);
        off_t size = output_size(&outputs[0], cap), err_size = output_size(&outputs[1], cap);
        const char *why = !exited ? "wall_cap"
                          : !WIFEXITED(status) || WEXITSTATUS(status) != 0 ? "status"
                          : cpu > t->cpu_budget_ms * 1000000L ? "cpu"
                          : wall > t->wall_budget_ms * 1000000L ? "wall"
                          : left_running ? "processes"
                          : last_pid() != child ? "pids"
                          : size < 0 || err_size < 0 ? "output"
                          : size > budget ? "budget"
                          : writable_state() != files ? "files"
                          : !network_settled(network) ? "network" : NULL;
        if (why)
            stop(t->name, why);
        printf("done %s %lld %lld %lld\n", t->name, (long long)cpu, (long long)wall, (long long)size);
        fflush(stdout);
        send_range(outputs[0].keep, 0, size);
        for (int k = 0; k < 2; k++) {
            close(outputs[k].pipe);
            close(outputs[k].keep);
        }
        budget -= size;
    }
    stop("end", "end");
}
