# Writes the CLEAN roots of the family-report cases (2 ranks, no warmup:
# run with --warmup 0 --expected-ranks 2).  Sourced by tests/cases/skdcci/family_*/cmd
# with $TOOLS set.  O0: worst-rank means 10.3 10.3 10.2 10.3 10.3 (stable,
# 0.97 % spread); DA_GAIN beats O0; DA_NEUTRAL ties it; DA_REGRESSED is slower
# than O0's slowest run; RP_BEATS beats O0; RP_BEATS_DA_ONLY beats disable-all
# but not O0; RP_THREE beats O0 with three runs (no top-up yet);
# RP_SIX beats O0 but has six runs (the top-up must be exactly five).
# Every run is a real clean run (so_mkclean --record: artifact_contract run
# --purpose clean with the side's config of --configs o0.yaml da.yaml rp.yaml),
# so the roots are proven clean; with MKCLEAN_UNPROVEN=1 the runs have no
# records (the reference-compatible layout, read with --allow-unproven).
mk() { # CONFIG ROOT RUN...
    local cfg=$1
    shift
    if [ "${MKCLEAN_UNPROVEN:-0}" = 1 ]; then
        $TOOLS/so_mkclean "$@"
    else
        $TOOLS/so_mkclean --record "$cfg" "$@"
    fi
}
mk o0.yaml O0 2 '10.3*3' '10.3*3' '10.2*3' '10.3*3' '10.3*3'
mk da.yaml DA_GAIN 2 '10.1*3' '10.1*3' '10.0*3' '10.1*3' '10.1*3'
mk da.yaml DA_NEUTRAL 2 '10.3*3' '10.2*3' '10.3*3' '10.3*3' '10.3*3'
mk da.yaml DA_REGRESSED 2 '11.0*3' '11.1*3' '11.0*3' '11.0*3' '11.05*3'
mk rp.yaml RP_BEATS 2 '10.1*3' '10.1*3' '10.0*3' '10.1*3' '10.1*3'
mk rp.yaml RP_BEATS_DA_ONLY 2 '10.6*3' '10.6*3' '10.5*3' '10.6*3' '10.6*3'
mk rp.yaml RP_THREE 2 '10.1*3' '10.1*3' '10.1*3'
mk rp.yaml RP_SIX 2 '10.1*3' '10.1*3' '10.0*3' '10.1*3' '10.1*3' '10.1*3'
