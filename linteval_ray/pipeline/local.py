"""``linteval-ray validate``: evaluate a few samples in this process, for debugging.

The same per-row checks and input rows (``load_local_inputs``), the same generation stage and the same engine as
``linteval-ray run``, minus Ray: replayed revisions only (the dataset's reference
revisions or a predictions file).
"""

from __future__ import annotations

import pyarrow as pa

from linteval_ray.config import ConfigError, RunConfig
from linteval_ray.generate.registry import build_backend
from linteval_ray.pipeline.dataset import resolved
from linteval_ray.pipeline.inputs import load_local_inputs
from linteval_ray.schema import ResultRow
from linteval_ray.stage import BatchStage
from linteval_ray.store.fs import ObjectStore
from linteval_ray.validate.engine import Validator


def validate_in_process(config: RunConfig) -> list[ResultRow]:
    """Result rows of the configured samples: the invalid input rows first, then the evaluated."""
    config = resolved(config)
    inputs = load_local_inputs(config)
    generation = build_backend(config.generation, config.storage)
    stage = generation.stage() if generation.runs_in_validation_actor else None  # a light function (replay)
    if not isinstance(stage, BatchStage):
        raise ConfigError(f"validate replays revisions in this process; generation.backend {config.generation.backend} "
                          "needs Ray: use `linteval-ray run` (or `generate`) to generate with a model")
    results = list(inputs.invalid)
    if inputs.rows:
        replayed = stage.in_process()(pa.Table.from_pylist(inputs.rows)).to_pylist()
        validator = Validator(config.validation, ObjectStore(storage=config.storage))
        try:
            results += validator.evaluate_batch(replayed)
        finally:
            validator.close()
    return results


def describe(row: ResultRow) -> str:
    """A few readable lines about one result row."""
    lines = [f"{row.row_id} [{row.language}] status={row.status} verdict={row.verdict} pass@1={row.pass_at_1}"]
    if row.error:
        lines.append(f"  error: {row.error}")
    if row.validation_error:
        lines.append(f"  validation_error: {row.validation_error}")
    if row.lint_error:
        lines.append(f"  lint_error ({row.lint_error.side}): {row.lint_error.reason}")
    lines.append(f"  tests: {row.tests_passed} passed, {row.tests_failed} failed, {row.tests_dropped} dropped "
                 f"of {row.tests_generated} generated")
    if row.metrics:
        m = row.metrics
        lines.append(
            f"  alerts: {m.original_total_messages} -> {m.revised_total_messages} "
            f"({m.old_messages_remaining} remaining, {m.new_messages_count} new); "
            f"lines +{m.added_lines} -{m.deleted_lines}"
        )
    t = row.timings
    failure = row.first_failure
    if failure is not None:
        made_by = (f"; generator line {failure.generator_line}: {failure.generator_command}"
                   if failure.generator_line is not None else "")
        lines.append(f"  first failure: test {failure.test_index} ({failure.verdict}, {failure.ended}){made_by}")
        if failure.evidence:
            lines.append(f"  evidence: {failure.evidence}")
    lines.append(f"  seconds: lint {t.lint_s:.2f}, prepare {t.prepare_s:.2f}, compile {t.compile_s:.2f}, "
                 f"tests {t.tests_s:.2f}, total {t.total_s:.2f}")
    return "\n".join(lines)
