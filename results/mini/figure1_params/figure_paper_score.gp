# Lines with error bars (mean ± std over seeds), one per series.
# `capaboost report` fills in the title, the axis labels, the log scale and the plot command (the
# @-delimited names below); the terminal and output are set on the gnuplot command line (PDF and PNG).
set title "Score and rank against % fine-tuned parameters (GLUE, RoBERTa-base)\n{/*0.8 profile mini: mean ± std over seeds}\n{/*0.8 mini: SST-2-10k only; a rank cannot exceed the encoder's hidden size, 128.}"
set xlabel "% fine-tuned parameters (of the backbone)"
set ylabel "score, average over tasks (x100)"
set logscale x 10
set key left top
# A margin around the data, so that end points and their error bars are not cut by the frame.
set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08
set grid
set bars small
plot 'figure_paper_score.dat' index 0 using 1:2:3 with yerrorlines lt 1 lw 2 pt 7 ps 1.4 title "Fine-tuning", 'figure_paper_score.dat' index 1 using 1:2:3 with yerrorlines lt 2 lw 2 pt 7 ps 1.4 title "BitFit", 'figure_paper_score.dat' index 2 using 1:2:3 with yerrorlines lt 3 lw 2 pt 7 ps 1.4 title "LoRA", 'figure_paper_score.dat' index 3 using 1:2:3 with yerrorlines lt 4 lw 2 pt 7 ps 1.4 title "CapaBoost-LoRA", 'figure_paper_score.dat' index 4 using 1:2:3 with yerrorlines lt 5 lw 2 pt 7 ps 1.4 title "PAdapter", 'figure_paper_score.dat' index 5 using 1:2:3 with yerrorlines lt 6 lw 2 pt 7 ps 1.4 title "CapaBoost-PAdapter"
