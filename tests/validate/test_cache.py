"""The content-addressed cache: keys, both tiers (local folder and a real S3 server), races."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from linteval_ray.store import ObjectStore
from linteval_ray.validate.cache import ContentCache


def _tool_dir(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "prog").write_bytes(b"\x7fELF fake binary")
    (root / "prog").chmod(0o700)
    (root / "sub").mkdir(mode=0o700)
    (root / "sub" / "data.txt").write_text("answer\n")
    return root


def test_key_is_canonical_and_depends_on_every_part() -> None:
    a = ContentCache.key("compile", code="int main(){}", flags=["-O2"], toolchain="t1")
    assert a == ContentCache.key("compile", toolchain="t1", flags=["-O2"], code="int main(){}")
    assert a.startswith("compile-")
    others = {
        ContentCache.key("compile", code="int main(){ }", flags=["-O2"], toolchain="t1"),
        ContentCache.key("compile", code="int main(){}", flags=["-O0"], toolchain="t1"),
        ContentCache.key("compile", code="int main(){}", flags=["-O2"], toolchain="t2"),
        ContentCache.key("tests", code="int main(){}", flags=["-O2"], toolchain="t1"),
    }
    assert a not in others and len(others) == 4


def test_json_roundtrip_counts_hits_and_misses(tmp_path: Path) -> None:
    cache = ContentCache(None, tmp_path / "local")
    key = cache.key("answers", code="x")
    assert cache.get_json(key) is None
    cache.put_json(key, {"tests": [1, 2], "why": "ok"})
    assert cache.get_json(key) == {"tests": [1, 2], "why": "ok"}
    assert (cache.stats.hits, cache.stats.misses, cache.stats.puts) == (1, 1, 1)
    assert not [p for p in (tmp_path / "local").rglob(".tmp-*")]  # no temp file left


def test_put_dir_copies_and_makes_the_entry_readable_by_other_uids(tmp_path: Path) -> None:
    cache = ContentCache(None, tmp_path / "local")
    key = cache.key("compile", code="y")
    src = _tool_dir(tmp_path / "src")
    cached = cache.put_dir(key, src)
    src.joinpath("prog").write_bytes(b"changed later")  # the cache holds its own copy
    assert cache.get_dir(key) == cached
    assert (cached / "prog").read_bytes() == b"\x7fELF fake binary"
    assert (cached / "sub" / "data.txt").read_text() == "answer\n"
    assert stat.S_IMODE((cached / "prog").stat().st_mode) == 0o755  # executable stays executable
    assert stat.S_IMODE((cached / "sub" / "data.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((cached / "sub").stat().st_mode) == 0o755
    for parent in (cached.parent, cache.local_dir):
        assert parent.stat().st_mode & 0o005 == 0o005


def test_concurrent_writers_of_one_key_leave_one_complete_entry(tmp_path: Path) -> None:
    cache = ContentCache(None, tmp_path / "local")
    key = cache.key("tests", generator="g")
    src = _tool_dir(tmp_path / "src")
    with ThreadPoolExecutor(8) as pool:
        dirs = list(pool.map(lambda _: cache.put_dir(key, src), range(16)))
        list(pool.map(lambda i: cache.put_json(key, {"same": "content"}), range(16)))
    assert len(set(dirs)) == 1
    assert (dirs[0] / "prog").read_bytes() == b"\x7fELF fake binary"
    assert cache.get_json(key) == {"same": "content"}
    leftovers = [p.name for p in dirs[0].parent.iterdir() if p.name.startswith(".tmp-")]
    assert leftovers == []


def _shared_roundtrip(url: str, tmp_path: Path, store: ObjectStore | None = None) -> None:
    """Node A fills the shared tier; node B (empty local dir) gets everything from it."""
    node_a = ContentCache(url, tmp_path / "node-a", store)
    key = node_a.key("tests", generator="shared")
    node_a.put_json(key, {"names": ["000"]})
    node_a.put_dir(key, _tool_dir(tmp_path / "src"))

    node_b = ContentCache(url, tmp_path / "node-b", store)
    assert node_b.get_json(key) == {"names": ["000"]}
    fetched = node_b.get_dir(key)
    assert fetched is not None and fetched.is_relative_to(tmp_path / "node-b")
    assert (fetched / "sub" / "data.txt").read_text() == "answer\n"
    assert os.access(fetched / "prog", os.X_OK)
    assert (node_b.stats.shared_hits, node_b.stats.misses) == (2, 0)
    # The second lookup is served locally.
    assert node_b.get_dir(key) == fetched and node_b.stats.local_hits == 1
    assert node_b.get_json(node_b.key("tests", generator="missing")) is None and node_b.stats.misses == 1


def test_shared_tier_in_a_folder(tmp_path: Path) -> None:
    _shared_roundtrip(str(tmp_path / "shared"), tmp_path)


def test_shared_tier_on_s3(s3_server: Any, s3_bucket: str, tmp_path: Path) -> None:
    _shared_roundtrip(f"{s3_bucket}/cache", tmp_path, ObjectStore(storage=s3_server.storage_config()))


def test_tar_from_the_shared_tier_cannot_escape_the_cache(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    cache = ContentCache(str(shared), tmp_path / "local")
    key = cache.key("tests", generator="evil")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("../../escaped.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"bad"))
    (shared / key[-2:]).mkdir(parents=True)
    (shared / key[-2:] / f"{key}.tar").write_bytes(buf.getvalue())
    with pytest.raises(tarfile.TarError):
        cache.get_dir(key)
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "local" / "escaped.txt").exists()
    assert not list((tmp_path / "local").rglob(".tmp-*"))  # the failed extraction is cleaned up


def test_counts_are_kept_per_kind(tmp_path: Path) -> None:
    cache = ContentCache(None, tmp_path / "local")
    tests, lint = cache.key("tests", generator="g"), cache.key("lint", code="x")
    assert cache.get_json(tests) is None
    cache.put_json(tests, {"names": []})
    assert cache.get_json(tests) == {"names": []} and cache.get_json(lint) is None
    by_kind = {kind: stats.model_dump() for kind, stats in cache.stats.by_kind.items()}
    assert by_kind == {"tests": {"hits": 1, "misses": 1, "puts": 1, "waits": 0},
                       "lint": {"hits": 0, "misses": 1, "puts": 0, "waits": 0}}


def test_a_tool_is_built_once_when_two_actors_miss_it_at_once(tmp_path: Path) -> None:
    """Two actors (on two nodes: separate local dirs, one shared folder) miss the same tool: the
    first claims it and builds, the other waits for that value instead of compiling too."""
    import threading
    import time

    shared = str(tmp_path / "shared")
    actors = [ContentCache(shared, tmp_path / f"node-{n}") for n in "ab"]
    key = actors[0].key("tool", code="generator")
    builds: list[str] = []
    started = threading.Barrier(2)

    def compile_once(cache: ContentCache, name: str) -> Any:
        started.wait()
        meta = cache.get_json(key)
        if meta is None:
            builds.append(name)
            time.sleep(1.0)  # the compile
            meta = {"entry": "gen"}
            cache.put_json(key, meta)
        return meta

    with ThreadPoolExecutor(2) as pool:
        metas = list(pool.map(compile_once, actors, ["a", "b"]))
    assert metas == [{"entry": "gen"}] * 2
    assert len(builds) == 1
    waiter = actors[1] if builds == ["a"] else actors[0]
    assert waiter.stats.by_kind["tool"].waits == 1 and waiter.stats.by_kind["tool"].misses == 0
