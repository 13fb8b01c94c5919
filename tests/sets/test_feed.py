"""The feed: the set's one validation source, fed model by model (linteval_ray/sets/feed.py)."""

from __future__ import annotations

import warnings

import pyarrow as pa
import pytest

from linteval_ray.sets.feed import Feed, FeedDatasource, FeedReadTwice, feed_dataset, unpack


def test_the_feed_s_source_takes_no_argument_ray_deprecates(local_ray: None) -> None:
    """Ray 2.60 deprecates ``ray_remote_args`` (removed in Ray 2.64)."""
    from ray.util.annotations import RayDeprecationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", RayDeprecationWarning)
        feed_dataset(Feed.remote(), batch_size=2)  # type: ignore[attr-defined]


def test_a_second_read_of_the_feed_fails_instead_of_missing_what_the_first_took(local_ray: None) -> None:
    """What a retry of the read task (its worker died) runs: the same read, on a feed already drained."""
    import ray

    feed = Feed.remote()  # type: ignore[attr-defined]
    rows = pa.table({"row_id": ["a", "b", "c"]})
    ray.get(feed.put.remote(("model-1", [(ray.put(rows), 0, None)])))
    ray.get(feed.close.remote())
    [task] = FeedDatasource(feed, batch_size=2).get_read_tasks(1)
    batches = [batch for packed in task() for batch in unpack(packed)]
    assert [(model, batch.column("row_id").to_pylist()) for model, batch in batches] == [
        ("model-1", ["a", "b"]), ("model-1", ["c"])]
    with pytest.raises(FeedReadTwice, match="the rows the first attempt took would be missing"):
        list(task())
