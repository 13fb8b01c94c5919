"""Units of work: cut the same way on every attempt, one shard each, an infra unit's failed rows judged
again and merged, and every unit read once by the reduction."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from linteval_ray.schema import Status, Verdict
from linteval_ray.store.folder import RunFolder
from linteval_ray.suite.pools import BadSolution, Label, Solution
from linteval_ray.suite.reduce import chosen_shards
from linteval_ray.suite.rows import SuiteRow, rows_table
from linteval_ray.suite.units import Cutter, UnitStates, retried_entries, shard_url, write_unit


def solution(number: int, chars: int = 10) -> Solution:
    return Solution(solution_id=f"P/correct/{number}", problem="P", label=Label.CORRECT, language="cpp",
                    code="x" * chars, source=f"row {number}")


def suite_row(solution_id: str, status: Status, unit: str = "p00f00000/u000000") -> SuiteRow:
    judged = status == Status.EVALUATED
    return SuiteRow(solution_id=solution_id, unit=unit, source="s", problem="P", label=Label.CORRECT,
                    status=status, verdict=Verdict.PASSED if judged else None, accepted=True if judged else None)


def test_units_end_at_a_count_or_a_size_and_are_cut_alike_every_time() -> None:
    entries = [solution(0), solution(1, 500), solution(2), solution(3), solution(4), solution(5),
               BadSolution(solution_id="bad", problem="P", label=None, language=None, error="e", source="s")]
    cutter = Cutter(solutions=3, chars=400)

    first = [[e.solution_id for e in unit.entries] for unit in cutter.units(entries)]

    assert first == [["P/correct/0", "P/correct/1"], ["P/correct/2", "P/correct/3", "P/correct/4"],
                     ["P/correct/5", "bad"]]
    assert [[e.solution_id for e in unit.entries] for unit in cutter.units(entries)] == first
    assert [unit.number for unit in cutter.units(entries)] == [0, 1, 2]


def test_an_infra_unit_is_retried_row_by_row_and_becomes_complete(tmp_path: Path) -> None:
    folder = RunFolder.open(str(tmp_path / "run"))
    unit = "p00f00003/u000007"
    entries = [solution(0), solution(1), solution(2)]
    write_unit(folder, unit, rows_table([suite_row("P/correct/0", Status.EVALUATED, unit),
                                         suite_row("P/correct/1", Status.INFRA_ERROR, unit),
                                         suite_row("P/correct/2", Status.EVALUATED, unit)]))
    states = UnitStates.listed(folder, "p00f00003")
    assert states.complete == set() and list(states.infra) == [7]

    retried = retried_entries(folder, states.infra[7], entries)
    assert [e.solution_id for e in retried] == ["P/correct/1"]
    write_unit(folder, unit, rows_table([suite_row("P/correct/1", Status.EVALUATED, unit)]), states.infra[7])

    states = UnitStates.listed(folder, "p00f00003")
    assert states.complete == {7} and states.infra == {}
    merged = pq.read_table(shard_url(folder, unit, complete=True)).to_pylist()
    assert sorted((r["solution_id"], r["status"]) for r in merged) == [
        ("P/correct/0", "evaluated"), ("P/correct/1", "evaluated"), ("P/correct/2", "evaluated")]


def test_the_reduction_reads_each_unit_once_and_drops_a_superseded_infra_shard(tmp_path: Path) -> None:
    folder = RunFolder.open(str(tmp_path / "run"))
    both, infra_only = "p00f00000/u000001", "p01f00002/u000000"
    write_unit(folder, both, rows_table([suite_row("A", Status.INFRA_ERROR, both)]))
    write_unit(folder, both, rows_table([suite_row("A", Status.EVALUATED, both)]))  # a judge stopped before removing
    write_unit(folder, infra_only, rows_table([suite_row("B", Status.INFRA_ERROR, infra_only)]))

    assert chosen_shards(folder) == [shard_url(folder, both, complete=True),
                                     shard_url(folder, infra_only, complete=False)]
    assert not Path(shard_url(folder, both, complete=False)).exists()
