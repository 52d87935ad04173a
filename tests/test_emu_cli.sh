#!/usr/bin/env bash
# The checks' eval and awk programs are single-quoted on purpose.
# shellcheck disable=SC2016
# SPDX-License-Identifier: MIT
# The CUDA backend through the simctl program, on the host emulation of CUDA (simctl-emu,
# tests/emu). Notices: a graph capture the driver refuses (SIMCTL_EMU_NO_CAPTURE) leaves the
# run going, with one `simctl: note:` line on stderr (none with --quiet) and backend_notes and
# backend_note in summary.json; a run whose captures work has neither. The device: --gpu N
# (solver.gpu) runs on CUDA device N, every device allocation made there (the emulation shows
# SIMCTL_EMU_DEVICES devices and reports where memory was allocated), and summary.json names
# it, memory.csv the device memory after set-up and summary.json at the end; a device that
# is not there is exit 7 with one line naming it, before any output, and so are a missing
# driver and one older than the runtime (SIMCTL_EMU_DRIVER=none, old), and a device whose
# architecture the build has no kernels for (SIMCTL_EMU_CC), which --device auto leaves for the
# CPU with a note. A scripted obstacle in
# the frames the writer thread writes is drawn at each frame's time. scripts/emu_frame_costs.sh
# --sites: the kernels of a frame by launch site add up to its kernels run. simctl-bench-global's
# CSV row has its fields where scripts/bench_gpu.sh reads them.
# usage: test_emu_cli.sh PATH/TO/simctl-emu SIMCTL_CUDA_ARCHS   (the build's, comma-separated;
#        fixture tests/data/cli/tiny_bar.json)
set -u

if [ $# -ne 2 ] || [ ! -x "$1" ]; then
  echo "usage: $0 PATH/TO/simctl-emu SIMCTL_CUDA_ARCHS" >&2
  exit 2
fi
SIMCTL=$1 ARCHS=$2
DATA=$(cd "$(dirname "$0")" && pwd)/data/cli
T=$(mktemp -d "${TMPDIR:-/tmp}/simctl-emu-cli.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
export SIMCTL_CACHE_DIR=$T/cache
failed=0

check() { # check NAME CONDITION...
  local name=$1
  shift
  if "$@"; then
    echo "ok: $name"
  else
    echo "FAILED: $name" >&2
    failed=1
  fi
}

# run NAME [ENV=VALUE...] -- [simctl options]: 4 frames of tiny_bar on the CUDA backend
run() {
  local name=$1
  shift
  local envs=()
  while [ "$1" != "--" ]; do
    envs+=("$1")
    shift
  done
  shift
  env "${envs[@]}" "$SIMCTL" run "$DATA/tiny_bar.json" --device cuda --out "$T/$name" \
    --frames 4 "$@" >"$T/$name.out" 2>"$T/$name.err"
  echo $? >"$T/$name.rc"
}

notes() { grep -c '^simctl: note: ' "$T/$1.err"; }

for mode in 1 inside end; do
  run "refused_$mode" SIMCTL_EMU_NO_CAPTURE=$mode --
  check "refused at the $mode: exit 0" [ "$(cat "$T/refused_$mode.rc")" = 0 ]
  check "refused at the $mode: one note on stderr" [ "$(notes "refused_$mode")" = 1 ]
  check "refused at the $mode: the note names the frame, the graph and the launches" \
    grep -q '^simctl: note: frame 2: CUDA: capturing the L-G iterations into a graph failed (.*); its kernels are launched one by one from here on' \
    "$T/refused_$mode.err"
  check "refused at the $mode: summary.json counts it" \
    grep -q '"backend_notes":[[:space:]]*1,' "$T/refused_$mode/summary.json"
  check "refused at the $mode: summary.json keeps it" \
    grep -q '"backend_note":[[:space:]]*"CUDA: capturing the L-G iterations' \
    "$T/refused_$mode/summary.json"
  check "refused at the $mode: every frame written" [ -f "$T/refused_$mode/frames/00004.vtk" ]
done

run quiet SIMCTL_EMU_NO_CAPTURE=end -- --quiet
check "--quiet: exit 0" [ "$(cat "$T/quiet.rc")" = 0 ]
check "--quiet: nothing on stderr" [ ! -s "$T/quiet.err" ]
check "--quiet: summary.json keeps the note" \
  grep -q '"backend_notes":[[:space:]]*1,' "$T/quiet/summary.json"

run graphs SIMCTL_CUDA_GRAPH=on --
check "graphs: exit 0" [ "$(cat "$T/graphs.rc")" = 0 ]
check "graphs: no note" [ "$(notes graphs)" = 0 ]
check "graphs: no backend_note in summary.json" \
  bash -c "! grep -q backend_note '$T/graphs/summary.json'"

# SIMCTL_CUDA_TUNE=on: the gathers' variants timed at the start, the kept ones named in
# summary.json's system.gathers; the same sums, so the same frames, bit for bit, as the default
run tuned SIMCTL_CUDA_TUNE=on --
check "SIMCTL_CUDA_TUNE=on: exit 0, no note" \
  eval '[ "$(cat "$T/tuned.rc")" = 0 ] && [ "$(notes tuned)" = 0 ]'
check "SIMCTL_CUDA_TUNE=on: summary.json says what was timed and kept, the default run that it was not tuned" \
  eval 'tr -d " \t\n" < "$T/tuned/summary.json" |
    grep -Eq "\"gathers\":\{\"rows\":\"(indexed|interval)\",\"row_batch\":[148],\"cols\":\"(indexed|runs)\",\"col_batch\":[148],\"tuned\":true,\"tune_ms\":[0-9.e+-]+,\"timed\":\[" &&
    [ "$(grep -c "\"kept\":[[:space:]]*true" "$T/tuned/summary.json")" = 2 ] &&
    tr -d " \t\n" < "$T/graphs/summary.json" | grep -q "\"col_batch\":1,\"tuned\":false}"'
check "SIMCTL_CUDA_TUNE=on: the same frames as the default, bit for bit" \
  cmp -s "$T/tuned/frames/00004.vtk" "$T/graphs/frames/00004.vtk"

# a bad value of a contact stage's switch (the contact scene's stage reads them): exit 2, one
# line naming it, nothing written
SCENES=$(cd "$(dirname "$0")/.." && pwd)/scenes
# contact.newton_jacobian "exact" on the CUDA backend: its GMRES Newton solve runs on the device
# (gpu/gmres_cuda.cu), and the box on the slope sticks as on the CPU: under 10 µm after
# 10 steps (its elastic settling, about 1 µm), the two within 1 µm of each other (lagged, it
# creeps 0.12 mm in them)
for dev in cpu cuda; do
  "$SIMCTL" run "$SCENES/stick_slip.json" --device "$dev" --frames 10 --quiet --out "$T/exact_$dev" \
    --set obstacles.0.mu=0.2 --set contact.newton_jacobian=exact --set 'output.formats=["csv"]' \
    2>"$T/exact_$dev.err"
done
exact_dx() { awk '/"displacement"/ { sub(/.*\[/, ""); split($0, d, ","); print d[1]; exit }' \
  "$T/exact_$1/summary.json"; }
check "newton_jacobian exact: the box sticks on both backends, within 1 µm of each other" \
  awk -v a="$(exact_dx cpu)" -v b="$(exact_dx cuda)" \
  'BEGIN { exit !(a != "" && b != "" && a < 1e-5 && b < 1e-5 && (a - b < 1e-6 && b - a < 1e-6)) }'
SIMCTL_CUDA_CR_STEP=maybe "$SIMCTL" run "$SCENES/soft_box_on_slab.json" --device cuda \
  --out "$T/cr_step" --frames 1 >"$T/cr_step.out" 2>"$T/cr_step.err"
echo $? >"$T/cr_step.rc"
check "SIMCTL_CUDA_CR_STEP=maybe: exit 2 (usage)" [ "$(cat "$T/cr_step.rc")" = 2 ]
check "SIMCTL_CUDA_CR_STEP=maybe: one line naming it and what it takes" \
  [ "$(cat "$T/cr_step.err")" = "simctl: error: SIMCTL_CUDA_CR_STEP=maybe: expected apart or merged" ]
check "SIMCTL_CUDA_CR_STEP=maybe: nothing written" [ ! -e "$T/cr_step" ]

# a constraint pin scripted past what a double can square: the device Newton solve's merit
# (read back at the settle) and the host's both stop the run at frame 1 with exit 5
for nsn in device host; do
  run "farpin_$nsn" SIMCTL_CUDA_NSN=$nsn -- --quiet --set \
    'pins=[{"body":0,"box":[-1,0.9,-1,1,1.1,1],"mode":"constraint","script":[{"type":"pulling","direction":[1,0,0],"speed":1e200,"length":1e300}]}]'
  check "pin at 1e200 m/s, $nsn Newton solve: exit 5" [ "$(cat "$T/farpin_$nsn.rc")" = 5 ]
  check "pin at 1e200 m/s, $nsn Newton solve: the line names frame 1 and the overflow" \
    grep -q "tiny_bar.json: frame 1: the contact solve's residual overflowed" "$T/farpin_$nsn.err"
done

# --gpu N: the device chosen for every allocation, named in summary.json
run gpu1 SIMCTL_EMU_DEVICES=2 SIMCTL_EMU_REPORT=1 -- --gpu 1
check "--gpu 1 of 2: exit 0" [ "$(cat "$T/gpu1.rc")" = 0 ]
check "--gpu 1 of 2: device memory allocated on device 1 alone" \
  grep -qx 'simctl CUDA emulation: device memory allocated on devices: 1' "$T/gpu1.err"
check "--gpu 1 of 2: summary.json names GPU 1" \
  grep -q '"device":[[:space:]]*".*(GPU 1, sm_' "$T/gpu1/summary.json"
check "memory.csv: the device memory after set-up" \
  grep -Eq '^device,[0-9.]+(e-?[0-9]+)?,MiB$' "$T/gpu1/memory.csv"
check "summary.json: the device memory at the end" \
  grep -Eq '"device_MiB":[[:space:]]*[0-9.]+' "$T/gpu1/summary.json"
run gpu0 SIMCTL_EMU_DEVICES=2 SIMCTL_EMU_REPORT=1 --
check "no --gpu: device 0" \
  grep -qx 'simctl CUDA emulation: device memory allocated on devices: 0' "$T/gpu0.err"
run gpu_missing SIMCTL_EMU_DEVICES=2 -- --gpu 2
check "--gpu 2 of 2: exit 7 (device)" [ "$(cat "$T/gpu_missing.rc")" = 7 ]
check "--gpu 2 of 2: one error line naming the device and those found" \
  [ "$(cat "$T/gpu_missing.err")" = "simctl: error: --device cuda: no CUDA device 2 (solver.gpu, --gpu): 2 found, devices 0 to 1" ]
check "--gpu 2 of 2: no output written" [ ! -e "$T/gpu_missing/frames" ]

# no driver, or one older than the runtime: exit 7 with one line saying which, in those terms
run nodriver SIMCTL_EMU_DRIVER=none --
check "no driver: exit 7, one line" [ "$(cat "$T/nodriver.rc")" = 7 ]
check "no driver: the line says so" [ "$(cat "$T/nodriver.err")" = "simctl: error: --device cuda: no NVIDIA driver found (libcuda.so.1 cannot be loaded)" ]
run olddriver SIMCTL_EMU_DRIVER=old --
check "an old driver: exit 7" [ "$(cat "$T/olddriver.rc")" = 7 ]
check "an old driver: the line names both versions and the remedies" \
  [ "$(cat "$T/olddriver.err")" = "simctl: error: --device cuda: the NVIDIA driver supports CUDA 12.9, older than the CUDA 13.0 runtime this simctl was built with: update the driver, or build simctl with an older CUDA toolkit" ]

# a GPU the build has no kernels for (SIMCTL_EMU_CC: the device's architecture; the build's are
# SIMCTL_CUDA_ARCHS): --device cuda is exit 7 with one line naming both and the remedy, before
# any output; --device auto runs on the CPU with a note saying why
run sm61 SIMCTL_EMU_CC=6.1 --
check "an sm_61 device: exit 7, no output written" \
  eval '[ "$(cat "$T/sm61.rc")" = 7 ] && [ ! -e "$T/sm61/frames" ]'
check "an sm_61 device: one line naming it, the build's architectures and the remedy" \
  [ "$(cat "$T/sm61.err")" = "simctl: error: --device cuda: CUDA device 0 (host emulation of CUDA (tests/emu, not a GPU), sm_61) cannot run this simctl's kernels (no kernel image is available for execution on the device): they are built for $ARCHS (SIMCTL_CUDA_ARCHS); build for it with make build CUDA_ARCHS=61-real" ]
SIMCTL_EMU_CC=6.1 "$SIMCTL" run "$DATA/tiny_bar.json" --device auto --out "$T/sm61auto" \
  --frames 2 >/dev/null 2>"$T/sm61auto.err"
rc=$?
check "an sm_61 device, --device auto: exit 0 on the CPU with the note" eval '[ $rc = 0 ] &&
  grep -q "\"backend\":[[:space:]]*\"cpu\"" "$T/sm61auto/summary.json" &&
  grep -q "^simctl: note: running on the CPU (CUDA device 0 (.*, sm_61) cannot run" "$T/sm61auto.err"'
if [ "$ARCHS" = "75-real,80-real,90-real,90-virtual" ]; then # the default's reach
  for cc in 8.9 12.0; do # sm_80's machine code on an sm_89 device; sm_90's PTX on sm_120
    run "cc$cc" SIMCTL_EMU_CC=$cc --
    check "an sm_${cc/./} device: runs on CUDA with the default architectures" eval \
      '[ "$(cat "$T/cc$cc.rc")" = 0 ] && grep -q "\"backend\":[[:space:]]*\"cuda\"" "$T/cc$cc/summary.json"'
  done
fi

# simctl devices: each device by its --gpu index, its architecture and whether the kernels run
# there (a row's reason under it where not); --csv; no driver: exit 7 with one line
SIMCTL_EMU_DEVICES=2 "$SIMCTL" devices >"$T/dev.out" 2>"$T/dev.err"
rc=$?
check "devices: exit 0, the build's architectures and two rows that run" eval '[ $rc = 0 ] &&
  grep -q "^simctl .*: kernels built for $ARCHS (SIMCTL_CUDA_ARCHS); CUDA runtime 13.0, driver 13.0$" "$T/dev.out" &&
  [ "$(grep -c "^[01] .* sm_90 .*80.0 GiB  yes$" "$T/dev.out")" = 2 ] && [ ! -s "$T/dev.err" ]'
SIMCTL_EMU_CC=6.1 "$SIMCTL" devices >"$T/dev61.out" 2>&1
rc=$?
check "devices, an sm_61 device: its row says no, with the reason under it" eval '[ $rc = 0 ] &&
  grep -q "^0 .* sm_61 .*  no$" "$T/dev61.out" &&
  grep -q "^     CUDA device 0 (.*, sm_61) cannot run this simctl.s kernels" "$T/dev61.out"'
SIMCTL_EMU_DEVICES=2 "$SIMCTL" devices --csv >"$T/devcsv.out" 2>&1
check "devices --csv: the header, a row per device, the name quoted (it holds a comma)" \
  [ "$(cat "$T/devcsv.out")" = "gpu,name,arch,memory_gib,runs
0,\"host emulation of CUDA (tests/emu, not a GPU)\",sm_90,80.0,yes
1,\"host emulation of CUDA (tests/emu, not a GPU)\",sm_90,80.0,yes" ]
SIMCTL_EMU_DRIVER=none "$SIMCTL" devices >"$T/devnone.out" 2>"$T/devnone.err"
rc=$?
check "devices, no driver: exit 7, one line, nothing on stdout" eval '[ $rc = 7 ] &&
  [ "$(cat "$T/devnone.err")" = "simctl: error: devices: no NVIDIA driver found (libcuda.so.1 cannot be loaded)" ] &&
  [ ! -s "$T/devnone.out" ]'

# a scripted obstacle in the frames the writer thread writes (output.async, on by default with
# CUDA) from snapshots handed on after the next step: drawn at each frame's time, x = 2.9 + 2 t
run moving -- --set 'output.formats=["obj"]' --set 'obstacles=[{"type": "box",
  "center": [3, 0, 0], "half_extents": [0.1, 0.1, 0.1], "script": [{"type": "pulling",
  "direction": [1, 0, 0], "speed": 2, "length": 100}]}]'
check "a scripted obstacle: exit 0, the writer thread" eval '[ "$(cat "$T/moving.rc")" = 0 ] &&
  grep -q "\"output_async\":[[:space:]]*true" "$T/moving/summary.json"'
for f in 0 1 2 3 4; do
  check "a scripted obstacle: frame $f drawn at t = $f/100" awk -v f="$f" '
    NR == 1 { ok = ($5 == f && ($7 - f / 100) ^ 2 < 1e-20); t = $7 }
    /^v / { if (!n++ || $2 < lo) lo = $2 }
    END { exit !(ok && n == 8 && (lo - 2.9 - 2 * t) ^ 2 < 1e-18) }' \
    "$T/moving/frames/0000$f.obstacles.obj"
done

# SIMCTL_CUDA_RANGES=on: ranges.csv beside timing.csv, each host and device range of
# collision detection counted and summed (gpu/range_cuda.h); the bar resting on a box, with a
# cube of triangles beside it, so that the mesh obstacle's points have their pass too. Off (the
# default) writes none and clears one an earlier run left; its host waits are the same (the
# device ranges read their events after the waits there are).
RANGE_OBS='obstacles=[{"type": "box", "center": [0, -1.3, 0], "half_extents": [2, 0.3, 2]},
  {"type": "mesh", "path": "'"$DATA"'/cube.obj", "transform": {"translate": [0.6, -1, -0.5]}}]'
run ranges SIMCTL_CUDA_RANGES=on SIMCTL_EMU_REPORT=1 -- --set "$RANGE_OBS"
check "SIMCTL_CUDA_RANGES=on: exit 0" [ "$(cat "$T/ranges.rc")" = 0 ]
ranges_table() { # every row's count and sums sound; the ranges the frames must have
  awk -F, 'NR == 1 { ok = $0 == "range,clock,count,total_ms,mean_us"; next }
    { if (NF != 5 || $3 !~ /^[0-9]+$/ || $4 < 0 || ($3 > 0 && ($5 - 1e3 * $4 / $3) ^ 2 > 1e-3))
        bad = 1
      name = $1; gsub(/"/, "", name); n[$2 ":" name] = $3 }
    END { exit !(ok && !bad && n["host:settle: wait for the frame"] == 4 &&
                 n["host:cd: collision detection"] >= 4 &&
                 n["host:detect: wait for the passes"] >= 4 &&
                 n["device:detect: inputs up"] >= 8 && n["device:detect: query (k_query)"] >= 8 &&
                 n["device:points: refit and query (k_points)"] >= 4) }' \
    "$T/ranges/ranges.csv" || { cat "$T/ranges/ranges.csv" "$T/ranges.err" >&2; false; }
}
check "SIMCTL_CUDA_RANGES=on: ranges.csv, the frames' host and device ranges" ranges_table
# scripts/ranges_table.py: a row a range, a frame's share (the settles count the frames)
python3 "$(dirname "$0")/../scripts/ranges_table.py" "$T/ranges" >"$T/rtable.out" 2>&1
rtable_rc=$?
ranges_md() {
  [ "$rtable_rc" = 0 ] && awk -F' [|] ' -v csv="$T/ranges/ranges.csv" '
    BEGIN { while ((getline l < csv) > 0) if (l ~ /^"cd: collision detection",host,/) {
              split(l, f, ","); want = f[4] / 4 } }
    /^### ranges \(4 frames\)$/ { head = 1 }
    $1 == "| cd: collision detection" { got = $3 }
    /^timing.csv.s cd: [0-9.]+ ms a frame\.$/ { cd = 1 }
    END { exit !(head && cd && want > 0 && (got - want) ^ 2 < 1e-8) }' "$T/rtable.out" ||
    { cat "$T/rtable.out" >&2; false; }
}
check "ranges_table.py: the frames counted, cd's row a frame, timing.csv's cd" ranges_md
mkdir -p "$T/ranges_off" && cp "$T/ranges/ranges.csv" "$T/ranges_off/ranges.csv"
run ranges_off SIMCTL_EMU_REPORT=1 -- --set "$RANGE_OBS"
check "SIMCTL_CUDA_RANGES off: no ranges.csv, an earlier run's cleared" eval \
  '[ "$(cat "$T/ranges_off.rc")" = 0 ] && [ ! -e "$T/ranges_off/ranges.csv" ]'
python3 "$(dirname "$0")/../scripts/ranges_table.py" "$T/ranges_off" >"$T/rtable2.out" \
  2>"$T/rtable2.err"
rtable2_rc=$?
check "ranges_table.py without ranges.csv: exit 1, one line naming it" eval \
  '[ $rtable2_rc = 1 ] && [ "$(wc -l <"$T/rtable2.err")" = 1 ] && grep -q "ranges_off/ranges.csv" "$T/rtable2.err"'
costs() { grep -E "emulation: [0-9]+ (host waits|kernels launched|bytes copied)" "$1" ||
  echo "no counts in $1"; }
check "SIMCTL_CUDA_RANGES=on: the host waits, kernels and copies of a run without" eval \
  '[ "$(costs "$T/ranges.err")" = "$(costs "$T/ranges_off.err")" ]'
run ranges_bad SIMCTL_CUDA_RANGES=yes --
check "SIMCTL_CUDA_RANGES=yes: exit 2, one line naming it" eval '[ "$(cat "$T/ranges_bad.rc")" = 2 ] &&
  [ "$(cat "$T/ranges_bad.err")" = "simctl: error: SIMCTL_CUDA_RANGES=yes: expected off or on" ]'

# scripts/emu_frame_costs.sh --sites: the kernels per frame by launch site add up to the
# table's kernels run, each site a line of gpu/
"$(dirname "$0")/../scripts/emu_frame_costs.sh" --simctl "$SIMCTL" --frames 1,3 --sites \
  "$DATA/tiny_bar.json" >"$T/costs.out" 2>"$T/costs.err"
costs_rc=$?
sites_add_up() {
  [ "$costs_rc" = 0 ] && awk -F"|" '/^\| tiny_bar / { run = $8 + 0 }
    /^\| [0-9.]+ \| gpu\/[a-z_]+\.cu:[0-9]+ \|$/ { s += $2; n++ }
    END { exit !(n >= 3 && run > 0 && s == run) }' "$T/costs.out" || { cat "$T/costs.out" >&2; false; }
}
check "emu_frame_costs.sh --sites: exit 0, the sites' kernels add up to the frame's" sites_add_up

# simctl-bench-global (its emulation build, beside simctl-emu): one CSV row whose fields sit
# where scripts/bench_gpu.sh reads them by place (the device's name, with commas, shifted the
# row gather's chunk and the column warps until 2026-12-02), the chunk asked for in its field
BG="$(dirname "$SIMCTL")/simctl-bench-global-emu"
SIMCTL_CUDA_ROW_CHUNK=1024 "$BG" "$DATA/tiny_bar.json" --reps 1 >"$T/bench.out" 2>"$T/bench.err"
bench_rc=$?
SIMCTL_CUDA_S_ROWS=interval SIMCTL_CUDA_S_COLS=runs "$BG" "$DATA/tiny_bar.json" --reps 1 \
  >"$T/bench2.out" 2>"$T/bench2.err"
bench2_rc=$?
SIMCTL_CUDA_SPMV=cusparse "$BG" "$DATA/tiny_bar.json" --reps 1 >"$T/bench3.out" 2>"$T/bench3.err"
bench3_rc=$?
# rows of their own settings from one run (--variant), each variant's environment put back
SIMCTL_CUDA_GATHER_BATCH=4 "$BG" "$DATA/tiny_bar.json" --reps 1 \
  --variant "SIMCTL_CUDA_S_ROWS=interval solver.precision=float" \
  --variant "SIMCTL_CUDA_ROW_SPLIT=off SIMCTL_CUDA_GATHER_BATCH=8" \
  --variant "" --variant "SIMCTL_CUDA_TUNE=on SIMCTL_CUDA_S_COLS=runs" \
  >"$T/bench4.out" 2>"$T/bench4.err"
bench4_rc=$?
bench_fields() {
  [ "$bench_rc" = 0 ] && awk -F, 'NR == 1 { head = NF }
    NR == 2 { row = NF; ok = $3 == "sparse_inverse" && $6 == "kernel" && $7 > 0 && $11 > 0 &&
              $12 ~ /emulation/ && $13 == 1024 && $16 >= 1 && $18 == "indexed" && $19 == "indexed" &&
              $20 > 0 && $21 > 0 && $22 > 0 && $23 > 0 && $24 > 0 && $25 > 0 && $26 == 1 &&
              $27 == 1 && $28 == 0 && $29 > 0 && $30 > 0 && $31 > 0 && $32 > 0 && $33 == 1 &&
              $34 == 0 && $35 == 0 }
    END { exit !(NR == 2 && head == 35 && row == 35 && ok) }' "$T/bench.out" ||
    { cat "$T/bench.out" >&2; false; }
}
check "simctl-bench-global: one row of 35 fields, the chunk in the 13th, S's layouts in the 18th and 19th, each product's time and ratio in 20-23, the cold calls' in 24-25, the rows split, the loads one at a time and the kernels unbounded in 26-28, the step as a graph without and with PDL in 29-32, the columns' loads one at a time and no tuning in 33-35" bench_fields
# S read without its indices: named in the row, and fewer bytes moved than the indexed layout's
# by at least 4 an entry (8 left out, less P b's and the runs' bytes, which a bar of 80 unknowns
# weighs more than a large one)
bench_layouts() {
  [ "$bench2_rc" = 0 ] && awk -F, 'NR == FNR && FNR == 2 { mb = $8 }
    NR > FNR && FNR == 2 { ok = NF == 35 && $18 == "interval" && $19 == "runs" &&
                               $8 < mb - 4e-6 * $4 }
    END { exit !ok }' "$T/bench.out" "$T/bench2.out" ||
    { cat "$T/bench2.out" "$T/bench2.err" >&2; false; }
}
check "simctl-bench-global: SIMCTL_CUDA_S_ROWS=interval, S_COLS=runs named, 4 bytes an entry fewer" bench_layouts
check "simctl-bench-global with cuSPARSE's products: no product alone (0 in 20-23), cold calls timed" eval \
  '[ "$bench3_rc" = 0 ] && awk -F, '"'"'NR == 2 { ok = NF == 35 && $6 == "cusparse" && $20 == 0 &&
    $21 == 0 && $22 == 0 && $23 == 0 && $24 > 0 && $25 > 0 && $26 == 0 && $27 == 0 && $28 == 0 }
    END { exit !ok }'"'"' "$T/bench3.out"'
# three variants: three rows under one header, each with its own layout and precision, the
# last with the caller's environment again (its batch of 4, not the second row's 8)
bench_variants() {
  [ "$bench4_rc" = 0 ] && awk -F, 'NR == 1 { ok = $1 == "scene" && NF == 35 }
    NR == 2 { ok = ok && $5 == "float" && $18 == "interval" && $26 == 1 && $27 == 4 && $28 == 4 &&
              $33 == 4 && $34 == 0 }
    NR == 3 { ok = ok && $5 == "double" && $18 == "indexed" && $26 == 0 && $27 == 8 && $28 == 4 &&
              $33 == 8 }
    NR == 4 { ok = ok && $5 == "double" && $18 == "indexed" && $26 == 1 && $27 == 4 && $28 == 4 &&
              $34 == 0 }
    NR == 5 { ok = ok && $19 == "runs" && $27 == 4 && $33 == 4 && $34 == 1 && $35 > 0 &&
              ($18 == "interval" || $18 == "indexed") }
    END { exit !(NR == 5 && ok) }' "$T/bench4.out" ||
    { cat "$T/bench4.out" "$T/bench4.err" >&2; false; }
}
check "simctl-bench-global --variant: a row each, its settings alone, the environment put back; SIMCTL_CUDA_TUNE=on's row says what it kept (the columns as set, the caller's batch of 4)" \
  bench_variants
"$BG" "$DATA/tiny_bar.json" --variant "SIMCTL_CUDA_S_ROWS=interval COLS=runs" >"$T/bench5.out" \
  2>"$T/bench5.err"
bench5_rc=$?
check "simctl-bench-global --variant: an item that is no SIMCTL_CUDA_ setting refused, one line" \
  eval '[ $bench5_rc = 1 ] && [ ! -s "$T/bench5.out" ] && [ "$(wc -l < "$T/bench5.err")" = 1 ] &&
    grep -q "error: --variant 1: expected SIMCTL_CUDA_NAME=VALUE.*got .COLS=runs." "$T/bench5.err"'
"$BG" "$DATA/tiny_bar.json" --variant "" --variant "SIMCTL_CUDA_GATHER_BACTH=8" \
  >"$T/bench6.out" 2>"$T/bench6.err"
bench6_rc=$?
check "simctl-bench-global --variant: a misspelt setting refused before any row, the nearest named" \
  eval '[ $bench6_rc = 1 ] && [ ! -s "$T/bench6.out" ] && [ "$(wc -l < "$T/bench6.err")" = 1 ] &&
    grep -q "error: --variant 2: SIMCTL_CUDA_GATHER_BACTH: no such setting.*did you mean SIMCTL_CUDA_GATHER_BATCH?" "$T/bench6.err"'
# and in the environment: simctl run refuses it in one line (exit 2), naming the nearest
SIMCTL_CUDA_ROW_CHUNKS=8192 "$SIMCTL" run "$DATA/tiny_bar.json" --device cuda --frames 1 \
  --out "$T/misspelt" --quiet >"$T/misspelt.out" 2>"$T/misspelt.err"
misspelt_rc=$?
check "simctl run --device cuda: a misspelt SIMCTL_CUDA_ setting is exit 2, one line, nothing written" \
  eval '[ $misspelt_rc = 2 ] && [ "$(wc -l < "$T/misspelt.err")" = 1 ] && [ ! -e "$T/misspelt" ] &&
    grep -q "SIMCTL_CUDA_ROW_CHUNKS: no such setting of the CUDA backend (did you mean SIMCTL_CUDA_ROW_CHUNK?)" "$T/misspelt.err"'

# simctl-bench-wprod (its emulation build): W formed and its block form agree (else exit 1),
# then 7 rows of 10 fields per size (each form in double, float and a batch, the preparing
# launch), with positive times; a row count that is no multiple of 3 is refused in one line
BW="$(dirname "$SIMCTL")/simctl-bench-wprod-emu"
"$BW" --rows 96,300 --reps 1 >"$T/wprod.out" 2>"$T/wprod.err"
wprod_rc=$?
wprod_rows() {
  [ "$wprod_rc" = 0 ] && awk -F, 'NR == 1 { head = NF == 10 && $2 == "rows" }
    NR > 1 { n++; ok += NF == 10 && ($2 == 96 || $2 == 300) && $6 > 0 &&
             ($3 == "formed" || $3 == "blocks" || $3 == "prepare") }
    END { exit !(head && n == 14 && ok == 14) }' "$T/wprod.out" ||
    { cat "$T/wprod.out" >&2; false; }
}
check "simctl-bench-wprod: 14 rows of 10 fields, the two forms agreeing" wprod_rows
"$BW" --rows 100 >"$T/wprod_bad.out" 2>"$T/wprod_bad.err"
wprod_bad_rc=$?
wprod_refused() {
  [ "$wprod_bad_rc" = 1 ] && [ "$(wc -l <"$T/wprod_bad.err")" = 1 ] &&
    grep -q "multiples of 3" "$T/wprod_bad.err"
}
check "simctl-bench-wprod: --rows 100 refused in one line" wprod_refused

if [ "$failed" != 0 ]; then
  for f in "$T"/*.err; do
    echo "--- $f" >&2
    cat "$f" >&2
  done
fi
exit "$failed"
