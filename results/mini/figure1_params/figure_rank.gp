# Lines with error bars (mean ± std over seeds), one per series.
# `capaboost report` fills in the title, the axis labels, the log scale and the plot command (the
# @-delimited names below); the terminal and output are set on the gnuplot command line (PDF and PNG).
set title "Score and rank against % fine-tuned parameters (GLUE, RoBERTa-base)\n{/*0.8 profile mini: mean ± std over seeds}\n{/*0.8 mini: SST-2-10k only; a rank cannot exceed the encoder's hidden size, 128.}"
set xlabel "% fine-tuned parameters (of the backbone)"
set ylabel "rank of ΔW, mean over sites"
set logscale x 10
set key left top
# A margin around the data, so that end points and their error bars are not cut by the frame.
set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08
set grid
set bars small
plot 'figure_rank.dat' index 0 using 1:2:3 with yerrorlines lt 3 lw 2 pt 7 ps 1.4 title "LoRA", 'figure_rank.dat' index 1 using 1:2:3 with yerrorlines lt 4 lw 2 pt 7 ps 1.4 title "CapaBoost-LoRA"
