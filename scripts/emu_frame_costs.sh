#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a frame of the CUDA backend costs the host, counted on the host emulation of CUDA
# (tests/emu; build/simctl-emu, built by `make build` where nvcc exists): host waits for the
# device, kernels launched one by one and captured into graphs, graphs captured and launched,
# the kernels run (launched one by one, and run by the graphs' launches: on a GPU each costs
# the device solve some microseconds whatever its size), bytes copied to the device and to the
# host, and allocations and frees of device and page-locked memory (cudaMalloc and the like:
# on a GPU each costs the host microseconds or more, and a free waits for the device). Each scene runs twice, N1 and N2 frames, and the
# difference over N2 - N1 leaves out the set-up and the first frames. These are counts, not
# times: they say nothing of a GPU's speed, but every wait and every copy they count is one a
# GPU makes too (tests/emu/README.md).
# --sites adds, per scene, the kernels run per frame at each launch site (the `<<<...>>>`'s file
# and line; a graph's kernels at the lines that queued them when it was captured), the most
# first: where a frame's kernels are.
# usage: scripts/emu_frame_costs.sh [--simctl PATH] [--frames N1,N2] [--set KEY=VALUE]...
#                                   [--env NAME=VALUE]... [--sites] SCENE...
# e.g.   scripts/emu_frame_costs.sh --env SIMCTL_CUDA_NSN=host scenes/soft_box_on_slab.json
set -euo pipefail
SIMCTL="$(cd "$(dirname "$0")/.." && pwd)"/build/simctl-emu N1=6 N2=8 SITES=0
SETS=() ENVS=() SCENES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --simctl) SIMCTL=${2:?--simctl needs a value}; shift 2 ;;
    --sites) SITES=1; shift ;;
    --frames) N1=${2:?--frames needs a value}; N1=${N1%,*}; N2=${2#*,}; shift 2 ;;
    --set) SETS+=(--set "${2:?--set needs a value}"); shift 2 ;;
    --env) ENVS+=("${2:?--env needs a value}"); shift 2 ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "emu_frame_costs.sh: unknown option '$1' (see the usage at the top)" >&2; exit 2 ;;
    *) SCENES+=("$1"); shift ;;
  esac
done
if [ ${#SCENES[@]} -eq 0 ]; then
  echo "emu_frame_costs.sh: no scene given (see the usage at the top)" >&2
  exit 2
fi
if ! [[ "$N1" =~ ^[0-9]+$ && "$N2" =~ ^[0-9]+$ ]] || [ "$N2" -le "$N1" ]; then
  echo "emu_frame_costs.sh: --frames N1,N2: expected two whole numbers, N1 < N2" >&2
  exit 2
fi
if [ ! -x "$SIMCTL" ]; then
  echo "emu_frame_costs.sh: $SIMCTL: no such program (make build builds it where nvcc exists)" >&2
  exit 2
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# counts SCENE N: the emulation's report of a run of N frames, as "waits launched captured
# graphs glaunches to_device to_host kernels_run allocs frees"
counts() {
  local log="$TMP/report_$2.txt"
  if ! env "${ENVS[@]}" SIMCTL_EMU_REPORT=$((1 + SITES)) "$SIMCTL" run "$1" --device cuda --frames "$2" \
    --quiet --out "$TMP/out" "${SETS[@]}" 2>"$log"; then
    echo "emu_frame_costs.sh: $1: the run failed:" >&2
    grep -v "simctl CUDA emulation" "$log" >&2 || true
    exit 1
  fi
  # (the totals' lines: with --sites the report adds lines "... by calling site")
  awk 'BEGIN {g = 0; gl = 0; r = 0} /: [0-9]+ host waits$/ {w = $4}
       /: [0-9]+ kernels launched/ {l = $4; c = $7}
       /: [0-9]+ graphs captured/ {g = $4; gl = $(NF - 1)}
       /: [0-9]+ bytes copied/ {d = $4; h = $(NF - 3)}
       /: [0-9]+ kernels run by/ {r = $4} /: [0-9]+ allocations \(/ {al = $4; fr = $(NF - 1)}
       END {print w, l, c, g, gl, d, h, l + r, al, fr}' "$log"
}

# sites NAME: the kernels run per frame at each launch site, from the two runs' reports (the
# section after "kernels per launch site"), where the difference is not 0, the most first
sites() {
  echo
  echo "$1: kernels run per frame by launch site"
  echo
  echo "| kernels | site |"
  echo "|---|---|"
  awk -v n="$((N2 - N1))" -v f1="$TMP/report_$N1.txt" '
    FNR == 1 { on = 0 }
    /kernels per launch site/ { on = 1; next }
    on && NF == 2 && $1 ~ /^[0-9]+$/ { sub(/.*\/gpu\//, "gpu/", $2)
                                       if (FILENAME == f1) a[$2] = $1; else b[$2] = $1; next }
    on { on = 0 }
    END { for (k in b) if (b[k] != a[k]) printf "| %g | %s |\n", (b[k] - a[k]) / n, k
          for (k in a) if (!(k in b)) printf "| %g | %s |\n", -a[k] / n, k }' \
    "$TMP/report_$N1.txt" "$TMP/report_$N2.txt" | sort -t'|' -k2,2 -g -r
}

SITE_TABLES=""
echo "frames $N1 and $N2, the difference over $((N2 - N1)): per frame${ENVS[*]:+ (${ENVS[*]})}"
printf '| scene | host waits | kernels launched | kernels captured | graphs captured | graph launches | kernels run | kB to device | kB to host | allocations | frees |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for s in "${SCENES[@]}"; do
  ca=$(counts "$s" "$N1") || exit 1
  cb=$(counts "$s" "$N2") || exit 1
  read -r -a a <<<"$ca"
  read -r -a b <<<"$cb"
  awk -v n="$((N2 - N1))" -v name="$(basename "$s" .json)" \
    -v a="${a[*]}" -v b="${b[*]}" 'BEGIN {
      split(a, x, " "); split(b, y, " ");
      printf "| %s", name;
      for (i = 1; i <= 5; i++) printf " | %g", (y[i] - x[i]) / n;
      printf " | %g", (y[8] - x[8]) / n;
      for (i = 6; i <= 7; i++) printf " | %.1f", (y[i] - x[i]) / n / 1000;
      for (i = 9; i <= 10; i++) printf " | %g", (y[i] - x[i]) / n;
      printf " |\n" }'
  [ "$SITES" = 1 ] && SITE_TABLES+="$(sites "$(basename "$s" .json)")"$'\n'
done
if [ "$SITES" = 1 ]; then
  printf '%s' "$SITE_TABLES"
fi
