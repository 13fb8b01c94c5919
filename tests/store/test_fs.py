from __future__ import annotations

import importlib.util
import io
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest
from fsspec.implementations.local import LocalFileSystem
from huggingface_hub import HfFileSystem
from s3fs import S3FileSystem

from linteval_ray.config import StorageConfig
from linteval_ray.store import FAST_FAIL, ObjectStore, StorageError, join, s3_settings
from linteval_ray.store.fs import storage_options
from tests.fixtures.s3 import SeaweedServer

LOCAL = ObjectStore()
LITE = "hf://datasets/deepbreath7/LintEval/lite/linteval_lite.jsonl"


def fast(storage: StorageConfig | None) -> ObjectStore:
    """A store that fails at once when the server is down."""
    return ObjectStore(storage=storage, retry=FAST_FAIL)


# --- URL -> filesystem mapping (no server needed) ---------------------------------------


def test_local_paths_and_file_urls_map_to_absolute_local_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for url in ("runs/a.jsonl", f"file://{tmp_path}/runs/a.jsonl"):
        fs, path = LOCAL.filesystem(url)
        assert isinstance(fs, LocalFileSystem)
        assert path == str(tmp_path / "runs" / "a.jsonl")
    arrow_fs, arrow_path = LOCAL.pyarrow_filesystem("runs/a.jsonl")
    assert isinstance(arrow_fs, pafs.LocalFileSystem) and arrow_path == str(tmp_path / "runs" / "a.jsonl")


def test_hf_urls_map_to_the_hub_filesystem_without_network() -> None:
    fs, path = LOCAL.filesystem(LITE)
    assert isinstance(fs, HfFileSystem)
    assert path == "datasets/deepbreath7/LintEval/lite/linteval_lite.jsonl"

    arrow_fs, arrow_path = LOCAL.pyarrow_filesystem(LITE)
    assert isinstance(arrow_fs, pafs.PyFileSystem) and isinstance(arrow_fs.handler.fs, HfFileSystem)
    assert arrow_path == path


def test_s3_settings_prefer_the_config_over_aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://env-host:1")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.delenv("AWS_ENDPOINT_URL_S3", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)

    from_env = s3_settings(None)
    explicit = s3_settings(StorageConfig(endpoint_url="http://cfg-host:2", key="k", secret="s", region="r1"))

    assert (from_env.endpoint_url, from_env.region, from_env.key) == ("http://env-host:1", "eu-west-1", None)
    assert (explicit.endpoint_url, explicit.region, explicit.key, explicit.secret) == (
        "http://cfg-host:2", "r1", "k", "s")


def test_s3_urls_build_s3fs_and_pyarrow_s3_with_the_endpoint() -> None:
    storage = StorageConfig(endpoint_url="https://minio.example:9000", key="k", secret="s", region="r1")

    fs, path = ObjectStore(storage=storage).filesystem("s3://bucket/runs/x.parquet")
    arrow_fs, arrow_path = ObjectStore(storage=storage).pyarrow_filesystem("s3://bucket/runs/x.parquet")
    options = storage_options("s3://bucket/x", storage, FAST_FAIL)

    assert isinstance(fs, S3FileSystem) and path == "bucket/runs/x.parquet"
    assert fs.endpoint_url == "https://minio.example:9000"
    assert isinstance(arrow_fs, pafs.S3FileSystem) and arrow_path == "bucket/runs/x.parquet"
    assert arrow_fs.region == "r1"
    assert options["endpoint_url"] == "https://minio.example:9000"
    assert (options["key"], options["secret"]) == ("k", "s")


def test_key_without_secret_is_refused() -> None:
    with pytest.raises(StorageError, match=r"key and storage\.secret must be set together"):
        ObjectStore(storage=StorageConfig(key="only-key")).filesystem("s3://b/x")


def test_endpoint_without_scheme_is_refused_for_pyarrow() -> None:
    with pytest.raises(StorageError, match=r"must look like http\(s\)://host:port"):
        ObjectStore(storage=StorageConfig(endpoint_url="127.0.0.1:8333")).pyarrow_filesystem("s3://b/x")


@pytest.mark.skipif(importlib.util.find_spec("gcsfs") is not None, reason="gcsfs is installed")
def test_gs_without_gcsfs_says_what_to_install() -> None:
    with pytest.raises(StorageError, match=r"gs://bucket/x\.jsonl: the gcsfs package is needed .*pip install gcsfs"):
        LOCAL.filesystem("gs://bucket/x.jsonl")


def test_unknown_protocol_is_a_storage_error() -> None:
    with pytest.raises(StorageError, match="cannot open nope://x"):
        LOCAL.filesystem("nope://x")


@pytest.mark.parametrize(
    ("url", "parts", "expected"),
    [
        ("s3://b/run", ("shards", "0001.parquet"), "s3://b/run/shards/0001.parquet"),
        ("s3://b/run/", ("/shards/",), "s3://b/run/shards"),
        ("runs/x", ("a", "", "b"), "runs/x/a/b"),
        ("/abs", (), "/abs"),
    ],
)
def test_join(url: str, parts: tuple[str, ...], expected: str) -> None:
    assert join(url, *parts) == expected


# --- local helpers ----------------------------------------------------------------------


def test_local_atomic_write_replaces_whole_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "out.json"
    LOCAL.write_atomic(str(target), b"first")
    LOCAL.write_atomic(str(target), b"second")

    assert target.read_bytes() == b"second"
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.json"]


def test_local_create_exclusive_only_first_wins(tmp_path: Path) -> None:
    target = str(tmp_path / "claims" / "sample.claim")

    assert LOCAL.create_exclusive(target, b"worker-1") is True
    assert LOCAL.create_exclusive(target, b"worker-2") is False
    assert Path(target).read_bytes() == b"worker-1"
    assert sorted(p.name for p in Path(target).parent.iterdir()) == ["sample.claim"]


def test_local_create_exclusive_under_contention(tmp_path: Path) -> None:
    target = str(tmp_path / "race.claim")
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda i: LOCAL.create_exclusive(target, f"w{i}".encode()), range(32)))
    assert outcomes.count(True) == 1
    assert Path(target).read_bytes() == f"w{outcomes.index(True)}".encode()


def test_local_list_files_and_exists(tmp_path: Path) -> None:
    for name in ("a/1.parquet", "a/b/2.parquet", "a/notes.txt"):
        LOCAL.write_atomic(str(tmp_path / name), b"x")

    assert LOCAL.list_files(str(tmp_path / "a"), ".parquet") == [
        str(tmp_path / "a/1.parquet"), str(tmp_path / "a/b/2.parquet")]
    assert LOCAL.list_files(str(tmp_path / "missing"), ".parquet") == []
    assert LOCAL.exists(str(tmp_path / "a/notes.txt")) and not LOCAL.exists(str(tmp_path / "a/none.txt"))
    assert LOCAL.read_bytes(f"file://{tmp_path}/a/notes.txt") == b"x"


# --- against the real S3 server ---------------------------------------------------------


def test_s3_atomic_write_read_and_exists(s3_server: SeaweedServer, s3_bucket: str) -> None:
    storage = s3_server.storage_config()
    url = join(s3_bucket, "runs", "r1", "manifest.json")

    assert not fast(storage).exists(url)
    fast(storage).write_atomic(url, b'{"v": 1}')
    fast(storage).write_atomic(url, b'{"v": 2}')

    assert fast(storage).exists(url)
    assert fast(storage).read_bytes(url) == b'{"v": 2}'


def test_s3_create_exclusive_only_first_wins(s3_server: SeaweedServer, s3_bucket: str) -> None:
    storage = s3_server.storage_config()
    url = f"{s3_bucket}/claims/1036_A_py3_0"

    assert fast(storage).create_exclusive(url, b"worker-1") is True
    assert fast(storage).create_exclusive(url, b"worker-2") is False
    assert fast(storage).read_bytes(url) == b"worker-1"


def test_s3_create_exclusive_under_contention(s3_server: SeaweedServer, s3_bucket: str) -> None:
    storage = s3_server.storage_config()
    url = f"{s3_bucket}/race.claim"
    with ThreadPoolExecutor(8) as pool:
        store = ObjectStore(storage=storage)
        outcomes = list(pool.map(lambda i: store.create_exclusive(url, f"w{i}".encode()), range(16)))
    assert outcomes.count(True) == 1
    assert ObjectStore(storage=storage).read_bytes(url) == f"w{outcomes.index(True)}".encode()


def test_s3_create_exclusive_still_raises_real_errors(s3_server: SeaweedServer, s3_bucket: str) -> None:
    wrong = s3_server.storage_config().model_copy(update={"secret": "not-the-secret"})
    with pytest.raises(PermissionError):
        ObjectStore(storage=wrong, retry=FAST_FAIL).create_exclusive(f"{s3_bucket}/x", b"x")


def test_s3_list_files_sees_new_objects_immediately(s3_server: SeaweedServer, s3_bucket: str) -> None:
    storage = s3_server.storage_config()
    run = join(s3_bucket, "run")
    assert ObjectStore(storage=storage).list_files(run, ".parquet") == []
    ObjectStore(storage=storage).write_atomic(join(run, "a.parquet"), b"1")
    ObjectStore(storage=storage).write_atomic(join(run, "part", "b.parquet"), b"2")
    ObjectStore(storage=storage).write_atomic(join(run, "log.txt"), b"3")

    # Written through a different client: a cached listing would miss them.
    s3_server.client().put_object(Bucket=s3_bucket.removeprefix("s3://"), Key="run/c.parquet", Body=b"4")

    assert ObjectStore(storage=storage).list_files(run, ".parquet") == [
        f"{run}/a.parquet",
        f"{run}/c.parquet",
        f"{run}/part/b.parquet",
    ]


def test_pyarrow_s3_filesystem_round_trips_parquet(s3_server: SeaweedServer, s3_bucket: str) -> None:
    storage = s3_server.storage_config()
    arrow_fs, path = fast(storage).pyarrow_filesystem(f"{s3_bucket}/tables/t.parquet")
    table = pa.table({"sample_id": ["1036_A_py3_0", "1007_D_cpp_0"], "pass": [True, False]})

    pq.write_table(table, path, filesystem=arrow_fs)

    assert pq.read_table(path, filesystem=arrow_fs).equals(table)
    fs, fs_path = ObjectStore(storage=storage).filesystem(f"{s3_bucket}/tables/t.parquet")
    assert pq.read_table(io.BytesIO(fs.cat_file(fs_path))).equals(table)


def test_pyarrow_s3_from_aws_env(s3_server: SeaweedServer, s3_bucket: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ObjectStore(storage=s3_server.storage_config()).write_atomic(f"{s3_bucket}/env.txt", b"via env")
    s3_server.s3_env(monkeypatch)

    arrow_fs, path = ObjectStore(retry=FAST_FAIL).pyarrow_filesystem(f"{s3_bucket}/env.txt")
    with arrow_fs.open_input_stream(path) as stream:
        assert stream.read() == b"via env"
    assert ObjectStore(retry=FAST_FAIL).read_bytes(f"{s3_bucket}/env.txt") == b"via env"


def test_data_survives_a_killed_server(s3_server: SeaweedServer, s3_bucket: str) -> None:
    storage = s3_server.storage_config()
    url = f"{s3_bucket}/durable/result.json"
    ObjectStore(storage=storage).write_atomic(url, b"written before the crash")
    ObjectStore(storage=storage).create_exclusive(f"{s3_bucket}/durable/claim", b"w1")

    s3_server.kill()
    with pytest.raises(OSError):
        fast(storage).read_bytes(url)
    s3_server.restart()

    assert ObjectStore(storage=storage).read_bytes(url) == b"written before the crash"
    assert ObjectStore(storage=storage).create_exclusive(f"{s3_bucket}/durable/claim", b"w2") is False


# --- file modes and the run folder ------------------------------------------------------


def test_local_atomic_write_gives_the_mode_a_plain_write_would(tmp_path: Path) -> None:
    """A run's site and metrics must be readable by others: mkstemp's 0600 would hide them."""
    import os
    import stat

    old = os.umask(0o027)
    try:
        plain = tmp_path / "plain.txt"
        plain.write_bytes(b"x")
        LOCAL.write_atomic(str(tmp_path / "atomic.txt"), b"x")
        LOCAL.create_exclusive(str(tmp_path / "claimed.txt"), b"x")
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    assert modes == {"plain.txt": 0o640, "atomic.txt": 0o640, "claimed.txt": 0o640}


def test_run_folder_names_its_files_and_the_shared_cache_beside_it(tmp_path: Path) -> None:
    from linteval_ray.store import RunFolder

    remote = RunFolder.open("s3://bucket/runs/r1/")
    assert (remote.url, remote.name, remote.manifest) == ("s3://bucket/runs/r1", "r1", "s3://bucket/runs/r1/manifest.json")
    assert remote.shard("a-1.parquet") == "s3://bucket/runs/r1/shards/a-1.parquet"
    assert remote.default_shared_cache() == "s3://bucket/runs/linteval-cache"
    assert RunFolder.open("s3://bucket/r1").default_shared_cache() == "s3://bucket/linteval-cache"
    assert RunFolder.open("s3://bucket").default_shared_cache() == "s3://bucket/linteval-cache"
    assert RunFolder.open(str(tmp_path / "r1")).default_shared_cache() is None  # other nodes may not see it
