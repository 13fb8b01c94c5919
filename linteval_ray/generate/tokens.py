"""The model's tokenizer: the prompt's tokens, made once, on a generation node.

``PromptFit`` (a Ray Data actor ahead of the engines, on the nodes that run the GPU image) renders
every prompt with the model's chat template and tokenizes it as vLLM's own chat API does
(``apply_chat_template`` to text, then the tokenizer without adding special tokens: the template
has put them in). The engines get these token ids; a prompt that cannot fit
``max_model_len - max_tokens`` becomes that row's ``prompt_too_long`` error instead and never
reaches an engine. ``reasoning_tokens`` counts the tokens of a response's reasoning.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa

from linteval_ray.prompt.reasoning import split_reasoning
from linteval_ray.prompt.template import row_messages

PROMPT_ERROR_KEY = "__linteval_prompt_error__"
PROMPT_TOKENS_KEY = "__linteval_prompt_tokens__"
PROMPT_IDS_KEY = "__linteval_prompt_ids__"  # the prompt's token ids (empty for a refused prompt)
TOKENIZER_UNSET_LENGTH = int(1e20)  # transformers' model_max_length when the tokenizer names none (1e30)
# The model config's keys vLLM 0.29 derives a context length from (the smallest found wins).
CONTEXT_LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
                       "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")


def local_model_path(model: str) -> str:
    """A folder holding the model's tokenizer: ``model`` itself when it is a local folder, else the
    copy ray.data.llm downloads to this node (hub id, s3:// or gs://; tokenizer files only)."""
    if Path(model).expanduser().is_dir():
        return str(Path(model).expanduser())
    from ray.llm._internal.common.utils.download_utils import NodeModelDownloadable, download_model_files

    path = download_model_files(model_id=model, mirror_config=None,
                                download_model=NodeModelDownloadable.TOKENIZER_ONLY, download_extra_files=False)
    return str(path or model)


@cache
def load_tokenizer(model: str, trust_remote_code: bool = False) -> Any:
    """The model's tokenizer, once per process (transformers' ``AutoTokenizer``)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(local_model_path(model), trust_remote_code=trust_remote_code)


def context_length(model: str, engine_kwargs: dict[str, Any], tokenizer: Any) -> int | None:
    """``max_model_len`` if given, else the model's own context length as vLLM derives it when not told:
    the smallest of the model config's CONTEXT_LENGTH_KEYS and the tokenizer's ``model_max_length`` (None
    when neither names one: then no prompt is refused before the engine). The config is read through
    transformers, so a hub id's comes from the hub (config.json only, into the Hugging Face cache, with the
    node's HF_TOKEN), as the engines read it; vLLM's RoPE scaling factor is not applied: a model whose
    context a rope_scaling stretches needs max_model_len."""
    if engine_kwargs.get("max_model_len"):
        return int(engine_kwargs["max_model_len"])
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(local_model_path(model), revision=engine_kwargs.get("revision"),
                                        trust_remote_code=bool(engine_kwargs.get("trust_remote_code", False)))
    text = config.get_text_config()
    lengths = [getattr(text, key) for key in CONTEXT_LENGTH_KEYS if isinstance(getattr(text, key, None), int)]
    declared = getattr(tokenizer, "model_max_length", None)
    if isinstance(declared, int) and declared < TOKENIZER_UNSET_LENGTH:
        lengths.append(declared)
    return min(lengths) if lengths else None


def prompt_token_ids(tokenizer: Any, messages: list[dict[str, str]], chat_template: str | None,
                     chat_template_kwargs: dict[str, Any]) -> list[int]:
    """The prompt the engine gets: chat template to text, then its tokens (the template adds BOS and
    the like; vLLM's chat API adds no special tokens on top, nor does this)."""
    text = tokenizer.apply_chat_template(messages, tokenize=False, chat_template=chat_template,
                                         add_generation_prompt=True, **chat_template_kwargs)
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def reasoning_tokens(text: str, generated_tokens: int, tokenizer: Any) -> int:
    """Generated tokens up to and including the last ``</think>`` (all of them when a ``<think>``
    never closed, 0 without reasoning); the closed case re-tokenizes that text."""
    reasoning = split_reasoning(text).reasoning
    if reasoning is None:
        return 0
    if reasoning == text:
        return generated_tokens
    return min(generated_tokens, len(tokenizer(reasoning, add_special_tokens=False)["input_ids"]))


class PromptFit:
    """Ray Data actor: adds each row's prompt token ids and count and, for a prompt that is malformed
    or cannot fit ``max_model_len - max_tokens``, its error (the row then skips the engine)."""

    def __init__(self, model: str, prompt_version: str, max_tokens: int, engine_kwargs: dict[str, Any],
                 chat_template: str | None, chat_template_kwargs: dict[str, Any]) -> None:
        self.tokenizer = load_tokenizer(model, bool(engine_kwargs.get("trust_remote_code", False)))
        self.prompt_version = prompt_version
        self.chat_template = chat_template
        self.chat_template_kwargs = chat_template_kwargs
        length = context_length(model, engine_kwargs, self.tokenizer)
        self.budget = None if length is None else length - max_tokens
        self.budget_text = f"(max_model_len {length} - max_tokens {max_tokens})"

    def __call__(self, batch: pa.Table) -> pa.Table:
        checked = [self.check(row) for row in batch.select(["record_json"]).to_pylist()]
        batch = batch.append_column(PROMPT_IDS_KEY, pa.array([ids for ids, _, _ in checked], type=pa.list_(pa.int64())))
        batch = batch.append_column(PROMPT_TOKENS_KEY, pa.array([count for _, count, _ in checked], type=pa.int64()))
        return batch.append_column(PROMPT_ERROR_KEY, pa.array([error for _, _, error in checked], type=pa.string()))

    def check(self, row: dict[str, Any]) -> tuple[list[int], int | None, str]:
        """(prompt token ids, their count, error or "") of one row; a refused prompt keeps no ids."""
        try:
            messages = row_messages(row, self.prompt_version)
        except Exception as exc:  # noqa: BLE001 - a bad row must not fail the job: it becomes its generation_error
            return [], None, f"prompt: {type(exc).__name__}: {exc}"
        ids = prompt_token_ids(self.tokenizer, messages, self.chat_template, self.chat_template_kwargs)
        if self.budget is not None and len(ids) > self.budget:
            return [], len(ids), f"prompt_too_long: {len(ids)} tokens > {self.budget} {self.budget_text}"
        return ids, len(ids), ""
