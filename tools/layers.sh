#!/usr/bin/env bash
# The layering rule, checked before anything is compiled (docs/architecture.md):
# every project #include of a library or program source names a folder that
# folder may use, a private header (*_internal.h) is included only from its
# own folder, no include goes through "..", and there is no include cycle.
# Prints one line per violation and exits 1; silent and 0 when clean.
set -euo pipefail
cd "$(dirname "$0")/.."

# folder -> the folders it may include (itself always included)
declare -A ALLOW=(
    [artifact_contract/base]=""
    [artifact_contract/base/cli]="artifact_contract/base"
    [artifact_contract]="artifact_contract/base"
    [artifact_contract/cli]="artifact_contract/base artifact_contract/base/cli artifact_contract"
    [analyzer/numeric]="artifact_contract/base"
    [analyzer/readers]="artifact_contract/base"
    [analyzer/chart]="artifact_contract/base"
    [analyzer/dcci]="artifact_contract/base artifact_contract analyzer/readers analyzer/numeric analyzer/chart"
    [analyzer/stage_o]="artifact_contract/base artifact_contract analyzer/numeric analyzer/dcci analyzer/chart"
    [analyzer/compile_safety]="artifact_contract/base artifact_contract"
    [analyzer/cli]="artifact_contract/base artifact_contract/base/cli artifact_contract analyzer/readers analyzer/numeric analyzer/chart analyzer/dcci analyzer/stage_o analyzer/compile_safety"
)

edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
rules=""
for d in "${!ALLOW[@]}"; do rules+="$d=${ALLOW[$d]};"; done
# file TAB include, for every project include of every library or program source
report=$(find artifact_contract analyzer -name '*.[ch]' | LC_ALL=C sort |
    xargs grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null |
    sed 's/^\([^:]*\):[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1\t\2/' |
    awk -F'\t' -v rules="$rules" -v edges="$edges" '
    function dirname(p) { sub(/\/[^\/]*$/, "", p); return p }
    function exists(p,    r, line) { r = (getline line < p) >= 0; close(p); return r }
    BEGIN {
        n = split(rules, rs, ";")
        for (i = 1; i <= n; i++) if (rs[i] != "") {
            split(rs[i], kv, "="); allow[kv[1]] = " " kv[1] " " kv[2] " "; known[kv[1]] = 1; uses[kv[1]] = kv[2]
        }
    }
    {
        file = $1; inc = $2; dir = dirname(file); idir = dirname(inc)
        if (!(dir in known)) { if (!(dir in told)) print "layers: " file ": folder " dir " has no layering rule (add it to tools/layers.sh)"; told[dir] = 1; next }
        if (inc ~ /\.\./) { print "layers: " file ": include \"" inc "\" goes through .. (includes are rooted at the repository)"; next }
        if (!exists(inc)) { print "layers: " file ": include \"" inc "\" is not a file of the repository"; next }
        if (index(allow[dir], " " idir " ") == 0)
            print "layers: " file ": includes " inc ", but " dir " may use only: " (uses[dir] == "" ? "nothing else" : uses[dir])
        if (inc ~ /_internal\.h$/ && idir != dir) print "layers: " file ": includes the private header " inc " of another folder"
        print file, inc > edges
    }')
bad=0
if [ -n "$report" ]; then
    printf '%s\n' "$report"
    bad=1
fi

# Include cycles between modules (x.c and x.h are one module): depth-first
# search over the module graph; prints the first cycle found from each start.
cycles=$(awk '
    function mod(p) { sub(/\.[ch]$/, "", p); return p }
    {
        a = mod($1); b = mod($2)
        if (a != b && !((a, b) in seen)) { seen[a, b] = 1; adj[a] = adj[a] " " b; nodes[a] = 1; nodes[b] = 1 }
    }
    function visit(n,    i, k, parts, m) {
        state[n] = 1; stack[++depth] = n
        k = split(adj[n], parts, " ")
        for (i = 1; i <= k; i++) {
            m = parts[i]
            if (state[m] == 1) {
                line = m; for (j = depth; j >= 1 && stack[j] != m; j--) line = stack[j] " -> " line
                print "layers: include cycle: " m " -> " line
                found = 1
            } else if (state[m] == 0) visit(m)
        }
        state[n] = 2; depth--
    }
    END { for (n in nodes) if (state[n] == 0) visit(n) }
' "$edges")
if [ -n "$cycles" ]; then
    printf '%s\n' "$cycles" | LC_ALL=C sort -u
    bad=1
fi
exit $bad
