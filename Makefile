# SPDX-License-Identifier: MIT
# simctl: the Makefile wraps CMake. `make demo` and `make test` install missing packages first.
BUILD ?= build
ASAN_BUILD ?= build-asan
CUDA ?= auto
WERROR ?= OFF
JOBS ?= $(shell nproc)
BUNDLE_CUDA_LIBS ?= 1
BUNDLE_OUT ?= out
CUDA_ARCHS ?=

ifeq ($(CUDA),0)
  CUDA_FLAG := -DSIMCTL_CUDA=OFF
else ifeq ($(CUDA),1)
  CUDA_FLAG := -DSIMCTL_CUDA=ON
else
  CUDA_FLAG := -DSIMCTL_CUDA=AUTO
endif

.PHONY: all deps build demo test test-asan bench bench-materials tables table3 fig9 bundle clean

all: build

deps:
	@bash scripts/install_deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CUDA_FLAG) -DSIMCTL_WERROR=$(WERROR) \
	  $(if $(CUDA_ARCHS),-DSIMCTL_CUDA_ARCHS="$(CUDA_ARCHS)") >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@$(BUILD)/simctl run scenes/demo.json --out out/demo
	@echo "Open out/demo/frames/frames.vtk.series in ParaView (or the OBJ files in Blender/MeshLab);"
	@echo "look at out/demo/frames/*.png for quick previews, out/demo/timing.csv for timings."

test: build
	@cd $(BUILD) && ctest --output-on-failure --no-tests=error -j 2

# AddressSanitizer + UndefinedBehaviorSanitizer build running the unit tests (label "unit"), at -O2
# (the sanitizers want -O1 or more: on the 2-core VM the unit tests took 98 s at -O1 against
# 230 s at -O0, and on 2026-12-03, with the emulated contact tests, 224 s at -O2 against 335 s
# at -O1; -O2 may optimise away a load that -O1 would have checked, the price of .ci/run's
# headroom under its 20 minutes).
test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O2" \
	  -DCMAKE_CXX_FLAGS_DEBUG="-g -O2" -DSIMCTL_CUDA=OFF -DSIMCTL_SANITIZE=ON \
	  -DSIMCTL_WERROR=$(WERROR) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS) --target unit_programs
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest -L unit --output-on-failure --no-tests=error -j 2

bench: build
	@bash scripts/bench_global.sh $(BUILD)/simctl

# per-iteration local / global ms per material (cloth extension, twisting bar NH)
bench-materials: build
	@bash scripts/bench_materials.sh $(BUILD)/simctl

# the paper's Tables 1-2 (memory of S) beside ours: out/tables/tables.md and tables.csv
tables: build
	@bash scripts/paper_tables.sh --simctl $(BUILD)/simctl --out out/tables

# the paper's Table 3 (ms per bucket at the busiest contact frame) beside its figures:
# out/table3/table3.csv and the printed table; ROWS=small|large|all (default small, some
# minutes on 2 cores), DEVICE=cpu|cuda (default cpu)
ROWS ?= small
DEVICE ?= cpu
table3: build
	@bash scripts/table3.sh --simctl $(BUILD)/simctl --out out/table3 --rows $(ROWS) \
	  --set solver.device=$(DEVICE)

# the paper's Fig. 9 (L-G iterations to 1e-3 per global solver, E = 1e5, 1e7, 1e9):
# out/fig9/fig9_summary.csv and the plots
fig9: build
	@bash scripts/fig9.sh $(BUILD)/simctl out/fig9 1000

# relocatable tarball BUNDLE_OUT/simctl-<version>-linux-<arch>.tar.gz: simctl, tetgen, their
# libraries and launchers; BUNDLE_CUDA_LIBS=0 leaves the CUDA toolkit's libraries out
bundle: build
	@bash scripts/bundle.sh --out $(BUNDLE_OUT) $(if $(filter 0,$(BUNDLE_CUDA_LIBS)),--no-cuda-libs) $(BUILD)/simctl

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
