# Lines with error bars (mean ± std over seeds), one per series.
# `capaboost report` fills in the title, the axis labels, the log scale, the key and the plot command (the
# @-delimited names below); the terminal and output are set on the gnuplot command line (PDF and PNG).
set title "Theorem 1 by Monte Carlo, rank(X+Y) for random rank-r X and Y (n = 64)\n{/*0.8 profile mini: mean ± std over seeds}"
set xlabel "r"
set ylabel "rank(X+Y)"
unset logscale x
set key left top
# A margin around the data, so that end points and their error bars are not cut by the frame.
set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08
set grid
set bars small
plot 'figure.dat' index 0 using 1:2:3 with yerrorlines lt 1 dt 1 lw 2 pt 7 ps 0.8 title "rank(X+Y)"
