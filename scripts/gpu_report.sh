#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Everything the CUDA backend needs checked and measured on a machine with an NVIDIA GPU, into
# one folder, in nine parts that can be run together or one per call, in this order:
#   tests:    the GPU tests (label gpu: collision detection, W and every operation against the
#             CPU backend, short runs, the contact stage's passes), side by side;
#   sanitize: the per-operation tests and the short runs under compute-sanitizer (memcheck:
#             out-of-bounds and misaligned accesses, leaks; racecheck and synccheck:
#             shared-memory races and misused barriers, which the host emulation cannot see);
#   bench:    scripts/bench_gpu.sh (elastic Table 3 rows, kernels against cuSPARSE, double
#             against float, the bandwidth limit, the frame's time outside the buckets);
#   table3:   scripts/table3.sh with solver.device=cuda (the contact rows at the paper's sizes),
#             with the Newton solve on the host, on the device (SIMCTL_CUDA_NSN), on the
#             device with its reductions apart (SIMCTL_CUDA_FUSE=off; fused, the default since
#             2026-12-04, and the other variants fused unless they say), with CR's W in float
#             (contact.cr_precision), with the paper's algorithm (one full Newton step per L-G
#             iteration, detection once per step), with all three together (the fastest the
#             backend offers for Table 3's algorithm), and on the device with W dense at every size,
#             formed (contact.delassus=dense) and in its block form (blocks; `auto` keeps W dense,
#             in its block form above 4,000 rows, up to 4,500 rows with the device solve,
#             bounds measured on an H200);
#   global:   scripts/bench_gpu.sh --global-only (the global step alone against its bandwidth
#             limit, S in double and float, the row gather's chunk and the column gather's
#             warps per column swept: about a minute), then simctl-bench-wprod
#             (w_products.csv: the contact solve's product with W formed against its block
#             form per row count, which decides SIM_CUDA_BLOCK_ROWS: some seconds);
#   local:    scripts/bench_local.sh (the local step per L-G iteration on Table 3's Neo-Hookean
#             bodies for each bound on its projections' registers, SIMCTL_CUDA_LOCAL_BLOCKS 1,
#             2 and 3, and split in two kernels, SIMCTL_CUDA_LOCAL_SPLIT=on: 16 short runs,
#             about a minute);
#   converge: the paper's Fig. 9 with the solvers' iterations timed on the GPU (simctl converge
#             --device cuda on the 5.3k twisting bar, E = 1e5, 1e7, 1e9, from frame 800, 300
#             iterations): every global solver's time to 1e-3 on the same device;
#   output:   scripts/bench_output.sh --device cuda (cloth_on_knives, 60 frames, every format
#             every 2nd frame, output.async off and on: the wall time, the mean frame and the
#             loop's time on output per output frame, and whether both wrote the same files),
#             which says whether `auto`, the writer thread on the CUDA backend, earns its place
#             (some 10-20 s; --emu: 4 frames);
#   profile:  first table3.sh's runs of the examples --profile names (default
#             cloth_on_knives,grabbing_raptor) with SIMCTL_CUDA_RANGES=on, which needs no
#             profiler: ranges.md (scripts/ranges_table.py), collision detection's host and
#             device ranges a frame (not with --emu); then
#             Nsight Systems (nsys, where the machine has it) over the same runs, each kernel
#             of the CUDA graphs traced: the time per kernel and per CUDA call (waits, copies),
#             and per named range of the host's (NVTX: detection's queueing, waiting and
#             taking within `cd`), which says where the contact rows' frame goes. The device
#             settings are the caller's environment's (SIMCTL_CUDA_FUSE=on ... to profile
#             those).
# The test programs are run directly from tests/ (their working directory under CTest), so a
# build copied from another machine works where its CTest files' absolute paths would not; put
# the libraries it needs on LD_LIBRARY_PATH (docs/gpu_report.md).
# Each part's programs run under `timeout`, bounded by --budget, so that the script itself
# ends, with its logs and its summary written, inside a caller's time limit. Last, whatever
# parts ran, scripts/gpu_goals.py writes goals.md and prints it: the tests' exit codes, Table
# 3's frame over the paper's per variant and the global step over its bandwidth limit against
# the issue's two goals, and the comparisons the defaults follow from (docs/gpu_checklist.md).
# usage: scripts/gpu_report.sh [--build DIR] [--out DIR] [--only PARTS] [--rows all|small|large]
#                              [--budget SECONDS] [--jobs N] [--archive FILE] [--emu]
#                              [--table3 VARIANTS] [--profile EXAMPLES]
#   --only: a comma-separated list of tests, sanitize, bench, global, local, table3, converge,
#           output, profile
#           (default tests, bench, table3)
#   --rows: the table3 part's rows (table3.sh --rows): small (the default: the smallest size of
#           each example), large (the other sizes, for a later call) or all
#   --sanitize / --skip-bench: add sanitize / leave out bench and table3 (the older spelling)
#   --budget: wall seconds the whole script may take (default 3600); a program still running
#             when its part's share is spent is stopped and counts as failed (exit 124); a
#             bench, table3 or converge run with under 30 s left is not started, counts as
#             failed and is listed in not_started.txt
#   --jobs: programs run at once (default: the CPU count, at most 8)
#   --archive: when the script ends, for whatever reason, also pack the report folder into FILE
#              (.tar.gz): one file to fetch where a caller takes back only a few
#   --table3: a comma-separated list of host, device, fused, apart, crfloat, paper, fastest, pdl,
#             tuned, dense, blocks, launches, allcols, mfreads, exact
#             (default host, device, dense, in that order): the table3 part's runs, e.g. one per
#             call where a call's time is short; fused is device with SIMCTL_CUDA_FUSE=on (the
#             default since 2026-12-04, so the same runs as device), apart with it off;
#             crfloat is device with contact.cr_precision=float; paper is device with the
#             paper's algorithm (contact.newton_steps=1, redetect=0, line_search=0,
#             end_tolerance=0); fastest is
#             paper with fused and crfloat's settings as well; pdl is fastest with programmatic
#             dependent launch in its graphs (SIMCTL_CUDA_PDL=on: each kernel's launch overlapped
#             with the end of the one before, gpu/pdl_cuda.cu; sm_90 on); tuned is fastest with
#             the global step's gathers tuned at the start (SIMCTL_CUDA_TUNE=on: the same bits,
#             gpu/global_tune.cu); dense is device with W formed at
#             every size, blocks with W's block form (G, a ninth of W's bytes) at every size;
#             launches is
#             dense with the device solve's kernels launched one by one instead of as CUDA
#             graphs (SIMCTL_CUDA_GRAPH=off); allcols is device with the matrix-free W's solve
#             through all of S (SIMCTL_CUDA_WCOLS=off) instead of the contacts' columns; mfreads
#             is device with the host reading each of the Newton solve's decisions where W is
#             matrix-free (SIMCTL_CUDA_MF_QUEUE=off: a wait each, no graph) instead of queuing on
#             with gates as with W dense (only the rows above 4,500 differ from device); exact
#             is device with the friction rows' exact Jacobian (contact.newton_jacobian=exact:
#             GMRES on the device, gpu/gmres_cuda.cu)
#   --emu: a dry run of this script on the host emulation of CUDA (tests/emu): the test_emu_*
#          programs and simctl-emu of a build without a GPU; it checks the script, not a GPU
set -uo pipefail
BUILD="$(cd "$(dirname "$0")/.." && pwd)"/build OUT=out/gpu_report ROWS=small PARTS=tests,bench,table3 BUDGET=3600 EMU=0 ARCHIVE=
VARIANTS=host,device,dense PROFILE=cloth_on_knives,grabbing_raptor
JOBS=$(nproc 2>/dev/null || echo 2)
[ "$JOBS" -gt 8 ] && JOBS=8
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=${2:?--build needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    --rows) ROWS=${2:?--rows needs a value}; shift 2 ;;
    --only) PARTS=${2:?--only needs a value}; shift 2 ;;
    --budget) BUDGET=${2:?--budget needs a value}; shift 2 ;;
    --jobs) JOBS=${2:?--jobs needs a value}; shift 2 ;;
    --skip-bench) PARTS=${PARTS//bench/}; PARTS=${PARTS//table3/}; shift ;;
    --sanitize) PARTS=$PARTS,sanitize; shift ;;
    --archive) ARCHIVE=${2:?--archive needs a value}; shift 2 ;;
    --emu) EMU=1; shift ;;
    --table3) VARIANTS=${2:?--table3 needs a value}; shift 2 ;;
    --profile) PROFILE=${2:?--profile needs a value}; shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu_report.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
for p in ${PARTS//,/ }; do
  case "$p" in
    tests | sanitize | bench | global | local | table3 | converge | output | profile) ;;
    *) echo "gpu_report.sh: --only: unknown part '$p': expected tests, sanitize, bench," \
         "global, local, table3, converge, output or profile" >&2
       exit 2 ;;
  esac
done
case $JOBS in ''|*[!0-9]*|0) echo "gpu_report.sh: --jobs: expected a whole number >= 1, got '$JOBS'" >&2; exit 2 ;; esac
case "$ROWS" in
  all | small | large) ;;
  *) echo "gpu_report.sh: --rows $ROWS: expected all, small or large" >&2; exit 2 ;;
esac
for v in ${VARIANTS//,/ }; do
  case "$v" in
    host | device | fused | apart | crfloat | paper | fastest | pdl | tuned | dense | blocks | launches | allcols | mfreads | exact) ;;
    *) echo "gpu_report.sh: --table3: unknown variant '$v': expected host, device, fused, apart," \
         "crfloat, paper, fastest, pdl, tuned, dense, blocks, launches, allcols, mfreads or exact" >&2
       exit 2 ;;
  esac
done
want() { [[ ",$PARTS," == *",$1,"* ]]; }
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD=$(cd "$BUILD" && pwd) || exit 2
mkdir -p "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
if [ -n "$ARCHIVE" ]; then
  mkdir -p "$(dirname "$ARCHIVE")"
  ARCHIVE="$(cd "$(dirname "$ARCHIVE")" && pwd)/$(basename "$ARCHIVE")"
  trap 'tar -czf "$ARCHIVE" -C "$(dirname "$OUT")" "$(basename "$OUT")"' EXIT
fi
PRE=test_gpu_ SIMCTL="$BUILD/simctl"
[ "$EMU" = 1 ] && PRE=test_emu_ SIMCTL="$BUILD/simctl-emu"
T0=$SECONDS
left() { echo $((BUDGET - (SECONDS - T0))); }
{
  date -u
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  "$SIMCTL" --version
  # the devices as simctl sees them: their architectures against the build's (a device the
  # kernels do not cover would make every GPU test SKIP)
  "$SIMCTL" devices 2>&1
  [ "$EMU" = 1 ] && echo "host emulation of CUDA (--emu): not a GPU"
  # the toolkit's programs (cuobjdump or nvdisasm would show the kernels' machine code, nsys
  # and compute-sanitizer the profile and sanitize parts' tools)
  echo "CUDA toolkit programs: $(ls "${CUDA_HOME:-/usr/local/cuda}/bin" 2>/dev/null | tr '\n' ' ')"
} | tee "$OUT/machine.txt"
FAIL=0

# run_all PART END JOB...: runs each JOB ("name|command") in tests/, JOBS at a time, each under
# `timeout` until the script's clock (SECONDS) reaches END (a job not started by then fails with
# exit 124 too), logged to logs/NAME.log; appends "name exit seconds" lines to PART.txt and the
# logs, in the jobs' order, to PART.log
run_all() {
  local part=$1 end=$2
  shift 2
  # OpenMP threads per program (the CPU backend's reference steps): the CPUs over eight shares
  # (the long-running contact passes: on a GPU four, the squeezing ball's taking three shares
  # and the other global solvers' two; on the emulation five), so that programs side by side do not oversubscribe
  # the machine, and where they still do waiting threads sleep instead of spinning; set in each
  # job's subshell alone, so that the parts after this one (bench, global, table3, converge:
  # one program at a time) keep every CPU, as they did when run in a call of their own
  local n=$(($(nproc 2>/dev/null || echo 8) / 8))
  local omp=${OMP_NUM_THREADS:-$((n > 0 ? n : 1))}
  : >"$OUT/$part.txt"
  : >"$OUT/$part.log"
  for job in "$@"; do
    local name=${job%%|*} cmd=${job#*|}
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    (
      export OMP_NUM_THREADS=$omp OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$omp}
      export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
      s=$SECONDS rc=124
      if [ $((end - SECONDS)) -gt 0 ]; then
        cd "$ROOT/tests" &&
          timeout -k 10 $((end - SECONDS)) bash -c "$cmd" >"$OUT/logs/$name.log" 2>&1
        rc=$?
      else
        echo "not started: the budget was spent" >"$OUT/logs/$name.log"
      fi
      echo "$rc $((SECONDS - s))" >"$OUT/logs/$name.rc"
    ) &
  done
  wait
  for job in "$@"; do
    local name=${job%%|*} rc secs
    read -r rc secs <"$OUT/logs/$name.rc"
    printf '%-50s exit %3d  %4d s\n' "$name" "$rc" "$secs" | tee -a "$OUT/$part.txt"
    { echo "== $name (exit $rc, $secs s)"; cat "$OUT/logs/$name.log"; } >>"$OUT/$part.log"
    [ "$rc" -eq 0 ] || FAIL=1
  done
}

# spent STEP: true (and STEP counted as failed, with a line saying so) when under 30 s of the
# budget are left for it, where `timeout` would be handed no time or less than none
spent() {
  [ "$(left)" -ge 30 ] && return 1
  echo "== $1: not started, $(left) s of the budget left" | tee -a "$OUT/not_started.txt"
  FAIL=1
}

if want tests; then
  echo "== tests ($JOBS at a time, for at most $(($(left) - 20)) s)"
  JOBS_T=()
  # the per-operation tests (seconds), then the longest first
  for t in detect points delassus backend solvers contact_ops; do
    JOBS_T+=("$PRE$t|$BUILD/tests/$PRE$t")
  done
  # (on the emulation, with cuSPARSE's products as under CTest: its emulated gathers are slow)
  CONTACT="$BUILD/tests/${PRE}contact"
  [ "$EMU" = 1 ] && CONTACT="SIMCTL_CUDA_SPMV=cusparse $CONTACT"
  # the squeezing ball's pass is the longest (the CPU's reference steps, which it makes once for
  # both Newton solves and both checks): three times the OpenMP threads of the others (run_all)
  if [ "$EMU" = 1 ]; then
    for p in ball host device; do JOBS_T+=("${PRE}contact_$p|$CONTACT $p"); done
  else
    JOBS_T+=("${PRE}contact_ball|OMP_NUM_THREADS=\$((3 * OMP_NUM_THREADS)) $CONTACT ball")
    JOBS_T+=("${PRE}contact_scenes|$CONTACT scenes")
  fi
  # the other global solvers' pass, the next longest on the H200 (217 s, 2026-11-28: the CPU's
  # dense inverse and Cholesky's matrix-free W at 7,542 rows), with twice the threads
  if [ "$EMU" = 1 ]; then
    JOBS_T+=("${PRE}contact_solvers|$CONTACT solvers")
  else
    JOBS_T+=("${PRE}contact_solvers|OMP_NUM_THREADS=\$((2 * OMP_NUM_THREADS)) $CONTACT solvers")
  fi
  JOBS_T+=("${PRE}runs|$BUILD/tests/${PRE}runs")
  JOBS_T+=("${PRE}contact_paths|$CONTACT paths")
  # the simctl program on the device (seconds): solve_check's bounds, run --resume
  JOBS_T+=("${PRE}program|bash '$ROOT/tests/test_gpu_program.sh' '$SIMCTL'")
  run_all tests $((SECONDS + $(left) - 20)) "${JOBS_T[@]}"
  if grep -q "exit  77" "$OUT/tests.txt"; then # SKIPPED: no usable device (an old driver, no GPU)
    grep -m1 SKIPPED "$OUT/tests.log" >&2
    echo "gpu_report.sh: the tests found no usable CUDA device; stopping (nothing was tested)" >&2
    exit 1
  fi
  grep -E "^== |checks passed|check failed" "$OUT/tests.log" | tail -n 60
fi

if want sanitize; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
  if [ -n "$CS" ]; then
    echo "== sanitize ($JOBS at a time, for at most $(($(left) - 20)) s)"
    JOBS_S=()
    # the contact operations (the rows and the term table built on the device, and the device
    # Newton solve with its reductions apart and fused: a block's shared memory reused for the
    # last block's second pass) in parts: the whole program ran past 400 s under each tool on an
    # H200 (2026-12-04), a part takes a few minutes; memcheck also runs the short runs
    CO_PARTS="host device-blocks device-float device-operator exact-frictionless exact-tolerance"
    for tool in memcheck racecheck synccheck; do
      opts="--tool $tool --error-exitcode 1" progs="detect points delassus backend solvers"
      [ "$tool" = memcheck ] && opts="$opts --leak-check full" progs="$progs runs"
      for t in $progs; do
        JOBS_S+=("${tool}_$PRE$t|'$CS' $opts '$BUILD/tests/$PRE$t'")
      done
      for part in $CO_PARTS; do
        JOBS_S+=("${tool}_${PRE}contact_ops_$part|'$CS' $opts '$BUILD/tests/${PRE}contact_ops' $part")
      done
    done
    run_all sanitize $((SECONDS + $(left) - 20)) "${JOBS_S[@]}"
    grep -E "^== |ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize.log"
  else
    echo "compute-sanitizer not found: sanitize skipped" | tee "$OUT/sanitize.txt"
  fi
fi

if want bench && ! spent bench; then
  echo "== bench (at most $(($(left) - 10)) s)"
  timeout -k 10 $(($(left) - 10)) bash "$ROOT/scripts/bench_gpu.sh" --simctl "$SIMCTL" \
    --out "$OUT/bench" | tee "$OUT/bench_gpu.md"
  [ "${PIPESTATUS[0]}" -eq 0 ] || FAIL=1
fi

# the contact rows with the Newton solve on the host and on the device (the default), fused or
# not, and on the device with W dense at every size: the figures that choose SIMCTL_CUDA_NSN's
# and SIMCTL_CUDA_FUSE's defaults and where `auto` should stop forming W on the CUDA backend
if want table3; then
  for v in ${VARIANTS//,/ }; do
    nsn=$v name=table3_nsn_$v sets=(--set solver.device=cuda) graph=on fuse=on wcols=on mfq=on
    pdl=off tune=off
    what=
    # Table 3's algorithm (one full Newton step per L-G iteration, detection once per step)
    paper=(--set contact.newton_steps=1 --set contact.redetect=0 --set contact.line_search=0
      --set contact.end_tolerance=0)
    fastest=", the paper's algorithm, reductions fused, CR's W in float"
    case "$v" in
      fused) nsn=device fuse=on what=", reductions fused" ;;
      apart) nsn=device fuse=off name=table3_nsn_device_apart what=", reductions apart (SIMCTL_CUDA_FUSE=off)" ;;
      crfloat) nsn=device what=", CR's W in float" sets+=(--set contact.cr_precision=float) ;;
      paper) nsn=device what=", the paper's algorithm" sets+=("${paper[@]}") ;;
      fastest) nsn=device fuse=on what=$fastest
               sets+=("${paper[@]}" --set contact.cr_precision=float) ;;
      pdl) nsn=device fuse=on pdl=on what="$fastest, programmatic edges"
           sets+=("${paper[@]}" --set contact.cr_precision=float) ;;
      tuned) nsn=device fuse=on tune=on what="$fastest, the gathers tuned"
             sets+=("${paper[@]}" --set contact.cr_precision=float) ;;
      dense) nsn=device name=table3_nsn_device_dense what=", W dense (formed)"
             sets+=(--set contact.delassus=dense) ;;
      blocks) nsn=device name=table3_nsn_device_blocks what=", W dense in its block form"
              sets+=(--set contact.delassus=blocks) ;;
      launches) nsn=device name=table3_nsn_device_dense_launches graph=off
                what=", W dense, no CUDA graphs" sets+=(--set contact.delassus=dense) ;;
      allcols) nsn=device name=table3_nsn_device_allcols wcols=off
               what=", W matrix-free through all of S" ;;
      mfreads) nsn=device name=table3_nsn_device_mfreads mfq=off
               what=", the host reading the decisions where W is matrix-free" ;;
      exact) nsn=device name=table3_nsn_device_exact what=", the friction rows' exact Jacobian (GMRES)"
             sets+=(--set contact.newton_jacobian=exact) ;;
    esac
    spent "table3 $v" && continue
    echo "== table3, Newton solve on the $nsn$what (at most $(($(left) - 10)) s)"
    SIMCTL_CUDA_FUSE=$fuse SIMCTL_CUDA_GRAPH=$graph SIMCTL_CUDA_NSN=$nsn SIMCTL_CUDA_WCOLS=$wcols \
      SIMCTL_CUDA_MF_QUEUE=$mfq SIMCTL_CUDA_PDL=$pdl SIMCTL_CUDA_TUNE=$tune \
      timeout -k 10 $(($(left) - 10)) bash "$ROOT/scripts/table3.sh" \
      --simctl "$SIMCTL" --out "$OUT/$name" --rows "$ROWS" "${sets[@]}" | tee "$OUT/$name.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || FAIL=1
    # the contact frames' time outside the buckets, on frames whose contact count changed and
    # on the others (docs/gpu_checklist.md reads it); a report of its own, not a check
    if command -v python3 > /dev/null && [ -d "$OUT/$name" ]; then
      python3 "$ROOT/scripts/frame_gaps.py" "$OUT/$name" > "$OUT/$name.gaps.md" ||
        echo "(frame_gaps.py could not read $OUT/$name)"
    fi
  done
fi
# (after table3: in a call with both, the contact rows come first and the global step's sweep,
# about a minute, takes what is left)
if want global && ! spent global; then
  echo "== global (at most $(($(left) - 10)) s)"
  timeout -k 10 $(($(left) - 10)) bash "$ROOT/scripts/bench_gpu.sh" --simctl "$SIMCTL" \
    --out "$OUT/global" --global-only | tee "$OUT/global_step.md"
  [ "${PIPESTATUS[0]}" -eq 0 ] || FAIL=1
  # whether the gathers' batches (SIMCTL_CUDA_GATHER_BATCH) put their loads in flight together
  # in the build that ran: scripts/sass_loads.py on the machine code of every k_rows and k_cols
  # instantiation and architecture (each loop's memory latencies an entry of S under its model),
  # where the machine has cuobjdump; scripts/kernel_sass.sh gives the same table without a GPU
  CUOBJDUMP=$(command -v cuobjdump || ls "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump" 2>/dev/null || true)
  if [ "$EMU" != 1 ] && [ -n "$CUOBJDUMP" ]; then
    "$CUOBJDUMP" -sass "$SIMCTL" 2>/dev/null |
      python3 "$ROOT/scripts/sass_loads.py" --match 'k_rows|k_cols' >"$OUT/global_loads.txt" ||
      echo "sass_loads.py read no gather kernel in $SIMCTL's machine code" >>"$OUT/global_loads.txt"
    echo "the gathers' loads and waits an entry of S, from their machine code (global_loads.txt):"
    cat "$OUT/global_loads.txt"
  else
    echo "no cuobjdump here (or --emu): the gathers' machine code not read" | tee "$OUT/global_loads.txt"
  fi
  # the contact solve's product with W formed against its block form, per row count (some
  # seconds on a GPU): where the block form starts to win is SIM_CUDA_BLOCK_ROWS
  BW="$(dirname "$SIMCTL")/simctl-bench-wprod" WROWS=()
  [ "$EMU" = 1 ] && BW="$BW-emu" WROWS=(--rows 96,300 --reps 2)
  if ! spent "global's W products"; then
    echo "== W's products, formed and in block form (at most $(($(left) - 10)) s)"
    timeout -k 10 $(($(left) - 10)) "$BW" "${WROWS[@]}" | tee "$OUT/w_products.csv"
    [ "${PIPESTATUS[0]}" -eq 0 ] || FAIL=1
  fi
fi

# the local step's projections with their registers bounded (SIMCTL_CUDA_LOCAL_BLOCKS) or not,
# or split in two kernels (SIMCTL_CUDA_LOCAL_SPLIT)
if want local && ! spent local; then
  echo "== local (at most $(($(left) - 10)) s)"
  timeout -k 10 $(($(left) - 10)) bash "$ROOT/scripts/bench_local.sh" --simctl "$SIMCTL" \
    --out "$OUT/local" | tee "$OUT/local_step.md"
  [ "${PIPESTATUS[0]}" -eq 0 ] || FAIL=1
fi

if want converge; then
  for E in 1e5 1e7 1e9; do
    spent "converge E=$E" && continue
    echo "== converge on the GPU (Fig. 9, E = $E; at most $(($(left) - 10)) s)"
    timeout -k 10 $(($(left) - 10)) "$SIMCTL" converge "$ROOT/scenes/twisting_bar.json" \
      --frame 800 --iterations 300 --device cuda --out "$OUT/converge/E$E" \
      --set bodies.0.material.youngs_modulus="$E" | tee -a "$OUT/converge.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || FAIL=1
  done
fi
# the frames' files written by the loop against the writer thread (output.async), on the device
# as `auto` picks it there: the script compares the two runs' files and fails where they differ
if want output && ! spent output; then
  echo "== output (output.async off and on; at most $(($(left) - 10)) s)"
  OFRAMES=()
  [ "$EMU" = 1 ] && OFRAMES=(--frames 4)
  timeout -k 10 $(($(left) - 10)) bash "$ROOT/scripts/bench_output.sh" --simctl "$SIMCTL" \
    --device cuda --out "$OUT/output" ${OFRAMES[@]+"${OFRAMES[@]}"} | tee "$OUT/output.md"
  [ "${PIPESTATUS[0]}" -eq 0 ] || FAIL=1
fi
# where the frame goes: first each example's table3 run with SIMCTL_CUDA_RANGES=on, which needs
# no profiler (ranges.md: detection's host and device ranges a frame, scripts/ranges_table.py);
# then, where the machine has Nsight Systems, the same runs under it, their kernels and CUDA
# calls summed (nsys stats: time, count, average per name), as CSV and as text
if want profile && ! spent profile; then
  NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys \
    /usr/local/cuda/nsight-systems-*/bin/nsys 2>/dev/null | head -n 1 || true)
  mkdir -p "$OUT/profile"
  : >"$OUT/profile.txt"
  if [ "$EMU" != 1 ]; then
    for ex in ${PROFILE//,/ }; do
      spent "profile ranges $ex" && continue
      echo "== ranges $ex (SIMCTL_CUDA_RANGES=on; at most $(($(left) - 10)) s)" |
        tee -a "$OUT/profile.txt"
      SIMCTL_CUDA_RANGES=on timeout -k 10 $(($(left) - 10)) bash "$ROOT/scripts/table3.sh" \
        --simctl "$SIMCTL" --out "$OUT/profile/$ex.ranges" --rows small --only "$ex" \
        --set solver.device=cuda >>"$OUT/profile.txt" 2>&1 || FAIL=1
    done
    set -- "$OUT"/profile/*.ranges/*/ranges.csv
    if [ -e "$1" ] && command -v python3 >/dev/null; then
      python3 "$ROOT/scripts/ranges_table.py" "${@%/ranges.csv}" >"$OUT/ranges.md" || FAIL=1
      cat "$OUT/ranges.md"
    fi
  fi
  if [ -z "$NSYS" ] || [ "$EMU" = 1 ]; then
    { echo "nsys not found (or --emu): the runs under Nsight Systems skipped; the CUDA toolkit's programs here:"
      ls "${CUDA_HOME:-/usr/local/cuda}/bin" 2>/dev/null | tr '\n' ' '; echo; } |
      tee -a "$OUT/profile.txt"
  else
    for ex in ${PROFILE//,/ }; do
      spent "profile $ex" && continue
      echo "== profile $ex ($NSYS; at most $(($(left) - 10)) s)" | tee -a "$OUT/profile.txt"
      timeout -k 10 $(($(left) - 10)) "$NSYS" profile --trace=cuda,nvtx --cuda-graph-trace=node \
        --sample=none --cpuctxsw=none --force-overwrite=true -o "$OUT/profile/$ex" \
        bash "$ROOT/scripts/table3.sh" --simctl "$SIMCTL" --out "$OUT/profile/$ex.table3" \
        --rows small --only "$ex" --set solver.device=cuda >>"$OUT/profile.txt" 2>&1 || FAIL=1
      # the reports' names since nsys 2023, then the older ones
      # (nvtx_sum: the host's named ranges, gpu/range_cuda.h: detection's queue, wait, take,
      # the host's reads, contact_begin and the settle, within `cd: collision detection`)
      for r in cuda_gpu_kern_sum:gpukernsum cuda_api_sum:cudaapisum \
        cuda_gpu_mem_time_sum:gpumemtimesum nvtx_sum:nvtxsum; do
        for name in ${r%%:*} ${r##*:}; do
          "$NSYS" stats --report "$name" --format csv --force-export=true \
            --output "$OUT/profile/${ex}" "$OUT/profile/$ex.nsys-rep" >/dev/null 2>&1 || continue
          "$NSYS" stats --report "$name" "$OUT/profile/$ex.nsys-rep" 2>/dev/null |
            head -n 45 >>"$OUT/profile.txt"
          break
        done
      done
      rm -f "$OUT/profile/$ex.sqlite" "$OUT/profile/$ex.nsys-rep" # large; the sums stay
    done
    grep -E "^== |Time \(%\)" "$OUT/profile.txt" | head -n 20
  fi
fi
# the issue's two goals and the figures the defaults follow from, from whatever parts ran
# (scripts/gpu_goals.py): printed last, so that a caller reading only the output's end sees them
if command -v python3 > /dev/null; then
  python3 "$ROOT/scripts/gpu_goals.py" "$OUT" > "$OUT/goals.md" && cat "$OUT/goals.md" ||
    echo "(gpu_goals.py could not read $OUT)"
fi
RESULT="all passed"
[ $FAIL = 0 ] || RESULT="FAILED (see $OUT)"
echo "gpu_report.sh: $RESULT in $((SECONDS - T0)) s"
exit $FAIL
