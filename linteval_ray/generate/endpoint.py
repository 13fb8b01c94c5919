"""Generation through an OpenAI-compatible ``/chat/completions`` server.

One Ray Data actor sends each batch's requests from a bounded thread pool
(``concurrency`` in flight), retrying 429 / 5xx / timeouts / connection errors with
capped exponential backoff (and ``Retry-After`` when the server sends one). The
API key is read from the environment variable named in the config, on the driver
(handed to the actor inside a ``Secret`` that never prints) or else on the worker;
it is never written to rows or logs. A request that still fails becomes that
row's ``generation_error``. Only the standard library is used (``urllib``).
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from linteval_ray.config import EndpointConfig, GenerationConfig, SamplingConfig
from linteval_ray.generate.base import GenerationBackend, with_generation_columns
from linteval_ray.pipeline.stage import BatchStage
from linteval_ray.prompt.template import build_messages, load_template
from linteval_ray.schema.rows import Generation, generation_schema, record_of

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


class EndpointBackend(GenerationBackend):
    """Generation by an OpenAI-compatible chat completions endpoint."""

    name = "endpoint"

    def __init__(self, cfg: GenerationConfig) -> None:
        if not cfg.endpoint.url:
            raise ValueError("generation.endpoint.url is required, e.g. http://127.0.0.1:8000/v1")
        self.cfg = cfg
        self._prompt_version = load_template(cfg.prompt_version).version_id

    @property
    def prompt_version(self) -> str:
        return self._prompt_version

    def model_name(self) -> str:
        return self.cfg.endpoint.model or f"endpoint:{self.cfg.endpoint.url}"

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
    ) -> None:
        self.endpoint = endpoint
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
            payload = self.payload(build_messages(record_of(row), self.prompt_version), int(row.get("draw") or 0))
        except Exception as exc:  # noqa: BLE001 - a bad row is that row's error, not the job's
            return Generation(model=self.model_name, generation_error=f"prompt: {type(exc).__name__}: {exc}")
        try:
            completion = self.complete(payload)
        except RequestFailed as exc:
            return Generation(model=self.model_name, generation_error=f"endpoint: {exc}")
        return Generation(raw_response=completion.text, tokens_used=completion.completion_tokens,
                          model=self.model_name)

    def payload(self, messages: list[dict[str, str]], draw: int) -> dict[str, Any]:
        s = self.sampling
        body: dict[str, Any] = {
            "messages": messages,
            "temperature": s.temperature,
            "top_p": s.top_p,
            "max_tokens": s.max_tokens,
        }
        if self.endpoint.model:
            body["model"] = self.endpoint.model
        if s.seed is not None:
            body["seed"] = s.seed + draw
        return body

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
        headers = {"Content-Type": "application/json"}
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key.reveal()}"
        request = urllib.request.Request(
            self.endpoint.url.rstrip("/") + "/chat/completions",  # type: ignore[union-attr]
            data=json.dumps(payload).encode(),
            headers=headers,
            method="POST",
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
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise RequestFailed(f"no choices in response: {json.dumps(body)[:ERROR_BODY_CHARS]}") from None
    content = message.get("content")
    if content is None:
        raise RequestFailed(f"empty message (finish_reason={body['choices'][0].get('finish_reason')})")
    usage = body.get("usage") or {}
    tokens = usage.get("completion_tokens")
    return Completion(text=content, completion_tokens=int(tokens) if tokens is not None else None)


def _body_excerpt(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read().decode(errors="replace")[:ERROR_BODY_CHARS].strip()
    except Exception:  # noqa: BLE001 - the body is only decoration for the message
        return exc.reason or ""
