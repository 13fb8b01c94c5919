"""What a resumed run may change (a speed setting) and may not (anything that can change a result),
and what ``manifest.json`` never holds (credentials). No Ray: the driver's claim of its folder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from linteval_ray.config import RunConfig, load_config
from linteval_ray.generate.registry import build_backend
from linteval_ray.languages import registry
from linteval_ray.languages.registry import PLUGINS_ENV
from linteval_ray.pipeline.run import RunMismatchError, start_manifest
from linteval_ray.store import RunFolder
from linteval_ray.toolchain import Toolchain
from linteval_ray.validate.lint.profiles import copy_profile, load_profile

REPLAY: list[str] = []
VLLM = ['generation.vllm.model="org/model"']
ENDPOINT = ["generation.backend=endpoint", 'generation.endpoint.url="http://127.0.0.1:9/v1"',
            "generation.endpoint.model=served"]
DATA_SHA = "0" * 64


def claim(folder: Path, config: RunConfig, toolchain: Toolchain) -> dict[str, object]:
    """What ``linteval-ray run`` does with its folder before any work: refuse another run, write the manifest."""
    manifest = start_manifest(config, "r", RunFolder.open(str(folder)), "bundled", DATA_SHA, toolchain,
                              build_backend(config.generation, config.storage))
    return manifest.model_dump()


@pytest.mark.parametrize(("base", "change"), [
    (ENDPOINT, "generation.endpoint.concurrency=3"),
    (ENDPOINT, "generation.endpoint.timeout_s=5"),
    (VLLM, "generation.vllm.replicas=4"),
    (VLLM, "generation.vllm.batch_size=64"),
    (VLLM, "generation.vllm.placement_timeout_s=60"),
    (REPLAY, "validation.pool.batch_size=8"),
    (REPLAY, "validation.pool.max_actors=3"),
    (REPLAY, "validation.pool.store_batch_size=2"),
    (REPLAY, "validation.canary_every_batches=5"),
    (REPLAY, "generation.health.max_truncated_rate=0.5"),
])
def test_a_resumed_run_may_change_a_speed_setting(tmp_path: Path, toolchain: Toolchain, base: list[str], change: str):
    claim(tmp_path, load_config(None, base), toolchain)
    assert claim(tmp_path, load_config(None, [*base, change]), toolchain)["attempts"] == 2


@pytest.mark.parametrize(("base", "change"), [
    (VLLM, 'generation.vllm.model="org/other"'),
    (VLLM, 'generation.vllm.lora="org/adapter"'),
    (ENDPOINT, "generation.endpoint.model=other"),
    (ENDPOINT, "generation.sampling.temperature=0.7"),
    (REPLAY, "generation.n=2"),
    (REPLAY, "generation.prompt_version=v2"),
    (REPLAY, "validation.limits.memory_mb=256"),
    (REPLAY, "dataset.limit=3"),
    (REPLAY, "validation.lint_as_written=true"),
])
def test_a_resumed_run_may_not_change_what_can_change_a_result(tmp_path: Path, toolchain: Toolchain, base: list[str],
                                                               change: str):
    claim(tmp_path, load_config(None, base), toolchain)
    key = change.partition("=")[0]
    with pytest.raises(RunMismatchError, match="with other data, model, prompt, sampling, limits or tools") as refused:
        claim(tmp_path, load_config(None, [*base, change]), toolchain)
    assert f"settings.{key}: " in str(refused.value)  # it names what changed, old -> new


def test_a_folder_of_an_earlier_fingerprint_is_refused_saying_why(tmp_path: Path, toolchain: Toolchain):
    claim(tmp_path, load_config(None, REPLAY), toolchain)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    del manifest["fingerprint_scheme"]  # as linteval-ray wrote it before the scheme was recorded,
    manifest["fingerprint"] = "3f2a9c0d1e4b5a67"  # hashing the settings of that time
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunMismatchError, match="of an earlier linteval-ray, whose fingerprint covered other settings"):
        claim(tmp_path, load_config(None, REPLAY), toolchain)


def test_no_credential_reaches_the_manifest(tmp_path: Path, toolchain: Toolchain, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-KEY-IN-ENV")
    secrets = ["STORAGE-KEY", "STORAGE-SECRET", "hf_TOKEN", "URL-PASSWORD", "SAS-SIG"]
    config = load_config(None, [
        "generation.backend=endpoint", 'generation.endpoint.url="https://user:URL-PASSWORD@10.0.0.5:8000/v1"',
        "storage.key=STORAGE-KEY", "storage.secret=STORAGE-SECRET",
        'validation.cache_url="https://acct.blob.example/cache?sv=2024&sig=SAS-SIG"'])
    vllm = load_config(None, [*VLLM, "generation.vllm.env_vars={HF_TOKEN: hf_TOKEN}", "storage.secret=STORAGE-SECRET"])
    written = [json.dumps(claim(tmp_path / "endpoint", config, toolchain)),
               json.dumps(claim(tmp_path / "vllm", vllm, toolchain))]
    text = "".join(written) + "".join(p.read_text() for p in tmp_path.glob("*/manifest.json"))
    assert not [s for s in [*secrets, "sk-KEY-IN-ENV"] if s in text]
    manifest = json.loads((tmp_path / "vllm" / "manifest.json").read_text())
    assert manifest["config"]["generation"]["vllm"]["env_vars"] == {"HF_TOKEN": "***"}  # which variables, not values
    assert json.loads(written[0])["model"] == "endpoint:https://10.0.0.5:8000/v1"  # named by its URL, unsigned


def test_a_change_to_one_languages_lint_settings_leaves_other_languages_run_folders_resumable(
        tmp_path: Path, toolchain: Toolchain):
    profile = copy_profile(load_profile("linteval"), tmp_path / "profile")
    runs = {name: [f"validation.lint_profile={profile.path}", f'dataset.languages=["{name}"]']
            for name in ("cpp", "py3")}
    for name, settings in runs.items():
        claim(tmp_path / name, load_config(None, settings), toolchain)
    with open(profile.path / "pylintrc", "a") as fh:
        fh.write("max-line-length=80\n")
    assert claim(tmp_path / "cpp", load_config(None, runs["cpp"]), toolchain)["attempts"] == 2
    with pytest.raises(RunMismatchError, match="with other data, model, prompt, sampling, limits or tools") as refused:
        claim(tmp_path / "py3", load_config(None, runs["py3"]), toolchain)
    assert "(lint_profile.py3: " in str(refused.value) and "toolchain" not in str(refused.value)


@pytest.fixture
def plugins_loaded(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Loads the registry afresh with ``$LINTEVAL_RAY_LANGUAGES`` naming plugins, as a new process would."""
    def load(modules: str) -> None:
        monkeypatch.setenv(PLUGINS_ENV, modules)
        monkeypatch.setattr(registry, "_SPECS", {})
        monkeypatch.setattr(registry, "_SOURCES", {})
        monkeypatch.setattr(registry, "_loaded", False)
        registry.language_names()

    return load


def test_a_plugin_with_tools_of_its_own_leaves_other_languages_run_folders_resumable(
        tmp_path: Path, plugins_loaded: Callable[[str], None]):
    cpp_only = load_config(None, ['dataset.languages=["cpp"]'])
    builtin = Toolchain.discover()
    before = claim(tmp_path, cpp_only, builtin)
    assert before["languages"] == {name: f"linteval_ray.languages.{name}" for name in ("cpp", "py3", "java")}
    plugins_loaded("tests.languages.c11,tests.languages.gnu_c")  # GNU C brings a tool row, gcc
    toolchain = Toolchain.discover()
    assert "gcc" in toolchain.manifest().tools and toolchain.toolchain_id != builtin.toolchain_id  # what it hashed
    after = claim(tmp_path, cpp_only, toolchain)
    assert after["attempts"] == 2 and after["fingerprint"] == before["fingerprint"]
    assert after["languages"]["gnu_c"] == "tests.languages.gnu_c" and after["languages"]["c11"] == "tests.languages.c11"
    # A run of every language covers GNU C now: its folder names the language that came in, old -> new.
    every = load_config(None, [])
    claim(tmp_path / "every", every, Toolchain.discover())
    plugins_loaded("tests.languages.c11")
    with pytest.raises(RunMismatchError, match=r"toolchain\.gnu_c: \"[0-9a-f]{12}\" -> -"):
        claim(tmp_path / "every", every, Toolchain.discover())
