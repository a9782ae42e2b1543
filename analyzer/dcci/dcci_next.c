#include "analyzer/dcci/dcci_next.h"

#include <string.h>

#include "artifact_contract/ac_codes.h"
#include "artifact_contract/base/sk_alloc.h"
#include "analyzer/dcci/dcci_contract.h"
#include "analyzer/numeric/num_exact.h"

typedef struct fixed_step {
    const char *what, *what_zh, *command;
} fixed_step;

static const fixed_step k_repair[] = {
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

static const fixed_step k_stop[] = {
    {"stop: there is no repair list; the DCCI family is rejected and O0 kept (skdcci family "
     "report records it)",
     "停止：没有修复列表；DCCI 家族被拒绝，保持 O0（由 skdcci family report 记录）", NULL},
};

/* ------------------------------------------------------------ reasons */

/* What a blocked status asks for, strongest last: the action of a status is
 * that of its strongest reason. */
typedef enum next_action {
    ACT_STOP = 0,
    ACT_FIX_ARGUMENTS = 1,
    ACT_FIX_INPUT = 2,
    ACT_RECOLLECT = 3
} next_action;

static const char *const k_action_name[] = {"stop", "fix_arguments", "fix_input", "recollect"};

/* One reason: the issues of code (and, for a contract refusal, of one of
 * the rules; none listed = any rule) and what they ask for.  In the texts,
 * {where} is the issue's file (with its line) or, without a file, its
 * message; {file} the file or, without one, the message; {side} the side ("O0",
 * "disable-all", or both sides); {msg} the message; {rule} the contract rule. */
typedef struct reason {
    const char *code;
    const char *needle; /* the message must contain it (NULL: any message) */
    int rules[12];      /* 0-terminated */
    next_action action;
    const char *what, *what_zh;
} reason;

#define RECOLLECT_ZH "在新的空根目录中依契约（begin、run、finalize --producer-record）重新采集"

static const reason k_reasons[] = {
    /* the contract refusals, by rule (docs/artifact_contract.md "Error codes") */
    {"contract_invalid", NULL,
     {AC_E_SET_MISMATCH, AC_E_SET_NOT_DISTINCT, AC_E_ROLE_SET, AC_E_UNKNOWN_ROLE,
      AC_E_ROOT_OVERLAP, 0},
     ACT_FIX_ARGUMENTS,
     "the two captures are not one sealed O0 / disable-all pair ({msg}): analyze the O0 "
     "root and the disable-all root sealed for the same pair (same source revision, workload "
     "and control), O0 first",
     "两个采集不是同一对已封存的 O0 / disable-all（{msg}）：请分析为同一对封存的 O0 根目录与 "
     "disable-all 根目录（源码版本、workload 与 control 相同），O0 在前"},
    {"contract_invalid", NULL, {AC_E_ROOT_MISSING, AC_E_ROOT_NOT_DIRECTORY, AC_E_ROOT_SYMLINK, 0},
     ACT_FIX_ARGUMENTS,
     "a root is not a capture directory ({msg}): give the capture directory itself (not a "
     "symlink) or its collection-manifest.json",
     "根目录参数不是采集目录（{msg}）：请给出采集目录本身（不能是符号链接）或其中的 "
     "collection-manifest.json"},
    {"contract_invalid", NULL, {AC_E_INPUT_MISSING, AC_E_INPUT_NOT_REGULAR, AC_E_INPUT_SYMLINK, 0},
     ACT_FIX_INPUT,
     "{file} is missing ({rule}): the {side} capture was never sealed; seal it with "
     "artifact_contract finalize --producer-record from the session and run record of its "
     "collection, or collect it again under the contract",
     "{file} 不存在（{rule}）：{side} 采集从未封存；请用它采集时的 session 与运行记录执行 "
     "artifact_contract finalize --producer-record 封存它，或" RECOLLECT_ZH "这一侧"},
    {"contract_invalid", NULL, {AC_E_ROOT_UNLISTED, AC_E_ROOT_UNSAFE_ENTRY, 0}, ACT_FIX_INPUT,
     "an entry was put into the sealed {side} root after it was sealed, the manifest does not "
     "list it ({msg}): move it out of the root and analyze again; the sealed files are "
     "unchanged",
     "{side} 根目录封存之后又放进了 manifest 没有列出的条目（{msg}）：把它移出根目录后重新分析；"
     "已封存的文件没有改变"},
    {"contract_invalid", NULL,
     {AC_E_ARTIFACT_CONTENT, AC_E_ARTIFACT_STAT, AC_E_ARTIFACT_CHANGED, AC_E_ARTIFACT_UNSAFE,
      AC_E_ARTIFACT_CTIME, AC_E_UNCONFIRMED, AC_E_INPUT_CHANGED, AC_E_ROOT_CHANGED,
      AC_E_ROOT_SCAN_CHANGED, 0},
     ACT_RECOLLECT,
     "a file of the {side} capture is no longer the file that was sealed ({msg}): a sealed "
     "capture is evidence and is never edited; collect the {side} side again into a new empty "
     "root under the contract (begin, run, finalize --producer-record)",
     "{side} 采集中有文件已不是封存时的文件（{msg}）：已封存的采集是证据，不得修改；请"
     RECOLLECT_ZH " {side} 这一侧"},
    {"contract_invalid", NULL, {AC_E_DCCI_CONFIG_DIFF, 0}, ACT_RECOLLECT,
     "the configs of the two captures differ in more than dcci_disable_on_kernel ({msg}): "
     "collect disable-all with the O0 config plus dcci_disable_on_kernel=[\".*\"] and "
     "nothing else",
     "两个采集的配置除 dcci_disable_on_kernel 之外还有差异（{msg}）：disable-all 必须使用 O0 "
     "的配置，只增加 dcci_disable_on_kernel=[\".*\"]，然后重新采集"},
    {"contract_invalid", NULL, {AC_E_PRODUCER_WINDOW, AC_E_PRODUCER, AC_E_PRODUCER_RECORD, 0},
     ACT_RECOLLECT,
     "the {side} capture was not written by the run its manifest records ({msg}): run the "
     "profiling command itself under artifact_contract run and collect the side again",
     "{side} 采集不是由其 manifest 记录的运行写出的（{msg}）：请用 artifact_contract run 运行采集"
     "命令本身，重新采集这一侧"},
    {"contract_invalid", NULL, {AC_E_SHARED_ARTIFACT, AC_E_ROOT_HARDLINK, AC_E_ROOT_FOREIGN_DEVICE, 0},
     ACT_RECOLLECT,
     "each side must be collected into a root of its own on one file system, with files of its "
     "own, no hard link, no file shared with the other root ({msg}); collect the {side} side "
     "again",
     "每一侧都必须采集到自己的根目录中：同一文件系统、文件独有、不得有硬链接、不得与另一根目录共享"
     "文件（{msg}）；请重新采集 {side} 这一侧"},
    {"contract_invalid", NULL,
     {AC_E_SESSION_FINGERPRINT, AC_E_SESSION_MISMATCH, AC_E_SESSION_INVALID, AC_E_MARKER_MISMATCH,
      AC_E_MARKER_WITHOUT_SESSION, AC_E_MARKER_INVALID, 0},
     ACT_RECOLLECT,
     "the {side} root is not the root its session sealed, a copied or moved capture ({msg}): a "
     "capture proves nothing outside the root it was collected into; analyze the original "
     "root, or collect the side again under the contract",
     "{side} 根目录不是其 session 封存的那个根目录，是复制或移动过的采集（{msg}）：采集离开它被采集"
     "时的根目录就不再是证据；请分析原来的根目录，或" RECOLLECT_ZH "这一侧"},
    {"contract_invalid", NULL, {0}, ACT_RECOLLECT,
     "the {side} manifest does not validate ({msg}): it was edited or not written by "
     "artifact_contract finalize; collect the side again under the contract (begin, run, "
     "finalize --producer-record)",
     "{side} 的 manifest 未通过校验（{msg}）：它被修改过，或不是由 artifact_contract finalize "
     "写出的；请" RECOLLECT_ZH "这一侧"},
    /* a capture not bound to its producer: a copy */
    {"producer_unbound", NULL, {0}, ACT_RECOLLECT,
     "the {side} capture is not bound to the run that produced it, a copied capture ({where}): "
     "run the profiling command itself under artifact_contract run --session and finalize with "
     "--producer-record; files copied into a root are never bound to a run",
     "{side} 采集没有绑定到产生它的运行，是复制来的采集（{where}）：请用 artifact_contract run "
     "--session 运行采集命令本身，再用 finalize --producer-record 封存；复制进根目录的文件永远不会"
     "绑定到运行"},
    {"unsealed_input", NULL, {0}, ACT_RECOLLECT,
     "--unsealed checks only the inventory and the format: seal each capture as it is produced "
     "(artifact_contract begin, run, finalize --producer-record) and analyze the sealed roots "
     "without --unsealed",
     "--unsealed 只检查清单与格式：请在采集时依契约封存每一侧（artifact_contract begin、run、"
     "finalize --producer-record），再不带 --unsealed 分析封存的根目录"},
    {"missing_input", NULL, {0}, ACT_RECOLLECT,
     "the {side} capture lacks an input ({msg}): collect it again with SK metadata, sk_prof "
     "(ASCEND_PROF_SK_ON) and kernel_details on, and seal the runtime's sk_meta/<pid>/ and the "
     "profiler output whole",
     "{side} 采集缺少输入（{msg}）：请在开启 SK 元数据、sk_prof（ASCEND_PROF_SK_ON）与 "
     "kernel_details 的情况下重新采集，并完整封存运行时写出的 sk_meta/<pid>/ 与 profiler 输出"},
    {"layout", NULL, {0}, ACT_RECOLLECT,
     "{where}: keep the runtime's layout (sk_meta/<pid>/model_<id>/ holding one file of each "
     "role) and collect the {side} side again",
     "{where}：请保持运行时的目录结构（sk_meta/<pid>/model_<id>/ 中每种文件各一个），重新采集 "
     "{side} 这一侧"},
    {"multiple_processes", NULL, {0}, ACT_RECOLLECT,
     "the {side} capture holds the SK metadata of two processes ({where}): collect one "
     "inference process per device (several devices form a multi-rank pair with one raw trace "
     "per process)",
     "{side} 采集含有两个进程的 SK 元数据（{where}）：每个设备只采集一个推理进程（多个设备构成多 "
     "rank 采集，每个进程一个原始 trace）"},
    {"rank_unbound", NULL, {0}, ACT_RECOLLECT,
     "a rank of the {side} capture is incomplete ({msg}): keep, for every rank, sk_meta/<pid>/ "
     "with its raw trace sk_prof_device_<d>.json and the profiler output with kernel_details.csv "
     "and the copy of that trace; collect the side again",
     "{side} 采集的某个 rank 不完整（{msg}）：每个 rank 都要保留 sk_meta/<pid>/ 及其原始 trace "
     "sk_prof_device_<d>.json，以及含 kernel_details.csv 与该 trace 副本的 profiler 输出；请重新采集"
     "这一侧"},
    {"rank_duplicate", NULL, {0}, ACT_RECOLLECT,
     "the {side} capture holds two processes or profiler outputs of one device ({msg}): collect "
     "one inference process per device",
     "{side} 采集中同一设备有两个进程或两份 profiler 输出（{msg}）：每个设备只采集一个推理进程"},
    {"trace_copy_mismatch", NULL, {0}, ACT_RECOLLECT,
     "the raw trace and its profiler copy differ on the {side} side ({msg}): seal the files the "
     "run wrote, unchanged; collect the side again",
     "{side} 侧的原始 trace 与其 profiler 副本不同（{msg}）：请原样封存运行写出的文件，重新采集"
     "这一侧"},
    {"device_set_mismatch", NULL, {0}, ACT_RECOLLECT,
     "the sides hold different devices ({msg}): profile the same devices on both sides",
     "两侧的设备不同（{msg}）：两侧必须在相同的设备上采集"},
    {"sk_prof_model_unproven", NULL, {0}, ACT_RECOLLECT,
     "the sk_prof trace of {side} names its models by args.modelRI, an older runtime's handle: "
     "collect again with a runtime that writes args.modelId",
     "{side} 的 sk_prof trace 用 args.modelRI（旧版运行时的句柄）指明模型：请用写出 args.modelId "
     "的运行时重新采集"},
    {"metadata_mismatch", NULL, {0}, ACT_RECOLLECT,
     "the kernel_details rows, super_kernel.log and fused logs of {side} do not describe one run "
     "({where}): collect the profiler output and sk_meta of one run together",
     "{side} 的 kernel_details、super_kernel.log 与融合日志不是同一次运行的（{where}）："
     "请把同一次运行的 profiler 输出与 sk_meta 一起采集"},
    {"multiple_devices", NULL, {0}, ACT_RECOLLECT,
     "the kernel_details rows of {side} name two devices ({where}): collect each device's "
     "process with its own profiler output (a multi-rank pair)",
     "{side} 的 kernel_details 行出现两个设备（{where}）：每个设备的进程使用各自的 profiler 输出"
     "采集（多 rank 采集）"},
    {"device_mismatch", NULL, {0}, ACT_RECOLLECT,
     "the files of {side} name different devices ({msg}): every file of a rank must come from "
     "the one process on that device; collect the side again",
     "{side} 的文件指向不同的设备（{msg}）：一个 rank 的所有文件必须来自该设备上的同一个进程；"
     "请重新采集这一侧"},
    {"occurrence_mode_mismatch", NULL, {0}, ACT_RECOLLECT,
     "profile both sides with the same profiler set-up: step markers (the Step Id column of "
     "kernel_details) on both sides or on neither",
     "两侧必须使用相同的 profiler 设置：要么两侧都有 step 标记（kernel_details 的 Step Id 列），"
     "要么都没有"},
    {"options_missing", NULL, {0}, ACT_RECOLLECT,
     "{where} carries no graph options: collect with a runtime that writes the options into "
     "sk_graph_origin.json and sk_graph_updated.json",
     "{where} 没有图选项：请用会把选项写入 sk_graph_origin.json 与 sk_graph_updated.json 的运行时"
     "重新采集"},
    {"options_mismatch", NULL, {0}, ACT_RECOLLECT,
     "the effective options differ in more than dcci_disable_on_kernel ({msg}): collect O0 "
     "without any DCCI option and disable-all with exactly dcci_disable_on_kernel=[\".*\"], "
     "every other option equal on both sides",
     "生效的选项除 dcci_disable_on_kernel 之外还有差异（{msg}）：O0 不带任何 DCCI 选项，disable-all "
     "只带 dcci_disable_on_kernel=[\".*\"]，其余选项两侧完全相同，然后重新采集"},
    {"o0_dcci_option", NULL, {0}, ACT_RECOLLECT,
     "the O0 process ran with a DCCI option ({msg}): collect O0 again without any DCCI option "
     "(the effective options, not only the config)",
     "O0 进程带着 DCCI 选项运行（{msg}）：请不带任何 DCCI 选项重新采集 O0（以生效的选项为准，"
     "不只是配置文件）"},
    {"prof_sk_on_conflict", NULL, {0}, ACT_RECOLLECT,
     "the super_kernel.log files of {side} log different ASCEND_PROF_SK_ON states ({where}): "
     "set it once for the inference process and collect the side again",
     "{side} 的 super_kernel.log 记录了不同的 ASCEND_PROF_SK_ON 状态（{where}）：请为推理进程统一"
     "设置它，重新采集这一侧"},
    {"prof_sk_on_unverified", NULL, {0}, ACT_RECOLLECT,
     "no super_kernel.log of {side} logs ASCEND_PROF_SK_ON as on ({msg}): export it in the "
     "environment of the inference process (the value the control file records) and collect "
     "the side again",
     "{side} 没有任何 super_kernel.log 记录 ASCEND_PROF_SK_ON 已开启（{msg}）：请在推理进程的环境中"
     "导出它（取 control 文件记录的值），重新采集这一侧"},
    {"prof_sk_on_mismatch", NULL, {0}, ACT_RECOLLECT,
     "ASCEND_PROF_SK_ON differs between the control file and super_kernel.log of {side} "
     "({msg}): run with the value the control file records and collect the side again",
     "{side} 的 control 文件与 super_kernel.log 中的 ASCEND_PROF_SK_ON 不同（{msg}）：请按 control "
     "文件记录的值运行，重新采集这一侧"},
    /* mapping */
    {"no_matched_sk", NULL, {0}, ACT_RECOLLECT,
     "no SK pairs across the sides ({msg}): collect both sides from the same model and graph "
     "(DCCI options must not change fusion)",
     "两侧没有任何 SK 能配对（{msg}）：两侧必须来自同一模型与同一图（DCCI 选项不得改变融合）"},
    {"sk_unmatched", NULL, {0}, ACT_RECOLLECT,
     "an SK of {side} has no structural partner ({msg}): collect both sides from the same model "
     "and graph (DCCI options must not change fusion)",
     "{side} 的 SK 在另一侧没有结构对应（{msg}）：两侧必须来自同一模型与同一图（DCCI 选项不得改变"
     "融合）"},
    {"sk_ambiguous", NULL, {0}, ACT_RECOLLECT,
     "an SK of {side} has no unique structural partner ({msg}): collect both sides from the "
     "same model and graph (DCCI options must not change fusion)",
     "{side} 的 SK 没有唯一的结构对应（{msg}）：两侧必须来自同一模型与同一图（DCCI 选项不得改变"
     "融合）"},
    /* evidence: rejected rows (dcci_gates.c names invalid_profile_occurrence), or too few */
    {"sk_unclassified", "invalid_profile_occurrence", {0}, ACT_RECOLLECT,
     "kernel_details rows of an SK were rejected on {side} (no start, no duration or a "
     "duration <= 0: {msg}): collect that side again; a rejected row is never left out",
     "{side} 上有 SK 的 kernel_details 行被拒绝（缺开始时间、缺时长或时长 <= 0：{msg}）："
     "请重新采集这一侧；被拒绝的行不会被静默忽略"},
    {"sk_unclassified", NULL, {0}, ACT_RECOLLECT,
     "an SK has too few samples to be classified ({msg}): profile more steps on the short side "
     "so that every SK has at least min_occurrences post-warmup kernel_details rows on each "
     "side",
     "有 SK 的样本太少，无法分类（{msg}）：请在样本不足的一侧采集更多 step，使每个 SK 每侧至少有 "
     "min_occurrences 个预热后的 kernel_details 行"},
    /* child attribution */
    {"buffer_full", NULL, {0}, ACT_RECOLLECT,
     "the sk_prof buffer of {side} filled and child records were lost ({where}): profile a "
     "shorter window (fewer steps) or give ASCEND_PROF_SK_ON a larger buffer, and collect both "
     "sides again; the SK-level results stand",
     "{side} 的 sk_prof 缓冲区已满，子节点记录丢失（{where}）：请缩短采集窗口（更少的 step）或为 "
     "ASCEND_PROF_SK_ON 设置更大的缓冲区，重新采集两侧；SK 级结果仍然有效"},
    {"core_capacity_reached", NULL, {0}, ACT_RECOLLECT,
     "a core of {side} reached the sk_prof record capacity ({msg}): profile a shorter window or "
     "give ASCEND_PROF_SK_ON a larger buffer, and collect both sides again",
     "{side} 有核的 sk_prof 记录数达到容量（{msg}）：请缩短采集窗口或为 ASCEND_PROF_SK_ON 设置更大的"
     "缓冲区，重新采集两侧"},
    {"sk_prof_missing", NULL, {0}, ACT_RECOLLECT,
     "{side} has no sk_prof trace for a slower SK: collect it again with ASCEND_PROF_SK_ON set",
     "{side} 没有显著变慢 SK 的 sk_prof trace：请设置 ASCEND_PROF_SK_ON 后重新采集"},
    {"fixture_shape", NULL, {0}, ACT_RECOLLECT,
     "the sk_prof trace of {side} has no skId and no parent records (the reference fixture "
     "shape): collect it with the runtime's own sk_prof dump",
     "{side} 的 sk_prof trace 没有 skId 与父记录（参考实现的样例形态）：请用运行时自己的 sk_prof "
     "转储重新采集"},
    {"insufficient_launches", NULL, {0}, ACT_RECOLLECT,
     "too few sk_prof launches on {side} ({msg}): profile more steps so that each slower SK has "
     "at least min_occurrences analysed launches after the warmup launches",
     "{side} 的 sk_prof launch 太少（{msg}）：请采集更多 step，使每个显著变慢的 SK 在丢弃预热 launch "
     "后至少有 min_occurrences 次已分析的 launch"},
    {"trace_order", NULL, {0}, ACT_RECOLLECT,
     "the sk_prof trace of {side} is not in the runtime's write order ({where}): seal the trace "
     "as the runtime wrote it (never merged or re-sorted); collect the side again",
     "{side} 的 sk_prof trace 不是运行时写出的顺序（{where}）：请原样封存运行时写出的 trace（不得合并"
     "或重新排序），重新采集这一侧"},
    {"decomposition_incomplete", NULL, {0}, ACT_RECOLLECT,
     "no child table could be computed ({msg}): collect both sides again",
     "无法计算子节点表（{msg}）：请重新采集两侧"},
    {"no_valid_regex", NULL, {0}, ACT_STOP,
     "no narrow runtime pattern exists for a selected token ({msg}; regex_validation gives each "
     "candidate's verdict): a new capture has the same symbols, so no repair list L can be "
     "built and no joint repair trial run; keep O0",
     "被选中的 token 没有合格的窄运行时模式（{msg}；regex_validation 给出每个候选的判定）："
     "重新采集得到的符号相同，因此无法构造修复列表 L，也不能进行联合修复试验；保持 O0"},
};

/* The other attribution codes (incomplete_lanes, orphan_records,
 * overlapping_launches, child_symbol_mismatch, multiple_traces) and any
 * code not listed: the trace or capture cannot carry the decision. */
static const reason k_trace_reason = {
    NULL, NULL, {0}, ACT_RECOLLECT,
    "the sk_prof trace of {side} cannot attribute children to launches ({where}): collect the "
    "side again from one process, with its trace sealed as the runtime wrote it",
    "{side} 的 sk_prof trace 无法把子节点归到 launch（{where}）：请从一个进程重新采集这一侧，并原样"
    "封存运行时写出的 trace"};

static const reason k_other_reason = {
    NULL, NULL, {0}, ACT_RECOLLECT,
    "{where}: collect both sides again into new empty roots under the contract",
    "{where}：请" RECOLLECT_ZH "两侧"};

static int rule_listed(const reason *r, int rule)
{
    if (!r->rules[0])
        return 1; /* any rule */
    for (size_t i = 0; i < sizeof r->rules / sizeof r->rules[0] && r->rules[i]; i++)
        if (r->rules[i] == rule)
            return 1;
    return 0;
}

static const reason *reason_of(const dcci_issue *it)
{
    for (size_t i = 0; i < sizeof k_reasons / sizeof k_reasons[0]; i++)
        if (strcmp(k_reasons[i].code, it->code) == 0 && rule_listed(&k_reasons[i], it->rule) &&
            (!k_reasons[i].needle || strstr(it->message, k_reasons[i].needle)))
            return &k_reasons[i];
    return it->gate == DCCI_GATE_ATTRIBUTION ? &k_trace_reason : &k_other_reason;
}

/* ------------------------------------------------------------ building */

typedef struct builder {
    const dcci_analysis *a;
    dcci_next *nx;
    size_t cap;
    dcci_gate gate;
    next_action action;
    sk_err e;
    /* the issues of the blocking gate, in report order */
    const dcci_issue **issues;
    size_t nissues, issues_cap;
} builder;

static void nomem(builder *b)
{
    if (!b->e)
        b->e = SK_E_NOMEM;
}

static dcci_next_step *new_step(builder *b)
{
    if (b->e)
        return NULL;
    if (b->nx->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4;
        dcci_next_step *v = sk_realloc(b->nx->steps, cap * sizeof *v);
        if (!v) {
            nomem(b);
            return NULL;
        }
        b->nx->steps = v;
        b->cap = cap;
    }
    dcci_next_step *s = &b->nx->steps[b->nx->n++];
    memset(s, 0, sizeof *s);
    return s;
}

static char *dup_or_null(builder *b, const char *s)
{
    if (!s || b->e)
        return NULL;
    char *c = sk_strdup(s);
    if (!c)
        nomem(b);
    return c;
}

static void add_fixed(builder *b, const fixed_step *steps, size_t n)
{
    for (size_t i = 0; i < n && !b->e; i++) {
        dcci_next_step *s = new_step(b);
        if (!s)
            return;
        s->what = dup_or_null(b, steps[i].what);
        s->what_zh = dup_or_null(b, steps[i].what_zh);
        s->command = dup_or_null(b, steps[i].command);
    }
}

static int collect_issue(void *ctx, const dcci_issue *it)
{
    builder *b = ctx;
    if (b->e || it->gate != b->gate)
        return 0;
    if (b->nissues == b->issues_cap) {
        size_t cap = b->issues_cap ? b->issues_cap * 2 : 16;
        const dcci_issue **v = sk_realloc(b->issues, cap * sizeof *v);
        if (!v) {
            nomem(b);
            return 1;
        }
        b->issues = v;
        b->issues_cap = cap;
    }
    b->issues[b->nissues++] = it;
    return 0;
}

static const char *side_text(const char *side, int zh)
{
    if (!side)
        return zh ? "两侧" : "both sides";
    return strcmp(side, "o0") == 0 ? "O0" : "disable-all";
}

/* Expands a reason's text for its first issue it (n further issues of the
 * same reason, more of them only counted). */
static void expand(builder *b, sk_buf *out, const char *tmpl, const dcci_issue *it,
                   size_t others, int zh)
{
    if (it->has_device && !b->e)
        b->e = zh ? sk_buf_printf(out, "设备 %llu：", (unsigned long long)it->device)
                  : sk_buf_printf(out, "device %llu: ", (unsigned long long)it->device);
    for (const char *p = tmpl; *p && !b->e;) {
        const char *open = strchr(p, '{');
        const char *close = open ? strchr(open, '}') : NULL;
        if (!close) {
            b->e = sk_buf_puts(out, p);
            break;
        }
        b->e = sk_buf_append(out, p, (size_t)(open - p));
        size_t n = (size_t)(close - open - 1);
        const char *v = NULL;
        if (n == 5 && memcmp(open + 1, "where", 5) == 0 && it->file && it->line && !b->e) {
            b->e = sk_buf_printf(out, "%s:%llu", it->file, (unsigned long long)it->line);
            p = close + 1;
            continue;
        }
        if ((n == 5 && memcmp(open + 1, "where", 5) == 0) ||
            (n == 4 && memcmp(open + 1, "file", 4) == 0))
            v = it->file ? it->file : it->message;
        else if (n == 4 && memcmp(open + 1, "side", 4) == 0)
            v = side_text(it->side, zh);
        else if (n == 3 && memcmp(open + 1, "msg", 3) == 0)
            v = it->message;
        else if (n == 4 && memcmp(open + 1, "rule", 4) == 0)
            v = ac_code_name(it->rule);
        if (!b->e)
            b->e = v ? sk_buf_puts(out, v) : sk_buf_append(out, open, n + 2);
        p = close + 1;
    }
    if (others && !b->e)
        b->e = zh ? sk_buf_printf(out, "（另有 %zu 条同类问题，见 status_reasons）", others)
                  : sk_buf_printf(out, " (%zu more of this reason in status_reasons)", others);
}

/* " --warmup-steps N ..." of this analysis, as given (defaults left out). */
static void threshold_args(builder *b, sk_buf *out)
{
    const dcci_opts *o = &b->a->opts;
    dcci_classify_opts def;
    dcci_classify_opts_default(&def);
    char t[64];
    sk_diag d;
    if (o->warmup_steps && !b->e)
        b->e = sk_buf_printf(out, " --warmup-steps %llu", (unsigned long long)o->warmup_steps);
    if (o->has_warmup_launches && !b->e)
        b->e = sk_buf_printf(out, " --warmup-launches %llu",
                             (unsigned long long)o->warmup_launches);
    if (o->classify.min_occurrences != def.min_occurrences && !b->e)
        b->e = sk_buf_printf(out, " --min-occurrences %zu", o->classify.min_occurrences);
    if (o->classify.min_relative_milli_pct != def.min_relative_milli_pct && !b->e) {
        b->e = num_exact_format(o->classify.min_relative_milli_pct, 1000, 0, t, sizeof t, &d);
        if (!b->e)
            b->e = sk_buf_printf(out, " --min-relative-pct %s", t);
    }
    if (o->classify.min_abs_ns != def.min_abs_ns && !b->e) {
        b->e = num_exact_format(o->classify.min_abs_ns, 1, 3, t, sizeof t, &d);
        if (!b->e)
            b->e = sk_buf_printf(out, " --min-abs-us %s", t);
    }
}

/* A root as one shell word that analyze reads as an operand. */
static void root_arg(builder *b, sk_buf *out, const char *root)
{
    if (b->e)
        return;
    b->e = sk_buf_putc(out, ' ');
    if (!b->e && root[0] == '-')
        b->e = sk_buf_puts(out, "./");
    if (!b->e)
        b->e = sk_buf_put_shell_word(out, root);
}

static char *analyze_command(builder *b, const char *o0, const char *dis, int quote)
{
    sk_buf c = SK_BUF_INIT;
    if (!b->e)
        b->e = sk_buf_puts(&c, "skdcci analyze");
    if (quote) {
        root_arg(b, &c, o0);
        root_arg(b, &c, dis);
    } else if (!b->e) {
        b->e = sk_buf_printf(&c, " %s %s", o0, dis);
    }
    threshold_args(b, &c);
    if (!b->e)
        b->e = sk_buf_puts(&c, " -o " DCCI_NEXT_NEW_OUTDIR);
    char *s = b->e ? NULL : sk_buf_take(&c);
    sk_buf_free(&c);
    if (!s)
        nomem(b);
    return s;
}

/* One step for the issues of one reason (from index i on). */
static void add_reason(builder *b, const reason *r, size_t first, size_t others)
{
    const dcci_issue *it = b->issues[first];
    const dcci_analysis *a = b->a;
    int swapped = strcmp(it->code, "contract_invalid") == 0 && it->rule == AC_E_MANIFEST_SHAPE &&
                  dcci_contract_swapped(a);
    dcci_next_step *s = new_step(b);
    if (!s)
        return;
    s->reason = dup_or_null(b, it->code);
    sk_buf en = SK_BUF_INIT, zh = SK_BUF_INIT;
    if (swapped) {
        expand(b, &en, "the arguments are swapped (each manifest names the other role, {where}): "
                       "analyze the O0 capture first, then the disable-all capture, into a new "
                       "output directory", it, 0, 0);
        expand(b, &zh, "参数顺序颠倒（两个 manifest 各自写着另一侧的角色，{where}）：请先给 O0 采集、"
                       "再给 disable-all 采集，并输出到新的目录",
               it, 0, 1);
        s->command = analyze_command(b, a->side[1].in.root, a->side[0].in.root, 1);
        if (b->action < ACT_FIX_ARGUMENTS)
            b->action = ACT_FIX_ARGUMENTS;
    } else {
        expand(b, &en, r->what, it, others, 0);
        expand(b, &zh, r->what_zh, it, others, 1);
        if (r->action == ACT_FIX_ARGUMENTS)
            s->command = analyze_command(b, "O0_ROOT", "DISABLE_ALL_ROOT", 0);
        if (b->action < r->action)
            b->action = r->action;
    }
    if (!b->e) {
        s->what = sk_buf_take(&en);
        s->what_zh = sk_buf_take(&zh);
        if (!s->what || !s->what_zh)
            nomem(b);
    }
    sk_buf_free(&en);
    sk_buf_free(&zh);
}

static int same_reason(const dcci_issue *x, const dcci_issue *y)
{
    const reason *r = reason_of(x);
    return r == reason_of(y) && (r->code || strcmp(x->code, y->code) == 0);
}

static void add_blocked(builder *b)
{
    const dcci_analysis *a = b->a;
    b->gate = a->status == DCCI_STATUS_MAPPING_BLOCKED      ? DCCI_GATE_MAPPING
              : a->status == DCCI_STATUS_EVIDENCE_BLOCKED   ? DCCI_GATE_EVIDENCE
              : a->status == DCCI_STATUS_COLLECTION_BLOCKED ? DCCI_GATE_COLLECTION
                                                            : DCCI_GATE_ATTRIBUTION;
    b->action = ACT_STOP;
    dcci_analysis_each_issue(a, collect_issue, b);
    for (size_t i = 0; i < b->nissues && !b->e; i++) {
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = same_reason(b->issues[k], b->issues[i]);
        if (seen)
            continue;
        size_t others = b->issues[i]->more;
        for (size_t k = i + 1; k < b->nissues; k++)
            if (same_reason(b->issues[k], b->issues[i]))
                others += 1 + b->issues[k]->more;
        add_reason(b, reason_of(b->issues[i]), i, others);
    }
    if (!b->nissues && !b->e) { /* a blocked status always has a reason; never silent */
        dcci_next_step *s = new_step(b);
        if (s) {
            s->what = dup_or_null(b, "collect both sides again into new empty roots under the "
                                     "contract");
            s->what_zh = dup_or_null(b, "请" RECOLLECT_ZH "两侧");
        }
        b->action = ACT_RECOLLECT;
    }
    /* then analyze: the same roots after fixing them, a new collection */
    dcci_next_step *s = NULL;
    if (b->action == ACT_FIX_INPUT && (s = new_step(b)) != NULL) {
        s->what = dup_or_null(b, "then analyze the same roots again into a new output directory");
        s->what_zh = dup_or_null(b, "然后重新分析这两个根目录，输出到新的目录");
        s->command = analyze_command(b, a->side[0].in.root, a->side[1].in.root, 1);
    } else if (b->action == ACT_RECOLLECT && (s = new_step(b)) != NULL) {
        s->what = dup_or_null(b, "then analyze the new pair (NEW_O0, NEW_DISABLE_ALL: the new "
                                 "sealed roots) into a new output directory");
        s->what_zh = dup_or_null(b, "然后分析新采集的一对（NEW_O0、NEW_DISABLE_ALL：新封存的根目录），"
                                    "输出到新的目录");
        s->command = analyze_command(b, "NEW_O0", "NEW_DISABLE_ALL", 0);
    }
}

void dcci_next_free(dcci_next *nx)
{
    for (size_t i = 0; nx->steps && i < nx->n; i++) {
        sk_free(nx->steps[i].reason);
        sk_free(nx->steps[i].what);
        sk_free(nx->steps[i].what_zh);
        sk_free(nx->steps[i].command);
    }
    sk_free(nx->steps);
    nx->steps = NULL;
    nx->n = 0;
}

sk_err dcci_next_build(const dcci_analysis *a, dcci_next *out, sk_diag *d)
{
    builder b;
    memset(&b, 0, sizeof b);
    memset(out, 0, sizeof *out);
    b.a = a;
    b.nx = out;
    switch (a->status) {
    case DCCI_STATUS_REPAIR_CANDIDATE:
        out->action = "probe_then_repair_config";
        add_fixed(&b, k_repair, sizeof k_repair / sizeof k_repair[0]);
        break;
    case DCCI_STATUS_NO_REGRESSED_CHILD:
    case DCCI_STATUS_NO_SIGNIFICANT_REGRESSION:
        out->action = "stop";
        add_fixed(&b, k_stop, sizeof k_stop / sizeof k_stop[0]);
        break;
    case DCCI_STATUS_COLLECTION_BLOCKED:
    case DCCI_STATUS_MAPPING_BLOCKED:
    case DCCI_STATUS_EVIDENCE_BLOCKED:
    case DCCI_STATUS_CHILD_ATTRIBUTION_BLOCKED:
        add_blocked(&b);
        out->action = k_action_name[b.action];
        break;
    }
    sk_free(b.issues);
    if (b.e) {
        dcci_next_free(out);
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing the next steps");
    }
    return SK_OK;
}

sk_err dcci_next_render(const char *tmpl, const char *outdir, sk_buf *out, sk_diag *d)
{
    static const char keep[] = "NEW_";
    size_t plen = strlen(DCCI_NEXT_OUTDIR), klen = sizeof keep - 1;
    const char *p = tmpl;
    sk_err e = SK_OK;
    for (const char *hit; !e && (hit = strstr(p, DCCI_NEXT_OUTDIR)) != NULL; p = hit + plen) {
        e = sk_buf_append(out, p, (size_t)(hit - p));
        if (!e && ((size_t)(hit - tmpl) >= klen && memcmp(hit - klen, keep, klen) == 0))
            e = sk_buf_append(out, DCCI_NEXT_OUTDIR, plen); /* NEW_OUTDIR stays */
        else if (!e)
            e = outdir ? sk_buf_append(out, outdir, strlen(outdir))
                       : sk_buf_append(out, DCCI_NEXT_OUTDIR, plen);
    }
    if (!e)
        e = sk_buf_append(out, p, strlen(p));
    if (e)
        return sk_diag_set(d, SK_E_NOMEM, "", 0, "out of memory writing the next steps");
    return SK_OK;
}
