# Short commands for fxkit. CMake does the real work; see README.md.
#
#   make            build into build/ (CUDA when nvcc is found): the library, build/fxkit,
#                   the tests and the benchmark programs (build/bench/)
#   make demo       install missing packages, build, run the jobs on samples/ into out/
#   make test       install missing packages, build, run every test (normal, Python,
#                   sanitizer, fuzz)
#   make test-python  the Python binding: a venv (build-venv/), pip install ., pytest
#   make test-gpu   the GPU tests with FXKIT_REQUIRE_GPU=1 (fail, not skip, without a GPU)

BUILD       ?= build
ASAN_BUILD  ?= build-asan
FUZZ_BUILD  ?= build-fuzz
CUDA        ?= AUTO
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
# Seconds each fuzz target runs in `make test` (a short smoke run; longer by hand).
FUZZ_SECONDS ?= 30
# nvcc is often installed outside PATH; CMake finds it through CUDACXX.
ifeq ($(shell command -v nvcc 2>/dev/null),)
  ifneq ($(wildcard /usr/local/cuda/bin/nvcc),)
    export CUDACXX ?= /usr/local/cuda/bin/nvcc
  endif
endif
# The Python binding's tests: a virtual environment with these pinned packages from PyPI
# (opencv-python-headless: the cv2 comparisons; ~60 MB, a few seconds; dask and
# distributed: the Dask recipe's test, tests/python/test_dask.py), the binding
# built into it by pip (scikit-build-core, build folder build-pip/), then pytest.
# PYVENV_FLAGS=--system-site-packages lets the tests see a machine's CuPy and PyTorch
# (the GPU tests skip without them).
PYTHON      ?= python3
PYVENV      ?= build-venv
PYVENV_FLAGS ?=
PY_PACKAGES ?= numpy==2.4.6 pytest==9.2.0 scikit-build-core==1.1.2 nanobind==3.1.0 \
               opencv-python-headless==4.11.0.86 dask==2026.8.0 distributed==2026.8.0
GENERATOR   := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
CTEST       := ctest --output-on-failure -j $(JOBS)

.PHONY: all build deps demo test test-unit test-python test-asan test-fuzz test-gpu install clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Release -DFXKIT_CUDA=$(CUDA)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

deps:
	bash scripts/install-deps.sh

demo: deps
	$(MAKE) build
	bash scripts/demo.sh $(BUILD)/fxkit out

test: deps
	$(MAKE) build
	$(MAKE) test-unit test-python test-asan test-fuzz

test-unit:
	cd $(BUILD) && $(CTEST)

# The binding is built by pip (CPU-only where there is no nvcc) and tested against
# $(BUILD)/fxkit. pytest's exit status 5 (no tests collected) fails too.
test-python: build
	test -x $(PYVENV)/bin/python || $(PYTHON) -m venv $(PYVENV_FLAGS) $(PYVENV)
	$(PYVENV)/bin/pip install -q --disable-pip-version-check $(PY_PACKAGES)
	CMAKE_ARGS="-DFXKIT_CUDA=$(CUDA)" CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) \
	  $(PYVENV)/bin/pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps .
	FXKIT_CLI=$(abspath $(BUILD))/fxkit FXKIT_REQUIRE_CLI=1 \
	  $(PYVENV)/bin/python -m pytest -q tests/python; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "test-python: pytest collected no tests" >&2; exit 1; fi; exit $$rc

# AddressSanitizer + UndefinedBehaviorSanitizer build of the unit, CLI and fuzz-replay tests.
test-asan:
	cmake -S . -B $(ASAN_BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Debug -DFXKIT_CUDA=OFF -DFXKIT_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(CTEST) -L 'unit|cli|fuzz'

# libFuzzer targets (clang), each run briefly from its seed corpus.
test-fuzz:
	cmake -S . -B $(FUZZ_BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFXKIT_CUDA=OFF \
	  -DFXKIT_FUZZ=ON -DFXKIT_TESTS=ON -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined"
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	bash scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

test-gpu: build
	cd $(BUILD) && FXKIT_REQUIRE_GPU=1 $(CTEST) -L gpu

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) out $(PYVENV) build-pip tests/python/__pycache__
