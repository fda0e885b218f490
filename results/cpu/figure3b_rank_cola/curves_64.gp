# Training curves: per epoch, the training loss (left) and the eval score (right) of every row, the line
# the mean over seeds and the band their range (min to max). `capaboost report` fills in the @-delimited
# names; the terminal and output are set on the gnuplot command line (PDF and PNG).
# Two panels of one width, the key under both (inside a panel it would cover the curves of a dozen rows).
set multiplot layout 1,2 title "CapaBoost-LoRA on CoLA against r for d = 1, 2, 3 (density 0.5) — 64\n{/*0.8 profile cpu: per epoch, mean over 3 seed(s), band min to max; the runs the table reports}" margins 0.07,0.98,0.21,0.86 spacing 0.08,0
set xlabel "epoch"
set grid
set autoscale xfix
set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05
set xtics 1
unset key
set ylabel "training loss (mean over the epoch)"
plot 'curves_64.dat' index 0 using 1:3:4 with filledcurves lt 1 fs transparent solid 0.15 notitle, 'curves_64.dat' index 0 using 1:2 with linespoints lt 1 dt 1 pt 1 lw 2 ps 1.1 title "d=1", 'curves_64.dat' index 1 using 1:3:4 with filledcurves lt 2 fs transparent solid 0.15 notitle, 'curves_64.dat' index 1 using 1:2 with linespoints lt 2 dt 1 pt 2 lw 2 ps 1.1 title "d=2", 'curves_64.dat' index 2 using 1:3:4 with filledcurves lt 3 fs transparent solid 0.15 notitle, 'curves_64.dat' index 2 using 1:2 with linespoints lt 3 dt 1 pt 3 lw 2 ps 1.1 title "d=3"
set ylabel "eval score (the selection metric)"
set key at screen 0.5, screen 0.01 center bottom horizontal maxcols 3 width 2
plot 'curves_64.dat' index 0 using 1:6:7 with filledcurves lt 1 fs transparent solid 0.15 notitle, 'curves_64.dat' index 0 using 1:5 with linespoints lt 1 dt 1 pt 1 lw 2 ps 1.1 title "d=1", 'curves_64.dat' index 1 using 1:6:7 with filledcurves lt 2 fs transparent solid 0.15 notitle, 'curves_64.dat' index 1 using 1:5 with linespoints lt 2 dt 1 pt 2 lw 2 ps 1.1 title "d=2", 'curves_64.dat' index 2 using 1:6:7 with filledcurves lt 3 fs transparent solid 0.15 notitle, 'curves_64.dat' index 2 using 1:5 with linespoints lt 3 dt 1 pt 3 lw 2 ps 1.1 title "d=3"
unset multiplot
