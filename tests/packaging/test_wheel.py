"""The wheel is the whole product: built, installed into a fresh venv, run from an empty folder.

How the fresh venv is made, and why it proves something:

* The wheel is built from a copy of just what the build reads (pyproject.toml, README.md,
  linteval_ray/), so neither a stale ``build/`` folder nor the checkout's egg-info can add
  files that the package data globs miss (and the shared checkout is not written to).
* ``python -m venv --without-pip`` makes an empty environment. Its site-packages gets one
  ``.pth`` line naming this venv's site-packages: the dependencies (Ray, pylint, clang-tidy,
  pip, ...) are importable, but ``.pth`` files inside that folder are not run, so the
  checkout's editable-install hook is inert and the checkout is never on ``sys.path``.
* The fresh venv's own interpreter runs ``pip install --no-deps`` of the wheel, so the wheel
  lands in the fresh site-packages and ``bin/linteval-ray`` starts that interpreter.
* The fresh environment gets its toolchain the way a user's would: ``linteval-ray toolchain
  install --prefix <this machine's toolchain>`` (everything is present, so nothing is
  downloaded) records the prefix in the fresh venv; no variable points at it.
* ``linteval-ray run --limit 3`` then runs in an empty folder with a minimal environment
  (PATH, HOME, LANG: no PYTHONPATH, no LINTEVAL_*), a fresh HOME so no cache helps.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from linteval_ray.toolchain import Toolchain

pytestmark = pytest.mark.slow  # a cold run: the problem's testlib tools compile (~1-2 min on 2 cores)

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "linteval_ray"
BUILD_INPUTS = ("pyproject.toml", "README.md")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
RUN_LIMIT = 3
RESOURCES = (
    "linteval_ray/prompt/prompts/v1.yaml",
    "linteval_ray/load/bundled/linteval_bundled.jsonl",
    "linteval_ray/languages/java/PmdServer.java",
    *(f"linteval_ray/validate/lint/profiles/{profile}/profile.yaml" for profile in ("linteval", "broad")),
    *(f"linteval_ray/languages/{language}/profiles/{profile}/{name}"
      for profile in ("linteval", "broad")
      for language, name in (("cpp", "clang-tidy.yaml"), ("py3", "pylintrc"), ("java", "pmd-ruleset.xml"))),
)


def run_checked(argv: list[str | Path], timeout_s: float = 300.0, **kwargs: object) -> str:
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout_s,
                          check=False, **kwargs)  # type: ignore[call-overload]
    assert proc.returncode == 0, f"{argv} exited {proc.returncode}:\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
    return str(proc.stdout)


def build_wheel(work: Path) -> Path:
    source = work / "src"
    source.mkdir()
    for name in BUILD_INPUTS:
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(PACKAGE, source / "linteval_ray", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    # No build isolation: this venv's setuptools builds it, offline.
    run_checked([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                 "-w", work / "dist", source])
    (wheel,) = (work / "dist").glob("linteval_ray-*.whl")
    return wheel


def package_data_files() -> set[str]:
    """Every non-Python file of the source package (what the package data globs must cover)."""
    return {
        str(path.relative_to(REPO))
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    }


def make_fresh_venv(root: Path) -> Path:
    """An empty venv that sees this venv's dependencies through a .pth line, but not the checkout."""
    run_checked([sys.executable, "-m", "venv", "--without-pip", root])
    site_packages = Path(sysconfig.get_path("purelib", vars={"base": str(root), "platbase": str(root)}))
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site_packages / "project-dependencies.pth").write_text("".join(f"{path}\n" for path in sorted(ours)))
    return root / "bin"


def minimal_env(fresh_bin: Path, home: Path) -> dict[str, str]:
    """What a login shell of a new user gives: no PYTHONPATH, no LINTEVAL_*, no RAY_*."""
    return {"PATH": f"{fresh_bin}{os.pathsep}{SYSTEM_PATH}", "HOME": str(home), "LANG": "C.UTF-8"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_carries_every_package_resource(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())

    assert set(RESOURCES) <= names, sorted(set(RESOURCES) - names)
    missing = package_data_files() - names
    assert not missing, f"add these to [tool.setuptools.package-data] in pyproject.toml: {sorted(missing)}"
    bundled = zipfile.ZipFile(wheel).read("linteval_ray/load/bundled/linteval_bundled.jsonl")
    assert bundled == (PACKAGE / "load" / "bundled" / "linteval_bundled.jsonl").read_bytes()


def test_the_installed_wheel_runs_from_an_empty_folder(wheel: Path, toolchain: Toolchain, tmp_path: Path) -> None:
    fresh = tmp_path / "venv"
    fresh_bin = make_fresh_venv(fresh)
    home, empty = tmp_path / "home", tmp_path / "empty"
    home.mkdir()
    empty.mkdir()
    env = minimal_env(fresh_bin, home)
    run_checked([fresh_bin / "python", "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed",
                 "-q", wheel], env=env, cwd=empty)

    # The package, its prompts and its data come from the fresh venv, never from the checkout.
    where = json.loads(run_checked([fresh_bin / "python", "-c", (
        "import json, linteval_ray; from linteval_ray.schema.bundled import bundled_path; "
        "from linteval_ray.prompt.template import load_template, template_path; load_template('v1'); "
        "print(json.dumps([linteval_ray.__file__, str(bundled_path()), str(template_path('v1'))]))")],
        env=env, cwd=empty))
    assert all(path.startswith(str(fresh)) for path in where), where
    assert (fresh_bin / "linteval-ray").read_text().startswith(f"#!{fresh_bin / 'python'}")

    # A new environment records where its toolchain is; no variable says it.
    run_checked([fresh_bin / "linteval-ray", "toolchain", "install", "--prefix", toolchain.prefix], env=env, cwd=empty)
    assert (fresh / "share" / "linteval-ray" / "toolchain-prefix").read_text().strip() == str(toolchain.prefix)

    run_checked([fresh_bin / "linteval-ray", "run", "--limit", str(RUN_LIMIT)], env=env, cwd=empty, timeout_s=540)

    (metrics_file,) = empty.glob("runs/*/metrics.json")
    metrics = json.loads(metrics_file.read_text())
    assert metrics["n_samples"] == RUN_LIMIT
    assert metrics["statuses"] == {"evaluated": RUN_LIMIT}, metrics["statuses"]  # linted, compiled, judged
    import pyarrow.parquet as pq

    assert pq.read_table(metrics_file.with_name("results.parquet")).num_rows == RUN_LIMIT
    manifest = json.loads(metrics_file.with_name("manifest.json").read_text())
    assert manifest["dataset_url"].startswith(str(fresh)), manifest["dataset_url"]
