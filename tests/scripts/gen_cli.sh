# skdcci_gen command line: help, usage errors (exit 2, one line), refusal to
# overwrite, and cleanup after a failure.
source "$SK_REPO/tests/lib.sh"
GEN="$TOOLS/skdcci_gen"
if "$GEN" --help >help.txt 2>&1 && grep -q "^usage: skdcci_gen --out DIR --scenario NAME" help.txt; then t_pass help
else t_fail help "$(head -3 help.txt)"; fi
t_expect missing_out 2 "--out DIR is required" "$GEN" --scenario regression
t_expect missing_scenario 2 "--scenario NAME is required" "$GEN" --out x
t_expect unknown_scenario 2 "unknown scenario: nope" "$GEN" --out x --scenario nope
t_expect unknown_argument 2 "unknown argument: --fast" "$GEN" --out x --scenario regression --fast
t_expect missing_value 2 "option needs a value: --seed" "$GEN" --out x --scenario regression --seed
t_expect bad_number 2 "expected a non-negative decimal integer: -1" "$GEN" --out x --scenario regression --seed -1
t_expect bad_number_text 2 "expected a non-negative decimal integer: 1e3" "$GEN" --out x --scenario regression --scale 1e3
t_expect zero_scale 2 "between 1 and 1000000" "$GEN" --out x --scenario regression --scale 0
t_expect few_steps 2 "--steps: must be at least 3" "$GEN" --out x --scenario regression --steps 2
t_expect few_layers 2 "--layers: must be between 3" "$GEN" --out x --scenario regression --layers 2
t_expect buffer_full_fixed 2 "buffer_full sizes its own run" "$GEN" --out x --scenario buffer_full --scale 2
if [ -e x ]; then t_fail usage_errors_write_nothing "x exists"; else t_pass usage_errors_write_nothing; fi

mkdir full && echo keep >full/file
t_expect refuses_non_empty 1 "output directory is not empty" "$GEN" --out full --scenario regression
if [ "$(ls -A full)" = file ] && [ "$(cat full/file)" = keep ]; then t_pass non_empty_untouched
else t_fail non_empty_untouched "$(ls -A full)"; fi
mkdir empty
t_ok accepts_empty_dir "$GEN" --out empty --scenario no_regression
t_ok creates_missing_parents "$GEN" --out deep/er/dir --scenario no_regression --layers 4 --steps 3

# --ranks: its range, the scenarios that need it and those that refuse it
t_expect ranks_range 2 "--ranks must be between 1 and 16: 17" "$GEN" --out x --scenario regression --ranks 17
t_expect ranks_zero 2 "--ranks must be between 1 and 16: 0" "$GEN" --out x --scenario regression --ranks 0
t_expect multi_rank_needs_ranks 2 "multi_rank needs --ranks 2 or more" "$GEN" --out x --scenario multi_rank
t_expect multi_rank_one_rank 2 "multi_rank_device_set needs --ranks 2 or more" "$GEN" --out x --scenario multi_rank_device_set --ranks 1
for s in buffer_full incomplete_lanes ambiguous options_mismatch fixture_shape header_only_kd dropped_row impure_o0; do
    t_expect "one_device_only_$s" 2 "$s is a one-device scenario" "$GEN" --out x --scenario "$s" --ranks 2
done
t_expect ranks_device_range 2 "must not exceed 63" "$GEN" --out x --scenario regression --ranks 4 --device 61
t_expect multi_rank_buffer_full_fixed 2 "multi_rank_buffer_full sizes its own run" "$GEN" --out x --scenario multi_rank_buffer_full --ranks 2 --steps 4
if [ -e x ]; then t_fail ranks_usage_errors_write_nothing "x exists"; else t_pass ranks_usage_errors_write_nothing; fi
