"""The code-generation prompt of a CodeContests-O record (``prompts/<version>.yaml``)."""

from __future__ import annotations

from linteval_ray.languages.registry import language as language_spec
from linteval_ray.prompt.template import PromptTemplate, render_values
from linteval_ray.tasks.codecontests_o.record import CodeContestsRecord

# How each language's program is built and started, as the prompt tells the model.
LANGUAGE_NOTES = {
    "cpp": "It is compiled as C++17 by g++.",
    "py3": "It runs on CPython 3.11 (no third-party packages).",
    "java": "It is compiled by javac (Java 17) and run with its public class named Main.",
}


def messages(record_json: str, template: PromptTemplate) -> list[dict[str, str]]:
    record = CodeContestsRecord.model_validate_json(record_json)
    spec = language_spec(record.language)
    values = {
        "language_name": spec.display_name,
        "language_notes": LANGUAGE_NOTES.get(record.language, ""),
        "fence_tag": spec.prompt_fence_tag,
        "title": record.title,
        "statement": record.statement.strip("\n"),
    }
    return render_values(template, values)
