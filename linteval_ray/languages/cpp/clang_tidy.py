"""clang-tidy: one process per file, files of a batch run concurrently.

Parses the ``--export-fixes`` YAML only. Its FileOffset is a byte offset into
the file: converted here to a 1-based line and a 1-based byte column (what
clang itself prints).
"""

from __future__ import annotations

import bisect
import json
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from linteval_ray.languages.cpp.categories import clang_tidy_family
from linteval_ray.schema.record import LintMessage
from linteval_ray.validate.lint.base import Linter, LintError, LinterSetup, LintOutcome, run_bounded, tail
from linteval_ray.validate.sandbox.base import BOX_DIR, RunLimits, Sandbox, SandboxError

# clang-tidy exits 1 when the file has compile errors; those are reported as clang-diagnostic-error
# messages, so both codes mean "ran fine".
OK_EXIT_CODES = (0, 1)
# Errors in included files are kept (the code does not compile) but their text is not: an
# `#include "/etc/shadow"` would otherwise copy the file's tokens into the results.
INCLUDED_FILE_ERROR = "error in an included file"
# A capped stdout still lets clang-tidy finish: its findings are read from the YAML.
SANDBOX_OUTPUT_BYTES = 64 << 20


class ClangTidyConfig(BaseModel):
    checks: str
    compile_args: list[str]

    @classmethod
    def load(cls, path: Path) -> ClangTidyConfig:
        return cls.model_validate(yaml.safe_load(path.read_text()))


def line_starts(data: bytes) -> list[int]:
    """Byte offset at which each line starts."""
    starts = [0]
    index = data.find(b"\n")
    while index != -1:
        starts.append(index + 1)
        index = data.find(b"\n", index + 1)
    return starts


def offset_to_line_column(starts: list[int], offset: int) -> tuple[int, int]:
    """Byte offset -> (1-based line, 1-based byte column)."""
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


class ClangTidy(Linter):
    tool = "clang-tidy"
    adapter_version = "2"

    def __init__(self, binary: str, config: ClangTidyConfig, *, file_name: str, jobs: int = 2,
                 timeout_s: float = 120.0, cpu_s: float = 30.0, memory_mb: int = 4096,
                 sandbox: Sandbox | None = None) -> None:
        self.file_name = file_name  # its extension tells clang-tidy the language
        self.binary = str(Path(binary).resolve())  # the box binds the resolved folder, not a symlink to it
        # clang-tidy opens whatever the source names (`#include`, `#embed` + static_assert
        # messages can quote a file): with a sandbox it only sees what the box shows.
        self.sandbox = sandbox
        self.config = config
        self.jobs = jobs
        self.timeout_s = timeout_s
        self.cpu_s = cpu_s  # constexpr and template bombs: bounded in CPU, not only in wall time
        self.memory_mb = memory_mb

    @classmethod
    def create(cls, setup: LinterSetup) -> ClangTidy:
        settings = setup.settings
        return cls(setup.tools["clang_tidy"], ClangTidyConfig.load(setup.config), file_name=setup.file_name,
                   jobs=settings.jobs, timeout_s=settings.timeout_s, cpu_s=settings.cpu_s,
                   memory_mb=settings.memory_mb, sandbox=settings.sandbox)

    def lint_each(self, codes: list[str]) -> list[LintOutcome]:
        if len(codes) <= 1 or self.jobs <= 1:
            return [self.lint_one(code) for code in codes]
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(self.lint_one, codes))

    def command(self, fixes: Path) -> list[str]:
        # --config (not a file) also stops clang-tidy from picking up .clang-tidy files above the temp dir;
        # `--` stops it from searching for a compile_commands.json.
        inline = json.dumps({"Checks": self.config.checks, "WarningsAsErrors": ""})
        return [self.binary, "--quiet", f"--config={inline}", f"--export-fixes={fixes}", self.file_name,
                "--", *self.config.compile_args]

    def lint_one(self, code: str) -> LintOutcome:
        data = code.encode("utf-8", "surrogatepass")
        with tempfile.TemporaryDirectory(prefix="linteval-tidy-") as tmp:
            work = Path(tmp)
            (work / self.file_name).write_bytes(data)
            fixes = work / "fixes.yaml"
            try:
                returncode, stderr = self._run(work)
            except LintError as exc:
                return exc
            if returncode not in OK_EXIT_CODES:
                return LintError(self.tool, f"exit {returncode}: {tail(stderr)}")
            if not fixes.exists():
                # clang-tidy writes no YAML when there is nothing to report
                if returncode == 0:
                    return []
                return LintError(self.tool, f"compile errors but no diagnostics file: {tail(stderr)}")
            report = yaml.load(fixes.read_bytes(), Loader=yaml.CSafeLoader) or {}
            main_dir = Path(BOX_DIR) if self.sandbox is not None else work
            return self.messages(report, data, main_dir / self.file_name)

    def _run(self, work: Path) -> tuple[int | None, bytes]:
        """clang-tidy on ``work/<file_name>`` writing ``work/fixes.yaml``: (exit code, stderr)."""
        if self.sandbox is None:
            proc = run_bounded(self.command(work / "fixes.yaml"), cwd=work, timeout_s=self.timeout_s,
                               tool=self.tool, memory_mb=self.memory_mb, cpu_s=self.cpu_s)
            return proc.returncode, proc.stderr
        limits = RunLimits(wall_s=self.timeout_s, cpu_s=self.cpu_s, memory_mb=self.memory_mb,
                           output_bytes=SANDBOX_OUTPUT_BYTES)
        try:
            result = self.sandbox.run(self.command(Path(BOX_DIR) / "fixes.yaml"), workdir=work, limits=limits)
        except SandboxError as exc:
            raise LintError(self.tool, f"sandbox: {exc}") from exc
        # LLVM catches SIGXCPU to print a stack trace, which can itself die (SIGABRT): CPU used says why
        if result.timed_out or (result.exit_code is None and result.cpu_s >= self.cpu_s):
            late = result.wall_s >= self.timeout_s
            raise LintError(self.tool, f"timed out after {self.timeout_s:g} s" if late
                            else f"CPU budget of {self.cpu_s:g} s exceeded")
        if result.exit_code is None:
            raise LintError(self.tool, f"killed by signal {result.signal}: {tail(result.stderr)}")
        return result.exit_code, result.stderr

    def messages(self, report: dict[str, Any], data: bytes, main_file: Path) -> list[LintMessage]:
        starts = line_starts(data)
        messages = []
        for diag in report.get("Diagnostics") or []:
            body = diag.get("DiagnosticMessage") or {}
            severity = str(diag.get("Level", "Warning")).lower()
            in_main = _same_file(body.get("FilePath", ""), diag.get("BuildDirectory", ""), main_file)
            if in_main:
                line, column = offset_to_line_column(starts, int(body.get("FileOffset", 0)))
                text = body.get("Message", "")
            elif severity == "error":
                line, column, text = 0, 0, INCLUDED_FILE_ERROR
            else:
                continue  # warnings in headers are not the submission's (header filter semantics)
            name = diag.get("DiagnosticName", "")
            messages.append(LintMessage(
                tool=self.tool, file=self.file_name, line=line, column=column, severity=severity,
                message_text=text, check_name=name, category=clang_tidy_family(name),
            ))
        return messages


def _same_file(file_path: str, build_dir: str, main_file: Path) -> bool:
    if not file_path:
        return False
    return (Path(build_dir) / file_path).resolve() == main_file.resolve()
