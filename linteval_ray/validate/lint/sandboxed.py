"""``SandboxedLinter``: the base of a linter that runs one process per file, in the sandbox.

A linter reads untrusted source, and a tool that opens what the source names (a compiler's
``#include``, ``#embed``) could copy a host file into the alerts. This base writes each file to
a fresh folder under the language's file name, runs the tool there in the worker's sandbox (the
folder mounted as the box's work dir, under the wall, CPU and memory bounds of
``LinterSettings``), or, without a sandbox (``linteval-ray validate`` on a laptop without
bubblewrap), bounded on the host; lints a batch's files ``jobs`` at a time, and turns a
timeout, a spent CPU budget, a crash or an unexpected exit code into that file's ``LintError``.

A language's adapter is then its command and its parser::

    class Vet(SandboxedLinter):
        tool = "go-vet"              # LintMessage.tool
        adapter_version = "1"        # bump when what it reports changes
        tool_row = "go"              # the tool row whose path runs it (LinterSetup.tools)

        def command(self, file_name: str) -> list[str]:
            return [self.binary, "vet", "-json", file_name]

        def parse(self, run: ToolRun) -> list[LintMessage]:
            ...  # LintMessage(tool=self.tool, file=self.file_name, ..., category=<alert family>)

The command runs in the file's folder (``file_name`` is relative to it). ``self.config`` is the
lint profile's settings file for the language, read on the host (``__init__`` may parse it);
pass its content in the command line, not its path: the box does not show the profile's folder.
"""

from __future__ import annotations

import tempfile
from abc import abstractmethod
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Self

from linteval_ray.schema.record import LintMessage
from linteval_ray.validate.lint.base import Linter, LintError, LinterSetup, LintOutcome, run_bounded, tail
from linteval_ray.validate.sandbox.base import RunLimits, SandboxError

OUTPUT_BYTES = 16 << 20  # a tool's stdout and stderr each: far above an honest file's alerts


@dataclass(frozen=True, slots=True)
class ToolRun:
    """What one run of the tool left: its exit code, its output, and its folder (files it wrote)."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    folder: Path


class SandboxedLinter(Linter):
    """One tool process per file, in the sandbox (see the module docstring); a subclass gives
    ``tool``, ``adapter_version``, ``tool_row``, ``command`` and ``parse``."""

    tool_row: ClassVar[str]  # the tool row whose path runs the linter
    ok_exit_codes: ClassVar[tuple[int, ...]] = (0,)  # exit codes of a run that linted the file

    def __init__(self, setup: LinterSetup) -> None:
        self.file_name = setup.file_name
        self.config = setup.config
        self.binary = str(Path(setup.tools[self.tool_row]).resolve())  # the box binds real folders, not links
        self.settings = setup.settings

    @classmethod
    def create(cls, setup: LinterSetup) -> Self:
        return cls(setup)

    @abstractmethod
    def command(self, file_name: str) -> list[str]:
        """The tool's argv on ``file_name`` (in the current folder)."""

    @abstractmethod
    def parse(self, run: ToolRun) -> list[LintMessage]:
        """The alerts of one run; raise ``LintError`` when its output says the tool failed."""

    def lint_each(self, codes: list[str]) -> list[LintOutcome]:
        if len(codes) <= 1 or self.settings.jobs <= 1:
            return [self.lint_one(code) for code in codes]
        with ThreadPoolExecutor(max_workers=self.settings.jobs) as pool:
            return list(pool.map(self.lint_one, codes))

    def lint_one(self, code: str) -> LintOutcome:
        with tempfile.TemporaryDirectory(prefix=f"linteval-{self.tool}-") as tmp:
            folder = Path(tmp)
            (folder / self.file_name).write_bytes(code.encode("utf-8", "surrogatepass"))
            try:
                run = self._run(folder)
                if run.exit_code not in self.ok_exit_codes:
                    raise LintError(self.tool, f"exit {run.exit_code}: {tail(run.stderr)}")
                return self.parse(run)
            except LintError as exc:
                return exc

    def _run(self, folder: Path) -> ToolRun:
        settings, argv = self.settings, self.command(self.file_name)
        if settings.sandbox is None:
            proc = run_bounded(argv, cwd=folder, timeout_s=settings.timeout_s, tool=self.tool,
                               memory_mb=settings.memory_mb, cpu_s=settings.cpu_s)
            return ToolRun(proc.returncode, proc.stdout, proc.stderr, folder)
        limits = RunLimits(wall_s=settings.timeout_s, cpu_s=settings.cpu_s, memory_mb=settings.memory_mb,
                           output_bytes=OUTPUT_BYTES)
        try:
            result = settings.sandbox.run(argv, workdir=folder, limits=limits)
        except SandboxError as exc:
            raise LintError(self.tool, f"sandbox: {exc}") from exc
        if result.timed_out:
            raise LintError(self.tool, f"timed out after {settings.timeout_s:g} s")
        if result.exit_code is None:
            spent = result.cpu_s >= settings.cpu_s
            raise LintError(self.tool, f"CPU budget of {settings.cpu_s:g} s exceeded" if spent
                            else f"killed by signal {result.signal}: {tail(result.stderr)}")
        if result.output_exceeded:
            raise LintError(self.tool, f"more than {OUTPUT_BYTES >> 20} MB of output")
        return ToolRun(result.exit_code, result.stdout, result.stderr, folder)
