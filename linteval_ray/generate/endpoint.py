"""Generation through an OpenAI-compatible ``/chat/completions`` server.

One Ray Data actor sends each batch's requests from a bounded thread pool
(``concurrency`` in flight), retrying 429 / 5xx / timeouts / connection errors with
capped exponential backoff (and ``Retry-After`` when the server sends one). The
API key is read from the environment variable named in the config, on the driver
(handed to the actor inside a ``Secret`` that never prints) or else on the worker;
it is never written to rows or logs. A request that still fails becomes that
row's ``generation_error`` (a 400 for a prompt over the context is ``prompt_too_long``); a
server that does not answer at all fails the run before any row (``preflight``). The usage
and finish reason become the row's generation facts. Only the standard library is used
(``urllib``).
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from linteval_ray.config import ConfigError, EndpointConfig, EndpointGeneration, SamplingConfig, StorageConfig
from linteval_ray.generate.base import GenerationBackend, GenerationUnavailable, failed, with_generation_columns
from linteval_ray.generate.registry import register_backend
from linteval_ray.generate.sampling import EffectiveSampling, for_draw, left_to_server
from linteval_ray.prompt.template import load_template, row_messages
from linteval_ray.schema.rows import Generation, generation_schema
from linteval_ray.stage import BatchStage

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
ERROR_BODY_CHARS = 300
ACTOR_NUM_CPUS = 0.25  # the actor mostly waits on the network


class Secret:
    """A string that does not show itself in reprs, logs or tracebacks."""

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


class RequestFailed(Exception):
    """A request failed for good (after retries, or on a non-retryable answer)."""


@dataclass(frozen=True)
class Completion:
    text: str
    completion_tokens: int | None
    prompt_tokens: int | None = None
    finish_reason: str | None = None
    reasoning_tokens: int | None = None


class EndpointBackend(GenerationBackend):
    """Generation by an OpenAI-compatible chat completions endpoint."""

    name = "endpoint"

    def __init__(self, cfg: EndpointGeneration) -> None:
        if not cfg.endpoint.url:
            raise ConfigError("generation.endpoint.url is required, e.g. http://127.0.0.1:8000/v1 (--endpoint URL)")
        self.cfg = cfg
        self._prompt_version = load_template(cfg.prompt_version).version_id

    @classmethod
    def from_config(cls, generation: EndpointGeneration, storage: StorageConfig | None) -> EndpointBackend:
        return cls(generation)  # the key comes from the environment (endpoint.api_key_env), not the store's

    @property
    def prompt_version(self) -> str:
        return self._prompt_version

    def model_name(self) -> str:
        return self.cfg.endpoint.model or f"endpoint:{self.cfg.endpoint.url}"

    def effective_sampling(self) -> EffectiveSampling:
        return left_to_server(self.cfg.sampling)

    def preflight(self) -> None:
        """The server must answer (``GET /models``, with the run's retries) and serve the model asked for."""
        endpoint = self.cfg.endpoint
        key = os.environ.get(endpoint.api_key_env)
        caller = EndpointCaller(endpoint, self.cfg.sampling, self.cfg.prompt_version, self.model_name(),
                                Secret(key) if key else None)
        try:
            served = caller.served_models()
        except RequestFailed as exc:
            raise GenerationUnavailable(f"endpoint {endpoint.url} does not answer: {exc}; start the server or fix "
                                        "generation.endpoint.url") from None
        finally:
            caller.pool.shutdown(wait=False)
        if endpoint.model and served and endpoint.model not in served:
            raise GenerationUnavailable(f"endpoint {endpoint.url} serves {', '.join(sorted(served))}, not "
                                        f"{endpoint.model!r}: fix generation.endpoint.model (--model)")

    def stage(self) -> BatchStage:
        from ray.data import ActorPoolStrategy

        endpoint = self.cfg.endpoint
        key = os.environ.get(endpoint.api_key_env)
        return BatchStage(
            name=self.name,
            fn=EndpointCaller,
            fn_constructor_kwargs={
                "endpoint": endpoint,
                "sampling": self.cfg.sampling,
                "prompt_version": self.cfg.prompt_version,
                "model_name": self.model_name(),
                "api_key": Secret(key) if key else None,
                "chat_template_kwargs": self.cfg.chat_template_kwargs,
            },
            map_batches_kwargs={"batch_size": 4 * endpoint.concurrency, "batch_format": "pyarrow",
                                "compute": ActorPoolStrategy(size=1), "num_cpus": ACTOR_NUM_CPUS},
            required_columns=("record_json", "draw"),
            output_schema=generation_schema(),
            keeps_input_columns=True,
        )


class EndpointCaller:
    """The Ray Data callable class: one batch of prompt rows in, generation columns added."""

    def __init__(
        self,
        endpoint: EndpointConfig,
        sampling: SamplingConfig,
        prompt_version: str,
        model_name: str,
        api_key: Secret | None = None,
        chat_template_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.chat_template_kwargs = chat_template_kwargs or {}
        self.sampling = sampling
        self.prompt_version = prompt_version
        self.model_name = model_name
        worker_key = os.environ.get(endpoint.api_key_env)
        self.api_key = api_key or (Secret(worker_key) if worker_key else None)
        self.pool = ThreadPoolExecutor(max_workers=endpoint.concurrency, thread_name_prefix="endpoint")

    def __call__(self, batch: pa.Table) -> pa.Table:
        rows = batch.select(["record_json", "draw"]).to_pylist()
        return with_generation_columns(batch, list(self.pool.map(self.generate_row, rows)))

    def generate_row(self, row: dict[str, Any]) -> Generation:
        """The generation columns of one prompt row."""
        try:
            payload = self.payload(row_messages(row, self.prompt_version), int(row.get("draw") or 0))
        except Exception as exc:  # noqa: BLE001 - a bad row is that row's error, not the job's
            return failed(f"prompt: {type(exc).__name__}: {exc}", self.model_name)
        started = time.monotonic()
        try:
            completion = self.complete(payload)
        except RequestFailed as exc:
            return failed(prompt_too_long(str(exc)) or f"endpoint: {exc}", self.model_name)
        return Generation(raw_response=completion.text, tokens_used=completion.completion_tokens,
                          model=self.model_name, prompt_tokens=completion.prompt_tokens,
                          generated_tokens=completion.completion_tokens, finish_reason=completion.finish_reason,
                          reasoning_tokens=completion.reasoning_tokens,
                          generation_s=time.monotonic() - started)

    def payload(self, messages: list[dict[str, str]], draw: int) -> dict[str, Any]:
        # The parameters sampling sets; one it leaves unset is not sent, so the server's default decides
        # (vllm serve: the model's generation_config.json, as the vllm backend does: generate/sampling.py).
        body: dict[str, Any] = {"messages": messages, **for_draw(left_to_server(self.sampling).params, draw)}
        if self.endpoint.model:
            body["model"] = self.endpoint.model
        if self.chat_template_kwargs:  # vLLM and SGLang read it; OpenAI's API has no such field
            body["chat_template_kwargs"] = self.chat_template_kwargs
        return body

    def served_models(self) -> set[str]:
        """The model ids ``GET /models`` lists (empty when the server has no such route); raises
        ``RequestFailed`` when the server does not answer after the retries."""
        attempts = self.endpoint.max_retries + 1
        for attempt in range(attempts):
            try:
                body = self.request("GET", "/models")
                return {str(m.get("id")) for m in body.get("data") or [] if isinstance(m, dict)}
            except urllib.error.HTTPError as exc:
                if exc.code in (401, 403):
                    raise RequestFailed(f"HTTP {exc.code} (is {self.endpoint.api_key_env} the right key?)") from None
                if exc.code not in RETRY_STATUSES:
                    return set()  # it answers; it just lists no models
                reason = f"HTTP {exc.code}: {_body_excerpt(exc)}"
            except (TimeoutError, OSError) as exc:  # URLError is an OSError
                reason = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            if attempt + 1 < attempts:
                time.sleep(self.backoff(attempt))
        raise RequestFailed(f"{reason} (after {attempts} attempts)")

    def complete(self, payload: dict[str, Any]) -> Completion:
        """POST with retries; raises ``RequestFailed`` with a short reason."""
        attempts = self.endpoint.max_retries + 1
        for attempt in range(attempts):
            try:
                return parse_completion(self.post(payload))
            except urllib.error.HTTPError as exc:
                reason = f"HTTP {exc.code}: {_body_excerpt(exc)}"
                if exc.code not in RETRY_STATUSES:
                    raise RequestFailed(reason) from None
                delay = self.backoff(attempt, exc.headers.get("Retry-After"))
            except TimeoutError as exc:
                reason, delay = f"timeout after {self.endpoint.timeout_s:g} s ({exc})", self.backoff(attempt)
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, TimeoutError):
                    reason = f"timeout after {self.endpoint.timeout_s:g} s"
                else:
                    reason = f"connection error: {exc.reason}"
                delay = self.backoff(attempt)
            except (ConnectionError, OSError) as exc:
                reason, delay = f"connection error: {exc}", self.backoff(attempt)
            if attempt + 1 < attempts:
                log.warning("endpoint request failed (%s); retry %d/%d in %.2f s", reason, attempt + 1,
                            attempts - 1, delay)
                time.sleep(delay)
        raise RequestFailed(f"{reason} (after {attempts} attempts)")

    def post(self, payload: dict[str, Any]) -> dict[str, Any]:
        return self.request("POST", "/chat/completions", payload)

    def request(self, method: str, route: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key.reveal()}"
        request = urllib.request.Request(
            self.endpoint.url.rstrip("/") + route,  # type: ignore[union-attr]
            data=None if payload is None else json.dumps(payload).encode(),
            headers=headers,
            method=method,
        )
        with urllib.request.urlopen(request, timeout=self.endpoint.timeout_s) as response:
            body: dict[str, Any] = json.loads(response.read())
        return body

    def backoff(self, attempt: int, retry_after: str | None = None) -> float:
        """Seconds before retry ``attempt + 1``: Retry-After if given, else exponential with jitter."""
        cap = float(self.endpoint.max_backoff_s)
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), cap)
            except ValueError:
                pass  # an HTTP date: fall back to our own schedule
        return min(self.endpoint.backoff_s * 2.0**attempt, cap) * random.uniform(0.5, 1.0)


def parse_completion(body: dict[str, Any]) -> Completion:
    """The answer and its facts. A separate ``reasoning_content`` (vLLM's reasoning parsers) is put
    back in front of the answer as ``<think>...</think>``, so that extraction and the report treat
    it as they treat inline reasoning; one never closed (cut while thinking) stays unclosed."""
    try:
        choice = body["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError):
        raise RequestFailed(f"no choices in response: {json.dumps(body)[:ERROR_BODY_CHARS]}") from None
    content = message.get("content")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    finish_reason = choice.get("finish_reason")
    if reasoning:
        closing = "</think>" if content is not None or finish_reason != "length" else ""
        content = f"<think>{reasoning}{closing}{content or ''}"
    if content is None:
        raise RequestFailed(f"empty message (finish_reason={finish_reason})")
    usage = body.get("usage") or {}
    details = usage.get("completion_tokens_details") or {}
    return Completion(text=content, completion_tokens=_optional_int(usage.get("completion_tokens")),
                      prompt_tokens=_optional_int(usage.get("prompt_tokens")),
                      finish_reason=str(finish_reason) if finish_reason else None,
                      reasoning_tokens=_optional_int(details.get("reasoning_tokens")))


# vLLM's two wordings: "maximum context length is M tokens. However, your prompt contains N input tokens"
# and "Input length (N) exceeds model's maximum context length (M)".
PROMPT_TOO_LONG = (re.compile(r"maximum context length is (?P<limit>\d+) tokens.*?prompt contains (?:at least )?"
                              r"(?P<tokens>\d+) input tokens", re.DOTALL),
                   re.compile(r"Input length \((?P<tokens>\d+)\) exceeds model's maximum context length "
                              r"\((?P<limit>\d+)\)"))


def prompt_too_long(reason: str) -> str | None:
    """``prompt_too_long: N tokens > M`` when the server refused the request for its length."""
    for pattern in PROMPT_TOO_LONG:
        match = pattern.search(reason)
        if match:
            return f"prompt_too_long: {match['tokens']} tokens > {match['limit']} (the endpoint's context length)"
    return None


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _body_excerpt(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read().decode(errors="replace")[:ERROR_BODY_CHARS].strip()
    except Exception:  # noqa: BLE001 - the body is only decoration for the message
        return exc.reason or ""


register_backend(EndpointGeneration, EndpointBackend.from_config)
