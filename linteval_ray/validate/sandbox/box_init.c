/* box-init READY_FD SECCOMP_FD TMP_BYTES NR_INODES MODE UID GID PROGRAM [ARG...]
 *
 * The box's pid 1 in front of every program (bwrap execs it inside the finished box):
 * 1. remounts the box's /tmp tmpfs with nosuid,nodev,size=TMP_BYTES,nr_inodes=NR_INODES by the
 *    mount(2) syscall (bwrap 0.8 has no --size; util-linux mount refuses a non-root uid even where
 *    the namespace's CAP_SYS_ADMIN allows the remount);
 * 2. MODE "setuid" (we run as host root, no user namespace): drops to UID/GID, no groups;
 *    MODE "userns" (we run as the caller in bwrap's user namespace, as its root): caps that
 *    namespace at one child (user.max_user_namespaces=1), enters a child user namespace that maps
 *    the caller's UID/GID (as bwrap's --disable-userns does), and checks that no further one can
 *    be made. The box's mounts belong to the parent namespace, so the program can never remount;
 * 3. drops every capability irrevocably (bounding set, ambient, inheritable, permitted, effective),
 *    sets no_new_privs, installs the seccomp filter read from SECCOMP_FD (-1: none);
 * 4. writes "ready\n" to READY_FD and closes it: the caller's proof that the box was sized and
 *    the privileges dropped (a program cannot forge it, the fd is gone before it starts);
 * 5. execs PROGRAM.
 * Any failure: a message on stderr, exit 125, and no "ready": the caller's infra error. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_FILTER_BYTES (64 * 1024)

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("box-init: ", stderr);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, ": %s\n", strerror(errno));
    va_end(ap);
    _exit(125);
}

static void write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        die("write %s", path);
    close(fd);
}

static void size_tmp(const char *bytes, const char *inodes) {
    char options[128];
    snprintf(options, sizeof options, "size=%s,nr_inodes=%s", bytes, inodes);
    if (mount("tmpfs", "/tmp", "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, options) != 0)
        die("remount /tmp with %s", options);
}

static void drop_to_uid(uid_t uid, gid_t gid) {
    if (setgroups(0, NULL) != 0) die("setgroups");
    if (setresgid(gid, gid, gid) != 0) die("setresgid %d", (int)gid);
    if (setresuid(uid, uid, uid) != 0) die("setresuid %d", (int)uid);
}

static void enter_child_userns(uid_t uid, gid_t gid) {
    char map[64];
    write_file("/proc/sys/user/max_user_namespaces", "1");
    if (unshare(CLONE_NEWUSER) != 0) die("unshare user namespace");
    write_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "%d 0 1\n", (int)uid);
    write_file("/proc/self/uid_map", map);
    snprintf(map, sizeof map, "%d 0 1\n", (int)gid);
    write_file("/proc/self/gid_map", map);
    if (unshare(CLONE_NEWUSER) == 0) {
        errno = EPERM;
        die("user namespaces are still allowed");
    }
}

/* Before the uid changes: emptying the bounding set needs CAP_SETPCAP, which setresuid clears. */
static void empty_bounding_set(void) {
    for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) die("drop capability %d from the bounding set", cap);
}

static void drop_capabilities(void) {
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) die("clear ambient capabilities");
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
    memset(none, 0, sizeof none);
    if (syscall(SYS_capset, &header, none) != 0) die("capset");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs");
}

static void install_seccomp(int fd) {
    static unsigned char program[MAX_FILTER_BYTES];
    size_t size = 0;
    ssize_t got;
    while ((got = read(fd, program + size, sizeof program - size)) > 0) size += (size_t)got;
    if (got < 0) die("read the seccomp filter");
    close(fd);
    if (size == 0 || size % sizeof(struct sock_filter) != 0 || size == sizeof program) {
        errno = EINVAL;
        die("seccomp filter of %zu bytes", size);
    }
    struct sock_fprog prog = {(unsigned short)(size / sizeof(struct sock_filter)), (struct sock_filter *)program};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) die("install the seccomp filter");
}

int main(int argc, char **argv) {
    if (argc < 9) {
        fputs("usage: box-init READY_FD SECCOMP_FD TMP_BYTES NR_INODES setuid|userns UID GID PROGRAM [ARG...]\n", stderr);
        return 125;
    }
    int ready = atoi(argv[1]), seccomp_fd = atoi(argv[2]);
    uid_t uid = (uid_t)strtoul(argv[6], NULL, 10);
    gid_t gid = (gid_t)strtoul(argv[7], NULL, 10);
    fcntl(ready, F_SETFD, FD_CLOEXEC);
    size_tmp(argv[3], argv[4]);
    int setuid_mode = strcmp(argv[5], "setuid") == 0;
    if (!setuid_mode && strcmp(argv[5], "userns") != 0) {
        errno = EINVAL;
        die("mode %s", argv[5]);
    }
    if (!setuid_mode) enter_child_userns(uid, gid);
    empty_bounding_set();
    if (setuid_mode) drop_to_uid(uid, gid);
    drop_capabilities();
    if (seccomp_fd >= 0) install_seccomp(seccomp_fd);
    if (write(ready, "ready\n", 6) != 6) die("report ready");
    close(ready);
    execv(argv[8], argv + 8);
    die("exec %s", argv[8]);
}
