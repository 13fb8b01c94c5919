/* box-server CONTROL_FD: builds a fresh box for every run, at the cost of a fork.
 *
 * Started once per sandbox (as root), it clones every run from its own small process into new pid,
 * mount, network, IPC, UTS and cgroup namespaces. The clone (C1) builds the box's root in a new tmpfs
 * from a list of operations (the sandbox's layout, the same list bwrap's command line is made from),
 * pivots into it, names its host "box", brings up its loopback, and execs the box's init
 * (``box_init.c``), which is then the box's pid 1 and starts the run. Nothing is shared between two
 * runs but the read-only binds: no namespace, no tmpfs, no process, no cgroup.
 *
 * CONTROL_FD is a SOCK_SEQPACKET socket. Messages are NUL-separated fields.
 *   config PARENT N (KIND A B)*N     the first message: where to make the folder the boxes are built on
 *                                    (empty on the host: each box mounts its root there in a mount
 *                                    namespace of its own; removed when the server ends), and the
 *                                    layout every box shares
 *   run N (KIND A B)*N M ARG*M E ENV*E CWD
 *                                    one run: its own operations, the init's argv and environment,
 *                                    its working directory; the descriptors (SCM_RIGHTS) are the reply
 *                                    socket, then stdin, stdout, stderr and the init's descriptors,
 *                                    which become 0, 1, 2, 3, 4, ... in the box.
 * On the reply socket: "pid PID" with a pidfd of C1 (the caller's handle to kill the box: killing C1
 * kills every process in it), an optional "failed WHY" (the box could not be built), and, when C1 has
 * been reaped, "exit STATUS UTIME_US STIME_US MAXRSS_KB" (C1's wait status and the rusage of C1 and
 * everything it reaped: the whole run). Then the reply socket is closed.
 * Operations: tmpfs DST MODE | dir DST MODE | bind SRC DST (read-only) | bind-rw SRC DST |
 * bind-try SRC DST (read-only, if SRC exists) | symlink TARGET DST | proc DST | dev DST | mask DST
 * (/dev/null over DST, if DST exists). DSTs are paths inside the box. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_MESSAGE (256 * 1024)
#define MAX_FIELDS 4096
#define MAX_FDS 64
#define MAX_RUNS 4096
#define NAMESPACES (CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

struct op { const char *kind, *a, *b; };
struct layout { struct op ops[MAX_FIELDS / 3]; int n; };

static char config_buffer[MAX_MESSAGE];
static char root[4096];
static struct layout shared;
static struct { pid_t pid; int reply; } runs[MAX_RUNS];

/* -- in C1, building the box: any failure is reported on the reply socket and ends C1 --------- */

static int reply_fd = -1;

static void fail(const char *fmt, ...) {
    char message[1024];
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(message, sizeof message, "failed ");
    n += vsnprintf(message + n, sizeof message - n, fmt, ap);
    va_end(ap);
    snprintf(message + n, sizeof message - n, ": %s", strerror(saved));
    if (send(reply_fd, message, strlen(message), MSG_NOSIGNAL) < 0) { /* the caller is gone */ }
    _exit(125);
}

static void in_box(char *out, size_t size, const char *path) {
    if ((size_t)snprintf(out, size, "%s%s", root, path) >= size) {
        errno = ENAMETOOLONG;
        fail("box path %s", path);
    }
}

static void must_mount(const char *source, const char *target, const char *type, unsigned long flags,
                       const char *data) {
    if (mount(source, target, type, flags, data) != 0) fail("mount %s on %s", source ? source : type, target);
}

/* An existing directory is left as it is (it may be a read-only bind). */
static void make_dir(const char *path, mode_t mode) {
    if (mkdir(path, mode) != 0) {
        if (errno != EEXIST) fail("mkdir %s", path);
        return;
    }
    if (chmod(path, mode) != 0) fail("chmod %s", path);  /* past the umask */
}

/* A mount point of the source's kind: a directory, or an empty file. */
static void mount_point(const char *source, const char *target) {
    struct stat st;
    if (stat(source, &st) != 0) fail("stat %s", source);
    if (S_ISDIR(st.st_mode)) {
        if (mkdir(target, 0755) != 0 && errno != EEXIST) fail("mkdir %s", target);
        return;
    }
    int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail("create %s", target);
    close(fd);
}

static void bind_mount(const char *source, const char *target, int writable) {
    mount_point(source, target);
    must_mount(source, target, NULL, MS_BIND | MS_REC, NULL);
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | (writable ? 0 : MS_RDONLY);
    must_mount(NULL, target, NULL, flags, NULL);
}

static void proc_at(const char *target) {
    static const char *covered[] = {"sys", "sysrq-trigger", "irq", "bus"};
    char path[4200];
    make_dir(target, 0555);
    must_mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    for (size_t i = 0; i < sizeof covered / sizeof covered[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", target, covered[i]);
        if (access(path, F_OK) != 0) continue;
        must_mount(path, path, NULL, MS_BIND | MS_REC, NULL);
        must_mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    }
}

/* /dev as bwrap's --dev makes it: a tmpfs with the harmless device nodes of the host, a devpts of its own,
 * /dev/shm, and the usual links. */
static void dev_at(const char *target) {
    static const char *nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
    static const char *links[][2] = {{"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"},
                                     {"/proc/self/fd/2", "stderr"}, {"/proc/self/fd", "fd"},
                                     {"/proc/kcore", "core"}, {"pts/ptmx", "ptmx"}};
    char path[4200], host[64];
    make_dir(target, 0755);
    must_mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        snprintf(host, sizeof host, "/dev/%s", nodes[i]);
        snprintf(path, sizeof path, "%s/%s", target, nodes[i]);
        mount_point(host, path);
        must_mount(host, path, NULL, MS_BIND, NULL);
        must_mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID, NULL);
    }
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", target, links[i][1]);
        if (symlink(links[i][0], path) != 0) fail("symlink %s", path);
    }
    snprintf(path, sizeof path, "%s/shm", target);
    make_dir(path, 0755);
    snprintf(path, sizeof path, "%s/pts", target);
    make_dir(path, 0755);
    must_mount("devpts", path, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620");
}

static void apply(const struct op *op) {
    char target[4096];
    in_box(target, sizeof target, strcmp(op->kind, "symlink") == 0 || strncmp(op->kind, "bind", 4) == 0
                                      ? op->b : op->a);
    mode_t mode = (mode_t)strtol(op->b, NULL, 8);
    if (strcmp(op->kind, "tmpfs") == 0) {
        char data[32];
        snprintf(data, sizeof data, "mode=%04o", (unsigned)mode);
        make_dir(target, mode);
        must_mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, data);
    } else if (strcmp(op->kind, "dir") == 0) make_dir(target, mode);
    else if (strcmp(op->kind, "bind") == 0) bind_mount(op->a, target, 0);
    else if (strcmp(op->kind, "bind-rw") == 0) bind_mount(op->a, target, 1);
    else if (strcmp(op->kind, "bind-try") == 0) { if (access(op->a, F_OK) == 0) bind_mount(op->a, target, 0); }
    else if (strcmp(op->kind, "symlink") == 0) { if (symlink(op->a, target) != 0) fail("symlink %s", target); }
    else if (strcmp(op->kind, "proc") == 0) proc_at(target);
    else if (strcmp(op->kind, "dev") == 0) dev_at(target);
    else if (strcmp(op->kind, "mask") == 0) {
        if (access(target, F_OK) == 0) {
            must_mount("/dev/null", target, NULL, MS_BIND, NULL);
            must_mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
        }
    } else {
        errno = EINVAL;
        fail("unknown operation %s", op->kind);
    }
}

static void loopback_up(void) {
    struct ifreq ifr;
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) fail("socket");
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0) fail("read lo's flags");
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) fail("bring lo up");
    close(s);
}

/* C1: the box's pid 1 until it execs the init. */
static void build_and_start(const struct layout *own, char **argv, char **env, const char *cwd,
                            const int *fds, int n_fds) {
    reply_fd = fds[0];
    /* (getppid() is 0 in a new pid namespace: a server that died just before this goes unnoticed, and its
     * box ends at its wall cap) */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail("follow the server");
    must_mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
    for (int i = 0; i < shared.n; i++) apply(&shared.ops[i]);
    for (int i = 0; i < own->n; i++) apply(&own->ops[i]);
    if (chdir(root) != 0) fail("chdir %s", root);
    if (syscall(SYS_pivot_root, ".", ".") != 0) fail("pivot_root");
    if (umount2(".", MNT_DETACH) != 0) fail("detach the host's root");
    if (chdir(cwd) != 0) fail("chdir %s", cwd);
    if (sethostname("box", 3) != 0) fail("sethostname");
    loopback_up();
    /* The run's descriptors at 0, 1, 2, 3...: moved above them first, so no dup2 overwrites another. */
    int moved[MAX_FDS];
    for (int i = 1; i < n_fds; i++)
        if ((moved[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, n_fds + 3 + MAX_FDS)) < 0) fail("move fd %d", fds[i]);
    for (int i = 1; i < n_fds; i++)
        if (dup2(moved[i], i - 1) != i - 1) fail("dup2 to %d", i - 1);
    syscall(SYS_close_range, (unsigned)(n_fds - 1), ~0U, 0);  /* all else, the reply socket too */
    reply_fd = -1;
    execve("/.box-init", argv, env);
    _exit(125);  /* the caller sees no report from the init: an infra error */
}

/* -- in the server ------------------------------------------------------------------------------ */

/* Splits a message into NUL-terminated fields; returns how many. */
static int split(char *message, size_t size, char **fields, int max) {
    int n = 0;
    for (size_t at = 0; at < size && n < max; at += strlen(message + at) + 1) fields[n++] = message + at;
    return n;
}

/* Reads "N (KIND A B)*N" at fields[*at]; returns 0 when malformed. */
static int read_ops(char **fields, int n, int *at, struct layout *out) {
    if (*at >= n) return 0;
    long count = strtol(fields[(*at)++], NULL, 10);
    if (count < 0 || count > (long)(sizeof out->ops / sizeof out->ops[0]) || *at + 3 * count > n) return 0;
    out->n = (int)count;
    for (long i = 0; i < count; i++, *at += 3)
        out->ops[i] = (struct op){fields[*at], fields[*at + 1], fields[*at + 2]};
    return 1;
}

/* Reads "N STRING*N" into a NULL-terminated vector (pointing into fields). */
static char **read_vector(char **fields, int n, int *at) {
    if (*at >= n) return NULL;
    long count = strtol(fields[(*at)++], NULL, 10);
    if (count < 0 || *at + count > n) return NULL;
    char **vector = calloc((size_t)count + 1, sizeof *vector);
    if (!vector) return NULL;
    for (long i = 0; i < count; i++) vector[i] = fields[(*at)++];
    return vector;
}

static void send_text(int fd, const char *text, int pass_fd) {
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {(void *)text, strlen(text)};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (pass_fd >= 0) {
        memset(control, 0, sizeof control);
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
        cmsg->cmsg_level = SOL_SOCKET;
        cmsg->cmsg_type = SCM_RIGHTS;
        cmsg->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmsg), &pass_fd, sizeof(int));
    }
    if (sendmsg(fd, &msg, MSG_NOSIGNAL) < 0) { /* the caller gave up on this run: it is still reaped */ }
}

static int remember(pid_t pid, int reply) {
    for (int i = 0; i < MAX_RUNS; i++)
        if (runs[i].pid == 0) {
            runs[i].pid = pid;
            runs[i].reply = reply;
            return 1;
        }
    return 0;
}

static void start_run(int control) {
    static char message[MAX_MESSAGE];
    static char *fields[MAX_FIELDS];
    char control_data[CMSG_SPACE(MAX_FDS * sizeof(int))];
    struct iovec iov = {message, sizeof message - 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control_data,
                         .msg_controllen = sizeof control_data};
    ssize_t size = recvmsg(control, &msg, MSG_CMSG_CLOEXEC);
    if (size == 0) {  /* the sandbox (or its process) is gone: every box dies with this server (PDEATHSIG) */
        rmdir(root);
        exit(0);
    }
    if (size < 0) {
        if (errno == EINTR) return;
        perror("box-server: recvmsg");
        exit(1);
    }
    message[size] = '\0';
    int fds[MAX_FDS], n_fds = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < count && n_fds < MAX_FDS; i++) memcpy(&fds[n_fds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        }
    int n = split(message, (size_t)size, fields, MAX_FIELDS), at = 1;
    static struct layout own;
    char **argv = NULL, **env = NULL;
    int ok = n > 0 && strcmp(fields[0], "run") == 0 && n_fds >= 4 && !(msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
             && read_ops(fields, n, &at, &own) && (argv = read_vector(fields, n, &at)) && argv[0]
             && (env = read_vector(fields, n, &at)) && at < n;
    if (!ok) {
        if (n_fds > 0) send_text(fds[0], "failed a malformed request", -1);
    } else {
        pid_t pid = (pid_t)syscall(SYS_clone, (unsigned long)(NAMESPACES | SIGCHLD), 0, 0, 0, 0);
        if (pid == 0) build_and_start(&own, argv, env, fields[at], fds, n_fds);
        if (pid < 0) {
            char why[160];
            snprintf(why, sizeof why, "failed clone a box: %s", strerror(errno));
            send_text(fds[0], why, -1);
        } else {
            char line[64];
            int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
            snprintf(line, sizeof line, "pid %d", (int)pid);
            send_text(fds[0], line, pidfd);
            if (pidfd >= 0) close(pidfd);
            if (remember(pid, fds[0])) fds[0] = -1;
            else kill(pid, SIGKILL);  /* cannot happen below MAX_RUNS boxes at once */
        }
    }
    free(argv);
    free(env);
    for (int i = 0; i < n_fds; i++)
        if (fds[i] >= 0) close(fds[i]);
}

static void reap(void) {
    int status;
    struct rusage usage;
    pid_t pid;
    while ((pid = wait4(-1, &status, WNOHANG, &usage)) > 0)
        for (int i = 0; i < MAX_RUNS; i++)
            if (runs[i].pid == pid) {
                char line[160];
                snprintf(line, sizeof line, "exit %d %lld %lld %ld", status,
                         (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec,
                         (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec, usage.ru_maxrss);
                send_text(runs[i].reply, line, -1);
                close(runs[i].reply);
                runs[i].pid = 0;
                break;
            }
}

static void configure(int control) {
    static char *fields[MAX_FIELDS];
    ssize_t size = recv(control, config_buffer, sizeof config_buffer - 1, 0);
    if (size <= 0) exit(size == 0 ? 0 : 1);
    config_buffer[size] = '\0';
    int n = split(config_buffer, (size_t)size, fields, MAX_FIELDS), at = 2;
    if (n < 3 || strcmp(fields[0], "config") != 0 || !read_ops(fields, n, &at, &shared)) {
        fputs("box-server: a malformed configuration\n", stderr);
        exit(1);
    }
    if ((size_t)snprintf(root, sizeof root, "%s/linteval-boxes-XXXXXX", fields[1]) >= sizeof root || !mkdtemp(root)) {
        perror("box-server: a folder for the boxes' roots");
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fputs("usage: box-server CONTROL_FD\n", stderr);
        return 2;
    }
    int control = atoi(argv[1]);
    configure(control);
    /* Boxes build their roots in copies of this mount namespace: private, so nothing propagates to the host. */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        perror("box-server: a private mount namespace");
        return 1;
    }
    sigset_t children;
    sigemptyset(&children);
    sigaddset(&children, SIGCHLD);
    sigprocmask(SIG_BLOCK, &children, NULL);
    int signals = signalfd(-1, &children, SFD_CLOEXEC | SFD_NONBLOCK);
    if (signals < 0) {
        perror("box-server: signalfd");
        return 1;
    }
    fputs("ready\n", stdout);
    fflush(stdout);
    struct pollfd watched[2] = {{control, POLLIN, 0}, {signals, POLLIN, 0}};
    for (;;) {
        if (poll(watched, 2, -1) < 0) {
            if (errno == EINTR) continue;
            perror("box-server: poll");
            return 1;
        }
        if (watched[1].revents) {
            struct signalfd_siginfo info;
            while (read(signals, &info, sizeof info) > 0) {}
            reap();
        }
        if (watched[0].revents & (POLLIN | POLLHUP)) start_run(control);
    }
}
