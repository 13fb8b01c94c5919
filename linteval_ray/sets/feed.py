"""The feed: how each model's rows reach the set's one validation stream.

A set keeps ONE Ray Data execution for validation for all its models (one warm actor pool:
linters, sandbox, PCHs and the content cache stay up from the first model to the last), while
each model's rows come from an execution of their own (read → admit → batches → the model's
generation stage), run one after the other by the driver: a model's vLLM engines are released
when its execution ends, before the next model's are placed. Ray Data has no source that a
running execution can be fed from, so the feed is one:

- ``Feed``: a Ray actor holding, in order, what the driver hands over: ``(model, its blocks)``
  as the model's execution yields them (refs only: the rows stay in the object store; the driver
  owns them, so they live until validation has read them), then ``close()``.
- ``FeedDatasource``: the validation execution's source, ONE read task for the whole set that
  takes the feed's items as they come and yields each batch of ``batch_size`` rows packed into
  ONE row (``set_model``, the batch as Arrow IPC bytes). Ray Data merges a read task's blocks up to
  ``target_max_block_size`` before passing them on (128 MiB by default: with a feed that waits for
  the next model, rows would sit there until it came), so the source is created under a target of
  1 byte: every block is passed on at once, and a one-row block is never sliced further. Packed,
  a batch crosses as one block and reaches one validation call whole (``batch_size=1`` there): the
  problem order the intake cut it in is kept (``pipeline/source.py``), no call mixes two models'
  rows, and the stream carries one object per batch, not one per row.

The feed is read once: a retry of the read task (Ray retries a task whose worker died) would start
after the items the dead task had taken, so rows would silently be missing. The task claims the
feed first and a second claim fails it, so the set fails instead, and a rerun resumes it. (Ray 2.60
deprecates the ``ray_remote_args={"max_retries": 0}`` that said so, and names no parameter for it.)
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa
import ray
from ray.data import Datasource, ReadTask
from ray.data.block import BlockMetadata

if TYPE_CHECKING:
    import ray.data

SET_MODEL = "set_model"  # the model a row belongs to, while it crosses the shared stream
PACKED_ROWS = "rows"
PACKED_SCHEMA = pa.schema([(SET_MODEL, pa.string()), (PACKED_ROWS, pa.large_binary()), ("num_rows", pa.int64())])
# A block's rows from start to end (None: the block's end), and (model, its blocks in order).
BlockRows = tuple[ray.ObjectRef[Any], int, int | None]
FeedItem = tuple[str, list[BlockRows]]


@ray.remote(num_cpus=0)
class Feed:
    """A first-in first-out queue of ``FeedItem``s between the driver and the validation source."""

    def __init__(self) -> None:
        self._items: collections.deque[FeedItem] = collections.deque()
        self._closed = False
        self._changed = asyncio.Event()
        self._claimed = False

    async def claim(self) -> bool:
        """True for the first reader only: a second one would miss what the first took."""
        first, self._claimed = not self._claimed, True
        return first

    async def put(self, item: FeedItem) -> None:
        self._items.append(item)
        self._changed.set()

    async def close(self) -> None:
        """No more items: ``get`` returns None once the queue is drained."""
        self._closed = True
        self._changed.set()

    async def get(self) -> FeedItem | None:
        while not self._items and not self._closed:
            self._changed.clear()
            await self._changed.wait()
        return self._items.popleft() if self._items else None


class FeedReadTwice(RuntimeError):
    """A second read of the feed: what the first read took is gone."""


class FeedDatasource(Datasource):
    """The feed's items as packed batches (see the module docstring), in one read task."""

    def __init__(self, feed: ray.actor.ActorHandle[Any], batch_size: int) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # ray leaves it untyped
        self._feed = feed
        self._batch_size = max(1, batch_size)

    def estimate_inmemory_data_size(self) -> int | None:
        return None

    def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None,
                       data_context: Any = None) -> list[ReadTask]:
        feed, batch_size = self._feed, self._batch_size

        def read() -> Iterator[pa.Table]:
            if not ray.get(feed.claim.remote()):
                raise FeedReadTwice("the set's validation source was started again (Ray retried its read task "
                                    "after its worker died): the rows the first attempt took would be missing, so "
                                    "the set stops here; run it again to resume")
            while (item := cast("FeedItem | None", ray.get(feed.get.remote()))) is not None:
                model, blocks = item
                for ref, first, end in blocks:
                    block = ray.get(ref)
                    block = block.slice(first, (block.num_rows if end is None else end) - first)
                    for start in range(0, block.num_rows, batch_size):
                        yield pack(model, block.slice(start, batch_size))

        metadata = BlockMetadata(num_rows=None, size_bytes=None, input_files=None, exec_stats=None)
        return [ReadTask(read, metadata, schema=PACKED_SCHEMA)]


def pack(model: str, rows: pa.Table) -> pa.Table:
    """One row carrying ``rows`` of ``model`` (Arrow IPC)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, rows.schema) as writer:
        writer.write_table(rows)
    return pa.Table.from_pylist([{SET_MODEL: model, PACKED_ROWS: sink.getvalue().to_pybytes(),
                                  "num_rows": rows.num_rows}], schema=PACKED_SCHEMA)


def unpack(packed: pa.Table) -> Iterator[tuple[str, pa.Table]]:
    """The (model, rows) each packed row carries."""
    for model, data in zip(packed.column(SET_MODEL).to_pylist(), packed.column(PACKED_ROWS).to_pylist(),
                           strict=True):
        yield model, pa.ipc.open_stream(data).read_all()


def feed_dataset(feed: ray.actor.ActorHandle[Any], batch_size: int) -> ray.data.Dataset:
    """The validation execution's source: the feed's batches, each packed in a one-row block."""
    import ray.data

    context = ray.data.DataContext.get_current()
    saved, context.target_max_block_size = context.target_max_block_size, 1  # pass every block on at once
    try:
        # No CPU: the task waits for the feed most of the time and copies a batch when one comes.
        ds: ray.data.Dataset = ray.data.read_datasource(FeedDatasource(feed, batch_size), override_num_blocks=1,
                                                        num_cpus=0)
        return ds
    finally:
        context.target_max_block_size = saved
