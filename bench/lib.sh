# Shared by the benchmark scripts (sourced).

# measure OUTFILE CMD...: "wall_s rss_kb exit cpu_s" of CMD into OUTFILE (GNU time
# waits for CMD itself, so the RSS is CMD's own, not a forking parent's)
measure() {
    local out=$1; shift
    /usr/bin/time -o "$out" -f '%e %M %x %U %S' "$@" >/dev/null 2>/dev/null || true
    read -r w m x u s < <(tail -n 1 "$out")
    python3 -c 'import sys; print(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]) + float(sys.argv[5]))' \
        "$w" "$m" "$x" "$u" "$s" >"$out"
}
