"""make_sandbox: backend choice, clear errors, toolchain binds, and setup failures."""

from __future__ import annotations

import os
from pathlib import Path
from typing import get_args

import pytest

from linteval_ray.config.validation import SandboxKind
from linteval_ray.validate.sandbox import BwrapSandbox, Mount, RunLimits, SandboxError, make_sandbox
from linteval_ray.validate.sandbox.base import sandbox_kinds


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(SandboxError, match=r"unknown sandbox kind 'docker' \(known: bwrap, rlimits\)"):
        make_sandbox("docker")


def test_rlimits_needs_the_explicit_opt_out() -> None:
    with pytest.raises(SandboxError, match="allow_unsafe"):
        make_sandbox("rlimits")
    assert make_sandbox("rlimits", allow_unsafe=True).name == "rlimits"


def test_missing_bwrap_says_how_to_install_or_opt_out() -> None:
    with pytest.raises(SandboxError) as info:
        BwrapSandbox("/nonexistent/bwrap", builder="bwrap")
    message = str(info.value)
    assert "apt-get install bubblewrap" in message
    assert "validation.sandbox: rlimits" in message and "validation.allow_unsafe_sandbox: true" in message


@pytest.mark.skipif(os.geteuid() != 0, reason="the box server needs root")
def test_as_root_the_box_server_needs_no_bwrap_but_the_audit_then_has_no_reference() -> None:
    sb = BwrapSandbox("/nonexistent/bwrap")
    try:
        assert sb.builder == "server" and sb.reference() is sb
        assert sb.run(["/bin/echo", "ok"], workdir=None, limits=RunLimits(wall_s=5)).stdout == b"ok\n"
    finally:
        sb.close()


@pytest.mark.usefixtures("sandbox")  # skips where bwrap is unusable
def test_extra_binds_are_visible_read_only(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    (shared / "data.txt").write_text("shared-data")
    workdir = tmp_path / "box"
    workdir.mkdir()
    sb = make_sandbox(extra_ro_binds=[shared, shared / "data.txt"])
    try:
        r = sb.run(["/bin/sh", "-c", f"cat {shared}/data.txt; echo x > {shared}/data.txt"], workdir=workdir,
                   limits=RunLimits(wall_s=10))
        assert r.stdout == b"shared-data"
        assert b"Read-only file system" in r.stderr or b"Permission denied" in r.stderr
        assert (shared / "data.txt").read_text() == "shared-data"
    finally:
        sb.close()


@pytest.mark.usefixtures("sandbox")
def test_toolchain_parts_outside_usr_are_bound(tmp_path: Path) -> None:
    from linteval_ray.toolchain import Toolchain, ToolchainError

    try:
        tc = Toolchain.discover()
    except ToolchainError as exc:
        pytest.skip(f"no toolchain: {exc}")
    sb = make_sandbox(toolchain=tc)
    try:
        script = (f"{tc.path('clang_tidy')} --version && test -r {tc.testlib_dir}/testlib.h"
                  f" && ls {tc.path('pmd')}/lib | grep -c jar")
        r = sb.run(["/bin/sh", "-c", script], workdir=tmp_path, limits=RunLimits(wall_s=30, memory_mb=1024))
        assert r.ok, r.stderr
        assert b"LLVM version" in r.stdout
    finally:
        sb.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="only the dedicated uid lacks access to 0700 folders")
def test_unreadable_mount_is_a_sandbox_error(sandbox: BwrapSandbox, tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    with pytest.raises(SandboxError, match="chmod o\\+rX"):
        sandbox.run(["/bin/true"], workdir=tmp_path, limits=RunLimits(wall_s=5), mounts=[Mount(src=private, dst="/p")])


def test_reserved_mount_destination_is_a_sandbox_error(sandbox: BwrapSandbox, tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match="not allowed"):
        sandbox.run(["/bin/true"], workdir=tmp_path, limits=RunLimits(wall_s=5),
                    mounts=[Mount(src=tmp_path, dst="/box")])


def test_box_setup_failure_is_a_sandbox_error_not_a_program_failure(sandbox: BwrapSandbox, tmp_path: Path) -> None:
    src = tmp_path / "inc"
    src.mkdir()
    src.chmod(0o755)
    with pytest.raises(SandboxError, match="was not set up"):
        sandbox.run(["/bin/true"], workdir=tmp_path, limits=RunLimits(wall_s=5),
                    mounts=[Mount(src=src, dst="/usr/new/inc")])


def test_every_sandbox_kind_a_config_may_name_is_registered():
    assert sandbox_kinds() == sorted(get_args(SandboxKind))
