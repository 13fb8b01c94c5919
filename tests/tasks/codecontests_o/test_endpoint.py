"""CodeContests-O through an OpenAI-compatible endpoint (a local HTTP server answering as a model
would, by the problem it is asked): ``generate`` writes the answers from the task's prompt, and ``run
--predictions`` scores them on CPUs, as for LintEval."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from linteval_ray.config import load_config
from linteval_ray.pipeline.predictions import generate
from linteval_ray.pipeline.run import run
from tests.tasks.codecontests_o.rows import bundled_solutions

pytestmark = pytest.mark.slow
PROBLEMS = ["1001_A. Sum of Pairs", "1008_H. Even or Odd"]


class ModelServer(ThreadingHTTPServer):
    """Answers /chat/completions with the bundled correct C++ solution of the problem the prompt's title
    names, after a thought; keeps the prompts it was sent."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), ModelHandler)
        self.prompts: list[list[dict[str, str]]] = []
        self.lock = threading.Lock()
        self.solutions = {s["sample_id"].split("/")[0].split(". ", 1)[1]: s["revised_code"]
                          for s in bundled_solutions(("cpp",)) if s["draw"] == 0}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class ModelHandler(BaseHTTPRequestHandler):
    server: ModelServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.prompts.append(body["messages"])
        title = next(line[2:] for line in body["messages"][-1]["content"].splitlines() if line.startswith("# "))
        answer = f"<think>A classic.</think>\nHere it is:\n```cpp\n{self.server.solutions[title]}```\n"
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 300, "completion_tokens": 80}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    server = ModelServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_generate_through_an_endpoint_then_score_the_predictions(local_ray: None, model_server: ModelServer,
                                                                 tmp_path: Path) -> None:
    common = ["dataset.source=codecontests-o:bundled", f"dataset.problem_ids={json.dumps(PROBLEMS)}",
              'dataset.languages=["cpp"]']
    generated = generate(load_config(None, [*common, f"output={json.dumps(str(tmp_path / 'gen'))}",
                                            "generation.backend=endpoint",
                                            f"generation.endpoint.url={json.dumps(model_server.url)}",
                                            "generation.endpoint.model=served"]))
    assert (generated.new_rows, generated.errors) == (2, 0)
    system, user = model_server.prompts[0]
    assert system["role"] == "system" and "competitive programmer" in system["content"]
    assert "in C++" in user["content"] and "```cpp" in user["content"] and "standard input" in user["content"]
    assert any("print a + b" in messages[1]["content"] for messages in model_server.prompts)  # the statement

    scored = run(load_config(None, [*common, f"output={json.dumps(str(tmp_path / 'scored'))}",
                                    f"generation.replay.predictions={json.dumps(generated.folder)}"]))
    rows = pq.read_table(tmp_path / "scored" / "results.parquet").to_pylist()
    assert scored.new_rows == 2 and all(r["verdict"] == "passed" for r in rows)
    assert {r["model"] for r in rows} == {"served"}
    assert json.loads((tmp_path / "gen" / "predictions" / "generation.json").read_text())[
        "prompt_version"].startswith("codecontests-o/v1@")
