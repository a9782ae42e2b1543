/* `--version`: the toolkit version and the version of every linked library
 * as that library reports it at run time (the shared object actually loaded,
 * which may differ from the headers the binary was built against). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "artifact_contract/base/cli/cli_util.h"

#include <cjson/cJSON.h>
#include <openssl/crypto.h>
#include <pcre2.h>
#include <yaml.h>
#include <zstd.h>

#include "artifact_contract/base/sk_version.h"

void cli_print_version(const cli_tool *t, FILE *f)
{
    char pcre[64] = "unknown";
    uint32_t jit = 0;
    /* PCRE2_CONFIG_VERSION writes at most 24 code units ("10.42 2022-12-11") */
    if (pcre2_config(PCRE2_CONFIG_VERSION, pcre) < 0)
        pcre[0] = '\0';
    if (pcre2_config(PCRE2_CONFIG_JIT, &jit) < 0)
        jit = 0;
    fprintf(f, "%s %s\n", t->prog, SK_VERSION);
    fprintf(f, "libraries:\n");
    fprintf(f, "  PCRE2    %s (JIT %s)\n", pcre[0] ? pcre : "unknown", jit ? "available" : "not available");
    fprintf(f, "  cJSON    %s\n", cJSON_Version());
    fprintf(f, "  zstd     %s\n", ZSTD_versionString());
    fprintf(f, "  OpenSSL  %s\n", OpenSSL_version(OPENSSL_VERSION));
    fprintf(f, "  libyaml  %s\n", yaml_get_version_string());
}
