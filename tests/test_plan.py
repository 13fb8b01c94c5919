"""The sizing projection: arithmetic on known figures, monotonicity, the figures file, the CLI."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from linteval_ray.plan import Figures, add_parser, default_figures, load_figures, plan
from linteval_ray.suite.plan import SuiteFigures, plan_suite

# Round numbers: 10 CPU-s per sample (cpp 12, py3 6, mix 50/50, no setup), 1 sample/s per GPU.
KNOWN = Figures(
    validation_cpu_s={"cpp": 12.0, "py3": 6.0, "java": 100.0},
    problem_setup_cpu_s=0.0,
    samples_per_problem=1.0,
    language_mix={"cpp": 1, "py3": 1, "java": 0},
    generation_samples_per_gpu_s=1.0,
    core_utilisation=1.0,
    startup_s=100.0,
)


def test_cpu_seconds_are_mix_weighted_and_setup_is_amortised() -> None:
    assert KNOWN.cpu_s_per_sample() == pytest.approx(9.0)
    with_setup = KNOWN.model_copy(update={"problem_setup_cpu_s": 30.0, "samples_per_problem": 3.0})
    assert with_setup.cpu_s_per_sample() == pytest.approx(19.0)


def test_balanced_cluster_keeps_both_pools_busy() -> None:
    p = plan(samples=900, gpus=2, cpus=18, figures=KNOWN)

    assert p.cpus_per_gpu == pytest.approx(9.0)
    assert p.generation_rate == pytest.approx(2.0)
    assert p.validation_rate == pytest.approx(2.0)
    assert p.gpu_busy == pytest.approx(1.0) and p.cpu_busy == pytest.approx(1.0)
    assert p.wall_s == pytest.approx(100.0 + 900 / 2.0)


def test_too_few_cores_make_validation_the_bottleneck() -> None:
    p = plan(samples=900, gpus=2, cpus=9, figures=KNOWN, draws=2)

    assert p.bottleneck == "validation"
    assert p.throughput == pytest.approx(1.0)
    assert p.gpu_busy == pytest.approx(0.5)
    assert p.wall_s == pytest.approx(100.0 + 1800 / 1.0)


def test_core_utilisation_raises_the_cores_needed() -> None:
    half = KNOWN.model_copy(update={"core_utilisation": 0.5})
    assert plan(100, 1, 1, half).cpus_per_gpu == pytest.approx(18.0)


def test_replay_without_gpus_is_bound_by_validation() -> None:
    p = plan(samples=90, gpus=0, cpus=3, figures=KNOWN)

    assert p.generation_rate is None and p.gpu_busy is None
    assert p.bottleneck == "validation"
    assert p.wall_s == pytest.approx(100.0 + 90 * 9.0 / 3)


@pytest.mark.parametrize("gpus", [0, 1, 4, 16])
def test_wall_time_never_grows_with_more_cpus(gpus: int) -> None:
    walls = [plan(13061, gpus, cpus).wall_s for cpus in (1, 2, 8, 32, 128, 1024)]
    assert walls == sorted(walls, reverse=True)
    assert walls[0] > walls[-1]


@pytest.mark.parametrize("cpus", [4, 64, 1024])
def test_wall_time_never_grows_with_more_gpus(cpus: int) -> None:
    walls = [plan(13061, gpus, cpus).wall_s for gpus in (1, 2, 4, 8, 64)]
    assert walls == sorted(walls, reverse=True)


def test_invalid_sizes_are_rejected() -> None:
    with pytest.raises(ValueError):
        plan(0, 1, 1)
    with pytest.raises(ValueError):
        plan(10, 1, 0)


def test_figures_file_overrides_defaults_and_names_its_source(tmp_path: Path) -> None:
    path = tmp_path / "figures.json"
    path.write_text(json.dumps({"generation_samples_per_gpu_s": 2.5,
                                "validation_cpu_s": {"cpp": 1, "py3": 1, "java": 1}}))

    figures = load_figures(path)

    assert figures.generation_samples_per_gpu_s == 2.5
    assert figures.validation_cpu_s == {"cpp": 1.0, "py3": 1.0, "java": 1.0}
    assert figures.startup_s == default_figures().startup_s
    assert figures.sources["generation_samples_per_gpu_s"] == str(path)
    assert figures.sources["startup_s"] == default_figures().sources["startup_s"]


def test_every_default_figure_says_where_it_comes_from() -> None:
    figure_names = set(Figures.model_fields) - {"sources"}
    assert set(default_figures().sources) == figure_names


def test_plan_command_prints_ratio_and_wall_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "figures.json"
    path.write_text(KNOWN.model_dump_json())
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())

    args = parser.parse_args(
        ["plan", "--samples", "900", "--gpus", "2", "--cpus", "18", "--figures", str(path), "--json"])
    assert args.func(args) == 0

    projection = json.loads(capsys.readouterr().out)
    assert projection["cpus_per_gpu"] == pytest.approx(9.0)
    assert projection["wall_s"] == pytest.approx(550.0)


SUITE = SuiteFigures(compile_cpu_s={"cpp": 1.0, "py2": 0.0}, test_cpu_s={"cpp": 0.1, "py2": 0.2}, tests_per_problem=10,
                     language_mix={"cpp": 3, "py2": 1}, problem_setup_cpu_s=5.0, workers_per_problem=2.0,
                     python2_runs=2.0, core_utilisation=0.5, startup_s=100.0)


def test_a_suite_costs_its_solutions_by_language_with_python2_judged_twice() -> None:
    # cpp 1 + 10 x 0.1 = 2 CPU-s; py2 (0 + 10 x 0.2) x 2 = 4 CPU-s; mix 3:1
    assert SUITE.cpu_s_per_solution() == pytest.approx(0.75 * 2 + 0.25 * 4)
    p = plan_suite(1000, problems=10, cpus_per_node=4, nodes=5, figures=SUITE)
    assert p.cpu_hours == pytest.approx((1000 * 2.5 + 10 * 2 * 5) / 3600)
    assert p.wall_s == pytest.approx(100 + (1000 * 2.5 + 100) / (5 * 4 * 0.5))


def test_a_suite_gets_the_nodes_that_finish_it_in_the_wall_time() -> None:
    p = plan_suite(100_000, problems=100, cpus_per_node=8, wall_hours=1.0, figures=SUITE)
    assert p.wall_s <= 3600 < plan_suite(100_000, 100, 8, nodes=p.nodes - 1, figures=SUITE).wall_s
    with pytest.raises(ValueError, match="one of nodes or a wall time"):
        plan_suite(10, 1, 8, figures=SUITE)


def test_the_cli_sizes_the_full_suite_job(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    args = parser.parse_args(["plan", "--suite-solutions", "11000000", "--wall-hours", "24", "--json"])
    assert args.func(args) == 0
    projection = json.loads(capsys.readouterr().out)
    assert projection["solutions"] == 11_000_000 and projection["problems"] == 11682
    assert projection["wall_s"] <= 24 * 3600 and projection["nodes"] >= 1 and projection["cpu_hours"] > 0
