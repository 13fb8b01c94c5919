"""What the validation actors leave in a run folder beside the shards, and the driver's sums of it.

``cache-stats/<actor>.json``: each actor's content-cache counters and its audit's (revisions judged
by both paths, ``validate/audit.py``), rewritten after each batch; ``out-of-service/<node>-<pid>.json``:
a worker a wrong canary took out of service (``validate/canary.py``). The driver sums them into the
manifest over every attempt of the run.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any

from linteval_ray.store.folder import RunFolder
from linteval_ray.validate.audit import AuditStats
from linteval_ray.validate.cache import CacheStats

# Workers of one node a wrong canary may hand their batch over for (by exiting: Ray restarts the
# actor, possibly elsewhere, and retries the batch on the new process). Past it the node's workers
# answer infra_error rows instead, so a node that keeps failing its canaries cannot loop forever.
HANDOVERS_PER_NODE = 2


def stats_document(cache: CacheStats, audit: AuditStats) -> bytes:
    """An actor's ``cache-stats/<actor>.json``: its content-cache counters and its audit's."""
    return json.dumps({**cache.model_dump(mode="json"), "audit": audit.model_dump(mode="json")}).encode()


def record_out_of_service(folder: RunFolder, worker: str, node: str, reason: str) -> bool:
    """Record that ``worker`` on ``node`` failed its canary; whether it may hand its batch over (its
    node has hand-overs left)."""
    records = folder.store.list_files(folder.out_of_service, ".json", recursive=False)
    earlier = [url for url in records if url.rsplit("/", 1)[-1].startswith(f"{node}-")]
    hand_over = len(earlier) < HANDOVERS_PER_NODE
    record = {"worker": worker, "node": node, "reason": reason, "handed_over": hand_over}
    name = f"{node}-{os.getpid()}-{uuid.uuid4().hex[:8]}.json"
    folder.store.write_atomic(f"{folder.out_of_service}/{name}", json.dumps(record).encode())
    return hand_over


def out_of_service_reports(folder: RunFolder) -> dict[str, str]:
    """worker -> why a canary took it out of service, from the records the workers wrote (every
    attempt of the run; a worker that handed its batch over wrote no rows)."""
    reports: dict[str, str] = {}
    for url in folder.store.list_files(folder.out_of_service, ".json", recursive=False):
        record = json.loads(folder.store.read_bytes(url))
        reports[str(record["worker"])] = str(record["reason"])
    return reports


def cache_counts(folder: RunFolder) -> dict[str, dict[str, int]]:
    """The content-cache counters per key kind, summed over every validation actor of the run
    (all attempts: a resumed run adds its actors' counts to the earlier ones)."""
    totals: dict[str, dict[str, int]] = {}
    for url in folder.store.list_files(folder.cache_stats, ".json", recursive=False):
        for kind, counts in json.loads(folder.store.read_bytes(url)).get("by_kind", {}).items():
            into = totals.setdefault(kind, {})
            for name, value in counts.items():
                into[name] = into.get(name, 0) + int(value)
    return dict(sorted(totals.items()))


def audit_counts(folder: RunFolder) -> dict[str, Any]:
    """The audit's counters (revisions judged by both paths, agreed, disagreed, a few disagreeing row
    ids), summed over every validation actor of the run (all attempts)."""
    total = AuditStats()
    for url in folder.store.list_files(folder.cache_stats, ".json", recursive=False):
        total.add(AuditStats.model_validate(json.loads(folder.store.read_bytes(url)).get("audit", {})))
    return total.model_dump(mode="json")
