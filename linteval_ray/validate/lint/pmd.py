"""PMD for Java: one JVM per batch (``-d DIR`` over one folder per input), ``-f json`` only.

JVM start-up dominates (~3 s), so a batch shares it. If the batch times out,
each file is retried alone so that only the file that hangs PMD fails.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from linteval_ray.schema.record import LintMessage
from linteval_ray.toolchain.manifest import probe_pmd
from linteval_ray.validate.lint.base import LintError, Linter, LintOutcome, run_bounded, tail
from linteval_ray.validate.lint.categories import pmd_family

# PMD exit codes: 0 clean, 4 violations found, 5 processing errors (e.g. a file that does not parse)
OK_EXIT_CODES = (0, 4, 5)
# Processing errors caused by the input itself: reported as a message, like a C++ compile error.
PARSE_EXCEPTIONS = frozenset({"ParseException", "LexException"})
PARSE_ERROR_CHECK = "java-parse-error"
PARSE_ERROR_TEXT = "PMD could not parse the file"
JAVA_LANGUAGE_VERSION = "java-17"  # the JDK that compiles submissions
# Fast JVM start for a short run (C1 only, serial GC); a bounded heap for hostile input.
JVM_FLAGS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx1g", "-Xss8m"]


class Pmd(Linter):
    tool = "pmd"
    language = "java"
    file_name = "Main.java"

    def __init__(self, java: str, pmd_home: Path, ruleset: Path, *, timeout_s: float = 120.0) -> None:
        self.java = java
        self.pmd_home = pmd_home
        self.ruleset = ruleset
        self.timeout_s = timeout_s
        self._version: str | None = None

    def version(self) -> str:
        if self._version is None:
            self._version = probe_pmd(str(self.pmd_home)).version
        return self._version

    def command(self, source_dir: str, report: str) -> list[str]:
        classpath = f"{self.pmd_home / 'conf'}:{self.pmd_home / 'lib'}/*"
        return [self.java, *JVM_FLAGS, "-cp", classpath, "net.sourceforge.pmd.cli.PmdCli", "check",
                "-d", source_dir, "-R", str(self.ruleset), "-f", "json", "-r", report,
                "--use-version", JAVA_LANGUAGE_VERSION, "--no-cache", "--no-progress"]

    def lint_each(self, codes: list[str]) -> list[LintOutcome]:
        if not codes:
            return []
        try:
            return self.lint_batch(codes)
        except LintError as exc:
            if len(codes) == 1:
                return [exc]
        return [self.lint_alone(code) for code in codes]

    def lint_alone(self, code: str) -> LintOutcome:
        try:
            return self.lint_batch([code])[0]
        except LintError as exc:
            return exc

    def lint_batch(self, codes: list[str]) -> list[LintOutcome]:
        """Lint all ``codes`` in one JVM; a tool failure (timeout, crash) raises ``LintError``."""
        with tempfile.TemporaryDirectory(prefix="linteval-pmd-") as tmp:
            work = Path(tmp)
            for index, code in enumerate(codes):
                folder = work / "src" / str(index)
                folder.mkdir(parents=True)
                (folder / self.file_name).write_text(code, encoding="utf-8", errors="surrogatepass")
            proc = run_bounded(self.command("src", "report.json"), cwd=work, timeout_s=self.timeout_s,
                               tool=self.tool)
            report_path = work / "report.json"
            if proc.returncode not in OK_EXIT_CODES or not report_path.is_file():
                raise LintError(self.tool, f"exit {proc.returncode}: {tail(proc.stderr)}")
            report = json.loads(report_path.read_text(encoding="utf-8"))
        return self.outcomes(report, len(codes))

    def outcomes(self, report: dict[str, Any], count: int) -> list[LintOutcome]:
        if report.get("configurationErrors"):
            raise LintError(self.tool, f"configuration error: {report['configurationErrors'][0]}")
        outcomes: list[LintOutcome] = [[] for _ in range(count)]
        for entry in report.get("files", []):
            messages = outcomes[_input_index(entry["filename"])]
            messages.extend(self.message(v) for v in entry.get("violations", []))  # type: ignore[union-attr]
        for error in report.get("processingErrors", []):
            index = _input_index(error["filename"])
            exception = error.get("detail", "").split(":", 1)[0].rsplit(".", 1)[-1]
            if exception in PARSE_EXCEPTIONS:
                outcomes[index] = [LintMessage(
                    tool=self.tool, file=self.file_name, line=0, column=0, severity="error",
                    message_text=PARSE_ERROR_TEXT, check_name=PARSE_ERROR_CHECK, category="other",
                )]
            else:
                outcomes[index] = LintError(self.tool, f"processing error: {error.get('message', '')[:400]}")
        return outcomes

    def message(self, violation: dict[str, Any]) -> LintMessage:
        return LintMessage(
            tool=self.tool, file=self.file_name, line=violation["beginline"], column=violation["begincolumn"],
            severity="warning", message_text=violation["description"], check_name=violation["rule"],
            category=pmd_family(violation.get("ruleset", "")),
        )


def _input_index(filename: str) -> int:
    """'src/7/Main.java' -> 7 (each input sits in a folder named by its index)."""
    return int(Path(filename).parent.name)
