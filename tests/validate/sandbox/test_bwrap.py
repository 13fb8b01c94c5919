"""BwrapSandbox against hostile programs: real bubblewrap, real limits."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from linteval_ray.validate.sandbox import BwrapSandbox, Mount, RunLimits, RunResult, make_sandbox
from linteval_ray.validate.sandbox.uids import processes_of_uid

PYTHON = "/usr/bin/python3"
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the dedicated sandbox uid is only used when running as root")


def run(sb: BwrapSandbox, argv: list[str], workdir: Path, **kwargs: object) -> RunResult:
    limit_keys = set(RunLimits.model_fields)
    limits = RunLimits(**{"wall_s": 30, "memory_mb": 256, **{k: v for k, v in kwargs.items() if k in limit_keys}})
    rest = {k: v for k, v in kwargs.items() if k not in limit_keys}
    return sb.run(argv, workdir=workdir, limits=limits, **rest)  # type: ignore[arg-type]


def py(code: str) -> list[str]:
    return [PYTHON, "-c", code]


def world_readable_dir(path: Path) -> Path:
    path.mkdir()
    path.chmod(0o755)
    return path


# --- basics ---------------------------------------------------------------


def test_exit_code_stdin_stdout_stderr_and_cwd(sandbox: BwrapSandbox, workdir: Path) -> None:
    r = run(sandbox, ["/bin/sh", "-c", "cat; echo oops >&2; pwd; exit 7"], workdir, stdin=b"hello\n")
    assert (r.exit_code, r.signal) == (7, None)
    assert r.stdout == b"hello\n/box\n"
    assert r.stderr == b"oops\n"
    assert not r.ok and not r.timed_out


def test_stdin_from_file_and_outputs_land_in_the_workdir(sandbox: BwrapSandbox, workdir: Path, tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_bytes(b"3 4\n")
    code = "a, b = map(int, input().split()); open('out.txt', 'w').write(str(a + b))"
    r = run(sandbox, py(code), workdir, stdin=tmp_path / "in.txt")
    assert r.ok, r.stderr
    assert (workdir / "out.txt").read_text() == "7"


def test_death_by_signal_is_reported_as_a_signal(sandbox: BwrapSandbox, workdir: Path) -> None:
    r = run(sandbox, ["/bin/sh", "-c", "kill -SEGV $$"], workdir)
    assert (r.exit_code, r.signal) == (None, signal.SIGSEGV)
    assert not r.oom_killed


@as_root
def test_runs_as_the_dedicated_uid_without_capabilities(sandbox: BwrapSandbox, workdir: Path) -> None:
    script = "id -u; id -g; id -G; grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs)' /proc/self/status"
    r = run(sandbox, ["/bin/sh", "-c", script], workdir)
    uid = str(sandbox.uid).encode()
    lines = r.stdout.split(b"\n")
    assert lines[:3] == [uid, uid, uid]
    assert 61000 <= sandbox.uid < 62000
    for cap in (b"CapEff", b"CapPrm", b"CapBnd"):
        assert f"{cap.decode()}:\t0000000000000000".encode() in r.stdout
    assert b"NoNewPrivs:\t1" in r.stdout


# --- limits ---------------------------------------------------------------


@as_root
def test_wall_timeout_kills_the_program_and_the_daemons_it_spawned(sandbox: BwrapSandbox, workdir: Path) -> None:
    daemons = "setsid sleep 300 & (trap '' HUP TERM; sleep 300) & nohup sleep 300 >/dev/null & echo started; sleep 300"
    r = run(sandbox, ["/bin/sh", "-c", daemons], workdir, wall_s=1)
    assert r.timed_out and r.exit_code is None
    assert r.stdout == b"started\n"  # output before the kill is kept
    assert processes_of_uid(sandbox.uid) == []


def test_cpu_limit_stops_a_busy_loop(sandbox: BwrapSandbox, workdir: Path) -> None:
    r = run(sandbox, py("while True: pass"), workdir, cpu_s=1, wall_s=120)
    assert r.timed_out
    assert r.signal == signal.SIGXCPU  # the CPU rlimit, not the wall clock, ended it
    assert r.cpu_s > 0.5  # the program's CPU time is measured (the rlimit fires at 1 s)


def test_an_address_space_limit_refuses_an_allocation(sandbox: BwrapSandbox, workdir: Path) -> None:
    r = run(sandbox, py("x = bytearray(1 << 30)"), workdir, memory_mb=256)
    assert r.exit_code == 1
    assert b"MemoryError" in r.stderr
    assert not r.oom_killed and r.memory_peak_mb is None  # no memory cgroup without resident_mb


@as_root
def test_a_memory_cgroup_counts_and_bounds_what_the_run_uses(sandbox: BwrapSandbox, workdir: Path) -> None:
    """Without an address-space limit, with resident_mb: the kernel's OOM killer ends a run that touches
    more, its peak is counted, and reserved address space (a thread's stack) costs nothing."""
    assert sandbox.counts_memory
    hog = run(sandbox, py("x = bytearray(1 << 30)"), workdir, memory_mb=None, resident_mb=256)
    assert (hog.exit_code, hog.signal, hog.oom_killed) == (None, signal.SIGKILL, True)
    assert hog.memory_peak_mb is not None and 250 < hog.memory_peak_mb <= 256
    threads = ("import resource, threading; resource.setrlimit(resource.RLIMIT_STACK, (256 << 20, 256 << 20)); "
               "ts = [threading.Thread(target=print) for _ in range(8)]; [t.start() for t in ts]")
    fits = run(sandbox, py(threads), workdir, memory_mb=None, resident_mb=256)
    assert fits.ok and not fits.oom_killed, fits.stderr
    assert fits.memory_peak_mb is not None and fits.memory_peak_mb < 64  # 8 stacks of 256 MiB reserved


@as_root
def test_two_sandboxes_of_one_process_run_in_memory_cgroups_of_their_own(workdir: Path, tmp_path: Path) -> None:
    """Two validations in one process (each its sandbox): their runs' cgroups never share a name."""
    boxes = [make_sandbox("bwrap") for _ in range(2)]
    folders = [workdir, world_readable_dir(tmp_path / "other")]
    try:
        assert all(isinstance(box, BwrapSandbox) and box.counts_memory for box in boxes)
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda i: [run(boxes[i], ["/bin/true"], folders[i], memory_mb=None, resident_mb=64)
                                               for _ in range(5)], range(2)))
    finally:
        for box in boxes:
            box.close()
    assert all(r.ok and r.memory_peak_mb is not None for done in results for r in done)


@pytest.mark.parametrize("program_mb", [5, 300])
def test_peak_memory_is_the_programs_own_even_from_a_bigger_parent(
    sandbox: BwrapSandbox, workdir: Path, program_mb: int
) -> None:
    ballast = bytearray(b"x" * (700 << 20))  # a busy worker's footprint, which children inherit at exec
    r = run(sandbox, py(f"x = b'y' * ({program_mb} << 20); raise SystemExit(3)"), workdir, memory_mb=1024)
    del ballast
    assert r.exit_code == 3
    assert r.peak_rss_mb is not None and program_mb < r.peak_rss_mb < program_mb + 40  # + the interpreter


def test_ten_gigabytes_of_output_are_capped(sandbox: BwrapSandbox, workdir: Path) -> None:
    r = run(sandbox, ["/bin/sh", "-c", "head -c 10G /dev/zero"], workdir, output_bytes=1 << 20, wall_s=120)
    assert r.output_exceeded and not r.ok
    assert not r.timed_out  # stopped by the cap, long before the wall limit
    assert r.stdout == b"\0" * (1 << 20)


def test_stderr_flood_is_capped_too(sandbox: BwrapSandbox, workdir: Path) -> None:
    r = run(sandbox, ["/bin/sh", "-c", "yes error >&2"], workdir, output_bytes=1 << 16, wall_s=120)
    assert r.output_exceeded and not r.timed_out
    assert len(r.stderr) == 1 << 16


def test_file_size_limit_stops_a_big_write(sandbox: BwrapSandbox, workdir: Path) -> None:
    r = run(sandbox, py("open('big', 'wb').write(b'x' * (8 << 20))"), workdir, file_size_mb=1)
    assert r.exit_code == 1
    assert b"File too large" in r.stderr
    assert (workdir / "big").stat().st_size <= 1 << 20


@as_root
def test_nproc_limits_how_many_processes_a_program_can_fork(sandbox: BwrapSandbox, workdir: Path) -> None:
    code = """
import os, time
n = 0
try:
    while n < 500:
        if os.fork() == 0:
            time.sleep(300)
            os._exit(0)
        n += 1
except OSError:
    pass
print(n)
"""
    r = run(sandbox, py(code), workdir, nproc=16)
    assert r.exit_code == 0, r.stderr
    assert 0 < int(r.stdout) < 16
    assert processes_of_uid(sandbox.uid) == []  # the sleeping children died with the run


@as_root
def test_fork_bomb_is_contained_and_cleaned_up(sandbox: BwrapSandbox, workdir: Path) -> None:
    r = run(sandbox, ["/bin/sh", "-c", "b() { b | b & }; b; sleep 300"], workdir, nproc=32, wall_s=3)
    assert not r.ok  # killed at the wall limit, or failed to fork its own `sleep`
    assert processes_of_uid(sandbox.uid) == []
    assert subprocess.run(["/bin/true"], check=False).returncode == 0  # the host can still fork


# --- isolation ------------------------------------------------------------


def test_no_network_to_host_listeners_or_dns(sandbox: BwrapSandbox, workdir: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        code = f"""
import socket
for target in [("127.0.0.1", {port}), ("1.1.1.1", 53)]:
    try:
        socket.create_connection(target, timeout=3)
        print("CONNECTED", target)
    except OSError as exc:
        print("failed", exc.errno)
try:
    socket.getaddrinfo("pypi.org", 443)
    print("RESOLVED")
except OSError:
    print("no dns")
print(sorted(line.split(":")[0].strip() for line in open("/proc/net/dev").readlines()[2:]))
"""
        r = run(sandbox, py(code), workdir)
        assert r.exit_code == 0, r.stderr
        assert r.stdout.count(b"failed") == 2 and b"CONNECTED" not in r.stdout
        assert b"no dns" in r.stdout
        assert b"['lo']" in r.stdout
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever reached the host's listener


def test_host_environment_never_reaches_the_box(
    sandbox: BwrapSandbox, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = f"PLANTED-{uuid.uuid4().hex}"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    monkeypatch.setenv("HF_TOKEN", secret)
    script = "env; tr '\\0' '\\n' < /proc/self/environ; cat /proc/1/environ; cat /proc/$PPID/environ; echo"
    r = run(sandbox, ["/bin/sh", "-c", script], workdir, env={"GIVEN": "by-caller"})
    everything = r.stdout + r.stderr
    assert secret.encode() not in everything
    assert everything.count(b"GIVEN=by-caller") >= 2  # env and /proc/self/environ were read
    assert b"HOME=/box" in r.stdout and b"PATH=/usr/local/bin:/usr/bin:/bin" in r.stdout


def test_host_files_are_absent_or_unreadable(sandbox: BwrapSandbox, workdir: Path, tmp_path: Path) -> None:
    other_run = tmp_path / "other-run"
    other_run.mkdir()
    (other_run / "answer.txt").write_text("OTHER-RUN-SECRET")
    data = world_readable_dir(tmp_path / "data")
    (data / "public.txt").write_text("public")
    (data / "key").write_text("ROOT-ONLY-SECRET")
    (data / "key").chmod(0o600)
    script = (
        f"cat /etc/shadow; ls /root; ls /work; ls /home; cat {other_run}/answer.txt; ls {tmp_path}; "
        "cat /data/key; cat /data/public.txt"
    )
    r = run(sandbox, ["/bin/sh", "-c", script], workdir, mounts=[Mount(src=data, dst="/data")])
    assert b"SECRET" not in r.stdout
    assert r.stdout.endswith(b"public")  # the mount itself works
    for missing in (b"/etc/shadow", b"/root", b"/work", b"/home", str(other_run / "answer.txt").encode()):
        assert missing + b"': No such file" in r.stderr or missing + b": No such file" in r.stderr
    if os.geteuid() == 0:
        assert b"/data/key: Permission denied" in r.stderr


@as_root
def test_two_sandboxes_have_different_uids_and_cannot_see_each_others_work(workdir: Path, tmp_path: Path) -> None:
    first, second = BwrapSandbox(), BwrapSandbox()
    try:
        assert first.uid != second.uid
        other = tmp_path / "second-box"
        other.mkdir()
        assert run(second, ["/bin/sh", "-c", "echo SECOND-SECRET > answer.txt"], other).ok
        r = run(first, ["/bin/sh", "-c", f"cat {other}/answer.txt; ls /box"], workdir)
        assert b"SECOND-SECRET" not in r.stdout and b"No such file" in r.stderr
    finally:
        first.close()
        second.close()


def test_writes_outside_the_box_fail_and_leave_the_host_untouched(
    sandbox: BwrapSandbox, workdir: Path, tmp_path: Path
) -> None:
    ro = world_readable_dir(tmp_path / "ro")
    (ro / "f").write_text("original")
    (ro / "f").chmod(0o666)  # even a world-writable file stays read-only in a read-only mount
    marker = f"sbx-{uuid.uuid4().hex}"
    script = (
        f"touch /{marker}; touch /usr/{marker}; touch /etc/{marker}; mkdir /dev/{marker}; "
        f"echo changed > /ro/f; touch /ro/{marker}; mount -o remount,rw /ro; echo changed > /ro/f; "
        f"touch /tmp/{marker} && echo tmp-ok; touch /box/{marker} && echo box-ok"
    )
    r = run(sandbox, ["/bin/sh", "-c", script], workdir, mounts=[Mount(src=ro, dst="/ro")])
    assert r.stdout == b"tmp-ok\nbox-ok\n"
    assert (ro / "f").read_text() == "original"
    assert not (ro / marker).exists()
    for host_dir in ("/", "/usr", "/etc", "/dev", "/tmp"):
        assert not Path(host_dir, marker).exists()  # the box's /tmp is private too
    assert (workdir / marker).exists()


def test_killing_parents_and_everything_harms_nothing_outside(sandbox: BwrapSandbox, workdir: Path) -> None:
    sentinel = subprocess.Popen(["sleep", "300"])
    try:
        script = "kill -9 $PPID; kill -9 1; kill -HUP -1; kill -9 -1; echo still-here"
        r = run(sandbox, ["/bin/sh", "-c", script], workdir)
        assert r.stdout == b"still-here\n"
        assert sentinel.poll() is None  # a host process of the test survived
        assert run(sandbox, ["/bin/true"], workdir).ok  # and the sandbox still works
    finally:
        sentinel.kill()
        sentinel.wait()


def test_privileges_and_limits_cannot_be_raised(sandbox: BwrapSandbox, workdir: Path) -> None:
    code = """
import os, resource

def attempt(name, action):
    try:
        action()
        print(name, "ALLOWED")
    except (OSError, ValueError):
        print(name, "denied")

def raise_limit(which):
    soft, hard = resource.getrlimit(which)
    resource.setrlimit(which, (hard + 1000, hard + 1000))

attempt("setuid", lambda: os.setuid(0))
attempt("setgid", lambda: os.setgid(0))
for name in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE"):
    attempt(name, lambda: raise_limit(getattr(resource, name)))
"""
    r = run(sandbox, py(code), workdir)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.count(b"denied") == 7 and b"ALLOWED" not in r.stdout


def test_no_new_user_namespaces_inside(sandbox: BwrapSandbox, workdir: Path) -> None:
    script = "unshare -r id; unshare -rm id; echo $?"
    r = run(sandbox, ["/bin/sh", "-c", script], workdir)
    assert b"uid=0" not in r.stdout  # never root, not even in a namespace of its own
    assert r.stderr.count(b"unshare failed") == 2
    threads = "import threading; t = threading.Thread(target=print, args=('threads work',)); t.start(); t.join()"
    assert run(sandbox, py(threads), workdir).stdout == b"threads work\n"  # clone3 falls back to clone


def test_kernel_state_and_other_processes_are_out_of_reach(sandbox: BwrapSandbox, workdir: Path) -> None:
    code = """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
for name, nr, args in [("add_key", 248, (b"user", b"k", b"v", 1, -4)), ("keyctl", 250, (0, -4)),
                       ("ptrace", 101, (16, 1, 0, 0)), ("io_uring_setup", 425, (4, ctypes.create_string_buffer(120))),
                       ("perf_event_open", 298, (ctypes.create_string_buffer(128), 0, -1, -1, 0)),
                       ("userfaultfd", 323, (0,)), ("process_vm_readv", 310, (1, 0, 0, 0, 0, 0))]:
    ok = libc.syscall(nr, *args) >= 0
    print(name, "ALLOWED" if ok else errno.errorcode[ctypes.get_errno()])
for table in ("/proc/key-users", "/proc/keys"):
    try:
        print(table, "READ", open(table).read()[:40])
    except OSError as exc:
        print(table, "hidden", type(exc).__name__)
"""
    r = run(sandbox, py(code), workdir)
    assert r.exit_code == 0, r.stderr
    assert b"ALLOWED" not in r.stdout and r.stdout.count(b"EPERM") == 7, r.stdout
    assert b"READ" not in r.stdout and r.stdout.count(b"hidden") == 2, r.stdout


def test_no_call_says_what_the_shared_page_cache_holds(sandbox: BwrapSandbox, workdir: Path) -> None:
    """mincore, cachestat and preadv2's RWF_NOWAIT tell which pages of a file the host caches: bits a
    test could set by reading a file and a later test read back. Plain preadv still works. (Without
    the filter each call below fails otherwise: an unmapped address, bad buffers.)"""
    code = """
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open("/usr/bin/python3", os.O_RDONLY)
iovec = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.create_string_buffer(8), ctypes.c_void_p), 8)
for name, nr, args in [("mincore", 27, (0, 4096, ctypes.create_string_buffer(1))),
                       ("cachestat", 451, (fd, 0, 0, 0)), ("preadv2", 327, (fd, iovec, 1, 0, 0, 8))]:
    print(name, "ALLOWED" if libc.syscall(nr, *args) >= 0 else errno.errorcode[ctypes.get_errno()])
print("preadv", os.preadv(fd, [bytearray(4)], 0))
"""
    r = run(sandbox, py(code), workdir)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.split(b"\n")[:4] == [b"mincore EPERM", b"cachestat EPERM", b"preadv2 ENOSYS", b"preadv 4"], r.stdout
