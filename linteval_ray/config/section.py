"""What every config section is, and the two marks a setting may carry.

A field annotated ``Annotated[T, NEUTRAL]`` cannot change a result row: a speed setting (batch
sizes, actors, replicas, concurrency, timeouts), where the engines or files go, a warning's
threshold. A field annotated ``Annotated[T, SECRET]`` holds a credential. The marks live on the
models themselves, so a new setting is classified where it is declared:

- ``result_settings`` is what the run fingerprint hashes: every setting but the neutral and the
  secret ones (a resumed run may change those), with the credentials of URLs removed;
- ``public_settings`` is what a run folder records (``manifest.json``): every setting, a secret's
  value replaced by ``***`` and the credentials of every URL hidden.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from linteval_ray.errors import LintEvalError

HIDDEN = "***"
_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")  # user:password@ (or a token@) in a URL
_QUERY_VALUE = re.compile(r"(?<=[?&])([^=&#\s]+)=[^&#\s]*")  # ?sig=...&X-Amz-Signature=...


class ConfigError(LintEvalError, ValueError):
    """A config file or override is wrong; the message names the key."""


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class _Mark:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NEUTRAL = _Mark("NEUTRAL")  # changes no result row: left out of the run fingerprint
SECRET = _Mark("SECRET")  # a credential: hidden in every record, never hashed


def without_credentials(text: str) -> str:
    """``text`` with the credentials a URL in it may carry hidden: ``user:password@`` removed, every
    query value (presigned signatures, SAS tokens) replaced by ``***``."""
    if "://" not in text:
        return text
    return _QUERY_VALUE.sub(rf"\1={HIDDEN}", _USERINFO.sub("", text))


def result_settings(section: BaseModel) -> dict[str, Any]:
    """The settings of ``section`` that can change a result (neither ``NEUTRAL`` nor ``SECRET``)."""
    kept: dict[str, Any] = {}
    for name, field in type(section).model_fields.items():
        if NEUTRAL in field.metadata or SECRET in field.metadata:
            continue
        kept[name] = _walk(getattr(section, name), result_settings)
    return kept


def public_settings(section: BaseModel) -> dict[str, Any]:
    """Every setting of ``section``, with a ``SECRET``'s value (each value of a mapping) hidden."""
    shown: dict[str, Any] = {}
    for name, field in type(section).model_fields.items():
        value = getattr(section, name)
        shown[name] = _hidden(value) if SECRET in field.metadata else _walk(value, public_settings)
    return shown


def _walk(value: Any, view: Callable[[BaseModel], dict[str, Any]]) -> Any:
    if isinstance(value, BaseModel):
        return view(value)
    if isinstance(value, dict):
        return {key: _walk(item, view) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(item, view) for item in value]
    if isinstance(value, str):
        return without_credentials(value)
    return value


def _hidden(value: Any) -> Any:
    if isinstance(value, dict):
        return dict.fromkeys(value, HIDDEN)
    return HIDDEN if value else value
