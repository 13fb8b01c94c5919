"""Prompt stage: versioned chat templates in, extracted code out."""

from linteval_ray.prompt.extract import extract_code
from linteval_ray.prompt.template import PromptError, PromptTemplate, build_messages, load_template

__all__ = ["PromptError", "PromptTemplate", "build_messages", "extract_code", "load_template"]
