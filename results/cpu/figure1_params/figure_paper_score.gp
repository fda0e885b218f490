# Lines with error bars (mean ± std over seeds), one per series.
# `capaboost report` fills in the title, the axis labels, the log scale, the key and the plot command (the
# @-delimited names below); the terminal and output are set on the gnuplot command line (PDF and PNG).
set title "Score and rank against % fine-tuned parameters (GLUE, RoBERTa-base)\n{/*0.8 profile cpu: mean ± std over 3 seed(s)}\n{/*0.8 all-MiniLM-L6-v2 (6 x 384, pre-trained; % of its 22.7M parameters); CoLA (all 8,551 training}\n{/*0.8 examples), SST-2 (2,000) and STS-B (1,500), 2 epochs at batch 32 (the paper: GLUE's eight tasks,}\n{/*0.8 full training sets, 10-40 epochs); PEFT rows at 2e-3, full fine-tuning at 1e-4, LoRA and}\n{/*0.8 CapaBoost-LoRA chosen on eval from 5e-4 and 2e-3 (the paper: a grid per task); three seeds.}"
set xlabel "% fine-tuned parameters (of the backbone)"
set ylabel "score, average over tasks (x100)"
set logscale x 10
set key left top
# A margin around the data, so that end points and their error bars are not cut by the frame.
set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08
set grid
set bars small
plot 'figure_paper_score.dat' index 0 using 1:2:3 with yerrorlines lt 1 dt 1 lw 2 pt 7 ps 1.4 title "Fine-tuning", 'figure_paper_score.dat' index 1 using 1:2:3 with yerrorlines lt 2 dt 1 lw 2 pt 7 ps 1.4 title "BitFit", 'figure_paper_score.dat' index 2 using 1:2:3 with yerrorlines lt 3 dt 1 lw 2 pt 7 ps 1.4 title "LoRA", 'figure_paper_score.dat' index 3 using 1:2:3 with yerrorlines lt 4 dt 1 lw 2 pt 7 ps 1.4 title "CapaBoost-LoRA", 'figure_paper_score.dat' index 4 using 1:2:3 with yerrorlines lt 5 dt 1 lw 2 pt 7 ps 1.4 title "PAdapter", 'figure_paper_score.dat' index 5 using 1:2:3 with yerrorlines lt 6 dt 1 lw 2 pt 7 ps 1.4 title "CapaBoost-PAdapter"
