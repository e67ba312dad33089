/*
 * Parameter sets: built-in values as documented, file loading and overrides,
 * error messages, print/load round trip, and the derived figures of 001
 * Eq. 1 / Eq. 2.  Documents: 001 = MPI-FPGA paper, 000 = Novo-G# dissertation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "params/params.h"
#include "tap.h"

#define ERRLEN 256

static int near(double a, double b) { return fabs(a - b) < 1e-9 * (fabs(b) + 1); }

/* Write text to a fresh temp file; returns its path (static buffer per slot). */
static const char *temp_conf(const char *text, int slot)
{
    static char paths[8][64];
    char *path = paths[slot];
    snprintf(path, sizeof paths[slot], "/tmp/test_params_%d_XXXXXX", slot);
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* Load text as a file; returns the mf_params_load result, err filled. */
static int load_text(const char *text, mf_params_t *p, char *err)
{
    const char *path = temp_conf(text, 7);
    if (!path)
        return -2;
    int rc = mf_params_load(path, p, err, ERRLEN);
    unlink(path);
    return rc;
}

static int same_params(const mf_params_t *a, const mf_params_t *b)
{
    return strcmp(a->name, b->name) == 0 && a->clock_mhz == b->clock_mhz &&
           a->phit_bits == b->phit_bits && a->dma_phits_per_cycle == b->dma_phits_per_cycle &&
           a->datapath_phits_per_cycle == b->datapath_phits_per_cycle &&
           a->net_pkt_phits == b->net_pkt_phits && a->link_latency_ns == b->link_latency_ns &&
           a->link_jitter_sd_ns == b->link_jitter_sd_ns && a->link_gbps == b->link_gbps &&
           a->vcs == b->vcs && a->input_fifo_bytes == b->input_fifo_bytes &&
           a->fifo_margin_phits == b->fifo_margin_phits &&
           a->router_stage_cycles == b->router_stage_cycles && a->ct_entries == b->ct_entries &&
           a->max_ranks == b->max_ranks && a->sa_cgr == b->sa_cgr &&
           a->aglu_latency_cycles == b->aglu_latency_cycles &&
           a->collector_cycles == b->collector_cycles && a->park_mib == b->park_mib &&
           a->eject_per_port == b->eject_per_port &&
           a->credit_hop_cycles == b->credit_hop_cycles &&
           a->pcie_latency_ns == b->pcie_latency_ns &&
           a->host_overhead_ns == b->host_overhead_ns && a->oversub == b->oversub &&
           a->seed == b->seed;
}

static void test_u280(void)
{
    mf_params_t p;
    char err[ERRLEN] = "";
    ok(mf_params_load("u280", &p, err, sizeof err) == 0, "u280 loads (%s)", err);
    ok(strcmp(p.name, "u280") == 0, "u280: name");
    ok(p.clock_mhz == 250, "u280: 250 MHz (001 sec. 6)");
    ok(p.phit_bits == 256, "u280: 256-bit phit (001 sec. 2.5)");
    ok(p.dma_phits_per_cycle == 2, "u280: DMA two phits per cycle (001 sec. 2.5)");
    ok(p.datapath_phits_per_cycle == 2, "u280: datapath 2 phits per cycle (assumption)");
    ok(p.net_pkt_phits == 8, "u280: 8-phit (256-byte) network packets (assumption)");
    ok(p.link_latency_ns == 440, "u280: link latency 440 ns (001 Table 2)");
    ok(p.link_jitter_sd_ns == 0, "u280: no jitter");
    ok(p.link_gbps == 95.9, "u280: 95.9 Gb/s (001 Table 2)");
    ok(p.vcs == 2, "u280: two dateline VC classes (000 sec. 4.2.2)");
    ok(p.input_fifo_bytes == 48 * 1024, "u280: 48 KB input FIFO (001 sec. 4.1)");
    ok(p.fifo_margin_phits == 0, "u280: margin derived");
    ok(p.router_stage_cycles == 1, "u280: one cycle per router stage (001 sec. 4.1)");
    ok(p.ct_entries == 32, "u280: 32 CT entries (001 sec. 3.2)");
    ok(p.max_ranks == 65536, "u280: MAX_R 64K (001 sec. 3.2)");
    ok(p.sa_cgr == 6, "u280: SA = 6 (001 Table 3, direct)");
    ok(p.aglu_latency_cycles == 8, "u280: AgLU depth 8 (assumption)");
    ok(p.collector_cycles == 1, "u280: collector 1 cycle");
    ok(p.pcie_latency_ns == 500, "u280: PCIe 500 ns (assumption)");
    ok(p.host_overhead_ns == 200, "u280: host overhead 200 ns (assumption)");
    ok(p.park_mib == 1024, "u280: 1 GiB of HBM parks gather streams (assumption)");
    ok(p.oversub == 3, "u280: 3:1 over-subscription (001 sec. 6.2.2)");
    ok(p.seed == 1, "u280: seed 1");
    ok(mf_params_check(&p, err, sizeof err) == 0, "u280 passes mf_params_check");

    mf_params_t q;
    ok(mf_params_load("U280", &q, err, sizeof err) == 0 && same_params(&p, &q),
       "set names are case-insensitive");
}

static void test_novog(void)
{
    mf_params_t p;
    char err[ERRLEN] = "";
    ok(mf_params_load("novog", &p, err, sizeof err) == 0, "novog loads (%s)", err);
    ok(strcmp(p.name, "novog") == 0, "novog: name");
    ok(p.link_latency_ns == 175.7, "novog: mean link latency 175.7 ns (000 Table 3.3)");
    ok(p.link_jitter_sd_ns == 12.34, "novog: sd 12.34 ns (000 Table 3.3)");
    ok(p.link_gbps == 40, "novog: 40 Gb/s links (000 ch. 3/5)");
    ok(p.park_mib == 0, "novog: FIFOs only, no parking");
    ok(p.clock_mhz == 250 && p.phit_bits == 256, "novog: MPI-FPGA switch clock and phit");
    ok(p.vcs == 2 && p.input_fifo_bytes == 49152 && p.ct_entries == 32,
       "novog: other switch figures as u280");
    ok(mf_params_link_bpc_fx(&p) == 20u << 16, "novog: 40 Gb/s at 250 MHz = 20 bytes/cycle");
    /* (175.7 + 4 x 12.34) ns / 4 ns x 2 x 20/32 phits = 70.33 -> 71 */
    ok(mf_params_margin_phits(&p) == 71, "novog: derived margin counts jitter (%u)",
       mf_params_margin_phits(&p));

    const char *const *names = mf_params_builtin_names();
    ok(names && names[0] && strcmp(names[0], "u280") == 0 && names[1] &&
           strcmp(names[1], "novog") == 0 && names[2] == NULL,
       "built-in names: u280, novog");
}

static void test_derived(void)
{
    mf_params_t p;
    char err[ERRLEN];
    mf_params_load("u280", &p, err, sizeof err);
    ok(near(mf_params_cycle_ns(&p), 4.0), "cycle 4 ns at 250 MHz");
    ok(mf_params_phit_bytes(&p) == 32, "phit 32 bytes");
    ok(mf_params_ns_to_cycles(&p, 440) == 110, "440 ns = 110 cycles");
    ok(mf_params_ns_to_cycles(&p, 1.9) == 0 && mf_params_ns_to_cycles(&p, 2.0) == 1 &&
           mf_params_ns_to_cycles(&p, 5.9) == 1 && mf_params_ns_to_cycles(&p, 6.1) == 2,
       "ns_to_cycles rounds to nearest");
    ok(mf_params_ns_to_cycles(&p, -5) == 0, "negative ns -> 0 cycles");

    /* 95.9 Gb/s / 8 / 250 MHz = 47.95 bytes/cycle; x 65536 = 3142451.2 */
    uint32_t fx = mf_params_link_bpc_fx(&p);
    ok(fx == 3142451, "link bpc 16.16: 47.95 -> %u", fx);
    ok(fx >> 16 == 47 && fabs(fx / 65536.0 - 47.95) < 1.0 / 65536, "link bpc is 47.95 bytes/cycle");

    /* 2 x 110 cycles x 47.95/32 phits = 329.66 -> 330 */
    ok(mf_params_margin_phits(&p) == 330, "derived margin 330 phits (%u)",
       mf_params_margin_phits(&p));
    p.fifo_margin_phits = 400;
    ok(mf_params_margin_phits(&p) == 400, "explicit margin used as given");
}

static void test_eq1(void)
{
    /* 001 Eq. 1: (16 x 18 + 8) x 32 = 9472 bits */
    uint64_t bits = mf_ct_size_bits(65536, 32);
    ok(bits == 9472, "Eq. 1: 64K ranks, 32 communicators = 9472 bits (%llu)",
       (unsigned long long)bits);
    ok(bits / 8 == 1184 && bits / 8 > 900 && bits / 8 < 1300,
       "Eq. 1: 1184 bytes, 'around 1 KB' (001 sec. 3.1)");
    ok(mf_ct_size_bits(1024, 1) == 10 * 12 + 8, "Eq. 1: log2(1024) = 10");
    ok(mf_ct_size_bits(1025, 1) == 11 * 13 + 8, "Eq. 1: log2 rounded up (1025 -> 11)");
    ok(mf_ct_size_bits(1000, 2) == 2 * (10 * 12 + 8), "Eq. 1: scales with N_C");
}

static void test_eq2(void)
{
    mf_params_t p;
    char err[ERRLEN];
    mf_params_load("u280", &p, err, sizeof err);
    /* (m + (d + q) x L/T) x Ph = (330 + 8 x 110) x 32 = 38720 bytes */
    uint64_t b6 = mf_min_buf_bytes(&p, 6);
    ok(b6 == 38720, "Eq. 2, d = 6: 38720 bytes (%llu)", (unsigned long long)b6);
    ok(b6 <= p.input_fifo_bytes, "Eq. 2, d = 6: fits the 48 KB input FIFO (001 sec. 4.1)");
    ok(mf_min_buf_bytes(&p, 8) == (330 + 10 * 110) * 32 && mf_min_buf_bytes(&p, 8) <= 49152,
       "Eq. 2, d = 8: 45760 bytes still fits 48 KB");
    ok(mf_min_buf_bytes(&p, 9) == (330 + 11 * 110) * 32 && mf_min_buf_bytes(&p, 9) > 49152,
       "Eq. 2, d = 9: 49280 bytes exceeds 48 KB");
    p.fifo_margin_phits = 100;
    ok(mf_min_buf_bytes(&p, 6) == (100 + 8 * 110) * 32, "Eq. 2 uses the explicit margin");
}

static void test_file_overrides(void)
{
    mf_params_t p, u;
    char err[ERRLEN] = "";
    mf_params_load("u280", &u, err, sizeof err);
    const char *text = "# my cluster\n"
                       "\n"
                       "   clock_mhz=300   # faster part\n"
                       "link_latency_ns = 500.5\r\n"
                       "\tvcs = 4\n"
                       "seed = 18446744073709551615"; /* no final newline */
    ok(load_text(text, &p, err) == 0, "file with overrides loads (%s)", err);
    ok(p.clock_mhz == 300 && p.link_latency_ns == 500.5 && p.vcs == 4,
       "overrides applied (inline comment, CRLF, tab, no spaces around '=')");
    ok(p.seed == UINT64_MAX, "64-bit seed parsed");
    ok(p.phit_bits == u.phit_bits && p.input_fifo_bytes == u.input_fifo_bytes &&
           p.link_gbps == u.link_gbps && p.ct_entries == u.ct_entries,
       "keys not in the file keep the u280 defaults");
    ok(strncmp(p.name, "test_params_7_", 14) == 0, "set named after the file (%s)", p.name);

    ok(load_text("name = mycluster\nsa_cgr = 4\n", &p, err) == 0 &&
           strcmp(p.name, "mycluster") == 0 && p.sa_cgr == 4,
       "file may set its name");
    ok(load_text("", &p, err) == 0 && p.clock_mhz == 250, "empty file = u280 defaults");
}

/* Expect a load of text to fail with a message containing every needle. */
static void expect_error(const char *text, const char *what, const char *n1, const char *n2)
{
    mf_params_t p;
    memset(&p, 0x5a, sizeof p);
    mf_params_t before = p;
    char err[ERRLEN] = "";
    int rc = load_text(text, &p, err);
    ok(rc == -1 && strstr(err, n1) && (!n2 || strstr(err, n2)) &&
           memcmp(&p, &before, sizeof p) == 0,
       "%s rejected: %s", what, err);
}

static void test_errors(void)
{
    expect_error("clock_mhz = 250\n\nbogus_key = 3\n", "unknown key", "unknown key 'bogus_key'",
                 ":3:");
    expect_error("clock_mhz = fast\n", "bad number", "clock_mhz", "'fast'");
    expect_error("vcs = 2x\n", "trailing junk", "vcs", "'2x'");
    expect_error("vcs = -2\n", "negative unsigned", "vcs", "'-2'");
    expect_error("link_gbps = nan\n", "NaN", "link_gbps", "'nan'");
    expect_error("vcs = 1\n", "vcs < 2", "vcs = 1 out of range", "dateline");
    expect_error("clock_mhz = 0\n", "clock 0", "clock_mhz = 0 out of range", NULL);
    expect_error("link_gbps = 0\n", "link 0 Gb/s", "link_gbps = 0 out of range", NULL);
    expect_error("phit_bits = 100\n", "phit not multiple of 64", "phit_bits = 100",
                 "multiple of 64");
    expect_error("phit_bits = 32\n", "phit < 64", "phit_bits = 32 out of range", NULL);
    expect_error("net_pkt_phits = 3\n", "packet not power of two", "net_pkt_phits = 3",
                 "power of two");
    expect_error("net_pkt_phits = 128\n", "packet > 64 phits", "net_pkt_phits = 128", "range");
    expect_error("ct_entries = 33\n", "33 CT entries", "ct_entries = 33 out of range", "5-bit");
    expect_error("max_ranks = 65537\n", "MAX_R > 64K", "max_ranks = 65537 out of range", NULL);
    expect_error("max_ranks = 1\n", "MAX_R < 2", "max_ranks = 1 out of range", NULL);
    expect_error("sa_cgr = 0\n", "SA = 0", "sa_cgr = 0 out of range", NULL);
    expect_error("vcs = 99999999999\n", "uint overflow", "vcs = 99999999999", "range");
    expect_error("input_fifo_bytes = 256\n", "FIFO < 2 packets", "input_fifo_bytes = 256",
                 "too small");
    expect_error("input_fifo_bytes = 16384\n", "margin does not fit a VC's FIFO", "margin m = 330",
                 NULL);
    expect_error("input_fifo_bytes = 49153\n", "FIFO not whole phits", "input_fifo_bytes = 49153",
                 "phits");
    expect_error("vcs = 2\nvcs = 4\n", "duplicate key", "duplicate key 'vcs'", ":2:");
    expect_error("just words\n", "line without '='", ":1:", "key = value");
    expect_error("name = \n", "empty name", "name", NULL);

    mf_params_t p;
    char err[ERRLEN] = "";
    ok(mf_params_load("nosuchset", &p, err, sizeof err) == -1 &&
           strcmp(err, "unknown parameter set 'nosuchset' (built-in: u280, novog; or a file "
                       "path)") == 0,
       "unknown set rejected: %s", err);
    mf_params_t zero;
    memset(&zero, 0, sizeof zero);
    ok(mf_params_check(&zero, err, sizeof err) == -1, "zeroed set fails the check: %s", err);
}

static void test_set(void)
{
    mf_params_t p;
    char err[ERRLEN] = "";
    mf_params_load("u280", &p, err, sizeof err);
    ok(mf_params_set(&p, "link_gbps", "100", err, sizeof err) == 0 && p.link_gbps == 100,
       "set link_gbps = 100");
    ok(mf_params_set(&p, " vcs = 4 ", NULL, err, sizeof err) == 0 && p.vcs == 4,
       "set from 'key=value' form");
    ok(mf_params_set(&p, "name", "run7", err, sizeof err) == 0 && strcmp(p.name, "run7") == 0,
       "set name");
    ok(mf_params_set(&p, "name", "a#b", err, sizeof err) == -1 && strcmp(p.name, "run7") == 0,
       "set name with '#' refused (a file would read a comment): %s", err);
    ok(mf_params_set(&p, "name", "r", err, sizeof err) == 0 && p.name[2] == '\0' &&
           p.name[3] == '\0',
       "a shorter name leaves no tail of the longer one");
    ok(mf_params_set(&p, "nope", "1", err, sizeof err) == -1 && strstr(err, "unknown key 'nope'"),
       "set unknown key: %s", err);
    ok(mf_params_set(&p, "ct_entries", "x", err, sizeof err) == -1 && strstr(err, "ct_entries") &&
           strstr(err, "'x'"),
       "set bad value: %s", err);
    ok(mf_params_set(&p, "ct_entries", "0", err, sizeof err) == -1 && p.ct_entries == 32,
       "set out of range leaves the field: %s", err);
    ok(mf_params_set(&p, "vcs4", NULL, err, sizeof err) == -1, "set without '=': %s", err);
    ok(mf_params_set(&p, "input_fifo_bytes", "512", err, sizeof err) == 0 &&
           mf_params_check(&p, err, sizeof err) == -1 && strstr(err, "input_fifo_bytes"),
       "relation checked by mf_params_check: %s", err);
}

static int round_trip(const mf_params_t *p)
{
    const char *path = temp_conf("", 6);
    FILE *f = fopen(path, "w");
    mf_params_print(p, f);
    fclose(f);
    mf_params_t q;
    char err[ERRLEN] = "";
    int rc = mf_params_load(path, &q, err, sizeof err);
    unlink(path);
    if (rc)
        diag("round trip load failed: %s", err);
    return rc == 0 && same_params(p, &q);
}

static void test_round_trip(void)
{
    mf_params_t p;
    char err[ERRLEN];
    mf_params_load("u280", &p, err, sizeof err);
    ok(round_trip(&p), "u280: print -> load gives the same set");
    mf_params_load("novog", &p, err, sizeof err);
    ok(round_trip(&p), "novog: print -> load gives the same set");
    p.link_gbps = 0.1 + 0.2; /* needs 17 digits */
    p.clock_mhz = 1000.0 / 3;
    p.seed = UINT64_MAX - 1;
    p.fifo_margin_phits = 77;
    snprintf(p.name, sizeof p.name, "odd-values");
    ok(round_trip(&p), "awkward doubles and 64-bit seed survive print -> load");
}

int main(void)
{
    test_u280();
    test_novog();
    test_derived();
    test_eq1();
    test_eq2();
    test_file_overrides();
    test_errors();
    test_set();
    test_round_trip();
    return tap_done();
}
