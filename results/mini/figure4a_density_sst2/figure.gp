# Lines with error bars (mean ± std over seeds), one per series.
# Filled by `capaboost report`: CapaBoost-LoRA (d=2, r=8) on SST-2-10k against mask density, by mask kind\n{/*0.8 profile mini: mean ± std over seeds} mask density SST-2-10k accuracy (x100) unset logscale x 'figure.dat' index 0 using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.8 title "Diff-mask", 'figure.dat' index 1 using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.8 title "Same-mask", 'figure.dat' index 2 using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.8 title "Dropout"; the terminal and output
# are set on the gnuplot command line (PDF and PNG).
set title "CapaBoost-LoRA (d=2, r=8) on SST-2-10k against mask density, by mask kind\n{/*0.8 profile mini: mean ± std over seeds}"
set xlabel "mask density"
set ylabel "SST-2-10k accuracy (x100)"
unset logscale x
set key left top
# A margin around the data, so that end points and their error bars are not cut by the frame.
set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08
set grid
set bars small
plot 'figure.dat' index 0 using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.8 title "Diff-mask", 'figure.dat' index 1 using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.8 title "Same-mask", 'figure.dat' index 2 using 1:2:3 with yerrorlines lw 2 pt 7 ps 0.8 title "Dropout"
