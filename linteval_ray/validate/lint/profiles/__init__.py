"""Lint profiles: the complete settings of the three linters, versioned, by name or folder.

A profile is a folder holding ``profile.yaml`` (name, version, description) and one config
file per linter (``clang-tidy.yaml``, ``pylintrc``, ``pmd-ruleset.xml``). Built-in profiles
ship inside the package (``linteval``, the default, calibrated on the dataset's records; and
``broad``); any other folder with the same files — e.g. one written by
``linteval-ray calibrate --derive`` — is a profile too. A profile's ``config_id`` hashes every
file, so results cached or stored under one profile are never mistaken for another's.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from linteval_ray.config import ConfigError

DEFAULT_PROFILE = "linteval"
BUILTIN_DIR = Path(__file__).resolve().parent
PROFILE_FILE = "profile.yaml"
CONFIG_FILES = ("clang-tidy.yaml", "pylintrc", "pmd-ruleset.xml")
# Bump when the adapters change what they report (parsing, naming, filtering): part of config_id.
ADAPTER_VERSION = "2"


class LintProfileError(ConfigError):
    """A profile name or folder that cannot be used; the message says what to do."""


class LintProfileInfo(BaseModel):
    """What ``profile.yaml`` holds."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    version: int = Field(ge=1)
    description: str = ""


class LintProfile(BaseModel):
    """A loaded profile: its info, its folder and the identity of its files."""

    info: LintProfileInfo
    path: Path
    config_id: str = Field(description="hash of the adapter version and every config file")

    @property
    def name(self) -> str:
        return self.info.name

    def file(self, name: str) -> Path:
        return self.path / name

    def summary(self) -> dict[str, str | int]:
        """What a manifest records."""
        return {"name": self.info.name, "version": self.info.version, "config_id": self.config_id,
                "path": str(self.path)}


def builtin_profiles() -> list[str]:
    return sorted(p.parent.name for p in BUILTIN_DIR.glob(f"*/{PROFILE_FILE}"))


def load_profile(spec: str | Path | None = None) -> LintProfile:
    """A built-in profile by name, or a profile folder by path (default: ``linteval``)."""
    spec = DEFAULT_PROFILE if spec is None else spec
    folder = BUILTIN_DIR / str(spec) if str(spec) in builtin_profiles() else Path(spec).expanduser()
    if not (folder / PROFILE_FILE).is_file():
        raise LintProfileError(
            f"lint profile {str(spec)!r} not found: use one of {', '.join(builtin_profiles())} "
            f"or a folder holding {PROFILE_FILE} and {', '.join(CONFIG_FILES)}"
        )
    missing = [name for name in CONFIG_FILES if not (folder / name).is_file()]
    if missing:
        raise LintProfileError(f"lint profile {folder} lacks {', '.join(missing)}")
    try:
        info = LintProfileInfo.model_validate(yaml.safe_load((folder / PROFILE_FILE).read_text()))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, ValidationError) as exc:  # unreadable, not YAML, bad fields
        raise LintProfileError(f"{folder / PROFILE_FILE}: {exc}") from None
    return LintProfile(info=info, path=folder.resolve(), config_id=_config_id(folder))


def _config_id(folder: Path) -> str:
    digest = hashlib.sha256(ADAPTER_VERSION.encode())
    for name in (PROFILE_FILE, *CONFIG_FILES):
        digest.update(name.encode() + b"\0" + (folder / name).read_bytes() + b"\0")
    return digest.hexdigest()[:12]
