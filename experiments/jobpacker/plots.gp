# Plots shaped like the dissertation's Chapter 4 figures, from report.py's CSVs.
set terminal pngcairo size 640,420 font ",10"
set datafile separator ","
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.7
set grid ytics
set key off

set output "fig4.13_makespan.png"
set title "Batch: makespan normalised to F-Hybrid (Fig. 4.13)"
set ylabel "normalised makespan"
plot "batch.csv" every ::1 using 3:xtic(1) lc rgb "#4477aa"

set output "fig4.14_ocs_share.png"
set title "Batch: share of cross-rack traffic (Fig. 4.14)"
set ylabel "fraction of cross-rack bytes"
set style histogram rowstacked
set key outside
plot "batch.csv" every ::1 using 4:xtic(1) title "OCS" lc rgb "#ee6677", "" every ::1 using 5 title "EPS" lc rgb "#4477aa"
set style histogram clustered
set key off

set output "fig4.16_median_jct.png"
set title "Online: median JCT normalised to F-Hybrid (Fig. 4.16)"
set ylabel "normalised median JCT"
plot "online.csv" every ::1 using 3:xtic(1) lc rgb "#228833"

set output "fig4.19_mixed.png"
set title "Mixed: median JCT normalised to F-Hybrid (Fig. 4.19)"
set key outside
plot "mixed.csv" every ::1 using 4:xtic(1) title "recurring" lc rgb "#4477aa", "" every ::1 using 5 title "ad hoc" lc rgb "#ccbb44"

set output "fig4.15_jct_cdf.png"
set title "Online: CDF of job completion time (Fig. 4.15)"
set style data lines
set datafile separator whitespace
set xlabel "JCT (s)"
set ylabel "CDF"
set logscale x
set key bottom right
files = system("ls cdf_*.csv 2>/dev/null")
plot for [f in files] f using 1:2 with steps lw 2 title substr(f, 5, strlen(f) - 4)
