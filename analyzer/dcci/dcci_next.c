#include "analyzer/dcci/dcci_next.h"

#include <string.h>

static const dcci_next_step k_repair[] = {
    {"probe the exact list L: run the option probe " DCCI_NEXT_PROBE_SCRIPT " with "
     DCCI_NEXT_PROBE_FLAG " (the protocol calls the flag " DCCI_NEXT_PROBE_FLAG_PROTOCOL
     ") in a subshell of the same inference environment, after sourcing the same CANN set-up "
     "script (CANN loaded); keep its JSON report",
     "探针精确列表 L：在与推理相同的环境中、于子 shell 内先 source 同一份 CANN 环境脚本"
     "（CANN 已加载），再运行探针 " DCCI_NEXT_PROBE_SCRIPT "，值文件参数为 " DCCI_NEXT_PROBE_FLAG
     "（协议文字写作 " DCCI_NEXT_PROBE_FLAG_PROTOCOL "）；保留它的 JSON 报告",
     "(source CANN_SETENV && python3 " DCCI_NEXT_PROBE_SCRIPT " --json " DCCI_NEXT_PROBE_FLAG
     " " DCCI_NEXT_OUTDIR "/option-values.json) > environment.json"},
    {"check the probe report for every exact value (0 accepted; 10 rejected: stop; 3 unknown: "
     "probe again in the inference environment); its report names the values file's SHA-256 "
     "for skdcci family report --probe-check",
     "用 probe check 检查探针报告中的每个精确值（0 全部接受；10 被拒绝：停止；3 未知：在推理环境中"
     "重新探针）；它的报告记下值文件的 SHA-256，供 skdcci family report --probe-check 核对",
     "skdcci probe check --report environment.json --values " DCCI_NEXT_OUTDIR
     "/option-values.json --json-out probe-check.json"},
    {"write the joint repair config from the disable-all config of this pair (never by hand), "
     "then prove it with skdcci config-diff --dcci-repair",
     "由这一对采集所用的 disable-all 配置写出联合修复配置（不得手工编辑），"
     "再用 skdcci config-diff --dcci-repair 证明它",
     "skdcci repair-config --disable-all DISABLE_ALL_CONFIG --options " DCCI_NEXT_OUTDIR
     "/dcci-repair-options.json --analysis " DCCI_NEXT_OUTDIR " -o REPAIR_CONFIG"},
};

static const dcci_next_step k_recollect_contract[] = {
    {"re-collect both sides into new empty capture roots under the contract (artifact_contract "
     "begin, run, finalize) as to_collect says, then analyze again; there is no repair list",
     "按 to_collect 在新的空根目录中依契约重新采集两侧（artifact_contract begin、run、"
     "finalize），再重新分析；没有修复列表",
     NULL},
};

static const dcci_next_step k_recollect[] = {
    {"collect what to_collect lists, seal it, then analyze again; there is no repair list",
     "按 to_collect 补采并封存，再重新分析；没有修复列表", NULL},
};

static const dcci_next_step k_stop[] = {
    {"stop: there is no repair list; the DCCI family is rejected and O0 kept (skdcci family "
     "report records it)",
     "停止：没有修复列表；DCCI 家族被拒绝，保持 O0（由 skdcci family report 记录）", NULL},
};

#define STEPS(a) (sizeof(a) / sizeof((a)[0])), (a)

void dcci_next_of(dcci_status s, dcci_next *out)
{
    switch (s) {
    case DCCI_STATUS_REPAIR_CANDIDATE:
        *out = (dcci_next){"probe_then_repair_config", STEPS(k_repair)};
        return;
    case DCCI_STATUS_NO_REGRESSED_CHILD:
    case DCCI_STATUS_NO_SIGNIFICANT_REGRESSION:
        *out = (dcci_next){"stop", STEPS(k_stop)};
        return;
    case DCCI_STATUS_COLLECTION_BLOCKED:
        *out = (dcci_next){"recollect", STEPS(k_recollect_contract)};
        return;
    case DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED:
    case DCCI_STATUS_MAPPING_BLOCKED:
    case DCCI_STATUS_EVIDENCE_BLOCKED:
        break;
    }
    *out = (dcci_next){"recollect", STEPS(k_recollect)};
}

sk_err dcci_next_render(const char *tmpl, const char *outdir, sk_buf *out, sk_diag *d)
{
    size_t plen = strlen(DCCI_NEXT_OUTDIR);
    const char *p = tmpl;
    sk_err e = SK_OK;
    for (const char *hit; !e && (hit = strstr(p, DCCI_NEXT_OUTDIR)) != NULL; p = hit + plen) {
        e = sk_buf_append(out, p, (size_t)(hit - p));
        if (!e)
            e = outdir ? sk_buf_append(out, outdir, strlen(outdir))
                       : sk_buf_append(out, DCCI_NEXT_OUTDIR, plen);
    }
    if (!e)
        e = sk_buf_append(out, p, strlen(p));
    if (e)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing the next steps");
    return SK_OK;
}
