/* box-init OPTION... -- PROGRAM [ARG...]
 *
 * The init in front of every sandboxed run, whoever built its box (the box server's clone, bwrap,
 * or no box at all for the unsafe rlimits sandbox). One program, so that every path gives a run
 * the same world from here on. Options (one argv word each):
 *   report=FD                 where the report goes (below); required
 *   seccomp=FD                a BPF program the run installs before its exec
 *   cgroup=FD                 a cgroup.procs file the run joins (repeatable): only the run's own
 *                             processes are ever in its cgroups, never this init or the box's builder
 *   tmpfs=PATH:BYTES:INODES:MODE[:own]   a fresh tmpfs mounted at PATH (repeatable); "own": owned
 *                             by the run's uid
 *   resize=PATH:BYTES:INODES  the tmpfs the box's builder mounted at PATH, sized (it may have binds below
 *                             it, which a fresh mount would hide)
 *   identity=setuid:UID:GID   drop to UID/GID (as host root) | userns:UID:GID enter a child user
 *                             namespace mapping the caller's UID/GID (bwrap without root) | keep
 *   rlimit=NAME:SOFT:HARD     cpu, as, fsize, nofile, nproc, core, stack ("inf": unlimited)
 *   wall_ms=N                 the wall-clock cap: the whole run is killed then
 *   pid1                      this init is its pid namespace's pid 1 (the run ends with the namespace);
 *                             without it, the run's session is killed and this init is its subreaper
 *
 * 1. mounts and sizes the tmpfs's (a writable /tmp, /dev/shm or /box that dies with the box; their pages
 *    are charged to the run's memory cgroup, since the run writes them);
 * 2. forks the run: it starts a session, joins its cgroups and a cgroup namespace rooted there,
 *    offers itself to the OOM killer first (oom_score_adj 1000), takes its rlimits, drops to its
 *    identity with no capabilities and no_new_privs, installs the seccomp filter, and execs PROGRAM;
 * 3. drops its own privileges (the same identity, not dumpable), forwards SIGHUP, SIGINT, SIGQUIT,
 *    SIGTERM, SIGUSR1 and SIGUSR2 to the run (as a shell's init would), reaps whatever ends;
 * 4. when the run's first process exits, or the wall cap passes: kills every other process of the
 *    box (pid1: kill(-1); else the session), reaps them all, so their CPU time is counted too;
 * 5. reports: "started" once the run's exec is under way (or "failed <why>"), then at the end
 *    "status STATUS utime_us UTIME stime_us STIME maxrss_kb KB wall_capped 0|1" (STATUS: the run's
 *    wait status), and exits 128+N for a run killed by signal N, else with its exit code.
 * A failure before the exec: "failed <why>" and exit 125, so the caller can tell a box that was never
 * ready (its infra error) from a program that failed (a program cannot forge the report: the fd is
 * close-on-exec and this init is not dumpable). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ITEMS 16
#define MAX_FILTER_BYTES (64 * 1024)

enum identity_mode { KEEP, SETUID, USERNS };

struct tmpfs { const char *path; const char *bytes; const char *inodes; const char *mode; int own, resize; };
struct limit { int resource; rlim_t soft, hard; };

static struct {
    int report, seccomp, cgroups[MAX_ITEMS], n_cgroups;
    struct tmpfs tmpfs[MAX_ITEMS]; int n_tmpfs;
    struct limit limits[MAX_ITEMS]; int n_limits;
    enum identity_mode identity; uid_t uid; gid_t gid;
    long wall_ms; int pid1;
    char **program;
} opt = {.report = -1, .seccomp = -1};

static const int FORWARDED[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2};
#define N_FORWARDED (sizeof FORWARDED / sizeof FORWARDED[0])

/* The run's setup failed (before its exec): say why on fd (the report, or the run's error pipe). */
static void fail(int fd, const char *fmt, ...) {
    char why[512];
    va_list ap;
    int saved = errno;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    dprintf(fd, "failed %s: %s\n", why, strerror(saved));
    _exit(125);
}

static int number(const char *text) { return (int)strtol(text, NULL, 10); }

static rlim_t rlimit_value(const char *text) {
    return strncmp(text, "inf", 3) == 0 ? RLIM_INFINITY : (rlim_t)strtoull(text, NULL, 10);
}

static int resource_named(const char *name) {
    static const struct { const char *name; int resource; } names[] = {
        {"cpu", RLIMIT_CPU}, {"as", RLIMIT_AS}, {"fsize", RLIMIT_FSIZE}, {"nofile", RLIMIT_NOFILE},
        {"nproc", RLIMIT_NPROC}, {"core", RLIMIT_CORE}, {"stack", RLIMIT_STACK}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].name, name) == 0) return names[i].resource;
    return -1;
}

/* Splits "a:b:c" in place into at most n fields; returns how many. */
static int fields(char *text, char **out, int n) {
    int count = 0;
    for (char *save = NULL, *part = strtok_r(text, ":", &save); part && count < n; part = strtok_r(NULL, ":", &save))
        out[count++] = part;
    return count;
}

static void parse(int argc, char **argv) {
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        char *arg = argv[i], *value = strchr(arg, '='), *f[5];
        if (strcmp(arg, "pid1") == 0) { opt.pid1 = 1; continue; }
        if (!value) goto bad;
        *value++ = '\0';
        if (strcmp(arg, "report") == 0) opt.report = number(value);
        else if (strcmp(arg, "seccomp") == 0) opt.seccomp = number(value);
        else if (strcmp(arg, "cgroup") == 0 && opt.n_cgroups < MAX_ITEMS) opt.cgroups[opt.n_cgroups++] = number(value);
        else if (strcmp(arg, "wall_ms") == 0) opt.wall_ms = strtol(value, NULL, 10);
        else if (strcmp(arg, "tmpfs") == 0 && opt.n_tmpfs < MAX_ITEMS) {
            int n = fields(value, f, 5);
            if (n < 4) goto bad;
            opt.tmpfs[opt.n_tmpfs++] = (struct tmpfs){f[0], f[1], f[2], f[3], n == 5 && strcmp(f[4], "own") == 0, 0};
        } else if (strcmp(arg, "resize") == 0 && opt.n_tmpfs < MAX_ITEMS) {
            if (fields(value, f, 3) != 3) goto bad;
            opt.tmpfs[opt.n_tmpfs++] = (struct tmpfs){f[0], f[1], f[2], NULL, 0, 1};
        } else if (strcmp(arg, "rlimit") == 0 && opt.n_limits < MAX_ITEMS) {
            if (fields(value, f, 3) != 3 || resource_named(f[0]) < 0) goto bad;
            opt.limits[opt.n_limits++] = (struct limit){resource_named(f[0]), rlimit_value(f[1]), rlimit_value(f[2])};
        } else if (strcmp(arg, "identity") == 0) {
            int n = fields(value, f, 3);
            if (strcmp(f[0], "keep") == 0) opt.identity = KEEP;
            else if (n == 3 && (strcmp(f[0], "setuid") == 0 || strcmp(f[0], "userns") == 0)) {
                opt.identity = strcmp(f[0], "setuid") == 0 ? SETUID : USERNS;
                opt.uid = (uid_t)strtoul(f[1], NULL, 10);
                opt.gid = (gid_t)strtoul(f[2], NULL, 10);
            } else goto bad;
        } else goto bad;
    }
    if (i >= argc - 1 || opt.report < 0) goto bad;
    opt.program = argv + i + 1;
    return;
bad:
    fprintf(stderr, "box-init: bad arguments (at %s)\n", i < argc ? argv[i] : "the end");
    _exit(125);
}

static void write_file(int report, const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) fail(report, "write %s", path);
    close(fd);
}

static void mount_tmpfs(const struct tmpfs *t) {
    char options[256];
    if (t->resize) {
        snprintf(options, sizeof options, "size=%s,nr_inodes=%s", t->bytes, t->inodes);
        if (mount("tmpfs", t->path, "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, options) != 0)
            fail(opt.report, "resize the tmpfs at %s (%s)", t->path, options);
        return;
    }
    int n = snprintf(options, sizeof options, "size=%s,nr_inodes=%s,mode=%s", t->bytes, t->inodes, t->mode);
    /* The run's uid as this mount's user namespace knows it: in a user namespace the init is its root. */
    if (t->own) snprintf(options + n, sizeof options - n, ",uid=%d,gid=%d",
                         opt.identity == SETUID ? (int)opt.uid : 0, opt.identity == SETUID ? (int)opt.gid : 0);
    if (mount("tmpfs", t->path, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0)
        fail(opt.report, "mount a tmpfs at %s (%s)", t->path, options);
}

/* Without root, in bwrap's user namespace (as its root): one child namespace mapping the caller's
 * ids, and no further one (the box's mounts stay the parent namespace's: never remountable). */
static void enter_child_userns(void) {
    char map[64];
    write_file(opt.report, "/proc/sys/user/max_user_namespaces", "1");
    if (unshare(CLONE_NEWUSER) != 0) fail(opt.report, "unshare a user namespace");
    write_file(opt.report, "/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%d 0 1\n", (int)opt.uid);
    write_file(opt.report, "/proc/self/uid_map", map);
    snprintf(map, sizeof map, "%d 0 1\n", (int)opt.gid);
    write_file(opt.report, "/proc/self/gid_map", map);
    if (unshare(CLONE_NEWUSER) == 0) {
        errno = EPERM;
        fail(opt.report, "user namespaces are still allowed");
    }
}

/* Every privilege, irrevocably: the bounding set first (it needs CAP_SETPCAP, which setresuid clears). */
static void drop_privileges(int fd) {
    for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && !(opt.identity == KEEP && errno == EPERM))
            fail(fd, "drop capability %d", cap);  /* (a caller without privileges has none to drop) */
    if (opt.identity == SETUID) {
        if (setgroups(0, NULL) != 0) fail(fd, "setgroups");
        if (setresgid(opt.gid, opt.gid, opt.gid) != 0) fail(fd, "setresgid %d", (int)opt.gid);
        if (setresuid(opt.uid, opt.uid, opt.uid) != 0) fail(fd, "setresuid %d", (int)opt.uid);
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) fail(fd, "clear ambient capabilities");
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
    memset(none, 0, sizeof none);
    if (syscall(SYS_capset, &header, none) != 0) fail(fd, "capset");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail(fd, "no_new_privs");
}

static void install_seccomp(int fd) {
    static unsigned char program[MAX_FILTER_BYTES];
    size_t size = 0;
    ssize_t got;
    while ((got = read(opt.seccomp, program + size, sizeof program - size)) > 0) size += (size_t)got;
    if (got < 0) fail(fd, "read the seccomp filter");
    if (size == 0 || size % sizeof(struct sock_filter) != 0 || size == sizeof program) {
        errno = EINVAL;
        fail(fd, "seccomp filter of %zu bytes", size);
    }
    struct sock_fprog prog = {(unsigned short)(size / sizeof(struct sock_filter)), (struct sock_filter *)program};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) fail(fd, "install the seccomp filter");
}

/* The run's process, between fork and exec. Errors go to `status` (a close-on-exec pipe to the init):
 * "started" is written last, right before the exec. */
static void become_the_run(int status) {
    char line[32];
    if (setsid() < 0) fail(status, "setsid");
    for (int i = 0; i < opt.n_cgroups; i++)
        if (write(opt.cgroups[i], "0", 1) != 1) fail(status, "join the run's cgroup (fd %d)", opt.cgroups[i]);
    if (opt.n_cgroups && unshare(CLONE_NEWCGROUP) != 0) fail(status, "unshare a cgroup namespace");
    int adj = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (adj >= 0) {
        snprintf(line, sizeof line, "1000");
        if (write(adj, line, strlen(line)) < 0) { /* best effort: the cgroup holds only the run anyway */ }
        close(adj);
    }
    for (int i = 0; i < opt.n_limits; i++) {
        struct rlimit value = {opt.limits[i].soft, opt.limits[i].hard};
        if (setrlimit(opt.limits[i].resource, &value) != 0) fail(status, "setrlimit %d", opt.limits[i].resource);
    }
    drop_privileges(status);
    if (opt.seccomp >= 0) install_seccomp(status);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (size_t i = 0; i < N_FORWARDED; i++) signal(FORWARDED[i], SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    if (write(status, "started\n", 8) != 8) _exit(125);
    execvp(opt.program[0], opt.program);
    dprintf(2, "box-init: exec %s: %s\n", opt.program[0], strerror(errno));
    _exit(127);
}

static void ignore(int sig) { (void)sig; }

static long elapsed_ms(const struct timespec *since) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* Waits for the run's first process, forwarding signals; returns whether the wall cap ended it. */
static int supervise(pid_t run, int *run_status, const sigset_t *awaited, const struct timespec *started) {
    for (;;) {
        pid_t pid;
        int status;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
            if (pid == run) {
                *run_status = status;
                return 0;
            }
        long left = opt.wall_ms > 0 ? opt.wall_ms - elapsed_ms(started) : 1000000000L;
        if (left <= 0) return 1;
        struct timespec wait = {left / 1000, (left % 1000) * 1000000L};
        siginfo_t info;
        int sig = sigtimedwait(awaited, &info, &wait);
        if (sig > 0 && sig != SIGCHLD) kill(run, sig);
    }
}

/* Everything else of the run goes now; each one reaped, so its CPU time is counted. */
static void end_the_box(pid_t run) {
    if (opt.pid1) kill(-1, SIGKILL);
    else kill(-run, SIGKILL);
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    for (;;) {
        pid_t pid = waitpid(-1, NULL, opt.pid1 ? 0 : WNOHANG);
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) return;  /* ECHILD: nothing left */
        /* Without a pid namespace a process that left the session is out of reach: give up after 1 s. */
        if (pid == 0 && elapsed_ms(&started) > 1000) return;
        if (pid == 0) usleep(1000);
    }
}

int main(int argc, char **argv) {
    parse(argc, argv);
    fcntl(opt.report, F_SETFD, FD_CLOEXEC);
    if (opt.seccomp >= 0) fcntl(opt.seccomp, F_SETFD, FD_CLOEXEC);
    for (int i = 0; i < opt.n_cgroups; i++) fcntl(opt.cgroups[i], F_SETFD, FD_CLOEXEC);
    if (!opt.pid1 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) fail(opt.report, "become a subreaper");
    for (int i = 0; i < opt.n_tmpfs; i++) mount_tmpfs(&opt.tmpfs[i]);
    /* The working directory again by its path: one of those mounts may cover the one we are in. */
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) == NULL || chdir(cwd) != 0) fail(opt.report, "enter the working directory");
    if (opt.identity == USERNS) enter_child_userns();

    sigset_t awaited;
    sigemptyset(&awaited);
    sigaddset(&awaited, SIGCHLD);
    for (size_t i = 0; i < N_FORWARDED; i++) sigaddset(&awaited, FORWARDED[i]);
    /* A pid namespace's init gets no signal it has no handler for: a handler, and the signals blocked
     * for sigtimedwait. */
    for (size_t i = 0; i < N_FORWARDED; i++) signal(FORWARDED[i], ignore);
    signal(SIGCHLD, ignore);
    sigprocmask(SIG_BLOCK, &awaited, NULL);

    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) fail(opt.report, "pipe");
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);
    pid_t run = fork();
    if (run < 0) fail(opt.report, "fork the run");
    if (run == 0) {
        close(pipe_fds[0]);
        become_the_run(pipe_fds[1]);
    }
    close(pipe_fds[1]);
    for (int fd = 0; fd < 3; fd++) close(fd);  /* the run's pipes end with the run's processes, not with this init */
    for (int i = 0; i < opt.n_cgroups; i++) close(opt.cgroups[i]);
    if (opt.seccomp >= 0) close(opt.seccomp);
    drop_privileges(opt.report);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);  /* nothing of the box opens this init's memory or fds */

    char setup[600] = "";
    ssize_t got = read(pipe_fds[0], setup, sizeof setup - 1);
    close(pipe_fds[0]);
    setup[got > 0 ? got : 0] = '\0';
    if (strncmp(setup, "started\n", 8) != 0) {
        end_the_box(run);
        dprintf(opt.report, "%s", setup[0] ? setup : "failed the run ended before its exec\n");
        return 125;
    }
    dprintf(opt.report, "started\n");  /* now, not at the end: a run killed from outside started all the same */
    int status = 0;
    int wall_capped = supervise(run, &status, &awaited, &started);
    end_the_box(run);
    if (wall_capped) status = SIGKILL;  /* as waitpid reports a process SIGKILL ended */
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    dprintf(opt.report, "status %d utime_us %lld stime_us %lld maxrss_kb %ld wall_capped %d\n", status,
            (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec,
            (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec, usage.ru_maxrss, wall_capped);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
