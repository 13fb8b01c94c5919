"""``RunFolder``: the one module that knows the names of a run folder's files.

A run folder (local path or object-store URL) holds::

    shards/<hash>-<n>.parquet   result rows, written atomically as they are judged
    cache-stats/<actor>.json    each validation actor's content-cache counters
    manifest.json               what the run was (config, data, tools, versions, counts)
    metrics.json                the reduction's metrics
    results.parquet             every result row, compacted and sorted
    report.md, report.html      the summary report, with plots/
    report/                     the browsable site (index.html, sample.html, compare.html)
    predictions/                ``linteval-ray generate``: part-*.parquet and generation.json

and, beside the run (``<parent>/linteval-cache``), the shared content-cache tier that every
run under the same parent folder reuses when the output is on object storage.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict

from linteval_ray.config import StorageConfig
from linteval_ray.store.fs import LOCAL_SCHEMES, ObjectStore, join, scheme_of

SHARD_DIR = "shards"
SHARD_SUFFIX = ".parquet"
CACHE_STATS_DIR = "cache-stats"
OUT_OF_SERVICE_DIR = "out-of-service"  # one record per worker a canary took out of service
MANIFEST = "manifest.json"
METRICS = "metrics.json"
RESULTS = "results.parquet"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"
PLOTS_DIR = "plots"
SITE_DIR = "report"
COMPARE_PAGE = "compare.html"
CALIBRATION = "calibration.json"  # ``linteval-ray calibrate``'s default report file
PREDICTIONS_DIR = "predictions"  # ``linteval-ray generate``'s output
PREDICTIONS_RECORD = "generation.json"  # in PREDICTIONS_DIR: what generated them
SHARED_CACHE_DIR = "linteval-cache"  # a sibling of run folders, not inside one


class StoreFolder(BaseModel):
    """A folder (local path or object-store URL) and the ``ObjectStore`` that reads and writes it."""

    model_config = ConfigDict(frozen=True)

    url: str
    store: ObjectStore

    @classmethod
    def open(cls, url: str, storage: StorageConfig | None = None) -> Self:
        """The folder at ``url`` with a store built from ``storage`` (once per run)."""
        return cls(url=url.rstrip("/"), store=ObjectStore(storage=storage))

    def path(self, *parts: str) -> str:
        return join(self.url, *parts)


class RunFolder(StoreFolder):
    """One run's folder."""

    @property
    def name(self) -> str:
        return self.url.rsplit("/", 1)[-1]

    @property
    def shards(self) -> str:
        return self.path(SHARD_DIR)

    def shard(self, name: str) -> str:
        return self.path(SHARD_DIR, name)

    @property
    def cache_stats(self) -> str:
        return self.path(CACHE_STATS_DIR)

    @property
    def out_of_service(self) -> str:
        return self.path(OUT_OF_SERVICE_DIR)

    @property
    def manifest(self) -> str:
        return self.path(MANIFEST)

    @property
    def metrics(self) -> str:
        return self.path(METRICS)

    @property
    def results(self) -> str:
        return self.path(RESULTS)

    @property
    def report_md(self) -> str:
        return self.path(REPORT_MD)

    @property
    def report_html(self) -> str:
        return self.path(REPORT_HTML)

    @property
    def plots(self) -> str:
        return self.path(PLOTS_DIR)

    @property
    def predictions(self) -> str:
        return self.path(PREDICTIONS_DIR)

    @property
    def site(self) -> str:
        return self.path(SITE_DIR)

    @property
    def on_object_storage(self) -> bool:
        return scheme_of(self.url) not in LOCAL_SCHEMES

    def default_shared_cache(self) -> str | None:
        """The shared cache tier a run uses unless configured: beside the run folder on object
        storage (every node reaches it); none for a local folder (other nodes may not see it)."""
        if not self.on_object_storage:
            return None
        scheme, rest = self.url.split("://", 1)
        parent = rest.rsplit("/", 1)[0] if "/" in rest else rest  # a run at a bucket's root: the bucket
        return join(f"{scheme}://{parent}", SHARED_CACHE_DIR)


def compare_page(site: str) -> str:
    """``compare.html`` inside the site folder ``site``."""
    return join(site, COMPARE_PAGE)
