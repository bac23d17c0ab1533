# Plots shaped like the dissertation's Chapter 3 figures and Tables 6.1/6.2,
# from report.py's CSVs (run in the output directory: gnuplot plots.gp).
# Each figure is drawn only when its CSV exists.
set terminal pngcairo noenhanced size 720,440 font ",10"
set datafile separator ","
set datafile missing "–"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left
set yrange [0:*]
fexists(f) = int(system("[ -f '" . f . "' ] && echo 1 || echo 0"))
C1 = "#4477aa"; C2 = "#66ccee"; C3 = "#ee6677"; C4 = "#ccbb44"; C5 = "#228833"

# ---- Fig. 3.3: throughput and avg JCT normalised to Fair, ours vs the paper
if (fexists("fig3.3.csv")) {
    set output "fig3.3_cloudlab.png"
    set terminal pngcairo noenhanced size 900,460 font ",10"
    set key outside bottom center horizontal
    set multiplot layout 1,2 title "CloudLab setup: normalised to Fair (Fig. 3.3; MTS rows: simulator only)"
    set title "throughput"
    set ylabel "÷ Fair"
    set xtics rotate by -30
    plot "fig3.3.csv" every ::1 using 2:xtic(1) title "ours, emu" lc rgb C1, "" every ::1 using 3 title "ours, sim" lc rgb C2, \
         "" every ::1 using 4 title "paper, real" lc rgb C3, "" every ::1 using 5 title "paper, sim" lc rgb C4
    set title "average JCT"
    plot "fig3.3.csv" every ::1 using 6:xtic(1) title "ours, emu" lc rgb C1, "" every ::1 using 7 title "ours, sim" lc rgb C2, \
         "" every ::1 using 8 title "paper, real" lc rgb C3, "" every ::1 using 9 title "paper, sim" lc rgb C4
    unset multiplot
    set xtics norotate
    set key top left
    set terminal pngcairo noenhanced size 720,440 font ",10"
}

# ---- Figs. 3.4, 3.5: cross-rack traffic and congestion, CloudLab setup
do for [b in "emu sim"] {
    f = "cloudlab_" . b . ".csv"
    if (fexists(f)) {
        set output "fig3.4_3.5_cloudlab_" . b . ".png"
        set title "CloudLab setup (" . b . "): cross-rack bytes and congestion samples ÷ Fair (Figs. 3.4, 3.5)"
        set ylabel "÷ Fair"
        set xtics rotate by -30
        plot f every ::1 using 4:xtic(1) title "cross-rack bytes" lc rgb C1, \
             "" every ::1 using 5 title "congestion samples" lc rgb C3
        set xtics norotate
        set output "fig3.6_classes_" . b . ".png"
        set title "CloudLab setup (" . b . "): throughput per job class ÷ Fair (Fig. 3.6)"
        set ylabel "throughput ÷ Fair"
        set xtics rotate by -30
        plot f every ::1 using 11:xtic(1) title "shuffle-light" lc rgb C1, \
             "" every ::1 using 12 title "shuffle-medium" lc rgb C2, \
             "" every ::1 using 13 title "shuffle-heavy" lc rgb C3
        set xtics norotate
    }
}

# ---- Tables 6.1 / 6.2: validation ratios, ours (sim, emu) vs the paper's
if (fexists("validation.csv")) {
    set output "table6.1_6.2_validation.png"
    set multiplot layout 1,2 title "Eq. 6.1 ratios: NAS ÷ baseline (Tables 6.1, 6.2)"
    set title "throughput ratio"
    set ylabel "ratio"
    set xtics rotate by -20
    plot "validation.csv" every ::1::3 using 3:xtic(2) title "ours, sim" lc rgb C2, \
         "" every ::1::3 using 4 title "ours, emu" lc rgb C1, \
         "" every ::1::3 using 5 title "paper, sim" lc rgb C4, \
         "" every ::1::3 using 6 title "paper, real" lc rgb C3
    set title "average JCT ratio"
    plot "validation.csv" every ::4::6 using 3:xtic(2) title "ours, sim" lc rgb C2, \
         "" every ::4::6 using 4 title "ours, emu" lc rgb C1, \
         "" every ::4::6 using 5 title "paper, sim" lc rgb C4, \
         "" every ::4::6 using 6 title "paper, real" lc rgb C3
    unset multiplot
    set xtics norotate
}

# ---- Figs. 3.7 / 3.16: T_min / T_max sweep
if (fexists("tsweep.csv")) {
    set output "fig3.7_tsweep.png"
    set style data linespoints
    set title "NAS throughput vs map completion thresholds, ÷ (T_min 0.2, T_max 0.5) (Figs. 3.7, 3.16)"
    set xlabel "threshold value"
    set ylabel "throughput ÷ (0.2, 0.5)"
    set yrange [*:*]
    plot "tsweep.csv" using (strcol(1) eq "tmin0.2" ? $2 : NaN):3 title "T_min = 0.2, T_max varied" lw 2 pt 7 lc rgb C1, \
         "" using (strcol(1) eq "tmax0.5" ? $2 : NaN):3 title "T_max = 0.5, T_min varied" lw 2 pt 5 lc rgb C3
    set style data histograms
    unset xlabel
    set yrange [0:*]
}

# ---- 600-server simulation: Figs. 3.8-3.13, 3.15
if (fexists("fig3.8.csv")) {
    set output "fig3.8_sim600.png"
    set multiplot layout 1,2 title "600-server simulation: normalised to Fair (Fig. 3.8)"
    set title "throughput"
    set ylabel "÷ Fair"
    set xtics rotate by -30
    plot "fig3.8.csv" every ::1 using 2:xtic(1) title "ours" lc rgb C1, "" every ::1 using 3 title "paper" lc rgb C4
    set title "average JCT"
    set key top right
    plot "fig3.8.csv" every ::1 using 4:xtic(1) title "ours" lc rgb C1, "" every ::1 using 5 title "paper" lc rgb C4
    unset multiplot
    set key top left
    set xtics norotate
}
if (fexists("sim600.csv")) {
    set xtics rotate by -30
    set output "fig3.9_3.12_sim600.png"
    set title "600-server simulation: cross-rack bytes (Fig. 3.9) and congestion samples (Fig. 3.12) ÷ Fair"
    set ylabel "÷ Fair"
    plot "sim600.csv" every ::1 using 4:xtic(1) title "cross-rack bytes" lc rgb C1, \
         "" every ::1 using 5 title "congestion samples" lc rgb C3
    set output "fig3.10_mpr_sim600.png"
    set title "600-server simulation: map progress when a job's first reduce starts (Fig. 3.10)"
    set ylabel "fraction of the job's maps done"
    plot "sim600.csv" every ::1 using 7:xtic(1) title "all jobs" lc rgb C1, \
         "" every ::1 using 8 title "jobs with >= 10 maps" lc rgb C2
    set output "fig3.11_nodes_sim600.png"
    set title "600-server simulation: servers over TrafficThreshold (Fig. 3.11)"
    set ylabel "% of server-samples"
    plot "sim600.csv" every ::1 using 9:xtic(1) notitle lc rgb C3
    set output "fig3.15_classes_sim600.png"
    set title "600-server simulation: throughput per job class ÷ Fair (Fig. 3.15)"
    set ylabel "throughput ÷ Fair"
    plot "sim600.csv" every ::1 using 11:xtic(1) title "shuffle-light" lc rgb C1, \
         "" every ::1 using 12 title "shuffle-medium" lc rgb C2, \
         "" every ::1 using 13 title "shuffle-heavy" lc rgb C3
    set xtics norotate
}
if (fexists("fig3.13.csv")) {
    set output "fig3.13_ablation_congestion.png"
    set title "600-server simulation: congestion samples ÷ NAS (Fig. 3.13)"
    set ylabel "÷ NAS"
    plot "fig3.13.csv" every ::1 using 2:xtic(1) title "ours" lc rgb C1, "" every ::1 using 3 title "paper" lc rgb C4
}
