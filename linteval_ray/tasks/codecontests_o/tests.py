"""A problem's given tests, stored once in the content cache and judged from there.

The read task stores each problem's ``corner_cases`` under a key of their content (``store_tests``):
``<name>.in`` (the input) and ``<name>.ans`` (the expected answer) in one folder, with
``tests.json`` naming them in order, in the node-local tier and the shared one when the run has
one (beside an object-store output, or ``validation.cache_url``). Rows carry only the key, never
the tests: a problem's tests cross the store once, whatever its languages and draws. A validation
worker reads the folder by its key (``given_problem``), as it reads any cached test set.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

from linteval_ray.tasks.codecontests_o.record import GivenTest
from linteval_ray.validate.cache import ContentCache
from linteval_ray.validate.judge.compile import CompiledProgram
from linteval_ray.validate.judge.problem import PreparedProblem, ReferenceRun, TestSet
from linteval_ray.validate.judge.records import ReferenceTest

TESTS_KIND = "given-tests"  # the content cache's kind (manifest.json `cache`)
MANIFEST = "tests.json"
LAYOUT = 1  # what a folder holds; a change makes new keys


def encoded(text: str) -> bytes:
    """A test's text as its file holds it (a lone surrogate kept as its bytes, never an error)."""
    return text.encode("utf-8", "surrogatepass")


def tests_key(tests: Sequence[GivenTest]) -> str:
    """The content key of a problem's tests: every input and answer, in order, length-prefixed."""
    digest = hashlib.sha256()
    for test in tests:
        for part in (encoded(test.input), encoded(test.output)):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
    return ContentCache.key(TESTS_KIND, tests=digest.hexdigest(), count=len(tests), layout=LAYOUT)


def test_names(count: int) -> list[str]:
    """``000``, ``001``, ...: sortable, as wide as the count needs."""
    width = max(3, len(str(count - 1)))
    return [f"{index:0{width}d}" for index in range(count)]


def store_tests(cache: ContentCache, key: str, tests: Sequence[GivenTest]) -> None:
    """Store ``tests`` under ``key`` unless a tier holds them already."""
    if cache.contains_dir(key):
        return
    names = test_names(len(tests))
    with tempfile.TemporaryDirectory(prefix="linteval-given-tests-") as tmp:
        folder = Path(tmp)
        for name, test in zip(names, tests, strict=True):
            (folder / f"{name}.in").write_bytes(encoded(test.input))
            (folder / f"{name}.ans").write_bytes(encoded(test.output))
        (folder / MANIFEST).write_text(json.dumps({"names": names}))
        cache.put_dir(key, folder)


class TestsMissing(Exception):
    """A row's tests are in no tier this worker sees."""


def given_problem(key: str, checker: CompiledProgram, cache: ContentCache) -> PreparedProblem:
    """The judge's view of a problem's given tests: inputs and answers in one cached folder, each
    test's limit the problem's (no original's time scales it: ``ReferenceTest`` times are 0)."""
    folder = cache.get_dir(key)
    if folder is None:
        raise TestsMissing(key)
    names: list[str] = json.loads((folder / MANIFEST).read_text())["names"]
    tests = TestSet(key=key, directory=folder, names=names, commands=len(names))
    reference = ReferenceRun(directory=folder, tests=[ReferenceTest(name=name, wall_s=0.0, cpu_s=0.0)
                                                      for name in names])
    return PreparedProblem(checker=checker, tests=tests, reference=reference)
