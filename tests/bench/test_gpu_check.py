"""bench/gpu_check.py's arithmetic and plan, the parts a machine without GPUs can check: what the
throughput verdict says, and which parts a machine cannot run (printed, never skipped silently)."""

from __future__ import annotations

import pytest

from bench.gpu_check import TARGET_RATIO, Job, Throughput, tp_plan, verdict


def test_the_verdict_compares_steady_rates_and_prints_the_fixed_costs_apart():
    """A job where generation dominates: 512 then 2,048 prompts on each side."""
    ours = Throughput.of(Job(prompts=512, tokens=120_000, seconds=9.0), Job(prompts=2048, tokens=480_000, seconds=30.0))
    raw = Throughput.of(Job(prompts=512, tokens=120_000, seconds=6.5), Job(prompts=2048, tokens=480_000, seconds=26.0))
    assert (round(ours.tokens_per_s), round(ours.fixed_s, 2)) == (17143, 2.0)
    assert (round(raw.tokens_per_s), round(raw.fixed_s, 2)) == (18462, 0.0)
    line, met = verdict(1, ours, raw, cpu=False)
    assert met and line == ("TP=1: our stage generates at 0.93x vLLM's own LLM.generate once running (17143 vs 18462 "
                            "tokens/s; target >= 0.9: met); each job also pays a fixed 2.0 s (LLM.generate 0.0 s) "
                            "besides its engine start")


def test_fixed_costs_do_not_decide_the_verdict_of_a_short_job():
    """256 x 256 on a 0.5B model: LLM.generate ~2 s, our stage the same engine rate plus 5 s of operators
    starting and rows leaving. The whole job's ratio would be 0.29 and fail; the engines run alike."""
    raw = Throughput.of(Job(prompts=64, tokens=16_384, seconds=0.5), Job(prompts=256, tokens=65_536, seconds=2.0))
    ours = Throughput.of(Job(prompts=64, tokens=16_384, seconds=5.5), Job(prompts=256, tokens=65_536, seconds=7.0))
    assert TARGET_RATIO > 2.0 / 7.0
    line, met = verdict(1, ours, raw, cpu=False)
    assert met and "1.00x" in line and "a fixed 5.0 s (LLM.generate 0.0 s)" in line
    slow = Throughput(tokens_per_s=0.8 * raw.tokens_per_s, fixed_s=1.0)
    assert verdict(2, slow, raw, cpu=False)[0].startswith("TP=2: our stage generates at 0.80x")
    assert verdict(2, slow, raw, cpu=False)[1] is False
    assert verdict(2, slow, raw, cpu=True) == (verdict(2, slow, raw, cpu=True)[0], True)  # no GPU target on CPU


def test_a_larger_job_that_did_no_more_work_is_refused():
    with pytest.raises(SystemExit, match="raise --prompts"):
        Throughput.of(Job(prompts=4, tokens=100, seconds=1.0), Job(prompts=16, tokens=100, seconds=1.5))


def test_every_part_a_machine_cannot_run_is_named_with_why():
    assert tp_plan(None, gpus=1, cpu=False) == ([1], ["TP=2: it needs 2 GPUs and this machine has 1"])
    assert tp_plan(None, gpus=8, cpu=False) == ([1, 2], [])
    assert tp_plan([2], gpus=2, cpu=False) == ([2], ["TP=1: not asked (--tp 2)"])
    assert tp_plan(None, gpus=0, cpu=True) == ([1], [
        "throughput target: --cpu figures are no GPU figures", "TP=2: --cpu runs TP=1 only",
        "GPU idle share: --cpu samples no GPU"])


@pytest.mark.parametrize(("asked", "gpus", "why"), [
    ([1, 2], 1, "asked for tensor_parallel_size 2 but this machine has 1 GPU(s)"),
    (None, 0, "no NVIDIA GPU (nvidia-smi lists none)"),
])
def test_what_was_asked_and_the_machine_lacks_exits_2(asked: list[int] | None, gpus: int, why: str,
                                                      capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_:
        tp_plan(asked, gpus=gpus, cpu=False)
    assert exit_.value.code == 2 and capsys.readouterr().err.startswith(f"gpu_check: {why}")
