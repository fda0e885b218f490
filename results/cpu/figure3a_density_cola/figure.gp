# Lines with error bars (mean ± std over seeds), one per series.
# `capaboost report` fills in the title, the axis labels, the log scale, the key and the plot command (the
# @-delimited names below); the terminal and output are set on the gnuplot command line (PDF and PNG).
set title "CapaBoost-LoRA (d=2, r=8) on CoLA against mask density, by mask kind\n{/*0.8 profile cpu: mean ± std over 3 seed(s)}\n{/*0.8 all-MiniLM-L6-v2 (6 x 384, pre-trained); CoLA's full training split, 3 epochs at batch 32 (the}\n{/*0.8 paper: 40 at batch 128), lr 2e-3 (not tuned; the paper: 5e-4), four densities of the paper's ten;}\n{/*0.8 three seeds. At density 1.0 the three kinds are the same model.}"
set xlabel "mask density"
set ylabel "CoLA MCC (x100)"
unset logscale x
set key left top
# A margin around the data, so that end points and their error bars are not cut by the frame.
set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08
set grid
set bars small
plot 'figure.dat' index 0 using 1:2:3 with yerrorlines lt 1 dt 1 lw 2 pt 7 ps 0.8 title "Diff-mask", 'figure.dat' index 1 using 1:2:3 with yerrorlines lt 2 dt 1 lw 2 pt 7 ps 0.8 title "Same-mask", 'figure.dat' index 2 using 1:2:3 with yerrorlines lt 3 dt 1 lw 2 pt 7 ps 0.8 title "Dropout"
