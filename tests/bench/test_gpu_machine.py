"""bench/gpu_machine.py, what `make gpu-check` checks before it installs anything: a Python >= 3.11 and an
NVIDIA driver for the CUDA the pinned wheels need. The driver is read from nvidia-smi's output as it
prints it (these headers are copied from real machines); the interpreters are this machine's."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

from bench.gpu_machine import PINNED_WHEEL_CUDA, Driver, Lacking, driver_problem, gpu_names, pick_python, stale_venv

A100_DRIVER_550 = """\
Fri Jul 26 20:06:33 2024
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA A100-SXM4-80GB          Off |   00000000:1B:00.0 Off |                    0 |
| N/A   35C    P0             65W /  500W |    1261MiB /  81920MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
"""
H100_DRIVER_580 = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.65.06              Driver Version: 580.65.06      CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA H100 NVL                Off |   00000000:00:06.0 Off |                    0 |
+-----------------------------------------+------------------------+----------------------+
"""
LIST_GPUS_WITH_MIG = """\
GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-55748b5b-32df-bbd9-d0f6-f50980c12af8)
  MIG 3g.40gb     Device  0: (UUID: MIG-111)
  MIG 3g.40gb     Device  1: (UUID: MIG-222)
GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-d77abcb6-205d-0e25-6aec-faa0757301ea)
"""


def test_a_driver_too_old_for_the_pinned_wheels_cuda_says_what_is_needed():
    driver = Driver.parse(A100_DRIVER_550)
    assert (driver.version, driver.cuda) == ("550.54.15", (12, 4))
    assert driver_problem(driver, PINNED_WHEEL_CUDA) == (
        "NVIDIA driver 550.54.15 supports CUDA up to 12.4, but the pinned torch/vLLM wheels (ray[llm]==2.60.0: "
        "vllm 0.29.0, torch 2.13.0) are built for CUDA 13.0, which needs driver >= 580: upgrade the driver (e.g. "
        "Ubuntu: nvidia-driver-580-server), or on a datacenter GPU install NVIDIA's forward-compatibility package "
        "(cuda-compat-13-0) and pass --driver-check off")
    # The same driver runs a CUDA 12 build (minor version compatibility within a major).
    assert driver_problem(driver, "12.8") is None


def test_a_580_driver_runs_the_pinned_cuda_13_wheels():
    assert driver_problem(Driver.parse(H100_DRIVER_580), PINNED_WHEEL_CUDA) is None


def test_no_driver_version_in_the_output_is_one_line():
    with pytest.raises(Lacking, match="nvidia-smi printed no driver version"):
        Driver.parse("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.")


def test_gpus_are_counted_without_their_mig_instances():
    assert gpu_names(LIST_GPUS_WITH_MIG) == ["NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB"]


def test_the_venv_is_built_with_a_python_of_at_least_3_11(tmp_path: Path):
    """On PATH: this machine's python3.11 (Ubuntu 22.04's python3 would be 3.10, which pip refuses)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3.11").symlink_to(sys.executable)
    assert pick_python(None, path=str(bin_dir)) == str(bin_dir / "python3.11")
    with pytest.raises(Lacking, match=r"^no Python >= 3.11 on PATH: the project needs one \(Ubuntu 22.04: `apt "
                                      r"install python3.11 python3.11-venv`"):
        pick_python(None, path=str(tmp_path / "empty"))
    with pytest.raises(Lacking, match=r"^GPU_PYTHON=/bin/true does not run; the project needs Python >= 3.11$"):
        pick_python("/bin/true")


def test_a_venv_left_by_an_interpreter_that_does_not_run_is_named_for_removal(tmp_path: Path):
    venv.create(tmp_path / "good", with_pip=False)
    assert stale_venv(str(tmp_path / "good")) is None
    assert stale_venv(str(tmp_path / "absent")) is None
    broken = tmp_path / "broken" / "bin"
    broken.mkdir(parents=True)
    (broken / "python").symlink_to("/bin/false")
    assert stale_venv(str(tmp_path / "broken")) == (
        f"{tmp_path / 'broken'} does not run: remove it (rm -rf {tmp_path / 'broken'}) and run make gpu-check again")


def test_without_nvidia_smi_the_check_exits_2_in_one_line_and_prints_no_interpreter(tmp_path: Path):
    """This machine has no NVIDIA driver: what `make gpu-check` stops on before installing anything."""
    out = subprocess.run([sys.executable, "bench/gpu_machine.py", "--venv", str(tmp_path / "v")], capture_output=True,
                         text=True, cwd=Path(__file__).resolve().parents[2],
                         env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr.startswith("gpu_machine: no nvidia-smi: this machine has no NVIDIA driver"), out.stderr
