# Plots shaped like the dissertation's simulation figures of Chapter 4 (4.9-4.12,
# 4.17, 4.18, 4.20-4.24), from report_sim.py's CSVs; run in the output directory.
set terminal pngcairo size 640,420 font ",10"
set datafile separator ","
set grid ytics
set key off
load "baselines.gp"

# ---- bars: ours (mean over the seeds; whiskers: lowest-highest seed) beside the paper's
# (grey; none where the text gives no number)
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set datafile missing "NaN"
set yrange [0:*]
set offsets 0, 0, 0.1, 0   # room above a bar of 1
set key outside right top
paper = "#bbbbbb"
note = "{/*0.8 whiskers: lowest-highest seed; grey: the paper (F-EPS: no number)}"

set output "fig4.9_makespan.png"
set title "Batch: makespan normalised to F-Hybrid (Fig. 4.9)\n" . note
set ylabel "normalised makespan"
plot "batch.csv" every ::1 using 3:4:5:xtic(1) title "ours" lc rgb "#4477aa", \
     "" every ::1 using 9:9:9 title "paper" lc rgb paper

set output "fig4.10_ocs_share.png"
set title "Batch: share of cross-rack bytes on circuits (Fig. 4.10)\n{/*0.8 grey: the paper}"
set ylabel "OCS share of cross-rack bytes"
set yrange [0:1.05]
plot "batch.csv" every ::1::3 using 6:6:6:xtic(1) title "ours" lc rgb "#ee6677", \
     "" every ::1::3 using 10:10:10 title "paper" lc rgb paper

set output "fig4.12_ocs_share_online.png"
set title "Online: share of cross-rack bytes on circuits (Fig. 4.12; the paper gives no numbers)"
plot "online.csv" every ::1::3 using 7:7:7:xtic(1) title "ours" lc rgb "#ee6677"

set yrange [0:*]
set output "fig4.11b_median_jct.png"
set title "Online: median JCT normalised to F-Hybrid (Fig. 4.11)\n" . note
set ylabel "normalised median JCT"
plot "online.csv" every ::1 using 3:10:11:xtic(1) title "ours" lc rgb "#228833", \
     "" every ::1 using 12:12:12 title "paper" lc rgb paper

set output "fig4.17c_mixed_median.png"
set title "Mixed (50% ad hoc, rho 1.0): median JCT normalised to F-Hybrid (Fig. 4.17)\n" . note
plot "mixed.csv" every ::1 using 4:8:9:xtic(1) title "recurring" lc rgb "#4477aa", \
     "" every ::1 using 12:12:12 title "paper, recurring" lc rgb paper, \
     "" every ::1 using 5:10:11 title "ad hoc" lc rgb "#ccbb44", \
     "" every ::1 using 13:13:13 title "paper, ad hoc" lc rgb "#dddddd"
set offsets 0, 0, 0, 0

# ---- CDFs
set style data lines
set datafile separator whitespace
set xlabel "JCT (s)"
set ylabel "CDF"
set logscale x
set yrange [0:1]
set key inside bottom right
sysn = "JobPacker F-Hybrid Corral F-EPS"
set output "fig4.11_jct_cdf.png"
set title "Online, arrivals uniform over 90 min: CDF of JCT (Fig. 4.11)"
plot for [s in sysn] "cdf_online_".s.".csv" using 1:2 with steps lw 2 title s

set terminal pngcairo size 1100,420 font ",10"
set output "fig4.17_mixed_cdf.png"
set multiplot layout 1,2
set title "(a) recurring jobs (Fig. 4.17a)"
plot for [s in sysn] "cdf_mixed-rec_".s.".csv" using 1:2 with steps lw 2 title s
set title "(b) ad-hoc jobs (Fig. 4.17b)"
plot for [s in sysn] "cdf_mixed-adhoc_".s.".csv" using 1:2 with steps lw 2 title s
unset multiplot
# Fig. 4.18: JobPacker's mixed runs with and without its ad-hoc jobs on a few racks (run.sh's
# adhocagg runs; no plot without them).
if (system("test -f cdf_4.18-rec_adhocagg.csv && echo 1") eq "1") {
    set output "fig4.18_adhoc_aggregation_cdf.png"
    set multiplot layout 1,2
    set title "(a) recurring jobs, JobPacker (Fig. 4.18a)"
    plot "cdf_4.18-rec_mixed.csv" using 1:2 with steps lw 2 title "ad hoc by Fair", \
         "cdf_4.18-rec_adhocagg.csv" using 1:2 with steps lw 2 title "ad hoc on a few racks"
    set title "(b) ad-hoc jobs, JobPacker (Fig. 4.18b)"
    plot "cdf_4.18-adhoc_mixed.csv" using 1:2 with steps lw 2 title "ad hoc by Fair", \
         "cdf_4.18-adhoc_adhocagg.csv" using 1:2 with steps lw 2 title "ad hoc on a few racks"
    unset multiplot
}
set terminal pngcairo size 640,420 font ",10"
unset logscale x

# ---- sensitivity: JobPacker's median with 5th-95th percentile whiskers,
# baselines' medians (not rerun) as horizontal lines.
set datafile separator ","
set logscale y
set yrange [*:*]
set ylabel "JCT (s)"
set terminal pngcairo size 640,520 font ",10"
set key outside below
refs(m) = sprintf("F-Hybrid median (%.1f s)", m)
set output "fig4.20a_shuffle_error.png"
set title "Shuffle-size prediction error (Fig. 4.20a)"
set xlabel "error rate (%)"
set xrange [-5:55]
plot "sens_shuffleerr.csv" every ::1 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb "#4477aa" title "JobPacker median (5th-95th)", \
     "" every ::1 using 1:8 with linespoints lw 2 pt 5 lc rgb "#ccbb44" title "JobPacker median, shuffle-heavy jobs", \
     FH_MED with lines dt 2 lc rgb "#ee6677" title "F-Hybrid median", CO_MED with lines dt 3 lc rgb "#228833" title "Corral median", \
     FE_MED with lines dt 4 lc rgb "#aa3377" title "F-EPS median"

set output "fig4.20b_arrival_error.png"
set title "Arrival-time error of +-200 s on a fraction of jobs (Fig. 4.20b)"
set xlabel "jobs with inaccurate arrival (%)"
plot "sens_arrerr.csv" every ::1 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb "#4477aa" title "JobPacker median (5th-95th)", \
     "" every ::1 using 1:8 with linespoints lw 2 pt 5 lc rgb "#ccbb44" title "JobPacker median, shuffle-heavy jobs", \
     FH_MED with lines dt 2 lc rgb "#ee6677" title "F-Hybrid median", CO_MED with lines dt 3 lc rgb "#228833" title "Corral median", \
     FE_MED with lines dt 4 lc rgb "#aa3377" title "F-EPS median"

set output "fig4.21_slowstart.png"
set title "Slowstart threshold (Fig. 4.21)"
set xlabel "slowstart (%)"
set xrange [15:85]
plot "sens_slowstart.csv" every ::1 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb "#4477aa" title "JobPacker median (5th-95th)", \
     "" every ::1 using 1:8 with linespoints lw 2 pt 5 lc rgb "#ccbb44" title "JobPacker median, shuffle-heavy jobs", \
     FH_MED with lines dt 2 lc rgb "#ee6677" title "F-Hybrid median"

set output "fig4.22_rho.png"
set title "Over-provisioning ratio, mixed workload (Fig. 4.22)"
set xlabel "over-provisioning ratio"
set xrange [-0.1:2.1]
plot "sens_rho.csv" every ::1 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb "#4477aa" title "JobPacker median (5th-95th)", \
     "" every ::1 using 1:8 with linespoints lw 2 pt 5 lc rgb "#ccbb44" title "JobPacker median, shuffle-heavy jobs", \
     FH_MIXMED with lines dt 2 lc rgb "#ee6677" title "F-Hybrid median (mixed)"

set output "fig4.23_interval.png"
set title "OCS reconfiguration interval (Fig. 4.23)"
set xlabel "reconfiguration interval (s)"
set xrange [0:3.2]
plot "sens_interval.csv" every ::1 using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb "#4477aa" title "JobPacker median (5th-95th)", \
     "" every ::1 using 1:8 with linespoints lw 2 pt 5 lc rgb "#ccbb44" title "JobPacker median, shuffle-heavy jobs", \
     FH_MED with lines dt 2 lc rgb "#ee6677" title "F-Hybrid median (1 s)"

unset logscale y
set output "fig4.24_subbatches.png"
set title "Number of sub-batches, batch (Fig. 4.24)"
set xlabel "B"
set ylabel "makespan normalised to F-Hybrid"
set logscale x
set xrange [0.8:25]
set yrange [0:*]
plot "sens_B.csv" every ::1 using 1:3:4:5 with yerrorlines lw 2 pt 7 lc rgb "#4477aa" title "JobPacker (mean, min-max)", \
     1 with lines dt 2 lc rgb "#ee6677" title "F-Hybrid"
