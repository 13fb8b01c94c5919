"""Where the external tools live: the prefix, and ``Toolchain.discover``.

The prefix belongs to the Python environment, never to where the package's files
are: a Ray job's uploaded working dir has no toolchain, but every process of a
node's interpreter (job entrypoints, actors) shares its ``sys.prefix``.

Discovery only locates files (cheap, runs in every worker); versions are read
by ``manifest`` (once per process) and compared with the pins by ``check``.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from linteval_ray.errors import LintEvalError
from linteval_ray.languages.registry import language as language_spec
from linteval_ray.languages.registry import testlib_language
from linteval_ray.toolchain.manifest import ToolchainManifest, manifest_for
from linteval_ray.toolchain.spec import ToolSpec, same_folder
from linteval_ray.toolchain.tools import JUDGE_TOOLS, locate_all, tools

PREFIX_ENV = "LINTEVAL_TOOLCHAIN_DIR"


class ToolchainError(LintEvalError):
    """A tool is missing or wrong; the message names it and the command that installs it."""


def environment_share_dir() -> Path:
    """``<sys.prefix>/share/linteval-ray``: this interpreter's own folder (a venv, conda env or image)."""
    return Path(sys.prefix) / "share" / "linteval-ray"


def environment_prefix() -> Path:
    """Where ``linteval-ray toolchain install`` puts the tools when no other place is set."""
    return environment_share_dir() / "toolchain"


def recorded_prefix_file() -> Path:
    """Holds the prefix given to ``toolchain install --prefix``, for every process of this interpreter."""
    return environment_share_dir() / "toolchain-prefix"


def recorded_prefix() -> Path | None:
    try:
        text = recorded_prefix_file().read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return Path(text) if text else None


def record_prefix(prefix: Path) -> Path:
    """Remember ``prefix`` for this interpreter; returns the file written (OSError if it cannot be)."""
    target = recorded_prefix_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    # Staged then renamed: a worker starting meanwhile reads the old prefix or the new one, never half.
    staged = target.with_name(target.name + ".part")
    staged.write_text(f"{prefix.resolve()}\n", encoding="utf-8")
    os.replace(staged, target)
    return target


def default_prefix() -> Path:
    """$LINTEVAL_TOOLCHAIN_DIR, else the prefix recorded by ``install --prefix``, else the environment's."""
    if env := os.environ.get(PREFIX_ENV):
        return Path(env).expanduser().resolve()
    return recorded_prefix() or environment_prefix()


def incomplete_toolchain(prefix: Path, missing: list[ToolSpec]) -> ToolchainError:
    lines = [f"  {spec.name}: missing; install with: {spec.install.command(prefix)}" for spec in missing]
    return ToolchainError(f"toolchain under {prefix} is incomplete:\n" + "\n".join(lines))


class Toolchain(BaseModel):
    """Absolute paths of the tools one node uses to lint, compile and test, by their rows' names
    (``tools.tools()``: every language's rows and the judge's)."""

    model_config = ConfigDict(frozen=True)

    prefix: Path
    paths: dict[str, str] = Field(description="tool name -> path, for every tool found")
    python: str = sys.executable  # this environment's interpreter (pylint is pinned in it)

    @classmethod
    def discover(cls, prefix: Path | str | None = None) -> Toolchain:
        """Locate every tool; raise ``ToolchainError`` naming each missing one and its install command."""
        root = Path(prefix).resolve() if prefix is not None else default_prefix()
        found = locate_all(root)
        missing = [spec for spec in tools() if spec.required and found[spec.name] is None]
        if missing:
            raise incomplete_toolchain(root, missing)
        return cls(prefix=root, paths={name: path for name, path in found.items() if path is not None})

    def path(self, name: str) -> str:
        """Where tool ``name`` is; ``ToolchainError`` when it was not found (an optional tool)."""
        try:
            return self.paths[name]
        except KeyError:
            raise ToolchainError(f"{name} is not installed under {self.prefix}: "
                                 f"run `linteval-ray toolchain install`") from None

    def tool_paths(self) -> dict[str, str]:
        """Tool name -> path, with ``python``: what a linter adapter or a compile command names."""
        return {**self.paths, "python": self.python}

    @property
    def bwrap(self) -> str | None:
        return self.paths.get("bwrap")

    @property
    def testlib_dir(self) -> Path:
        return Path(self.path("testlib"))

    @property
    def testlib_h(self) -> Path:
        return self.testlib_dir / "testlib.h"

    def box_folders(self) -> list[Path]:
        """The folders a sandbox binds read-only for the tools to work in the box (their rows'
        ``box_folder``), but those under /usr, which every box has."""
        folders = [spec.box_folder(Path(self.paths[spec.name]).resolve()) for spec in tools()
                   if spec.box_folder is not None and spec.name in self.paths]
        return [folder for folder in folders if not folder.is_relative_to("/usr")]

    def placeholders(self) -> dict[str | Path, str]:
        """Folder -> ``<tool>`` for each tool that is a folder a sandbox binds (PMD's home,
        testlib's include folder): row text names those instead of this host's paths."""
        return {Path(self.paths[spec.name]): f"<{spec.name}>" for spec in tools()
                if spec.box_folder is same_folder and spec.name in self.paths}

    def manifest(self) -> ToolchainManifest:
        """Versions and hashes of the tools (read once per process)."""
        return manifest_for(self.prefix, self.paths)

    @functools.cached_property
    def toolchain_id(self) -> str:
        """Every tool's identity (the frozen paths' manifest looked up once)."""
        return self.manifest().toolchain_id

    def language_id(self, language: str) -> str:
        """The identity of the tools ``language``'s results depend on: its own rows, the judge's
        (testlib) and those testlib's tools are compiled with. Asked by every cache key of every row
        and by the run fingerprint: another language's tools never change it."""
        if language not in self._language_ids:
            names = [row.name for spec in (language_spec(language), testlib_language()) for row in spec.tools]
            self._language_ids[language] = self.manifest().identity_of([*names, *(row.name for row in JUDGE_TOOLS)])
        return self._language_ids[language]

    @functools.cached_property
    def _language_ids(self) -> dict[str, str]:
        return {}
