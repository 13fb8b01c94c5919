"""The verifier cards in a real browser (Debian's chromium, headless): a problem's culprit tests with the
correct solutions they reject and the diff, the incorrect solutions that pass, and hostile text shown as
text, never run."""

from __future__ import annotations

from pathlib import Path

from linteval_ray.schema import Status, Verdict
from linteval_ray.schema.result import FirstFailure
from linteval_ray.store.folder import RunFolder
from linteval_ray.suite.pools import Label
from linteval_ray.suite.reduce import reduce_suite
from linteval_ray.suite.report import card_name
from linteval_ray.suite.rows import SuiteRow, rows_table
from linteval_ray.suite.units import write_unit
from tests.report.test_site import HOSTILE, needs_chromium, open_page

PROBLEM = f"3000_A. Hostile {HOSTILE}"


def row(number: int, label: Label, accepted: bool, **fields: object) -> SuiteRow:
    return SuiteRow(solution_id=f"{PROBLEM}/{label}/{number}", unit="p00f00000/u000000", source="pool row 1",
                    problem=PROBLEM, label=label, language="cpp", judged_as="cpp", status=Status.EVALUATED,
                    verdict=Verdict.PASSED if accepted else Verdict.WRONG_ANSWER, accepted=accepted, tests=3,
                    tests_run=3, tests_passed=3 if accepted else 2, **fields)  # type: ignore[arg-type]


@needs_chromium
def test_a_card_names_the_culprit_test_and_shows_hostile_text_as_text(tmp_path: Path) -> None:
    folder = RunFolder.open(str(tmp_path / "run"))
    failure = FirstFailure(test_index=1, test_name="001", verdict="wrong_answer", input_excerpt="2 3\n",
                           expected_excerpt="6\n", output_excerpt=f"5 {HOSTILE}\n", message=HOSTILE,
                           evidence="the token comparison (the problem has no checker) rejected the output")
    rows = [row(0, Label.CORRECT, True),
            row(1, Label.CORRECT, False, failed_tests=[1], first_failure=failure, code=f"// {HOSTILE}"),
            row(2, Label.INCORRECT, True, code=f"int main() {{}} // {HOSTILE}"),
            row(3, Label.INCORRECT, False, failed_tests=[0, 1, 2])]
    write_unit(folder, "p00f00000/u000000", rows_table(rows))

    reduction = reduce_suite(folder, stop_at_first_failure=False, title="cards")

    card = open_page(tmp_path / "run" / "report" / "cards" / card_name(PROBLEM), tmp=tmp_path)
    body = card.find_all("body")[0]
    assert "data-pwned" not in body.attrs  # nothing hostile ran
    text = body.text()
    assert HOSTILE.split("<img")[0] in text  # shown, as text
    culprits = [r for r in card.find_all("tr") if r.find_all("td") and r.find_all("td")[0].text() == "1"]
    assert culprits and f"{PROBLEM}/correct/1" in culprits[0].text()
    assert "-6\n+5 " in text  # the diff of the expected answer and the output
    assert f"{PROBLEM}/incorrect/2" in text.split("Incorrect solutions that pass every test (1)")[1]
    assert [p.tpr for p in reduction.metrics.problems] == [0.5]
    index = open_page(tmp_path / "run" / "report" / "index.html", tmp=tmp_path)
    assert "data-pwned" not in index.find_all("body")[0].attrs
    assert [a.attrs["href"] for a in index.find_all("a")] == [f"cards/{card_name(PROBLEM)}"]
