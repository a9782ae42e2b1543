# Shared by the benchmark scripts (sourced).

# measure OUTFILE CMD...: "wall_s rss_kb exit cpu_s" of CMD into OUTFILE.
# GNU time runs CMD (a small parent, so the RSS it reports is CMD's own) and
# gives its peak RSS, exit status and CPU seconds; the wall time is taken
# around it with a monotonic clock in microseconds, because time's %e has
# 10 ms steps, too coarse for the runs of tens of milliseconds at the
# smallest sizes (it includes time's own fork and exec, well under 1 ms).
measure() {
    local out=$1; shift
    python3 - "$out" "$@" <<'PY'
import subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
subprocess.run(["/usr/bin/time", "-o", out, "-f", "%M %x %U %S"] + cmd,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - t0
m, x, u, s = open(out).read().split("\n")[-2].split()
with open(out, "w") as f:
    f.write("%.6f %s %s %.2f\n" % (wall, m, x, float(u) + float(s)))
PY
}
