/*
 * Fuzz target: the MPIFPGA_* settings (src/config/config.c) -- the
 * environment every rank reads at MPI_Init.  Input: lines of a selector
 * byte (which variable, mod the number of them) and the value; each line
 * sets that variable (putenv of a static buffer: no allocation per run),
 * every other MPIFPGA_* variable is unset, then the settings are loaded.
 *
 * Invariants: a loaded setting is within its documented range, strings
 * are NUL-terminated within their fields; the collective list parses to
 * a mask of known collectives, and the names of that mask parse back to it.
 */
#include <string.h>

#include "config/config.h"
#include "fuzz.h"

/* The variables of config.c's table (README.md, "Settings"). */
static const char *const names[] = {
    "MPIFPGA_ENABLE", "MPIFPGA_COLLS", "MPIFPGA_MIN_BYTES", "MPIFPGA_MAX_BYTES",
    "MPIFPGA_SEGMENT_BYTES", "MPIFPGA_DEVICE", "MPIFPGA_ENGINE", "MPIFPGA_SWITCHD",
    "MPIFPGA_TOPOLOGY", "MPIFPGA_PARAMS", "MPIFPGA_PPN", "MPIFPGA_CT_SLOTS",
    "MPIFPGA_CONNECT_TIMEOUT", "MPIFPGA_PROVIDER", "MPIFPGA_SHM_PAYLOAD",
    "MPIFPGA_MODELED_TIME", "MPIFPGA_VERBOSE", "MPIFPGA_REPORT", "MPIFPGA_INSTANCES",
    "MPIFPGA_PROFILE",
};
#define NNAMES (sizeof names / sizeof names[0])
#define VALUE_MAX 1024

static char env[NNAMES][VALUE_MAX + 32];

#define TERMINATED(f) (strnlen(f, sizeof f) < sizeof f)

static void check_ranges(const mf_config_t *c)
{
    FUZZ_CHECK(c->enable == 0 || c->enable == 1, "MPIFPGA_ENABLE is 0 or 1");
    FUZZ_CHECK((c->colls >> MF_C_COUNT) == 0, "MPIFPGA_COLLS names known collectives only");
    FUZZ_CHECK(c->segment_bytes >= 64 && c->segment_bytes <= MF_PROC_MAX_SIZE,
               "MPIFPGA_SEGMENT_BYTES within 64 .. 29-bit size");
    FUZZ_CHECK(!strcmp(c->device, "model") || !strcmp(c->device, "fpga"), "MPIFPGA_DEVICE");
    FUZZ_CHECK(TERMINATED(c->engine) && TERMINATED(c->switchd) && TERMINATED(c->topology) &&
                   TERMINATED(c->params) && TERMINATED(c->provider) && TERMINATED(c->report),
               "string settings terminated");
    FUZZ_CHECK(c->ppn >= 1 && c->ppn <= 1024, "MPIFPGA_PPN in 1..1024");
    FUZZ_CHECK(c->ct_slots >= 0 && c->ct_slots <= MF_MAX_CTX, "MPIFPGA_CT_SLOTS in 0..32");
    FUZZ_CHECK(c->connect_timeout >= 1 && c->connect_timeout <= 3600, "MPIFPGA_CONNECT_TIMEOUT");
    FUZZ_CHECK(c->modeled_time >= MF_MODELED_OFF && c->modeled_time <= MF_MODELED_CPU,
               "MPIFPGA_MODELED_TIME");
    FUZZ_CHECK(c->verbose >= 0 && c->verbose <= 2, "MPIFPGA_VERBOSE in 0..2");
    FUZZ_CHECK((c->instances == 0 || c->instances == 1) && (c->profile == 0 || c->profile == 1),
               "MPIFPGA_INSTANCES / MPIFPGA_PROFILE are 0 or 1");
}

/* mask -> "a,b,c" -> mask. */
static void colls_round_trip(uint32_t mask)
{
    char list[512] = "", err[512];
    uint32_t back = ~0u;
    for (int i = 0; i < MF_C_COUNT; i++)
        if (mask & (1u << i)) {
            strcat(list, list[0] ? "," : "");
            strcat(list, mf_coll_id_name((mf_coll_id_t)i));
        }
    if (!list[0])
        strcpy(list, "^all");
    FUZZ_CHECK(mf_config_parse_colls(list, &back, err, sizeof err) == 0 && back == mask,
               "collective list round trip");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mf_config_t cfg;
    char err[512];
    for (size_t i = 0; i < NNAMES; i++)
        unsetenv(names[i]);
    for (size_t pos = 0; pos < size;) {
        size_t end = pos;
        while (end < size && data[end] != '\n')
            end++;
        if (end > pos) {
            size_t v = data[pos] % NNAMES, len = end - pos - 1;
            len = len < VALUE_MAX ? len : VALUE_MAX;
            int n = snprintf(env[v], sizeof env[v], "%s=", names[v]);
            memcpy(env[v] + n, data + pos + 1, len);
            env[v][n + len] = '\0'; /* a NUL inside the value ends it, as in a real environment */
            putenv(env[v]);
        }
        pos = end + 1;
    }
    int rc = mf_config_load(&cfg, err, sizeof err);
    FUZZ_CHECK(rc == 0 || strncmp(err, "MPIFPGA_", 8) == 0, "an error names the variable");
    check_ranges(&cfg); /* on error the bad variable keeps its default */
    colls_round_trip(cfg.colls);
    const char *colls = getenv("MPIFPGA_COLLS");
    uint32_t mask;
    if (colls && mf_config_parse_colls(colls, &mask, err, sizeof err) == 0)
        FUZZ_CHECK((mask >> MF_C_COUNT) == 0, "a parsed collective list names known ones");
    return 0;
}
