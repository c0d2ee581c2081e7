# drtriton: the few commands a person or CI types. `make help` lists them.
# Everything installs itself through scripts/setup.sh, which does only what is missing.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PY := .venv/bin/python
CLI := ./build/drtriton
# Extra ctest arguments, e.g. `make test CTEST_ARGS="-L cpu -R Text"`.
CTEST_ARGS ?=
# Extra pytest arguments, e.g. `make test PYTEST_ARGS="-k frontend -x"`. Test files run side by
# side (pytest-xdist) in PYTEST_WORKERS processes, one more than the cores: a test spends much
# of its time waiting for the processes it starts (services, verifier workers). On 2 cores the
# whole suite took 1,338 s with 3 processes; with 2 it had used 1.2 cores on average and taken
# 1,697 s (a run that shared the machine part of the time). `PYTEST_ARGS="-n 0"`: one process.
PYTEST_ARGS ?=
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
DEMO_IR := examples/conv_relu_scale.ir

.PHONY: help setup build demo test test-cpp test-python bench format clean

help:
	@echo "make setup   install Debian packages and .venv if missing, configure and build build/"
	@echo "make build   rebuild the C++ (cmake --build build)"
	@echo "make demo    drtriton convert on a bundled example (verified on the CPU), IR round trip, synth"
	@echo "make test    C++ tests (ctest) and Python tests (pytest)"
	@echo "make bench   run every bench/*.sh"
	@echo "make format  clang-format the C++ in src/ and tests/"
	@echo "make clean   remove build/"

setup:
	bash scripts/setup.sh

build:
	@if [ -f build/build.ninja ]; then cmake --build build; else bash scripts/setup.sh; fi

demo: setup
	@echo "===== drtriton convert: the built-in compiler on examples/conv_block.py, verified on the CPU (Triton's interpreter) ====="
	$(CLI) convert examples/conv_block.py -o build/conv_block_triton.py --verify
	@echo
	@echo "===== build/conv_block_triton.py (the solution: ModelNew on Triton kernels) ====="
	@cat build/conv_block_triton.py
	@echo
	@echo "===== drtriton emit / import: IR -> PyTorch -> IR ====="
	$(CLI) emit $(DEMO_IR) -o build/demo_model.py
	$(CLI) import build/demo_model.py -o build/demo_roundtrip.ir
	@cat build/demo_roundtrip.ir
	@echo
	@echo "===== drtriton synth: a synthetic program of difficulty 3 (CSP-DAG) ====="
	$(CLI) synth --count 3 --difficulty 3 --seed 7 --out build/demo_synth.jsonl --emit-dir build/demo_synth
	@cat build/demo_synth/p000000.py

# Both tiers run even when the first fails, so one run shows every failure.
test: setup
	@rc=0; \
	$(MAKE) --no-print-directory test-cpp || rc=1; \
	$(MAKE) --no-print-directory test-python || rc=1; \
	if [ $$rc -ne 0 ]; then echo "make test: FAILED (see above)"; fi; \
	exit $$rc

test-cpp:
	@echo "===== C++ tests (ctest) ====="
	ctest --test-dir build --output-on-failure $(CTEST_ARGS)

# pytest exits 5 when it collects no test; that counts as success only while
# tests/python really holds no test file (a file whose tests vanished is a failure).
test-python:
	@echo "===== Python tests (pytest) ====="
	@if [ ! -d tests/python ]; then echo "no tests/python folder: no Python tests run"; exit 0; fi; \
	rc=0; $(PY) -m pytest -q --durations=25 -n $(PYTEST_WORKERS) --dist loadfile tests/python $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ] && [ -z "$$(find tests/python -name 'test_*.py' -o -name '*_test.py' | head -n 1)" ]; then \
	  echo "tests/python has no test files yet: no Python tests run"; rc=0; \
	elif [ $$rc -eq 5 ]; then \
	  echo "pytest collected no test, yet tests/python has test files: failing"; \
	fi; \
	exit $$rc

bench: setup
	@found=0; \
	for script in bench/*.sh; do \
	  [ -e "$$script" ] || continue; \
	  found=1; echo "===== $$script ====="; bash "$$script"; \
	done; \
	if [ $$found -eq 0 ]; then echo "no benchmarks yet"; fi

format:
	find src tests \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.cc' \) -print0 \
	  | xargs -0 -r clang-format -i

clean:
	rm -rf build
