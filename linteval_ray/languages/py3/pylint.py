"""pylint: a warm worker process (see pylint_worker) per ``Pylint`` instance.

Each file gets a fresh module name (astroid caches modules by name) and is
linted alone (no cross-file checks), as one request with its own CPU budget. A
file that exceeds it, the wall-clock timeout or the worker's address space gets a
``LintError``; a dead worker is restarted for the next file, and a worker that
kept too much memory (or linted ``MAX_FILES``) is replaced. Each worker has a
private, temporary ``PYLINTHOME``: crash reports quoting a submission's source
land there and are deleted with it, never in the user's ``~/.cache/pylint``.
"""

from __future__ import annotations

import json
import logging
import tempfile
import uuid
from pathlib import Path
from typing import Any

from linteval_ray.languages.py3.categories import pylint_family
from linteval_ray.schema.record import LintMessage
from linteval_ray.validate.lint.base import Linter, LintError, LinterSetup, LintOutcome
from linteval_ray.validate.lint.worker import LineWorker

log = logging.getLogger(__name__)

ERROR_TYPES = frozenset({"error", "fatal"})
# A fresh worker (~0.4 s) now and then bounds what a long-lived pylint might accumulate; an
# honest file keeps it near 230 MB (clear-cache-post-run), a worker above MAX_RSS_MB is replaced.
MAX_FILES = 500
MAX_RSS_MB = 1024


class Pylint(Linter):
    tool = "pylint"
    adapter_version = "2"

    def __init__(self, python: str, rcfile: Path, *, file_name: str, timeout_s: float = 120.0,
                 cpu_s: float | None = 30.0, memory_mb: int | None = 4096, max_rss_mb: float = MAX_RSS_MB) -> None:
        self.file_name = file_name
        self.python = python
        self.rcfile = rcfile
        self.timeout_s = timeout_s
        self.cpu_s = cpu_s
        self.memory_mb = memory_mb
        self.max_rss_mb = max_rss_mb
        self._worker: LineWorker | None = None
        self._home: tempfile.TemporaryDirectory[str] | None = None

    @classmethod
    def create(cls, setup: LinterSetup) -> Pylint:
        settings = setup.settings
        return cls(setup.tools["python"], setup.config, file_name=setup.file_name, timeout_s=settings.timeout_s,
                   cpu_s=settings.cpu_s, memory_mb=settings.memory_mb)

    @property
    def home(self) -> Path | None:
        """The running worker's PYLINTHOME (None when no worker runs)."""
        return Path(self._home.name) if self._home is not None else None

    def worker(self) -> LineWorker:
        if self._worker is not None and self._worker.worn_out(MAX_FILES, self.max_rss_mb):
            log.info("pylint worker replaced (%d files, %.0f MB resident)", self._worker.requests,
                     self._worker.rss_mb())
            self.close()
        if self._worker is None:
            self._home = tempfile.TemporaryDirectory(prefix="linteval-pylint-home-")
            argv = [self.python, "-m", "linteval_ray.languages.py3.pylint_worker", str(self.rcfile)]
            self._worker = LineWorker(argv, tool=self.tool, memory_mb=self.memory_mb,
                                      env={"PYLINTHOME": self._home.name, "HOME": self._home.name})
        return self._worker

    def close(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None
        if self._home is not None:
            self._home.cleanup()
            self._home = None

    def lint_each(self, codes: list[str]) -> list[LintOutcome]:
        """Raises ``LintError`` only when the worker cannot start at all."""
        with tempfile.TemporaryDirectory(prefix="linteval-pylint-") as tmp:
            return [self._lint_file(Path(tmp), code) for code in codes]

    def _lint_file(self, folder: Path, code: str) -> LintOutcome:
        # a new module name per file: astroid would otherwise serve a cached tree
        path = folder / f"sol_{uuid.uuid4().hex}.py"
        path.write_text(code, encoding="utf-8", errors="surrogatepass")
        worker = self.worker()
        try:
            worker.send(json.dumps({"paths": [str(path)]}), cpu_s=self.cpu_s)
            reply = worker.read(self.timeout_s)
        except (TimeoutError, EOFError, BrokenPipeError) as exc:
            reason = f"timed out after {self.timeout_s:g} s" if isinstance(exc, TimeoutError) else str(exc)
            log.warning("pylint worker restarted: %s", reason or "pylint worker exited")
            self.close()
            return LintError(self.tool, reason or "pylint worker exited")
        if "error" in reply:
            return LintError(self.tool, reply["error"].replace(str(path), self.file_name))
        return [self.message(m, path.stem) for m in reply["messages"]]

    def message(self, raw: dict[str, Any], module: str) -> LintMessage:
        # some texts name the module (syntax-error: "... (sol_<uuid>, line 1)"): report the stable name
        text = raw["message"].replace(module, Path(self.file_name).stem)
        return LintMessage(
            tool=self.tool, file=self.file_name, line=raw["line"], column=raw["column"],
            severity="error" if raw["type"] in ERROR_TYPES else "warning",
            message_text=text, check_name=raw["symbol"], category=pylint_family(raw["type"]),
        )
