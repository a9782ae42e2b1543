/* skdcci_gen: deterministic generator of O0 / disable-all SuperKernel
 * diagnostic collections in the SK runtime's real formats, with planted
 * effects and a ground-truth file.  See docs/test-data.md.
 *
 *   skdcci_gen --out DIR --scenario NAME [--seed N] [--scale N] [--steps N]
 *              [--layers N] [--zstd] [--zstd-graphs] [--device N] [--no-step-id]
 *              [--ranks N] [--layout beside|torch_npu] [--kd-level 0|1]
 *              [--no-device-id] [--crlf] [--cycles N] [--visible-devices LIST]
 *
 * Writes DIR/o0/ and DIR/disable_all/ (raw profile roots, one rank per
 * device), the execution inputs DIR/inputs/<side>/{config,control,workload}.json
 * and DIR/ground-truth.json.  Exit 0 on success, 1 on failure, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "artifact_contract/base/sk_alloc.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_json.h"
#include "tests/tools/gen/gen_meta.h"
#include "tests/tools/gen/gen_model.h"
#include "tests/tools/gen/gen_out.h"
#include "tests/tools/gen/gen_sim.h"
#include "tests/tools/gen/gen_truth.h"

#define INPUTS_DIR "inputs"

static const char usage_text[] =
    "usage: skdcci_gen --out DIR --scenario NAME [--seed N] [--scale N] [--steps N] [--layers N]\n"
    "                  [--zstd] [--zstd-graphs] [--device N] [--no-step-id] [--ranks N]\n"
    "                  [--layout beside|torch_npu] [--kd-level 0|1] [--no-device-id] [--crlf]\n"
    "                  [--cycles N] [--visible-devices LIST]\n"
    "\n"
    "Writes a raw O0 / disable-all SuperKernel diagnostic pair into DIR (which must not exist or be\n"
    "empty): DIR/o0/, DIR/disable_all/, DIR/inputs/<side>/{config,control,workload}.json and\n"
    "DIR/ground-truth.json.  Same arguments, same bytes.\n"
    "\n"
    "  --scenario NAME  regression | no_regression | no_regressed_child | buffer_full |\n"
    "                   incomplete_lanes | ambiguous | options_mismatch | reordered | fixture_shape |\n"
    "                   header_only_kd | dropped_row | impure_o0 |\n"
    "                   multi_rank | multi_rank_device_set | multi_rank_buffer_full (these need --ranks)\n"
    "  --seed N         jitter, hashes, ids (default 1)\n"
    "  --scale N        multiplies the profiler steps (measured launches), default 1\n"
    "  --steps N        profiler steps at scale 1, at least 3 (default 6)\n"
    "  --layers N       decoder layers, at least 3 (default 3)\n"
    "  --zstd           write sk_prof and kernel_details as .zst\n"
    "  --zstd-graphs    also write the two graph JSONs as .zst\n"
    "  --device N       the device every file of both sides names (default 0); with --ranks, rank k's\n"
    "                   device is N + k\n"
    "  --no-step-id     kernel_details.csv without the Step Id column\n"
    "  --ranks N        ranks (devices, processes) per side, 1 to 16 (default 1); with 2 or more\n"
    "                   only regression, no_regression, no_regressed_child, reordered and the\n"
    "                   multi_rank scenarios are accepted\n"
    "  --layout L       beside (default): the trace copy beside kernel_details.csv; torch_npu: per\n"
    "                   process profiler/<worker>_<pid>_<time>_ascend_pt/ with\n"
    "                   ASCEND_PROFILER_OUTPUT/kernel_details.csv and PROF_*/sk_prof_device_<d>.json,\n"
    "                   and the raw trace in sk_meta/<pid>/\n"
    "  --kd-level N     kernel_details columns of profiler_level Level1 (default) or Level0 (no\n"
    "                   Model ID, Task ID, Stream ID)\n"
    "  --no-device-id   kernel_details.csv without the Device_id column (torch_npu before 7.1.0)\n"
    "  --crlf           kernel_details.csv lines end with CRLF (Python's csv writer)\n"
    "  --cycles N       profiler cycles per process, 1 to 4 (torch_npu layout): one *_ascend_pt\n"
    "                   directory each, the trace copy in the first\n"
    "  --visible-devices LIST\n"
    "                   the run's ASCEND_RT_VISIBLE_DEVICES (comma-separated driver device ids):\n"
    "                   kernel_details Device_id of device d is the d-th entry; the control\n"
    "                   records it\n"
    "\n"
    "Exit status: 0 written, 1 failure, 2 usage error.\n";

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "skdcci_gen: %s%s%s (see --help)\n", msg, arg ? ": " : "", arg ? arg : "");
    return 2;
}

/* Decimal digits only, no sign, no overflow. */
static int parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned dgt = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - dgt) / 10)
            return -1;
        v = v * 10 + dgt;
    }
    *out = v;
    return 0;
}

/* "4,5,6,7": distinct ids 0-63, single commas, no spaces. */
static int parse_visible(const char *text, gen_options *opt)
{
    char buf[512];
    if (!*text || strlen(text) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", text);
    opt->nvisible = 0;
    for (char *p = buf;;) {
        char *comma = strchr(p, ',');
        uint64_t v;
        if (comma)
            *comma = '\0';
        if (parse_u64(p, &v) || v > 63 || opt->nvisible >= GEN_MAX_VISIBLE)
            return -1;
        for (unsigned k = 0; k < opt->nvisible; k++)
            if (opt->visible[k] == v)
                return -1;
        opt->visible[opt->nvisible++] = (unsigned)v;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

static sk_err make_dir(const char *path, sk_diag *d)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return SK_OK;
        return sk_diag_set(d, SK_E_PATH, path, 0, "exists and is not a directory");
    }
    return sk_diag_set(d, SK_E_IO, path, 0, "cannot create directory: %s", strerror(errno));
}

/* mkdir -p for a path below an existing directory. */
static sk_err make_dirs(const char *path, sk_diag *d)
{
    char tmp[1200];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return sk_diag_set(d, SK_E_LIMIT, path, 0, "path too long");
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        sk_err e = make_dir(tmp, d);
        *p = '/';
        if (e)
            return e;
    }
    return make_dir(tmp, d);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    return ftw->level == 0 ? 0 : remove(path);
}

/* After a failure: removes everything below dir (which was empty or absent
 * when the generator started, so all of it is the generator's). */
static void remove_outputs(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static sk_err prepare_out_dir(const char *dir, sk_diag *d)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return sk_diag_set(d, SK_E_IO, dir, 0, "cannot stat: %s", strerror(errno));
        return make_dirs(dir, d);
    }
    if (!S_ISDIR(st.st_mode))
        return sk_diag_set(d, SK_E_EXISTS, dir, 0, "exists and is not a directory");
    DIR *dh = opendir(dir);
    if (!dh)
        return sk_diag_set(d, SK_E_IO, dir, 0, "cannot open: %s", strerror(errno));
    struct dirent *de;
    int empty = 1;
    while ((de = readdir(dh)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            empty = 0;
    closedir(dh);
    if (!empty)
        return sk_diag_set(d, SK_E_EXISTS, dir, 0, "output directory is not empty; generated data is never overwritten");
    return SK_OK;
}

/* ------------------------------------------------ execution inputs */

static sk_err write_json(const char *path, cJSON *doc, sk_diag *d)
{
    sk_buf text = SK_BUF_INIT;
    gen_out o;
    memset(&o, 0, sizeof o);
    o.fd = -1;
    sk_err e = doc ? sk_json_write(doc, SK_JSON_PRETTY, &text, d)
                   : sk_diag_set(d, SK_E_NOMEM, path, 0, "out of memory building the document");
    if (e && d->code == SK_OK) /* sk_json_write reports NOMEM without a message */
        sk_diag_set(d, e, path, 0, "out of memory writing the document");
    if (!e)
        e = gen_out_open(&o, path, 0, d);
    if (!e) {
        gen_out_write(&o, text.data, text.len);
        gen_out_putc(&o, '\n');
        e = gen_out_close(&o, d);
    }
    gen_out_abandon(&o);
    sk_buf_free(&text);
    cJSON_Delete(doc);
    return e;
}

/* Builders that turn any allocation failure into a NULL document. */
typedef struct jb {
    int failed;
} jb;

static cJSON *jb_obj(jb *b, cJSON *parent, const char *key)
{
    cJSON *o = cJSON_CreateObject();
    if (!o || (parent && sk_json_add(parent, key, o)))
        b->failed = 1;
    return o;
}

static void jb_int(jb *b, cJSON *obj, const char *key, int64_t v)
{
    if (!obj || sk_json_add_int(obj, key, v))
        b->failed = 1;
}

static void jb_str(jb *b, cJSON *obj, const char *key, const char *v)
{
    if (!obj || sk_json_add_str(obj, key, v))
        b->failed = 1;
}

static cJSON *jb_done(jb *b, cJSON *root)
{
    if (b->failed) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* The exact execution config of a side: O0 sets no DCCI option;
 * disable-all adds dcci_disable_on_kernel = [".*"] at one pointer. */
static cJSON *config_doc(const gen_model *m, gen_side side)
{
    jb b = {0};
    gen_exec_options eo;
    gen_config_options(m, side, &eo);
    cJSON *root = jb_obj(&b, NULL, NULL);
    cJSON *mc = jb_obj(&b, root, "model_config");
    cJSON *cp = jb_obj(&b, mc, "custom_params");
    cJSON *opt = jb_obj(&b, cp, "super_kernel_optimize_options");
    jb_obj(&b, cp, "super_kernel_debug_options");
    if (eo.auto_op_parallel_set)
        jb_int(&b, opt, "auto_op_parallel", eo.auto_op_parallel);
    if (eo.dcci_disable_all) {
        cJSON *list = cJSON_CreateArray();
        cJSON *pat = cJSON_CreateString(".*");
        if (!list || !pat || !opt) {
            cJSON_Delete(list);
            cJSON_Delete(pat);
            b.failed = 1;
        } else if (sk_json_append(list, pat) || sk_json_add(opt, "dcci_disable_on_kernel", list)) {
            b.failed = 1;
        }
    }
    jb_int(&b, opt, "preload_code", eo.preload_code);
    jb_int(&b, opt, "stream_fusion", eo.stream_fusion);
    return jb_done(&b, root);
}

static cJSON *control_doc(const gen_model *m)
{
    jb b = {0};
    cJSON *root = jb_obj(&b, NULL, NULL);
    jb_int(&b, root, "ASCEND_PROF_SK_ON", m->prof_sk_on_kb);
    if (m->nvisible) {
        char list[GEN_MAX_VISIBLE * 4] = "";
        size_t n = 0;
        for (unsigned k = 0; k < m->nvisible; k++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%u", k ? "," : "", m->visible[k]);
        jb_str(&b, root, "ASCEND_RT_VISIBLE_DEVICES", list);
    }
    jb_int(&b, root, "device_id", 0);
    jb_int(&b, root, "rank_size", m->nranks);
    jb_str(&b, root, "sk_meta_archive", "sk_meta");
    cJSON *prof = jb_obj(&b, root, "profiler");
    jb_str(&b, prof, "activities", "NPU");
    jb_str(&b, prof, "output", "profiler");
    jb_str(&b, prof, "profiler_level", m->kd_level0 ? "Level0" : "Level1");
    cJSON *sched = jb_obj(&b, prof, "schedule");
    jb_int(&b, sched, "skip_first", m->warmup);
    jb_int(&b, sched, "wait", 0);
    jb_int(&b, sched, "warmup", 0);
    jb_int(&b, sched, "active", m->steps);
    jb_int(&b, sched, "repeat", m->cycles);
    return jb_done(&b, root);
}

/* The 8 workload concepts; warmup = launches per SK the trace holds before
 * the measured ones. */
static cJSON *workload_doc(const gen_model *m)
{
    jb b = {0};
    char model[64];
    snprintf(model, sizeof model, "synthetic-decoder-%ul", m->layers);
    cJSON *root = jb_obj(&b, NULL, NULL);
    jb_str(&b, root, "model", model);
    jb_str(&b, root, "input", "prompt_len=1024,new_tokens=1");
    jb_int(&b, root, "batch", 1);
    jb_int(&b, root, "rank", 0);
    jb_str(&b, root, "mode", "decode");
    jb_int(&b, root, "warmup", m->warmup);
    jb_int(&b, root, "iterations", m->steps);
    cJSON *rt = jb_obj(&b, root, "runtime");
    jb_str(&b, rt, "generator", "skdcci_gen");
    jb_str(&b, rt, "scenario", gen_scenario_name(m->scenario));
    if (rt && sk_json_add_uint(rt, "seed", m->seed))
        b.failed = 1;
    jb_int(&b, rt, "scale", m->scale);
    return jb_done(&b, root);
}

static sk_err write_inputs(const gen_model *m, const char *out, sk_diag *d)
{
    char dir[1200], path[1300];
    for (int side = 0; side < 2; side++) {
        snprintf(dir, sizeof dir, "%s/%s/%s", out, INPUTS_DIR, gen_side_dir[side]);
        sk_err e = make_dirs(dir, d);
        if (e)
            return e;
        snprintf(path, sizeof path, "%s/config.json", dir);
        if ((e = write_json(path, config_doc(m, (gen_side)side), d)))
            return e;
        snprintf(path, sizeof path, "%s/control.json", dir);
        if ((e = write_json(path, control_doc(m), d)))
            return e;
        snprintf(path, sizeof path, "%s/workload.json", dir);
        if ((e = write_json(path, workload_doc(m), d)))
            return e;
    }
    return SK_OK;
}

/* ------------------------------------------------ one side */

/* dst: a byte-identical copy of src (created exclusively). */
static sk_err copy_file(const char *src, const char *dst, sk_diag *d)
{
    gen_out o;
    int fd = open(src, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sk_diag_set(d, SK_E_IO, src, 0, "cannot open: %s", strerror(errno));
    sk_err e = gen_out_open(&o, dst, 0, d);
    char buf[65536];
    while (!e) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            e = sk_diag_set(d, SK_E_IO, src, 0, "read failed: %s", strerror(errno));
            break;
        }
        if (n == 0) {
            e = gen_out_close(&o, d);
            break;
        }
        gen_out_write(&o, buf, (size_t)n);
    }
    gen_out_abandon(&o);
    close(fd);
    return e;
}

/* One rank of a side: its profiler output (gen_kd_dir, gen_trace_dir: the
 * --layout) and its process directory sk_meta/<pid>/, which with ranks or
 * the torch_npu layout also holds the raw trace the runtime copied from
 * (byte-identical). */
static sk_err write_side(const gen_model *m, gen_side side, const char *out, gen_layout *layout,
                         gen_side_result *res, sk_diag *d)
{
    char root[1000], model_dir[1100], dir[1200], rel[192], from[1300], to[1300];
    snprintf(root, sizeof root, "%s/%s", out, gen_side_dir[side]);
    snprintf(model_dir, sizeof model_dir, "%s/sk_meta/%u/%s", root, m->ids[side].pid, GEN_MODEL_DIR);
    gen_trace_dir(m, side, rel, sizeof rel);
    snprintf(dir, sizeof dir, "%s/%s", root, rel);
    sk_err e = make_dirs(dir, d);
    for (unsigned c = 0; !e && c < m->cycles; c++) {
        gen_kd_dir(m, side, c, rel, sizeof rel);
        snprintf(dir, sizeof dir, "%s/%s", root, rel);
        e = make_dirs(dir, d);
    }
    if (!e)
        e = make_dirs(model_dir, d);
    if (!e)
        e = gen_layout_build(m, side, layout, d);
    if (!e)
        e = gen_meta_write(m, side, layout, model_dir, d);
    if (!e)
        e = gen_sim_run(m, side, layout, root, res, d);
    if (!e)
        e = gen_meta_write_super_kernel_log(m, side, layout, res, model_dir, d);
    if (!e && gen_has_raw_trace(m)) {
        const char *z = m->zstd ? ".zst" : "";
        gen_trace_dir(m, side, rel, sizeof rel);
        snprintf(from, sizeof from, "%s/%s/sk_prof_device_%u.json%s", root, rel, m->device, z);
        snprintf(to, sizeof to, "%s/sk_meta/%u/sk_prof_device_%u.json%s", root, m->ids[side].pid, m->device, z);
        e = copy_file(from, to, d);
    }
    return e;
}

/* multi_rank_device_set: the disable-all side lacks the last rank. */
static int rank_on_side(const gen_model *m, gen_side side)
{
    return !(m->scenario == GEN_SC_MULTI_RANK_DEVICE_SET && side == GEN_DA && m->rank + 1 == m->nranks);
}

int main(int argc, char **argv)
{
    sk_alloc_install_library_hooks();
    sk_alloc_init_from_env();
    gen_options opt;
    memset(&opt, 0, sizeof opt);
    opt.scenario = GEN_SC_COUNT;
    opt.seed = 1;
    opt.scale = 1;
    opt.layers = 3;
    opt.ranks = 1;
    const char *visible_text = NULL;
    const char *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        uint64_t v = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return ferror(stdout) ? 1 : 0;
        } else if (strcmp(a, "--zstd") == 0) {
            opt.zstd = 1;
        } else if (strcmp(a, "--zstd-graphs") == 0) {
            opt.zstd_graphs = 1;
        } else if (strcmp(a, "--no-step-id") == 0) {
            opt.no_step_id = 1;
        } else if (strcmp(a, "--no-device-id") == 0) {
            opt.no_device_id = 1;
        } else if (strcmp(a, "--crlf") == 0) {
            opt.crlf = 1;
        } else if (strcmp(a, "--layout") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value", a);
            if (strcmp(argv[++i], "beside") == 0)
                opt.layout_kind = GEN_LAYOUT_BESIDE;
            else if (strcmp(argv[i], "torch_npu") == 0)
                opt.layout_kind = GEN_LAYOUT_TORCH_NPU;
            else
                return usage_error("--layout must be beside or torch_npu", argv[i]);
        } else if (strcmp(a, "--kd-level") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value", a);
            if (strcmp(argv[++i], "0") != 0 && strcmp(argv[i], "1") != 0)
                return usage_error("--kd-level must be 0 or 1", argv[i]);
            opt.kd_level0 = argv[i][0] == '0';
        } else if (strcmp(a, "--cycles") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value", a);
            if (parse_u64(argv[++i], &v) || v == 0 || v > GEN_MAX_CYCLES)
                return usage_error("--cycles must be between 1 and 4", argv[i]);
            opt.cycles = (unsigned)v;
        } else if (strcmp(a, "--visible-devices") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value", a);
            visible_text = argv[++i];
            if (parse_visible(visible_text, &opt))
                return usage_error("--visible-devices must be distinct device ids 0-63 joined by commas",
                                   visible_text);
        } else if (strcmp(a, "--device") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value", a);
            if (parse_u64(argv[++i], &v) || v > 63)
                return usage_error("--device must be between 0 and 63", argv[i]);
            opt.device = (unsigned)v;
        } else if (strcmp(a, "--ranks") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value", a);
            if (parse_u64(argv[++i], &v) || v == 0 || v > GEN_MAX_RANKS)
                return usage_error("--ranks must be between 1 and 16", argv[i]);
            opt.ranks = (unsigned)v;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "--scenario") == 0 || strcmp(a, "--seed") == 0 ||
                   strcmp(a, "--scale") == 0 || strcmp(a, "--steps") == 0 || strcmp(a, "--layers") == 0) {
            if (i + 1 >= argc)
                return usage_error("option needs a value", a);
            const char *val = argv[++i];
            if (strcmp(a, "--out") == 0) {
                out = val;
            } else if (strcmp(a, "--scenario") == 0) {
                if (gen_scenario_parse(val, &opt.scenario))
                    return usage_error("unknown scenario", val);
            } else if (parse_u64(val, &v)) {
                return usage_error("expected a non-negative decimal integer", val);
            } else if (strcmp(a, "--seed") == 0) {
                opt.seed = v;
            } else if (v == 0 || v > 1000000) {
                return usage_error("value must be between 1 and 1000000", val);
            } else if (strcmp(a, "--scale") == 0) {
                opt.scale = (unsigned)v;
            } else if (strcmp(a, "--steps") == 0) {
                opt.steps = (unsigned)v;
            } else {
                opt.layers = (unsigned)v;
            }
        } else {
            return usage_error("unknown argument", a);
        }
    }
    if (!out || !*out)
        return usage_error("--out DIR is required", NULL);
    if (opt.scenario == GEN_SC_COUNT)
        return usage_error("--scenario NAME is required", NULL);
    if (strlen(out) > 900)
        return usage_error("--out path too long", NULL);

    sk_buf cmd = SK_BUF_INIT;
    sk_diag d;
    sk_diag_clear(&d);
    /* one model per rank (one with one device) */
    static gen_model m[GEN_MAX_RANKS];
    static gen_layout layouts[GEN_MAX_RANKS][2];
    static gen_side_result res[GEN_MAX_RANKS][2];
    gen_rank_out ranks[GEN_MAX_RANKS];
    unsigned nbuilt = 0;
    char truth_path[1000];
    int prepared = 0;
    sk_err e = sk_buf_printf(&cmd, "skdcci_gen --out DIR --scenario %s --seed %llu --scale %u --layers %u",
                             gen_scenario_name(opt.scenario), (unsigned long long)opt.seed, opt.scale, opt.layers);
    if (!e && opt.steps)
        e = sk_buf_printf(&cmd, " --steps %u", opt.steps);
    if (!e && opt.zstd)
        e = sk_buf_puts(&cmd, " --zstd");
    if (!e && opt.zstd_graphs)
        e = sk_buf_puts(&cmd, " --zstd-graphs");
    if (!e && opt.device)
        e = sk_buf_printf(&cmd, " --device %u", opt.device);
    if (!e && opt.no_step_id)
        e = sk_buf_puts(&cmd, " --no-step-id");
    if (!e && opt.ranks > 1)
        e = sk_buf_printf(&cmd, " --ranks %u", opt.ranks);
    if (!e && opt.layout_kind == GEN_LAYOUT_TORCH_NPU)
        e = sk_buf_puts(&cmd, " --layout torch_npu");
    if (!e && opt.kd_level0)
        e = sk_buf_puts(&cmd, " --kd-level 0");
    if (!e && opt.no_device_id)
        e = sk_buf_puts(&cmd, " --no-device-id");
    if (!e && opt.crlf)
        e = sk_buf_puts(&cmd, " --crlf");
    if (!e && opt.cycles > 1)
        e = sk_buf_printf(&cmd, " --cycles %u", opt.cycles);
    if (!e && visible_text)
        e = sk_buf_printf(&cmd, " --visible-devices %s", visible_text);
    if (e) {
        sk_diag_set(&d, e, "", 0, "out of memory");
        goto out;
    }
    for (unsigned k = 0; !e && k < opt.ranks; k++) {
        opt.rank = k;
        e = gen_model_build(&opt, &m[k], &d);
        if (!e)
            nbuilt++;
        if (!e && m[k].prof_sk_on_kb != m[0].prof_sk_on_kb)
            e = sk_diag_set(&d, SK_E_INTERNAL, "model", 0, "ranks 0 and %u chose different ASCEND_PROF_SK_ON", k);
    }
    if (e)
        goto out;
    e = prepare_out_dir(out, &d);
    if (e)
        goto out;
    prepared = 1;
    for (int side = 0; !e && side < 2; side++)
        for (unsigned k = 0; !e && k < opt.ranks; k++)
            if (rank_on_side(&m[k], (gen_side)side))
                e = write_side(&m[k], (gen_side)side, out, &layouts[k][side], &res[k][side], &d);
    if (!e)
        e = write_inputs(&m[0], out, &d);
    if (!e) {
        gen_run_info info = {sk_buf_cstr(&cmd), INPUTS_DIR};
        for (unsigned k = 0; k < opt.ranks; k++) {
            ranks[k].m = &m[k];
            ranks[k].res = res[k];
            for (int side = 0; side < 2; side++)
                ranks[k].on_side[side] = rank_on_side(&m[k], (gen_side)side);
        }
        snprintf(truth_path, sizeof truth_path, "%s/ground-truth.json", out);
        e = gen_truth_write(ranks, opt.ranks, &info, truth_path, &d);
    }
out:
    for (unsigned k = 0; k < GEN_MAX_RANKS; k++)
        for (int side = 0; side < 2; side++) {
            gen_layout_free(&layouts[k][side]);
            gen_side_result_free(&res[k][side]);
        }
    for (unsigned k = 0; k < nbuilt; k++)
        gen_model_free(&m[k]);
    sk_buf_free(&cmd);
    if (e) {
        if (prepared)
            remove_outputs(out);
        char msg[2400];
        sk_diag_format(&d, msg, sizeof msg);
        fprintf(stderr, "skdcci_gen: error: %s\n", msg);
        /* Invalid option combinations found while building the model are
         * usage errors too. */
        return e == SK_E_ARG ? 2 : 1;
    }
    return 0;
}
