"""The deployment files in cluster/ agree with each other and with the repository.

Each file is parsed (YAML, Dockerfile instructions); what a user would otherwise find
out at 3 a.m. on a rented cluster is checked here: the entrypoints name configs that
exist, one image name everywhere, the Ray version of the images equals the pin, and the
node-role resources equal what configs/full.yaml asks for.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from linteval_ray.config import load_config

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "cluster"
IMAGE_DIR = "/opt/linteval-ray"  # where cluster/Dockerfile puts configs/ (the package is a wheel)
IMAGE = re.compile(r"\b(?:[\w.-]+/)*linteval-ray:[\w.-]+")
GENERATION, VALIDATION = "generation", "validation"


def _yaml(relative: str) -> Any:
    return yaml.safe_load((CLUSTER / relative).read_text())


def _dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", (CLUSTER / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def _pinned_ray_version() -> str:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    pins = [m.group(1) for d in deps if (m := re.fullmatch(r"ray\[[\w,]+\]==([\d.]+)", d))]
    assert len(pins) == 1, deps
    return pins[0]


def _rayjob() -> dict[str, Any]:
    return _yaml("kuberay/rayjob.yaml")


def _raycluster() -> dict[str, Any]:
    return _yaml("kuberay/raycluster.yaml")


def _aws() -> dict[str, Any]:
    return _yaml("autoscaler/aws.yaml")


def _start_param_resources(group: dict[str, Any]) -> dict[str, float]:
    """KubeRay passes rayStartParams.resources as a quoted JSON string: '"{...}"'."""
    raw = group["rayStartParams"].get("resources")
    return json.loads(json.loads(raw)) if raw else {}


def _worker_groups() -> dict[str, dict[str, Any]]:
    return {g["groupName"]: g for g in _raycluster()["spec"]["workerGroupSpecs"]}


def _config_path_in(entrypoint: str) -> Path:
    argv = shlex.split(entrypoint)
    assert argv[:2] == ["linteval-ray", "run"], entrypoint
    config = argv[argv.index("--config") + 1]
    return REPO / config.removeprefix(IMAGE_DIR + "/")


def _readme_commands() -> list[str]:
    """The shell lines inside the README's ```bash blocks."""
    blocks = re.findall(r"```bash\n(.*?)```", (CLUSTER / "README.md").read_text(), flags=re.S)
    return [line for block in blocks for line in re.sub(r"\\\n\s*", " ", block).splitlines()]


def test_dockerfile_builds_on_the_pinned_ray_and_installs_the_toolchain() -> None:
    instructions = _dockerfile()
    args = dict(a.split("=", 1) for kind, a in instructions if kind == "ARG" and "=" in a)
    base = args["BASE_IMAGE"]
    assert [a for kind, a in instructions if kind == "FROM"] == ["${BASE_IMAGE} AS wheel", "${BASE_IMAGE}"]
    assert re.fullmatch(r"rayproject/ray:([\d.]+)-py311", base), base
    assert base.split(":")[1].split("-")[0] == _pinned_ray_version()

    run = " ".join(a for kind, a in instructions if kind == "RUN")
    for package in ("bubblewrap", "g++-12", "openjdk-17-jdk-headless"):
        assert package in run
    env = " ".join(a for kind, a in instructions if kind == "ENV")
    prefix = re.search(r"LINTEVAL_TOOLCHAIN_DIR=(\S+)", env).group(1)
    assert prefix == "/opt/linteval/toolchain"
    assert "linteval-ray toolchain install --prefix ${LINTEVAL_TOOLCHAIN_DIR}" in run
    # The GPU variant is documented with its base image.
    assert "rayproject/ray:2.60.0-py311-gpu" in (CLUSTER / "Dockerfile").read_text()


def _stages() -> list[list[tuple[str, str]]]:
    """The Dockerfile's instructions split by FROM (each stage starts with its FROM)."""
    stages: list[list[tuple[str, str]]] = []
    for kind, arguments in _dockerfile():
        if kind == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((kind, arguments))
    return stages


def test_dockerfile_installs_the_wheel_not_an_editable_checkout() -> None:
    builder, image = _stages()
    builder_run = " ".join(a for kind, a in builder if kind == "RUN")
    assert re.search(r"\bpip wheel --no-deps\b.* -w /home/ray/dist /home/ray/src\b", builder_run), builder_run

    run = " ".join(a for kind, a in image if kind == "RUN")
    copies = [a for kind, a in image if kind == "COPY"]
    assert "--from=wheel /home/ray/dist/ /tmp/dist/" in " ".join(copies)
    assert 'pip install --no-cache-dir "$(ls /tmp/dist/linteval_ray-*.whl)${EXTRAS}"' in run
    assert " -e " not in run and "--editable" not in run
    # Only the run configs come from the checkout into the image (for the RayJob's --config).
    assert [c.split()[-2:] for c in copies if "--from" not in c] == [["configs", f"{IMAGE_DIR}/configs"]]
    assert (REPO / "configs" / "full.yaml").is_file()


def test_image_tags_agree_across_files() -> None:
    cpu_images = {
        "raycluster head": _raycluster()["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["image"],
        "raycluster cpu": _worker_groups()["cpu-validation"]["template"]["spec"]["containers"][0]["image"],
        "rayjob submitter": _rayjob()["spec"]["submitterPodTemplate"]["spec"]["containers"][0]["image"],
        "aws": _aws()["docker"]["image"],
    }
    gpu_images = {
        "raycluster gpu": _worker_groups()["gpu-generation"]["template"]["spec"]["containers"][0]["image"],
        "aws gpu": _aws()["available_node_types"]["gpu_generation"]["docker"]["worker_image"],
    }
    assert len(set(cpu_images.values())) == 1, cpu_images
    cpu_image = next(iter(cpu_images.values()))
    assert set(gpu_images.values()) == {cpu_image + "-gpu"}, gpu_images

    # The build commands in the Dockerfile and the README produce exactly these tags.
    documented = set(IMAGE.findall((CLUSTER / "Dockerfile").read_text() + (CLUSTER / "README.md").read_text()))
    assert documented == {cpu_image, cpu_image + "-gpu"}, documented


def test_ray_versions_match_the_pin() -> None:
    assert _raycluster()["spec"]["rayVersion"] == _pinned_ray_version()


def test_entrypoints_use_configs_that_exist_and_load() -> None:
    entrypoints = [_rayjob()["spec"]["entrypoint"]]
    entrypoints += [line.split(" -- ", 1)[1] for line in _readme_commands()
                    if "ray job submit" in line and " -- linteval-ray run " in line]
    assert len(entrypoints) >= 2, "the README shows no `ray job submit ... -- linteval-ray run` command"
    for entrypoint in entrypoints:
        config = _config_path_in(entrypoint)
        assert config.is_file(), f"{entrypoint!r}: no {config}"
        load_config(config)  # raises ConfigError on unknown keys
    assert (REPO / "configs" / "full.yaml").is_file()


def test_node_resources_match_the_validation_pool_of_full_config() -> None:
    wanted = load_config(REPO / "configs" / "full.yaml").validation.pool.resources
    assert set(wanted) == {VALIDATION}

    groups = _worker_groups()
    cpu, gpu = _start_param_resources(groups["cpu-validation"]), _start_param_resources(groups["gpu-generation"])
    aws = _aws()["available_node_types"]
    assert set(cpu) == set(aws["cpu_validation"]["resources"]) == set(wanted)
    assert set(gpu) == set(aws["gpu_generation"]["resources"]) == {GENERATION}
    # A validation node fits as many actors as it has cores.
    assert cpu[VALIDATION] / wanted[VALIDATION] == float(groups["cpu-validation"]["rayStartParams"]["num-cpus"])
    assert groups["gpu-generation"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]


def test_test_cluster_uses_the_same_resource_names() -> None:
    from tests.fixtures.ray_cluster import HEAD_RESOURCES, WORKER_RESOURCES

    assert set(HEAD_RESOURCES) == {GENERATION}
    assert set(WORKER_RESOURCES) == {VALIDATION}


def test_runtime_env_keeps_local_state_out_of_the_upload() -> None:
    runtime_env = _yaml("runtime-env.yaml")

    # .venv holds the toolchain; .toolchain is where older versions put it (hundreds of MB)
    assert {".venv", ".toolchain", "runs", ".git"} <= set(runtime_env["excludes"])
    assert "pip" not in runtime_env and "conda" not in runtime_env  # the image has everything
    assert all(isinstance(v, str) for v in runtime_env["env_vars"].values())  # Ray rejects non-strings
    assert not any(k.startswith("AWS_") or "TOKEN" in k for k in runtime_env["env_vars"])  # no secrets


@pytest.mark.parametrize("relative", ["kuberay/raycluster.yaml", "kuberay/rayjob.yaml", "autoscaler/aws.yaml"])
def test_cluster_specs_carry_the_auth_token_setup(relative: str) -> None:
    text = (CLUSTER / relative).read_text()
    assert "RAY_AUTH_MODE" in text or "auth_token" in text


def test_the_kuberay_autoscaler_is_v2() -> None:
    """The engines' placement reads the autoscaler v2's verdicts: at zero GPU pods a run waits for it,
    and a run no pod type can hold fails at once (linteval_ray/generate/placement.py)."""
    spec = _raycluster()["spec"]
    assert spec["enableInTreeAutoscaling"] is True and spec["autoscalerOptions"]["version"] == "v2"


@pytest.mark.parametrize("config", ["lite.yaml", "full.yaml"])
def test_model_configs_keep_every_engine_s_sequences_busy(config: str) -> None:
    """Rows in flight per engine (batch_size x concurrent batches) cover vLLM's largest default
    max_num_seqs (1024, an H100's): Ray's default of 8 batches of 16 left an engine of 256 half idle."""
    from linteval_ray.generate.engine import LARGEST_DEFAULT_MAX_NUM_SEQS, concurrent_batches

    vllm = load_config(REPO / "configs" / config).generation.vllm
    in_flight = vllm.batch_size * concurrent_batches(vllm.batch_size, vllm.engine_kwargs, vllm.max_concurrent_batches)
    assert in_flight >= vllm.engine_kwargs.get("max_num_seqs", LARGEST_DEFAULT_MAX_NUM_SEQS)
