"""pylint for py3: a warm worker process (see pylint_worker) per ``Pylint`` instance.

Each file gets a fresh module name (astroid caches modules by name) and is
linted alone (no cross-file checks). A file that takes longer than the timeout
gets a ``LintError``; the worker is killed and restarted for the next file.
"""

from __future__ import annotations

import json
import logging
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linteval_ray import languages
from linteval_ray.schema.record import LintMessage
from linteval_ray.validate.lint.base import Linter, LintError, LinterSettings, LintOutcome
from linteval_ray.validate.lint.categories import pylint_family
from linteval_ray.validate.lint.worker import LineWorker

if TYPE_CHECKING:
    from linteval_ray.toolchain import Toolchain
    from linteval_ray.validate.lint.profiles import LintProfile

log = logging.getLogger(__name__)

ERROR_TYPES = frozenset({"error", "fatal"})


class Pylint(Linter):
    tool = "pylint"
    language = "py3"
    file_name = languages.language(language).source_file

    def __init__(self, python: str, rcfile: Path, *, timeout_s: float = 120.0, memory_mb: int | None = 4096) -> None:
        self.python = python
        self.rcfile = rcfile
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self._worker: LineWorker | None = None

    @classmethod
    def from_profile(cls, toolchain: Toolchain, profile: LintProfile, settings: LinterSettings) -> Pylint:
        return cls(toolchain.python, profile.file("pylintrc"), timeout_s=settings.timeout_s)

    def worker(self) -> LineWorker:
        if self._worker is None or not self._worker.alive:
            argv = [self.python, "-m", "linteval_ray.validate.lint.pylint_worker", str(self.rcfile)]
            self._worker = LineWorker(argv, tool=self.tool, memory_mb=self.memory_mb)
        return self._worker

    def close(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None

    def lint_each(self, codes: list[str]) -> list[LintOutcome]:
        """Raises ``LintError`` only when the worker cannot start at all."""
        outcomes: list[LintOutcome] = []
        with tempfile.TemporaryDirectory(prefix="linteval-pylint-") as tmp:
            paths = []
            for code in codes:
                # a new module name per file: astroid would otherwise serve a cached tree
                path = Path(tmp) / f"sol_{uuid.uuid4().hex}.py"
                path.write_text(code, encoding="utf-8", errors="surrogatepass")
                paths.append(str(path))
            while len(outcomes) < len(paths):
                outcomes.extend(self._lint_until_failure(paths[len(outcomes):]))
        return outcomes

    def _lint_until_failure(self, paths: list[str]) -> list[LintOutcome]:
        """Lint ``paths`` in one request; stop after the first file that hangs or kills the worker."""
        worker = self.worker()
        outcomes: list[LintOutcome] = []
        try:
            worker.send(json.dumps({"paths": paths}))
        except BrokenPipeError:
            self.close()
            return [LintError(self.tool, "pylint worker exited")]
        for path in paths:
            try:
                reply = worker.read(self.timeout_s)
            except (TimeoutError, EOFError) as exc:
                reason = f"timed out after {self.timeout_s:g} s" if isinstance(exc, TimeoutError) else str(exc)
                log.warning("pylint worker restarted: %s", reason)
                self.close()
                outcomes.append(LintError(self.tool, reason))
                break
            if "error" in reply:
                outcomes.append(LintError(self.tool, reply["error"]))
            else:
                outcomes.append([self.message(m, Path(path).stem) for m in reply["messages"]])
        return outcomes

    def message(self, raw: dict[str, Any], module: str) -> LintMessage:
        # some texts name the module (syntax-error: "... (sol_<uuid>, line 1)"): report the stable name
        text = raw["message"].replace(module, Path(self.file_name).stem)
        return LintMessage(
            tool=self.tool, file=self.file_name, line=raw["line"], column=raw["column"],
            severity="error" if raw["type"] in ERROR_TYPES else "warning",
            message_text=text, check_name=raw["symbol"], category=pylint_family(raw["type"]),
        )
