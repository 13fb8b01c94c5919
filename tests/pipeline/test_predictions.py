"""Generate now, score later: `linteval-ray generate` writes predictions (resumable), `run
--predictions <folder>` scores them; against a real local HTTP endpoint that echoes the program."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from linteval_ray.cli import main
from tests.pipeline.samples import pick

pytestmark = [pytest.mark.slow]

FENCED = re.compile(r"^(`{3,}\w*\n.*?\n`{3,})$", re.MULTILINE | re.DOTALL)


class EchoServer(ThreadingHTTPServer):
    """Answers with the prompt's own program (the original passes every test), failing its first request."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), EchoHandler)
        self.calls = 0
        self.lock = threading.Lock()


class EchoHandler(BaseHTTPRequestHandler):
    server: EchoServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.calls += 1
            first = self.server.calls == 1
        if first:
            return self.reply(400, {"error": "bad request"})
        program = FENCED.search(body["messages"][-1]["content"])[1]  # type: ignore[index]
        self.reply(200, {"choices": [{"message": {"content": program}, "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 321, "completion_tokens": 45}})

    def reply(self, status: int, payload: dict[str, object]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_server() -> Iterator[EchoServer]:
    server = EchoServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_generate_resumes_then_run_scores_the_predictions(
    local_ray: None, echo_server: EchoServer, tmp_path: Path
) -> None:
    samples = [pick("clean_fix", "py3"), pick("clean_fix", "cpp")]
    url = f"http://127.0.0.1:{echo_server.server_address[1]}/v1"
    generate = ["generate", "--endpoint", url, "--output", str(tmp_path / "gen"),
                "--set", "generation.endpoint.max_retries=0", *[a for s in samples for a in ("--sample-id", s)]]

    assert main(generate) == 0
    folder = tmp_path / "gen" / "predictions"
    first = [r for part in sorted(folder.glob("*.parquet")) for r in pq.read_table(part).to_pylist()]
    assert sorted(r["row_id"] for r in first) == sorted(f"{s}/0" for s in samples)
    assert sum(r["generation_error"] is not None for r in first) == 1  # the server's first answer was a 400
    assert json.loads((folder / "generation.json").read_text())["model"] == f"endpoint:{url}"

    assert main(generate) == 0  # a rerun asks only for the row that failed
    assert echo_server.calls == 3
    assert main(generate) == 0
    assert echo_server.calls == 3

    out = tmp_path / "scored"
    scored = ["run", "--predictions", str(folder), "--output", str(out),
              *[a for s in samples for a in ("--sample-id", s)]]
    assert main(scored) == 0
    rows = {r["sample_id"]: r for r in pq.read_table(out / "results.parquet").to_pylist()}
    assert set(rows) == set(samples)
    for row in rows.values():
        assert row["status"] == "evaluated" and row["pass_at_1"], row["validation_error"]
        assert (row["prompt_tokens"], row["generated_tokens"], row["finish_reason"]) == (321, 45, "stop")
        assert row["model"] == f"endpoint:{url}"
    health = json.loads((out / "metrics.json").read_text())["generation"]
    assert health["responses"] == 2 and health["extraction_failure_rate"] == 0.0


def test_a_folder_of_another_generation_is_refused(local_ray: None, echo_server: EchoServer, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{echo_server.server_address[1]}/v1"
    base = ["generate", "--endpoint", url, "--output", str(tmp_path / "gen"), "--sample-id", pick("clean_fix", "py3")]
    assert main(base) == 0
    assert main([*base, "--set", "generation.sampling.temperature=0.5"]) == 2
