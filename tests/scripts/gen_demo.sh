# fixtures/demo is exactly what its README's command generates (the torch_npu
# layout), stays small, and parses with the project's readers.
source "$SK_REPO/tests/lib.sh"
DEMO="$SK_REPO/fixtures/demo"
"$TOOLS/skdcci_gen" --out demo --scenario regression --seed 1 --steps 5 --zstd --zstd-graphs \
    --layout torch_npu --crlf || t_fail generate "exit $?"
if diff -r -x README.md demo "$DEMO" >diff.txt 2>&1; then t_pass committed_demo_is_reproducible
else t_fail committed_demo_is_reproducible "$(head -5 diff.txt)"; fi
if grep -qF -- "--scenario regression --seed 1 --steps 5 --zstd --zstd-graphs" "$DEMO/README.md" &&
   grep -qF -- "--layout torch_npu --crlf" "$DEMO/README.md"; then
    t_pass readme_states_the_command
else
    t_fail readme_states_the_command
fi
bytes=$(find "$DEMO" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
if [ "$bytes" -lt 358400 ]; then t_pass demo_under_350_kb
else t_fail demo_under_350_kb "$bytes bytes"; fi
t_ok demo_parses_with_readers "$TOOLS/gen_readers_check" "$DEMO"
