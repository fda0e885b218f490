# Lines with error bars (mean ± std over seeds), one per series.
# `capaboost report` fills in the title, the axis labels, the log scale, the key and the plot command (the
# @-delimited names below); the terminal and output are set on the gnuplot command line (PDF and PNG).
set title "Capacity per parameter on updates of full fine-tuning\n{/*0.8 target=outputs:minilm-full-MRPC:layer.3.attention.self.value}\n{/*0.8 profile cpu: mean ± std over seeds}\n{/*0.8 all-MiniLM-L6-v2 full fine-tuning updates (MRPC 2 epochs, STS-B 1), layer 3; 2 restarts x 600 Adam steps per fit}"
set xlabel "parameters (effective: entries inside the union of the masks)"
set ylabel "LoRA parameters needed for the same residual, per parameter"
set logscale x 2
set key left top
# A margin around the data, so that end points and their error bars are not cut by the frame.
set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08
set grid
set bars small
plot 'figure_capacity_per_parameter.dat' index 0 using 1:2:3 with yerrorlines lt 1 dt 1 lw 2 pt 7 ps 0.8 title "Truncated SVD (floor)", 'figure_capacity_per_parameter.dat' index 1 using 1:2:3 with yerrorlines lt 2 dt 1 lw 2 pt 7 ps 0.8 title "LoRA", 'figure_capacity_per_parameter.dat' index 2 using 1:2:3 with yerrorlines lt 3 dt 1 lw 2 pt 7 ps 0.8 title "CapaBoost-LoRA d=2", 'figure_capacity_per_parameter.dat' index 3 using 1:2:3 with yerrorlines lt 4 dt 1 lw 2 pt 7 ps 0.8 title "CapaBoost-LoRA d=4", 'figure_capacity_per_parameter.dat' index 4 using 1:2:3 with yerrorlines lt 5 dt 1 lw 2 pt 7 ps 0.8 title "d=2 same mask"
