# Lines with error bars (mean ± std over seeds), one per series.
# `capaboost report` fills in the title, the axis labels, the log scale, the key and the plot command (the
# @-delimited names below); the terminal and output are set on the gnuplot command line (PDF and PNG).
set title "CapaBoost-LoRA on SST-2-10k against r for d = 1, 2, 3 (density 0.5)\n{/*0.8 profile cpu: mean ± std over 3 seed(s)}\n{/*0.8 all-MiniLM-L6-v2 (6 x 384, pre-trained); 2,000 training examples of SST-2-10k, 2 epochs at batch 32}\n{/*0.8 (the paper: 40 at batch 128); learning rate chosen on eval from 5e-4 and 2e-3 (the paper: 5e-4);}\n{/*0.8 three seeds.}"
set xlabel "LoRA inner dimension r"
set ylabel "SST-2-10k accuracy (x100)"
set logscale x 2
set key left top
# A margin around the data, so that end points and their error bars are not cut by the frame.
set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08
set grid
set bars small
plot 'figure.dat' index 0 using 1:2:3 with yerrorlines lt 1 dt 1 lw 2 pt 7 ps 0.8 title "d=1", 'figure.dat' index 1 using 1:2:3 with yerrorlines lt 2 dt 1 lw 2 pt 7 ps 0.8 title "d=2", 'figure.dat' index 2 using 1:2:3 with yerrorlines lt 3 dt 1 lw 2 pt 7 ps 0.8 title "d=3"
