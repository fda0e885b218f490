# Lines with error bars (mean ± std over seeds), one per series.
# `capaboost report` fills in the title, the axis labels, the log scale, the key and the plot command (the
# @-delimited names below); the terminal and output are set on the gnuplot command line (PDF and PNG).
set title "@TITLE@"
set xlabel "@XLABEL@"
set ylabel "@YLABEL@"
@LOGX@
@KEY@
# A margin around the data, so that end points and their error bars are not cut by the frame.
set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08
set grid
set bars small
plot @PLOT@
