"""``check``: every tool with its version, path and status, and the CLI entry points.

``linteval-ray toolchain check [--json]`` and ``linteval-ray toolchain install``
(wired by cli.py through ``add_parser``), also ``python -m linteval_ray.toolchain``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

from pydantic import BaseModel

from linteval_ray.toolchain import pins
from linteval_ray.toolchain.discover import default_prefix, install_command_for, locate
from linteval_ray.toolchain.install import install
from linteval_ray.toolchain.manifest import PROBES, ProbeError, ToolInfo, probe_python_package

OPTIONAL_TOOLS = frozenset({"bwrap"})  # discover does not need it; the sandbox decides


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


def _major(version: str) -> str:
    return version.split(".")[0]


# tool -> (expected, does the probed version satisfy it)
EXPECTED: dict[str, tuple[str, Callable[[str], bool]]] = {
    "gxx": (f"{pins.GXX_MAJOR}.x", lambda v: _major(v) == str(pins.GXX_MAJOR)),
    "clang_tidy": (pins.CLANG_TIDY_VERSION, lambda v: v == pins.CLANG_TIDY_VERSION),
    "java": (f"{pins.JAVA_MAJOR}.x", lambda v: _major(v) == str(pins.JAVA_MAJOR)),
    "javac": (f"{pins.JAVA_MAJOR}.x", lambda v: _major(v) == str(pins.JAVA_MAJOR)),
    "pmd": (pins.PMD_VERSION, lambda v: v == pins.PMD_VERSION),
    "testlib": (pins.TESTLIB_VERSION, lambda v: v == pins.TESTLIB_VERSION),
    "bwrap": ("any", lambda v: True),
    "pylint": (pins.PYLINT_VERSION, lambda v: v == pins.PYLINT_VERSION),
}


def _status(tool: str, prefix: Path, probe: Callable[[], ToolInfo] | None) -> ToolStatus:
    expected, satisfied = EXPECTED[tool]
    base = ToolStatus(tool=tool, ok=False, required=tool not in OPTIONAL_TOOLS, expected=expected,
                      install_command=install_command_for(tool, prefix))
    if probe is None:
        return base.model_copy(update={"problem": "missing"})
    try:
        info = probe()
    except (ProbeError, OSError, KeyError) as exc:
        return base.model_copy(update={"problem": f"broken: {exc}"})
    good = satisfied(info.version)
    return base.model_copy(update={
        "ok": good, "version": info.version, "path": info.path,
        "problem": None if good else f"version {info.version}, expected {expected}",
        "install_command": None if good else base.install_command,
    })


def check(prefix: Path | None = None) -> CheckReport:
    """Probe every tool (nothing raises: problems are in the report)."""
    root = prefix or default_prefix()
    found = locate(root)
    tools = [
        _status(tool, root, None if found[tool] is None else (lambda t=tool: PROBES[t](found[t])))
        for tool in PROBES
    ]
    tools.append(_status("pylint", root, lambda: probe_python_package("pylint")))
    return CheckReport(prefix=str(root), tools=tools)


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


def install_command(args: argparse.Namespace) -> int:
    prefix = Path(args.prefix).resolve() if args.prefix else default_prefix()
    for step in install(prefix):
        sys.stdout.write(f"{step.name:13} {step.outcome:9} {step.detail}\n")
    report = check(prefix)
    sys.stdout.write(format_report(report) + "\n")
    return 0 if report.ok else 1


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``toolchain check|install``; each sub-command sets ``args.func`` (returns an exit code)."""
    parser = subparsers.add_parser("toolchain", help="check or install the external tools")
    commands = parser.add_subparsers(dest="toolchain_command", required=True)
    check_parser = commands.add_parser("check", help="list each tool, its version and status")
    check_parser.add_argument("--json", action="store_true", help="machine-readable report")
    check_parser.set_defaults(func=check_command)
    install_parser = commands.add_parser("install", help="install the pinned tools (idempotent)")
    install_parser.set_defaults(func=install_command)
    for sub in (check_parser, install_parser):
        sub.add_argument("--prefix", help="toolchain folder (default: $LINTEVAL_TOOLCHAIN_DIR or .toolchain)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m linteval_ray.toolchain")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["toolchain", *(argv if argv is not None else sys.argv[1:])])
    return args.func(args)
