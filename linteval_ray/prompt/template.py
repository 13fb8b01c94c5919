"""Versioned chat prompts: ``linteval_ray/prompt/prompts/<version>.yaml`` (package data) rendered for one record.

A template file holds ``version``, ``system`` and ``user`` strings with ``${name}``
placeholders (``string.Template``: program text is substituted verbatim, its braces
and dollar signs are never interpreted). The version recorded in result rows is
``PromptTemplate.version_id``: the version name plus a digest of the file, so an
edited template can never pass for the one a past run used.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Any, Protocol

import yaml

from linteval_ray.errors import LintEvalError
from linteval_ray.languages.registry import language as language_spec
from linteval_ray.languages.registry import languages
from linteval_ray.schema.record import Language, LintEvalRecord, LintMessage
from linteval_ray.schema.rows import RECORD_COLUMN, record_of
from linteval_ray.schema.task import LINTEVAL_TASK, task_of_record_json


class PromptInputs(Protocol):
    """What a prompt is made of: a ``LintEvalRecord``, or the report's ``Original`` of one."""

    @property
    def language(self) -> Language: ...
    @property
    def code(self) -> str: ...
    @property
    def linter_messages(self) -> list[LintMessage]: ...


class PromptError(LintEvalError, ValueError):
    """A prompt template is missing or malformed; the message names the file."""


@dataclass(frozen=True)
class PromptTemplate:
    version: str
    system: str
    user: str
    digest: str

    @property
    def version_id(self) -> str:
        """What result rows record as ``prompt_version``: ``v1@<sha256[:8]>``."""
        return f"{self.version}@{self.digest}"

    def render(self, record: PromptInputs, alerts: list[LintMessage] | None = None) -> list[dict[str, str]]:
        """The chat messages (OpenAI format) asking to fix ``alerts`` (default: the record's)."""
        values = prompt_values(record, record.linter_messages if alerts is None else alerts)
        return render_values(self, values)


def render_values(template: PromptTemplate, values: dict[str, str]) -> list[dict[str, str]]:
    """The chat messages of ``template`` with its placeholders' ``values`` (any task's)."""
    return [
        {"role": "system", "content": _substitute(template.system, values, template.version)},
        {"role": "user", "content": _substitute(template.user, values, template.version)},
    ]


def template_path(version: str) -> Path:
    """``version`` is a path to a YAML file, the name of a LintEval prompt shipped in the package
    (``linteval_ray/prompt/prompts/<version>.yaml``, found as a resource wherever it is installed), or
    ``<task>/<version>``: a prompt of another task (``<task's prompts_dir>/<version>.yaml``)."""
    if version.endswith((".yaml", ".yml")):
        return Path(version)
    if "/" in version:
        return _task_template(*version.split("/", 1))
    from importlib.resources import files

    # A wheel installs unpacked, so the resource is a file on disk.
    return Path(str(files("linteval_ray.prompt").joinpath("prompts", f"{version}.yaml")))


def task_of_template(version: str) -> str:
    """The task a template version is for: ``<task>/<version>``'s, else LintEval's."""
    return version.split("/", 1)[0] if "/" in version and not version.endswith((".yaml", ".yml")) else LINTEVAL_TASK


def qualified_version(version: str, task: str) -> str:
    """``version`` as ``<task>/<version>`` for a task other than LintEval (a path or a qualified name
    stays as it is)."""
    if task == LINTEVAL_TASK or "/" in version or version.endswith((".yaml", ".yml")):
        return version
    return f"{task}/{version}"


def _task_template(task_name: str, version: str) -> Path:
    from linteval_ray.tasks.registry import task  # the registry loads task packages, above this layer

    prompts = task(task_name).prompts_dir
    if prompts is None:
        raise PromptError(f"prompt template {task_name}/{version}: task {task_name} has no prompts of its own")
    return prompts / f"{version}.yaml"


def row_messages(row: Mapping[str, Any], version: str) -> list[dict[str, str]]:
    """The chat messages of one pipeline row (its ``record_json``) with template ``version``: LintEval's
    (``build_messages``), or the row's task's (``Task.messages``) for a task's own template."""
    record_json = str(row[RECORD_COLUMN])
    task_name = task_of_record_json(record_json)
    if task_of_template(version) != task_name:
        raise PromptError(f"prompt template {version!r} is not for task {task_name}: use {task_name}'s own")
    if task_name == LINTEVAL_TASK:
        return build_messages(record_of(row), version)
    from linteval_ray.tasks.registry import task

    return task(task_name).messages(record_json, load_template(version))


@cache
def load_template(version: str) -> PromptTemplate:
    path = template_path(version)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PromptError(f"prompt template {version!r}: cannot read {path}: {exc.strerror}") from None
    data = yaml.safe_load(raw)
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("version", "system", "user")):
        raise PromptError(f"{path}: needs string keys 'version', 'system' and 'user'")
    return PromptTemplate(
        version=data["version"],
        system=data["system"],
        user=data["user"],
        digest=hashlib.sha256(raw).hexdigest()[:8],
    )


def build_messages(
    record: LintEvalRecord, version: str, alerts: list[LintMessage] | None = None
) -> list[dict[str, str]]:
    """Chat messages for ``record`` with template ``version`` (see ``load_template``).

    ``alerts`` replaces ``record.linter_messages`` (e.g. alerts just computed by this
    machine's linters for a record shipped without them).
    """
    return load_template(version).render(record, alerts)


def prompt_values(record: PromptInputs, alerts: list[LintMessage]) -> dict[str, str]:
    """The placeholder values a template may use."""
    messages = sorted(alerts, key=lambda m: (m.line, m.column, m.check_name))
    spec = language_spec(record.language)
    return {
        "language_name": spec.display_name,
        "linter": _linter_names(record.language, messages),
        "fence_tag": spec.prompt_fence_tag,
        "fence": code_fence(record.code),
        "code": record.code.rstrip("\n"),
        "alerts": "\n".join(format_alert(m) for m in messages) or "(none)",
        "alert_count": str(len(messages)),
    }


def format_alert(message: LintMessage) -> str:
    """``- line 12:5 [clang-tidy readability-braces-around-statements] statement should ...``"""
    text = " ".join(message.message_text.split())
    return f"- line {message.line}:{message.column} [{message.tool} {message.check_name}] {text}"


def code_fence(code: str) -> str:
    """A backtick fence longer than any backtick run inside ``code`` (CommonMark rule)."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _linter_names(language: Language, messages: list[LintMessage]) -> str:
    """The tools that raised ``messages`` as prose ("PMD", not "pmd"); the language's linter
    when there are none."""
    prose = {spec.linter_tool: spec.linter_name for spec in languages()}
    tools = sorted({prose.get(m.tool, m.tool) for m in messages})
    return " and ".join(tools) if tools else language_spec(language).linter_name


def _substitute(text: str, values: dict[str, str], version: str) -> str:
    try:
        return Template(text).substitute(values)
    except (KeyError, ValueError) as exc:
        raise PromptError(f"prompt template {version!r}: bad placeholder {exc}") from None
