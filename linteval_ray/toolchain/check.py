"""``check``: every tool with its version, path and status, and the CLI entry points.

``linteval-ray toolchain check [--json]`` and ``linteval-ray toolchain install``
(wired by cli.py through ``add_parser``), also ``python -m linteval_ray.toolchain``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import BaseModel

from linteval_ray.toolchain.discover import PREFIX_ENV, default_prefix, environment_prefix, record_prefix
from linteval_ray.toolchain.install import InstallStep, install
from linteval_ray.toolchain.probe import ProbeError
from linteval_ray.toolchain.spec import ToolSpec
from linteval_ray.toolchain.tools import locate_all, tools


class ToolStatus(BaseModel):
    tool: str
    ok: bool
    required: bool = True
    version: str | None = None
    expected: str
    path: str | None = None
    problem: str | None = None
    install_command: str | None = None


class CheckReport(BaseModel):
    prefix: str
    tools: list[ToolStatus]

    @property
    def ok(self) -> bool:
        return all(t.ok for t in self.tools if t.required)


def status_of(spec: ToolSpec, prefix: Path, path: str | None) -> ToolStatus:
    """Probe one located tool and compare its version with the pin; a problem carries the install command."""
    base = ToolStatus(tool=spec.name, ok=False, required=spec.required, expected=spec.pin.expected,
                      install_command=spec.install.command(prefix))
    if path is None:
        return base.model_copy(update={"problem": "missing"})
    try:
        info = spec.probe.read(path)
    except (ProbeError, OSError, KeyError) as exc:
        return base.model_copy(update={"problem": f"broken: {exc}"})
    good = spec.pin.accepts(info.version)
    return base.model_copy(update={
        "ok": good, "version": info.version, "path": info.path,
        "problem": None if good else f"version {info.version}, expected {spec.pin.expected}",
        "install_command": None if good else base.install_command,
    })


def check(prefix: Path | None = None) -> CheckReport:
    """Probe every tool (nothing raises: problems are in the report)."""
    root = prefix or default_prefix()
    found = locate_all(root)
    statuses = [status_of(spec, root, found[spec.name]) for spec in tools() if spec.listed_by_check]
    return CheckReport(prefix=str(root), tools=statuses)


def format_report(report: CheckReport) -> str:
    lines = [f"toolchain prefix: {report.prefix}"]
    for t in report.tools:
        mark = "OK" if t.ok else ("MISSING" if t.problem == "missing" else "BAD")
        optional = " (optional)" if not t.required else ""
        lines.append(f"  {mark:8} {t.tool:11} {t.version or '-':10} {t.path or '-'}{optional}")
        if not t.ok:
            lines.append(f"           {t.problem}; install with: {t.install_command}")
    lines.append("toolchain OK" if report.ok else "toolchain INCOMPLETE")
    return "\n".join(lines)


def check_command(args: argparse.Namespace) -> int:
    report = check(Path(args.prefix).resolve() if args.prefix else None)
    if args.json:
        sys.stdout.write(json.dumps(report.model_dump(), indent=2) + "\n")
    else:
        sys.stdout.write(format_report(report) + "\n")
    return 0 if report.ok else 1


def remember_prefix(prefix: Path) -> InstallStep:
    """Record an explicit ``--prefix`` so that every process of this interpreter finds it."""
    try:
        where = record_prefix(prefix)
    except OSError as exc:
        return InstallStep(name="prefix", outcome="manual",
                           detail=f"cannot record it ({exc}); set {PREFIX_ENV}={prefix} on this node")
    return InstallStep(name="prefix", outcome="installed", detail=f"{prefix} recorded in {where}")


def install_command(args: argparse.Namespace) -> int:
    # Without --prefix: where discovery looks, so install and discover always agree.
    prefix = Path(args.prefix).resolve() if args.prefix else default_prefix()
    steps = install(prefix)
    if args.prefix:
        steps.append(remember_prefix(prefix))
    for step in steps:
        sys.stdout.write(f"{step.name:13} {step.outcome:9} {step.detail}\n")
    report = check(prefix)
    sys.stdout.write(format_report(report) + "\n")
    return 0 if report.ok else 1


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add ``toolchain check|install``; each sub-command sets ``args.func`` (returns an exit code)."""
    parser = subparsers.add_parser("toolchain", help="check or install the external tools")
    commands = parser.add_subparsers(dest="toolchain_command", required=True)
    check_parser = commands.add_parser("check", help="list each tool, its version and status")
    check_parser.add_argument("--json", action="store_true", help="machine-readable report")
    check_parser.set_defaults(func=check_command)
    install_parser = commands.add_parser("install", help="install the pinned tools (idempotent)")
    install_parser.set_defaults(func=install_command)
    default = f"${PREFIX_ENV}, else the prefix recorded by `install --prefix`, else {environment_prefix()}"
    check_parser.add_argument("--prefix", help=f"toolchain folder (default: {default})")
    install_parser.add_argument("--prefix", help=f"install here and record it for this Python environment "
                                                 f"(default: {default})")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m linteval_ray.toolchain")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["toolchain", *(argv if argv is not None else sys.argv[1:])])
    exit_code: int = args.func(args)
    return exit_code
