"""The LintEval record, exactly as the dataset card describes it."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from linteval_ray.schema.language import check_language_name

# A language's name: a built-in language or one registered since (linteval_ray/languages/).
Language = Annotated[str, AfterValidator(check_language_name)]


def require_unicode(value: Any) -> Any:
    """``value`` unchanged if every string in it is encodable text.

    JSON may carry lone surrogates (``"\\udcff"``, how undecodable bytes often end up escaped);
    Python accepts them, but neither UTF-8 files, Arrow nor pydantic's JSON can hold them, so
    such a row could never be written. Refusing it at the boundary names the field instead."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"holds text that is not valid Unicode: lone surrogate "
                             f"U+{ord(value[exc.start]):04X} at character {exc.start}") from None
    elif isinstance(value, dict):
        for item in value.values():
            require_unicode(item)
    elif isinstance(value, list | tuple):
        for item in value:
            require_unicode(item)
    return value


def to_unicode(text: str) -> str:
    """``text`` with each lone surrogate replaced by one U+FFFD (for untrusted model output)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


_SURROGATE = re.compile("[\ud800-\udfff]")


class LintMessage(BaseModel):
    """One linter alert. ``message_identity`` is what original and revised are matched on."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    tool: str = Field(description="clang-tidy, pylint or pmd")
    file: str = Field(default="", description="path the linter saw (a temp file; informational)")
    line: int = Field(description="1-based line")
    column: int = Field(default=0, description="column as the tool reports it")
    severity: str = Field(default="warning", description="tool severity: warning, error, ...")
    message_text: str
    check_name: str = Field(description="the tool's rule / check / symbol name")
    category: str = Field(
        default="other",
        description="check family (bugprone, performance, modernize, readability, ..., other)",
    )
    message_identity: str = Field(default="", description="check_name::message_text")

    _unicode = field_validator("*")(require_unicode)

    @model_validator(mode="after")
    def _identity(self) -> LintMessage:
        if not self.message_identity:
            object.__setattr__(self, "message_identity", f"{self.check_name}::{self.message_text}")
        return self


class LintEvalRecord(BaseModel):
    """One LintEval sample. Unknown fields are kept (``extra="allow"``), never dropped."""

    model_config = ConfigDict(extra="allow")

    sample_id: str = Field(min_length=1)
    problem_id: str = Field(min_length=1)
    split: str | None = None
    language: Language
    code: str = Field(min_length=1, description="the original, alert-carrying program")
    linter_messages: list[LintMessage] = Field(default_factory=list)
    linter_message_count: int | None = None
    original_loc: int | None = None
    compile_ok: bool | None = None
    source: str | None = None
    title: str | None = None
    generator: str = Field(min_length=1, description="testlib generator source (C++)")
    generator_cmd: str = Field(min_length=1, description="one generator command line per line")
    checker: str = Field(min_length=1, description="testlib checker source (C++)")
    validator: str = Field(min_length=1, description="testlib validator source (C++)")
    # The reference revision shipped with the dataset, and how it was obtained.
    revised_code: str | None = None
    raw_response: str | None = None
    tokens_used: int | None = None
    error: str | None = None
    extraction_ok: bool | None = None
    revision_error: str | None = None
    pass_at_1: bool | None = None
    validation_error: str | None = None
    original_messages: list[LintMessage] | None = None
    revised_messages: list[LintMessage] | None = None
    metrics: dict[str, Any] | None = None
    validation: dict[str, Any] | None = None

    _unicode = field_validator("*")(require_unicode)

    @model_validator(mode="after")
    def _extras_unicode(self) -> LintEvalRecord:
        for name, value in (self.__pydantic_extra__ or {}).items():
            try:
                require_unicode(value)
            except ValueError as exc:
                raise ValueError(f"field '{name}' {exc}") from None
        return self
