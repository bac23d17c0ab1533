# Plots shaped like the dissertation's Chapter 4 figures, from report.py's CSVs: our bars
# (mean over the seeds, pooled jobs for medians; whiskers: 5th-95th percentile over resamples
# of the seeds) beside the paper's (grey; none where the text gives no number).  Run in the
# report's directory; a figure whose CSV is missing (a scenario not run) is left out.
set terminal pngcairo size 640,420 font ",10"
set datafile separator ","
set datafile missing "NaN"
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key outside right top
set yrange [0:*]
set offsets 0, 0, 0.1, 0   # room above a bar of 1
ours = "#4477aa"; paper = "#bbbbbb"
note = "{/*0.8 whiskers: 5th-95th percentile over resampled seeds; grey: the paper (F-EPS: no number)}"
have(f) = system("test -s '" . f . "' && echo 1") eq "1"

if (have("batch.csv")) {
    set output "fig4.13_makespan.png"
    set title "Batch: makespan normalised to F-Hybrid (Fig. 4.13)\n" . note
    set ylabel "normalised makespan"
    plot "batch.csv" every ::1 using 4:5:6:xtic(1) title "ours" lc rgb ours, \
         "" every ::1 using 7:7:7 title "paper" lc rgb paper

    set output "fig4.14_ocs_share.png"
    set title "Batch: share of cross-rack bytes on circuits (Fig. 4.14)\n" . note
    set ylabel "OCS share of cross-rack bytes"
    set yrange [0:1.05]
    plot "batch.csv" every ::1 using 8:9:10:xtic(1) title "ours" lc rgb "#ee6677", \
         "" every ::1 using 11:11:11 title "paper" lc rgb paper
    set yrange [0:*]
}

if (have("online.csv")) {
    set output "fig4.16_median_jct.png"
    set title "Online: median JCT normalised to F-Hybrid (Fig. 4.16)\n" . note
    set ylabel "normalised median JCT"
    plot "online.csv" every ::1 using 5:6:7:xtic(1) title "ours" lc rgb "#228833", \
         "" every ::1 using 8:8:8 title "paper" lc rgb paper
}

if (have("mixed.csv")) {
    set output "fig4.19_mixed.png"
    set title "Mixed: median JCT normalised to F-Hybrid (Fig. 4.19)\n" . note
    set ylabel "normalised median JCT"
    plot "mixed.csv" every ::1 using 4:5:6:xtic(1) title "recurring" lc rgb ours, \
         "" every ::1 using 7:7:7 title "paper, recurring" lc rgb paper, \
         "" every ::1 using 8:9:10 title "ad hoc" lc rgb "#ccbb44", \
         "" every ::1 using 11:11:11 title "paper, ad hoc" lc rgb "#dddddd"
}

files = system("ls cdf_*.csv 2>/dev/null")
if (strlen(files) > 0) {
    set output "fig4.15_jct_cdf.png"
    set title "Online: CDF of job completion time (Fig. 4.15)"
    set style data lines
    set datafile separator whitespace
    set xlabel "JCT (s)"
    set ylabel "CDF"
    set yrange [0:1]
    set logscale x
    set key bottom right
    plot for [f in files] f using 1:2 with steps lw 2 title substr(f, 5, strlen(f) - 4)
}
