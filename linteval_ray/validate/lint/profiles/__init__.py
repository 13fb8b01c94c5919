"""Lint profiles: the complete settings of every language's linter, versioned, by name or folder.

A profile is a ``profile.yaml`` (name, version, description) and one settings file per
language, named by its spec (``LanguageSpec.lint_config``: ``clang-tidy.yaml``, ``pylintrc``,
``pmd-ruleset.xml``). A built-in profile (``linteval``, the default, calibrated on the dataset's
records; and ``broad``) keeps its ``profile.yaml`` here and each language's file in that
language's package (``linteval_ray/languages/<lang>/profiles/<name>/``). Any folder holding
``profile.yaml`` and every language's file, e.g. one written by ``linteval-ray calibrate
--derive``, is a profile too.

Identity is per language: a language's ``config_id`` hashes its adapter's version and its
settings file, so a change to one language's file leaves the others' cached alerts and run
folders valid (a run folder is refused only when it holds rows of a language whose id changed,
``store/manifest.py``).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from linteval_ray.config import ConfigError
from linteval_ray.languages.base import LanguageSpec
from linteval_ray.languages.registry import languages

DEFAULT_PROFILE = "linteval"
BUILTIN_DIR = Path(__file__).resolve().parent
PROFILE_FILE = "profile.yaml"


class LintProfileError(ConfigError):
    """A profile name or folder that cannot be used; the message says what to do."""


class LintProfileInfo(BaseModel):
    """What ``profile.yaml`` holds."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    version: int = Field(ge=1)
    description: str = ""


class LintProfile(BaseModel):
    """A loaded profile: its info, its folder, and each language's settings file and identity."""

    info: LintProfileInfo
    path: Path = Field(description="the folder of profile.yaml")
    files: dict[str, Path] = Field(description="language -> its linter's settings file")
    config_ids: dict[str, str] = Field(description="language -> hash of its adapter version and settings file")

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def config_id(self) -> str:
        """The whole profile's identity (every language's), for a manifest or a tracker."""
        digest = hashlib.sha256()
        for language, config_id in sorted(self.config_ids.items()):
            digest.update(f"{language}={config_id}\n".encode())
        return digest.hexdigest()[:12]

    def file(self, language: str) -> Path:
        """``language``'s settings file in this profile."""
        try:
            return self.files[language]
        except KeyError:
            raise LintProfileError(f"lint profile {self.name} has no settings for language {language!r} "
                                   "(registered after the profile was loaded)") from None

    def config_id_of(self, language: str) -> str:
        """``language``'s identity in this profile: cached alerts of its code depend on it."""
        self.file(language)
        return self.config_ids[language]

    def summary(self) -> dict[str, Any]:
        """What a manifest records."""
        return {"name": self.info.name, "version": self.info.version, "config_id": self.config_id,
                "config_ids": dict(self.config_ids), "path": str(self.path)}


def builtin_profiles() -> list[str]:
    return sorted(p.parent.name for p in BUILTIN_DIR.glob(f"*/{PROFILE_FILE}"))


def load_profile(spec: str | Path | None = None) -> LintProfile:
    """A built-in profile by name, or a profile folder by path (default: ``linteval``)."""
    spec = DEFAULT_PROFILE if spec is None else spec
    builtin = str(spec) in builtin_profiles()
    folder = BUILTIN_DIR / str(spec) if builtin else Path(spec).expanduser()
    if not (folder / PROFILE_FILE).is_file():
        names = ", ".join(language.lint_config for language in languages())
        raise LintProfileError(
            f"lint profile {str(spec)!r} not found: use one of {', '.join(builtin_profiles())} "
            f"or a folder holding {PROFILE_FILE} and {names}"
        )
    files = {language.name: settings_file(language, folder, builtin) for language in languages()}
    missing = [str(path) if builtin else path.name for path in files.values() if not path.is_file()]
    if missing:
        raise LintProfileError(f"lint profile {folder} lacks {', '.join(missing)}")
    try:
        info = LintProfileInfo.model_validate(yaml.safe_load((folder / PROFILE_FILE).read_text()))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValidationError) as exc:  # unreadable, not YAML, bad fields
        raise LintProfileError(f"{folder / PROFILE_FILE}: {exc}") from None
    config_ids = {language.name: language_config_id(language, files[language.name]) for language in languages()}
    return LintProfile(info=info, path=folder.resolve(), files={k: v.resolve() for k, v in files.items()},
                       config_ids=config_ids)


def copy_profile(profile: LintProfile, folder: Path) -> LintProfile:
    """``profile`` as a profile folder of its own (``profile.yaml`` and every language's settings
    file side by side): a starting point to edit."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(profile.path / PROFILE_FILE, folder / PROFILE_FILE)
    for language in languages():
        shutil.copyfile(profile.file(language.name), folder / language.lint_config)
    return load_profile(folder)


def settings_file(language: LanguageSpec, folder: Path, builtin: bool) -> Path:
    """Where a profile keeps ``language``'s settings: a built-in profile in the language's package,
    a profile folder beside its ``profile.yaml``."""
    if builtin:
        return language.profiles_dir / folder.name / language.lint_config
    return folder / language.lint_config


def language_config_id(language: LanguageSpec, path: Path) -> str:
    """What cached alerts of ``language``'s code depend on: its adapter's version and its settings file."""
    digest = hashlib.sha256(f"{language.linter_tool} {language.linter.adapter_version}\0".encode())
    digest.update(language.lint_config.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]
