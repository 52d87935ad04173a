# SPDX-License-Identifier: MIT
# Fig. 9 style plots from `simctl converge` output: relative error against L-G iterations and
# against milliseconds, one line per global solver, for each Young's modulus directory.
# Both axes are logarithmic: the complete solvers finish in the first 1-2% of 1000 iterations.
# A solver missing from a directory (`--solvers`) is skipped.
# usage: gnuplot -e "dirs='out/fig9/E1e5 out/fig9/E1e7 out/fig9/E1e9'; out='out/fig9'" scripts/plot_converge.gp
if (!exists("dirs")) dirs = "out/fig9/E1e5 out/fig9/E1e7 out/fig9/E1e9"
if (!exists("out")) out = "out/fig9"
solvers = "sparse_inverse cholesky jacobi jacobi_chebyshev cholesky_chebyshev"
set datafile separator ","
set terminal pngcairo size 1500,450 font ",10"
set logscale xy
set format y "10^{%L}"
set yrange [1e-9:2]
set grid
set key bottom left
file(d, s) = sprintf("%s/converge_%s.csv", d, s)
exists_file(f) = system(sprintf("test -f '%s' && echo 1 || echo 0", f)) + 0
do for [mode in "iterations ms"] {
  set output sprintf("%s/fig9_%s.png", out, mode)
  set multiplot layout 1, words(dirs)
  do for [d in dirs] {
    set title d noenhanced
    set xlabel (mode eq "ms" ? "milliseconds" : "L-G iterations")
    set ylabel "relative error |e(q_k) - e(q*)| / (e(q_0) - e(q*))"
    have = ""
    do for [s in solvers] { if (exists_file(file(d, s))) { have = have . " " . s } }
    plot for [s in have] file(d, s) \
      using (mode eq "ms" ? $2 : $1):(abs($4)) every ::1 with lines lw 2 title s noenhanced, \
      1e-3 with lines dt 2 lc rgb "black" title "1e-3"
  }
  unset multiplot
}
