#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CUDA backend's elastic Table 3 rows at the paper's sizes (twisting bar 5.3k / 11.3k /
# 20.8k, ARAP; cloth extension 10.2k / 20.2k for each material), per L-G iteration, beside the
# paper's figures (scripts/paper/table3_timings.csv: RTX 4090, local step on a 24-core CPU),
# for S in double and float and for the implementations of the global step's products (the
# hand-written gathers over S and its transpose, cuSPARSE SpMM, and S's rows alone with S^T y
# as a scatter: DESIGN.md Sec. 10's two layouts). The global step is also set against its
# bandwidth limit: the bytes the two products must move (S's values and indices twice, the row
# pointers, the three columns read and written) over the device's bandwidth.
# Runs `frames` frames per row and averages from frame 6 on (the first five warm up).
# usage: scripts/bench_gpu.sh [--simctl PATH] [--frames N] [--bandwidth GBPS] [--out DIR]
#                             [--device cuda|cpu] [--global-only]
#   --global-only: the global step alone (simctl-bench-global), simctl's products only: S in
#                  double and float, the row gather's chunk (SIMCTL_CUDA_ROW_CHUNK, and long
#                  rows whole: SIMCTL_CUDA_ROW_SPLIT=off), the column gather's warps per column
#                  (SIMCTL_CUDA_COL_WARPS) and the loads issued together
#                  (SIMCTL_CUDA_GATHER_BATCH) swept;
#                  no frames, no cuSPARSE, no other solvers (about a minute on a GPU)
#   --device cpu: the same rows on the CPU backend with the sparse inverse (the products'
#                 implementation does not apply there), for comparison
# Then, on the GPU, the global step alone against the bandwidth it measures (simctl-bench-global,
# built beside simctl), with each global solver the CUDA backend has: the sparse inverse's two
# products, Cholesky's two triangular solves (cuSPARSE SpSM), a Jacobi iteration and the dense
# inverse (the paper's Sec. 4 claim: the products beat the triangular solves on a GPU). In the
# frame loop the buckets are CUDA events around queued work and the frame waits once, at its end;
# `gaps ms` is the frame's wall time that no bucket covers (launch overhead, the device idle
# between kernels, the host's own work); the `graphs` column runs each row's L-G iterations as
# one CUDA graph per step (on, the default) and launched one by one (off), to compare.
#   --bandwidth: device memory bandwidth in GB/s for the limit (default 3000: what a
#                device-to-device copy moved on this workplace's H100, counting read + write)
set -euo pipefail
SIMCTL="$(cd "$(dirname "$0")/.." && pwd)"/build/simctl FRAMES=25 BW=3000 OUT=out/bench_gpu DEVICE=cuda GLOBAL_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --simctl) SIMCTL=${2:?--simctl needs a value}; shift 2 ;;
    --frames) FRAMES=${2:?--frames needs a value}; shift 2 ;;
    --bandwidth) BW=${2:?--bandwidth needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    --device) DEVICE=${2:?--device needs a value}; shift 2 ;;
    --global-only) GLOBAL_ONLY=1; shift ;;
    -h | --help) sed -n '3,/^set -/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench_gpu.sh: unknown option '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
case $FRAMES in ''|*[!0-9]*) echo "bench_gpu.sh: --frames: expected a whole number, got '$FRAMES'" >&2; exit 2 ;; esac
if [ "$GLOBAL_ONLY" = 1 ] && [ "$DEVICE" != cuda ]; then
  echo "bench_gpu.sh: --global-only times the global step on the GPU: it needs --device cuda" >&2
  exit 2
fi
[ "$FRAMES" -ge 6 ] || { echo "bench_gpu.sh: --frames must be at least 6 (the first 5 frames are skipped as warm-up)" >&2; exit 2; }
HERE="$(cd "$(dirname "$0")" && pwd)"
SC="$HERE/../scenes"
PAPER="$HERE/paper/table3_timings.csv"
mkdir -p "$OUT"
"$SIMCTL" --version
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
if [ "$GLOBAL_ONLY" = 0 ]; then
echo
echo "| scene | material | vertices | precision | products | graphs | nnz(S) | local ms | global ms | global limit ms | global / limit | frame ms | gaps ms | paper local | paper global | paper frame | frame / paper | solve residual |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
# example|paper vertices|scene|material override
ROWS="twisting_bar|5300|twisting_bar|arap
twisting_bar|11300|twisting_bar_11k|arap
twisting_bar|20800|twisting_bar_20k|arap
cloth_extension|10200|cloth_extension_10k|arap
cloth_extension|10200|cloth_extension_10k|corotational
cloth_extension|10200|cloth_extension_10k|neo_hookean
cloth_extension|20200|cloth_extension|arap
cloth_extension|20200|cloth_extension|corotational
cloth_extension|20200|cloth_extension|neo_hookean"
while IFS='|' read -r ex nv scene mat; do
  # precision:products:graphs (SIMCTL_CUDA_GRAPH: the elastic L-G iterations as one CUDA graph
  # per step, or their kernels launched one by one)
  # products: kernel (the gathers, S in both orientations), cusparse (SpMM) or scatter (S's rows
  # alone, S^T y by atomic adds: SIMCTL_CUDA_S=rows, half the memory)
  cfgs="double:kernel:on double:kernel:off double:cusparse:on double:scatter:on float:kernel:on"
  [ "$DEVICE" = cpu ] && cfgs="double:-:- float:-:-"
  for cfg in $cfgs; do
    IFS=: read -r prec spmv graphs <<<"$cfg"
    dir="$OUT/$scene-$mat-$prec-$spmv-$graphs"
    sv=${spmv/-/kernel} s_mode=both
    [ "$spmv" = scatter ] && sv=kernel s_mode=rows
    SIMCTL_CUDA_SPMV=$sv SIMCTL_CUDA_S=$s_mode SIMCTL_CUDA_GRAPH=${graphs/-/on} \
      "$SIMCTL" run "$SC/$scene.json" -q --device "$DEVICE" \
      --frames "$FRAMES" --set solver.global=sparse_inverse \
      --out "$dir" --set "bodies.0.material.model=$mat" --set "solver.precision=$prec" \
      --set 'output.formats=["csv"]' --set "output.every=$FRAMES" >&2
    # (res: summary.json's system.solve_check, the global step's relative residual at the end)
    read -r n nnz res < <(awk -F'[:,]' '/"nnz_S"/ { gsub(/[^0-9]/, "", $2); s = $2 }
      /"free_vertices"/ { gsub(/[^0-9]/, "", $2); f = $2 }
      /"relative_residual"/ { gsub(/[ \t]/, "", $2); r = $2 }
      END { print f, s, (r == "" ? "-" : r) }' "$dir/summary.json")
    paper=$(awk -F, -v ex="$ex" -v nv="$nv" -v mat="$mat" '$1 == ex && $2 == nv && $4 == mat {
      printf "%s %s %s", $11, $12, $17; exit }' "$PAPER")
    awk -F, -v sc="$scene" -v mat="$mat" -v p="$prec" -v sp="$spmv" -v gr="$graphs" \
      -v n="$n" -v nnz="$nnz" -v res="$res" \
      -v bw="$BW" -v paper="$paper" '
      NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
      NR > 6 { l += $c["local"]; g += $c["global"]; f += $c["frame_ms"]; it += $c["lg_iterations"]; k++
               cov += $c["predict"] + $c["local"] + $c["global"] + $c["integrate"] }
      END {
        vb = (p == "float") ? 4 : 8
        bytes = 2 * nnz * (vb + 4) + 2 * (n + 1) * 4 + 2 * (3 * n * 8 * 2) + 8 * n
        lim = bytes / (bw * 1e9) * 1e3
        split(paper, pp, " ")
        gl = g / it
        printf "| %s | %s | %d | %s | %s | %s | %d | %.3f | %.3f | %.3f | %.2f | %.2f | %.3f | %s | %s | %s | %s | %s |\n",
          sc, mat, n, p, sp, gr, nnz, l / it, gl, lim, gl / lim, f / k, (f - cov) / k, pp[1], pp[2], pp[3],
          (pp[3] > 0 ? sprintf("%.2f", (f / k) / pp[3]) : ""),
          (res == "-" ? "-" : sprintf("%.1e", res)) }' "$dir/timing.csv"
  done
done <<<"$ROWS"
fi

# The global step alone (simctl-bench-global: CUDA events over 200 back-to-back calls, no host
# synchronisation between them, and the bandwidth a device-to-device copy reaches on it).
BG="$(dirname "$SIMCTL")/simctl-bench-global" BG_ARGS=()
# on the host emulation (simctl-emu, gpu_report.sh --emu): its build of the program, two calls a
# row (the last --reps given wins), to check this script and the program, not to time a GPU
if [ "$(basename "$SIMCTL")" = simctl-emu ]; then
  BG="${BG}-emu" BG_ARGS=(--reps 2)
fi
bg() { "$BG" "$@" "${BG_ARGS[@]}"; }
if [ "$DEVICE" = cuda ] && [ -x "$BG" ]; then
  echo
  echo "| scene | free unknowns | solver | nnz | precision | products | row chunk | warps a column | global ms | MB moved | copy GB/s | limit ms | global / limit | S b ms | S b / its limit | Sᵀ y ms | Sᵀ y / its limit | cold ms | cold / limit | graph ms | graph / limit | graph+PDL ms | graph+PDL / limit |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  # (row: each CSV row of simctl-bench-global; the row chunk followed by -whole where
  # SIMCTL_CUDA_ROW_SPLIT=off leaves long rows whole and -bN where the loads are issued N at a
  # time, fields 26-28, then -interval for S's rows read as intervals and -tuned where
  # SIMCTL_CUDA_TUNE picked the layouts and batches, field 34; the warps followed by -runs for
  # its columns as runs and -bN where the columns' batch is not the rows' (field 33); simctl's two products are also timed each alone against its
  # own bytes, "-" for the others; cold: each call with the L2 cache flushed before it, so that
  # S comes from the device's memory; graph: the step captured into a CUDA graph, as the frame
  # loop runs it, and +PDL with programmatic edges between its kernels, fields 29-32)
  row() { awk -F, '$1 != "scene" {
            tag = ($26 == "0" ? "-whole" : "") ($27 > 1 ? "-b" $27 : "")
            ctag = ($19 == "runs" ? "-runs" : "") ($33 > 0 && $33 != $27 ? "-b" $33 : "")
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
            $1, $2, $3, $4, $5, $6,
            ($13 > 0 ? $13 tag ($18 == "interval" ? "-interval" : "") ($34 == 1 ? "-tuned" : "") \
              " (" $14 " blocks, " $15 " split)" : "-"),
            ($16 > 0 ? ($17 == 1 ? "auto, at most " $16 : $16) ctag : "-"),
            $7, $8, $9, $10, $11, ($20 > 0 ? $20 : "-"), ($20 > 0 ? $21 : "-"),
            ($22 > 0 ? $22 : "-"), ($22 > 0 ? $23 : "-"), ($24 > 0 ? $24 : "-"),
            ($24 > 0 ? $25 : "-"), ($29 > 0 ? $29 : "-"), ($29 > 0 ? $30 : "-"),
            ($31 > 0 ? $31 : "-"), ($31 > 0 ? $32 : "-") }'; }
  for scene in twisting_bar twisting_bar_11k twisting_bar_20k cloth_extension_10k cloth_extension; do
    # a scene's rows from one run of the program (--variant: meshed, its model built and the
    # device's context made once, not once a row), in this order:
    V=() # precision:products (scatter: S's rows alone, S^T y by atomic adds, SIMCTL_CUDA_S=rows)
    cfgs="double:kernel double:cusparse double:scatter float:kernel float:scatter"
    [ "$GLOBAL_ONLY" = 1 ] && cfgs="double:kernel float:kernel"
    for cfg in $cfgs; do
      prec=${cfg%%:*} spmv=${cfg##*:} s_mode=both
      [ "$spmv" = scatter ] && spmv=kernel s_mode=rows
      V+=(--variant "SIMCTL_CUDA_SPMV=$spmv SIMCTL_CUDA_S=$s_mode solver.precision=$prec")
    done
    # SIMCTL_CUDA_TUNE=on, in double and float: each product's 6 variants of the same sums
    # (S's rows indexed or as intervals, its columns indexed or as runs, 1, 4 or 8 entries'
    # loads at a time, the rows below) timed at the backend's start and the fastest of each
    # kept: the row says which (-tuned), and the variants' own rows below show what it chose from
    V+=(--variant SIMCTL_CUDA_TUNE=on --variant "SIMCTL_CUDA_TUNE=on solver.precision=float")
    # S read without its stored indices (the same bits): its rows
    # as intervals of P b (SIMCTL_CUDA_S_ROWS=interval: row i holds the columns of i's subtree,
    # consecutive in the elimination tree's postorder), its columns as runs of consecutive rows
    # (SIMCTL_CUDA_S_COLS=runs: 3.5 to 5.8 a column on these S, simctl info), and both, in double and float and
    # with the chunk of 16,384; 4 bytes an entry fewer in each product, and no load of an index
    # before the load of the vector's entry it names (MB moved counts what each reads)
    both="SIMCTL_CUDA_S_ROWS=interval SIMCTL_CUDA_S_COLS=runs"
    V+=(--variant "$both" --variant SIMCTL_CUDA_S_ROWS=interval --variant SIMCTL_CUDA_S_COLS=runs
      --variant "$both solver.precision=float" --variant "$both SIMCTL_CUDA_ROW_CHUNK=16384")
    # both with 4 and 8 entries' loads issued together (independent loads, in flight at once,
    # in kernels whose registers are bounded for it, k_rows_batch), 8 in float too and with the
    # chunk of 16,384: the pairs scripts/kernel_sass.sh predicts the fastest (a quarter to a half
    # of a memory latency an entry of S, against 1.25-3 for the batch of 1 in each layout)
    V+=(--variant "$both SIMCTL_CUDA_GATHER_BATCH=4" --variant "$both SIMCTL_CUDA_GATHER_BATCH=8"
      --variant "$both SIMCTL_CUDA_GATHER_BATCH=8 solver.precision=float"
      --variant "$both SIMCTL_CUDA_GATHER_BATCH=8 SIMCTL_CUDA_ROW_CHUNK=16384")
    # and the interval rows with the indexed columns, in a batch of 8: the columns' batches
    # wait as long with their indices as with the runs by that model (0.38 latencies an entry),
    # for 4 bytes an entry more
    V+=(--variant "SIMCTL_CUDA_S_ROWS=interval SIMCTL_CUDA_GATHER_BATCH=8")
    # the row gather's chunk (SIMCTL_CUDA_ROW_CHUNK, default 4096: a warp takes rows of up to
    # an eighth of it): a thread's entries are a chain of dependent loads, so shorter chunks
    # shorten the longest chain; 16384 leaves rows of up to 2,048 entries to a warp, as before
    # 2026-11-28 (the blocks' rows were whole then). 1024 and 2048, 1.1-1.6 times 4096's time
    # on each S of the H200's sweep of 2026-12-04, are no longer swept.
    V+=(--variant SIMCTL_CUDA_ROW_CHUNK=8192 --variant SIMCTL_CUDA_ROW_CHUNK=16384)
    # and commit c8a8d13's layout: a warp a row of up to 2,048 entries, each longer row a
    # block, whole (SIMCTL_CUDA_ROW_SPLIT=off), 0.240 ms at the 20k bar on the H200 against
    # 0.269 for the best chunk (2026-12-04)
    V+=(--variant "SIMCTL_CUDA_ROW_CHUNK=16384 SIMCTL_CUDA_ROW_SPLIT=off")
    # each thread's loads issued 4 and 8 entries at a time (SIMCTL_CUDA_GATHER_BATCH; the same
    # bits) with S's indices: the gathers are chains of dependent loads, an index then the
    # vector's entry it names (0.25-0.5 latencies an entry bounded, 1.25-1.75 for the batch of 1)
    V+=(--variant SIMCTL_CUDA_GATHER_BATCH=4 --variant SIMCTL_CUDA_GATHER_BATCH=8)
    # and Sᵀ y's warps per column (SIMCTL_CUDA_COL_WARPS, default 1 since 2026-12-04, the
    # fastest on each S of that day's H200 sweep, before auto, 2 and 4; auto: each column the
    # fewest of 1, 2, 4, 8 that leave a lane at most 16 entries, as the rows): a column is the
    # path from its vertex to the elimination tree's root, up to the tree's height (614 entries
    # on the 4.9k bar: 20 a lane with one warp); 2 warps with the runs, whose lanes' entries are
    # independent loads
    V+=(--variant "SIMCTL_CUDA_COL_WARPS=2 $both")
    bg "$SC/$scene.json" "${V[@]}" | row
    # the paper's baseline on the same device: CHOLMOD's factor solved by cuSPARSE's triangular
    # solves (SpSM); and one Jacobi iteration (Wang 2015), which needs many more L-G iterations
    # (README, Fig. 9); the dense inverse on the smallest bar only (A^{-1} is built by n solves)
    [ "$GLOBAL_ONLY" = 1 ] && continue
    for g in cholesky jacobi; do
      bg "$SC/$scene.json" --reps 50 --set "solver.global=$g" | row
    done
    if [ "$scene" = twisting_bar ]; then
      bg "$SC/$scene.json" --reps 20 --set solver.global=dense_inverse | row
    fi
  done
fi
