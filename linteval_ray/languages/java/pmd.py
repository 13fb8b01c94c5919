"""PMD: a warm PMD server per ``Pmd`` instance, one analysis per batch, ``json`` reports.

A PMD run spends ~7 CPU-seconds before its first file (JVM start, ~3 s of parsing the
ruleset's category XML), whatever the number of files. ``PmdServer.java`` keeps one JVM
with the ruleset loaded and runs each batch as one analysis (~0.15 s for one file). A
batch that fails (an Error such as a StackOverflowError, answered by the server, which goes
on) or that exceeds its CPU budget or wall timeout (the server is killed) has each of its
files retried alone, so only the file that breaks PMD fails. ``lint_fresh`` runs the PMD
CLI itself (the naive harness).
"""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path
from typing import Any

from linteval_ray.languages.java.categories import pmd_family
from linteval_ray.schema.record import LintMessage
from linteval_ray.validate.lint.base import Linter, LintError, LinterSetup, LintOutcome, run_bounded, tail
from linteval_ray.validate.lint.worker import LineWorker

log = logging.getLogger(__name__)

# PMD exit codes: 0 clean, 4 violations found, 5 processing errors (e.g. a file that does not parse)
OK_EXIT_CODES = (0, 4, 5)
# Processing errors caused by the input itself: reported as a message, like a C++ compile error.
PARSE_EXCEPTIONS = frozenset({"ParseException", "LexException"})
PARSE_ERROR_CHECK = "java-parse-error"
PARSE_ERROR_TEXT = "PMD could not parse the file"
JAVA_LANGUAGE_VERSION = "17"  # the JDK that compiles submissions
# PMD's own analysis JVM, not a submission's (those flags are in commands.py): it runs
# outside the sandbox under RLIMIT_AS and a CPU budget per request, tuned for start-up and short
# analyses (C1 only, serial GC) with a heap bound against hostile input, a stack for deep parse
# trees, and small code-cache / class-space reservations so the address-space cap leaves room.
PMD_JVM_FLAGS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx1g", "-Xss8m",
                 "-XX:ReservedCodeCacheSize=64m", "-XX:CompressedClassSpaceSize=128m"]
SERVER_SOURCE = Path(__file__).with_name("PmdServer.java")
# A fresh JVM (~7 CPU-s) now and then bounds whatever a long-lived PMD might accumulate; it idles
# near 300 MB resident, and a heap grown by a hostile file past SERVER_MAX_RSS_MB is given back.
SERVER_MAX_REQUESTS = 500
SERVER_MAX_RSS_MB = 1024


class Pmd(Linter):
    tool = "pmd"
    adapter_version = "2"

    def __init__(self, java: str, pmd_home: Path, ruleset: Path, *, file_name: str, timeout_s: float = 120.0,
                 cpu_s: float | None = 30.0, memory_mb: int | None = 4096) -> None:
        self.file_name = file_name
        self.java = java
        self.pmd_home = pmd_home
        self.ruleset = ruleset
        self.timeout_s = timeout_s
        self.cpu_s = cpu_s  # per analysis (a batch: honest files take well under a second each)
        self.memory_mb = memory_mb
        self._server: LineWorker | None = None

    @classmethod
    def create(cls, setup: LinterSetup) -> Pmd:
        settings = setup.settings
        return cls(setup.tools["java"], Path(setup.tools["pmd"]), setup.config, file_name=setup.file_name,
                   timeout_s=settings.timeout_s, cpu_s=settings.cpu_s, memory_mb=settings.memory_mb)

    def classpath(self) -> str:
        return f"{self.pmd_home / 'conf'}:{self.pmd_home / 'lib'}/*"

    def command(self, source_dir: str, report: str) -> list[str]:
        """The PMD CLI on one folder: a fresh JVM that loads everything (``lint_fresh``)."""
        return [self.java, *PMD_JVM_FLAGS, "-cp", self.classpath(), "net.sourceforge.pmd.cli.PmdCli", "check",
                "-d", source_dir, "-R", str(self.ruleset), "-f", "json", "-r", report,
                "--use-version", f"java-{JAVA_LANGUAGE_VERSION}", "--no-cache", "--no-progress"]

    def server(self) -> LineWorker:
        if self._server is not None and self._server.worn_out(SERVER_MAX_REQUESTS, SERVER_MAX_RSS_MB):
            self.close()
        if self._server is None:
            argv = [self.java, *PMD_JVM_FLAGS, "-cp", self.classpath(), str(SERVER_SOURCE), str(self.ruleset),
                    JAVA_LANGUAGE_VERSION]
            self._server = LineWorker(argv, tool=self.tool, memory_mb=self.memory_mb)
        return self._server

    def close(self) -> None:
        if self._server is not None:
            self._server.kill()
            self._server = None

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
        """Lint all ``codes`` in one analysis of the warm server; a tool failure raises ``LintError``."""
        with tempfile.TemporaryDirectory(prefix="linteval-pmd-") as tmp:
            work = _write_inputs(Path(tmp), codes, self.file_name)
            server = self.server()
            try:
                server.send(f"{work / 'src'}\t{work / 'report.json'}", cpu_s=self.cpu_s)
                reply = server.read(self.timeout_s)
            except (TimeoutError, EOFError, BrokenPipeError) as exc:
                reason = f"timed out after {self.timeout_s:g} s" if isinstance(exc, TimeoutError) else str(exc)
                log.warning("PMD server restarted: %s", reason or type(exc).__name__)
                self.close()
                raise LintError(self.tool, reason or "PMD server exited") from None
            if "failure" in reply:
                raise LintError(self.tool, reply["failure"])
            return self.outcomes(_read_report(work / "report.json"), len(codes))

    def lint_fresh(self, code: str) -> LintOutcome:
        """One file through the PMD CLI in a new JVM, the way a simple script would lint it."""
        with tempfile.TemporaryDirectory(prefix="linteval-pmd-") as tmp:
            work = _write_inputs(Path(tmp), [code], self.file_name)
            try:
                proc = run_bounded(self.command("src", "report.json"), cwd=work, timeout_s=self.timeout_s,
                                   tool=self.tool)
                if proc.returncode not in OK_EXIT_CODES or not (work / "report.json").is_file():
                    raise LintError(self.tool, f"exit {proc.returncode}: {tail(proc.stderr)}")
                return self.outcomes(_read_report(work / "report.json"), 1)[0]
            except LintError as exc:
                return exc

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


def _write_inputs(work: Path, codes: list[str], file_name: str) -> Path:
    """``work/src/<index>/<file_name>`` per code: the report names each input by its folder."""
    for index, code in enumerate(codes):
        folder = work / "src" / str(index)
        folder.mkdir(parents=True)
        (folder / file_name).write_text(code, encoding="utf-8", errors="surrogatepass")
    return work


def _read_report(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise LintError("pmd", "no report was written")
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))  # PMD's JSON report
    return report


def _input_index(filename: str) -> int:
    """'src/7/Main.java' -> 7 (each input sits in a folder named by its index)."""
    return int(Path(filename).parent.name)
