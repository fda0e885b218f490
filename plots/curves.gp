# Training curves: per epoch, the training loss (left) and the eval score (right) of every row, the line
# the mean over seeds and the band their range (min to max). `capaboost report` fills in the @-delimited
# names; the terminal and output are set on the gnuplot command line (PDF and PNG).
# Two panels of one width, the key under both (inside a panel it would cover the curves of a dozen rows).
set multiplot layout 1,2 title "@TITLE@" margins 0.07,0.98,@BOTTOM@,0.86 spacing 0.08,0
set xlabel "epoch"
set grid
set autoscale xfix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
set xtics 1
unset key
set ylabel "training loss (mean over the epoch)"
plot @LOSS@
set ylabel "@EVAL_LABEL@"
set key at screen 0.5, screen 0.01 center bottom horizontal maxcols 3 width 2
plot @EVAL@
unset multiplot
