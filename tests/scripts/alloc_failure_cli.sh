# Allocation failures at the command line: artifact_contract finalize and
# validate-set fail their n-th allocation for n = 1..N (tests/alloc_sweep.sh).
# The suite samples (SK_SWEEP_STRIDE, default 200 here); `make check-alloc`
# runs every n under ASan+UBSan.  Hashing runs on one thread (--jobs 1) so
# that the allocation order is the same in every run.
source "$SK_REPO/tests/lib.sh"
source "$SK_REPO/tests/contract_lib.sh"
source "$SK_REPO/tests/alloc_sweep.sh"
alloc_sweep_stride 200

ac_dcci_inputs "$S/in_o0" "$S/in_da"
ac_begin dcci_o0 && ac_artifacts dcci_o0
ac_begin dcci_disable_all && ac_artifacts dcci_disable_all
AC_INPUTS="$S/in_da" ac_finalize dcci_disable_all --jobs 1 >/dev/null

finalize_o0() { AC_INPUTS="$S/in_o0" ac_finalize dcci_o0 --jobs 1; }
ALLOC_SWEEP_WATCH=$S alloc_sweep finalize finalize_o0

AC_INPUTS="$S/in_o0" ac_finalize dcci_o0 --jobs 1 >/dev/null
validate_pair() {
    artifact_contract validate-set --jobs 1 --manifest "dcci_o0=$(ac_manifest_of dcci_o0)" \
        --manifest "dcci_disable_all=$(ac_manifest_of dcci_disable_all)" --json-out set.json
}
ALLOC_SWEEP_WATCH=$S alloc_sweep validate-set validate_pair
