# SPDX-License-Identifier: MIT
# Fig. 9 style plots from `simctl converge` output: relative error against L-G iterations and
# against milliseconds, one line per global solver, for each Young's modulus directory.
# usage: gnuplot -e "dirs='out/fig9/E1e5 out/fig9/E1e7 out/fig9/E1e9'; out='out/fig9'" scripts/plot_converge.gp
if (!exists("dirs")) dirs = "out/fig9/E1e5 out/fig9/E1e7 out/fig9/E1e9"
if (!exists("out")) out = "out/fig9"
solvers = "sparse_inverse cholesky jacobi jacobi_chebyshev"
set datafile separator ","
set terminal pngcairo size 1500,450 font ",10"
set logscale y
set format y "10^{%L}"
set yrange [1e-6:2]
set grid
set key top right
do for [mode in "iterations ms"] {
  set output sprintf("%s/fig9_%s.png", out, mode)
  set multiplot layout 1, words(dirs)
  do for [d in dirs] {
    set title d noenhanced
    set xlabel (mode eq "ms" ? "milliseconds" : "L-G iterations")
    set ylabel "relative error"
    plot for [s in solvers] sprintf("%s/converge_%s.csv", d, s) \
      using (mode eq "ms" ? $2 : $1):(abs($4)) every ::1 with lines lw 2 title s noenhanced, \
      1e-3 with lines dt 2 lc rgb "black" title "1e-3"
  }
  unset multiplot
}
