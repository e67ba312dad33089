/*
 * Writes the seed corpora of the fuzz targets (test/fuzz/corpus/<target>/)
 * from the real packers, so the seeds are valid messages: one or two per
 * decoder, a few KB per target.  `make fuzz-corpus` runs it; the output
 * is checked in (regression inputs found by fuzzing sit beside it, named
 * crash-*).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpifpga/engine_msg.h"
#include "mpifpga/wire.h"
#include "profile/site_merge.h"

static const char *outdir = "test/fuzz/corpus";

static void put(const char *target, const char *name, uint8_t sel, const void *p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", outdir, target);
    mkdir(outdir, 0777);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/%s/%s", outdir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f || (sel != 0xff && fputc(sel, f) == EOF) || fwrite(p, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "mkcorpus: cannot write %s\n", path);
        exit(1);
    }
}

static void wire(void)
{
    uint8_t b[256];
    mf_proc_hdr_t ph = {MF_OPC_ALLREDUCE, 3, MF_ALG_RECURSIVE_DBL, MF_OP_SUM, MF_DT_DOUBLE, 0, 4096};
    mf_proc_hdr_pack(&ph, b);
    put("wire", "proc_hdr", 0, b, MF_PROC_HDR_BYTES);
    mf_net_hdr_t nh = {.dest = 5, .ctx = 3, .opcode = MF_OPC_REDUCE, .op = MF_OP_MAX,
                       .dtype = MF_DT_INT32, .tag = 2, .psize = 4, .last = 1, .pad = 3};
    mf_net_hdr_pack(&nh, b);
    put("wire", "net_hdr", 1, b, MF_NET_HDR_BYTES);
    mf_ct_entry_t e;
    memset(&e, 0xff, sizeof e);
    e.size = 6, e.rank = 3, e.levels = 3, e.pof2_levels = 2, e.fold = MF_RANK_NONE, e.global0 = 10;
    for (int k = 0; k < 3; k++)
        e.hc[k] = (uint16_t)(10 + (3 ^ (1 << k)) % 6), e.up[k] = (uint16_t)(10 + (3 + (1 << k)) % 6),
        e.down[k] = (uint16_t)(10 + (3 + 6 - (1 << k)) % 6);
    size_t n = mf_ct_entry_pack(&e, b, sizeof b);
    put("wire", "ct_entry", 2, b, n);
    put("wire", "ct_roundtrip", 3, b, n);
    mf_fwd_entry_t fw[3] = {{0, 0, 0}, {1, 0, 1}, {2, 1, 0}};
    n = mf_fwd_pack(fw, 3, b, sizeof b);
    put("wire", "fwd_table", 4, b, n);
    put("wire", "name_op", 5, "MPI_SUM", 7);
    put("wire", "name_coll", 5, "osu_reduce-scatter", 18);
}

static void engine_msg(void)
{
    static uint8_t b[MF_EM_MAX];
    mf_em_hdr_t h = {.type = MF_EM_HELLO, .grank = 1, .seq = 7};
    mf_em_hello_t hello = {MF_EM_VERSION, 4, 1234, {1, 0, 1}, 8, "fi_addr"};
    put("engine_msg", "hello", 0xff, b, mf_em_pack_hello(&h, &hello, b, sizeof b));
    mf_em_welcome_t w = {0, 4, 2, 2, 99, 4.0, "u280", "torus 2x1", "accepted"};
    put("engine_msg", "welcome", 0xff, b, mf_em_pack_welcome(&h, &w, b, sizeof b));
    mf_em_ct_t ct = {.ctx = 2};
    memset(&ct.entry, 0xff, sizeof ct.entry);
    ct.entry.size = 2, ct.entry.rank = 1, ct.entry.levels = 1, ct.entry.pof2_levels = 1;
    ct.entry.global0 = 0, ct.entry.hc[0] = ct.entry.up[0] = ct.entry.down[0] = 0;
    h.type = MF_EM_CT_CONFIG;
    put("engine_msg", "ct_config", 0xff, b, mf_em_pack_ct(&h, &ct, b, sizeof b));
    h.type = MF_EM_CT_FREE;
    put("engine_msg", "ct_free", 0xff, b, mf_em_pack_ct(&h, &ct, b, sizeof b));
    uint32_t counts[3] = {8, 8, 16};
    mf_em_coll_t c = {{MF_OPC_REDUCE_SCATTER, 2, MF_ALG_RABENSEIFNER, MF_OP_SUM, MF_DT_INT32, 0, 32},
                      0, 3, 1, 0, 32, 8, 1000, 3, counts};
    h.flags = MF_EM_F_BASELINE;
    put("engine_msg", "coll_counts", 0xff, b, mf_em_pack_coll(&h, &c, b, sizeof b));
    c.ncounts = 0, c.counts = NULL, h.flags = MF_EM_F_SHMBUF;
    put("engine_msg", "coll", 0xff, b, mf_em_pack_coll(&h, &c, b, sizeof b));
    h.flags = 0;
    mf_em_result_t r = {1, MF_FB_DATATYPE, 32, 100, 90, 4.0, "fall back", 120};
    put("engine_msg", "result", 0xff, b, mf_em_pack_result(&h, &r, b, sizeof b));
    mf_em_shmbuf_t s = {0, 5, 1 << 20, ""};
    put("engine_msg", "shmbuf", 0xff, b, mf_em_pack_shmbuf(&h, &s, b, sizeof b));
    h.off = 1;
    put("engine_msg", "data", 0xff, b, mf_em_pack_data(&h, "payload!", 8, b, sizeof b));
}

static void conf(void)
{
    static const char sw[] = "name = tiny\nclock_mhz = 300   # MHz\nvcs = 4\nseed = 7\n";
    static const char host[] = "# host\no_send_ns = 120.5\nmtu_bytes = 4096\n";
    static const char sw_set[] = "phit_bits=512\nlink_gbps = 25\n";
    static const char host_set[] = "gap_ns=3\neager_max_bytes=8192\n";
    put("conf", "switch_file", 0, sw, sizeof sw - 1);
    put("conf", "host_file", 1, host, sizeof host - 1);
    put("conf", "switch_overrides", 2, sw_set, sizeof sw_set - 1);
    put("conf", "host_overrides", 3, host_set, sizeof host_set - 1);
}

static void site(void)
{
    mf_site_rec_t r[2];
    memset(r, 0, sizeof r);
    for (int i = 0; i < 2; i++) {
        snprintf(r[i].module, sizeof r[i].module, "/home/u/app");
        snprintf(r[i].func, sizeof r[i].func, "main");
        snprintf(r[i].dtype, sizeof r[i].dtype, "MPI_DOUBLE");
        snprintf(r[i].op, sizeof r[i].op, i ? "MPI_MAX" : "MPI_SUM");
        r[i].offset = 0x1234, r[i].coll = 1, r[i].comm_size = 2;
        r[i].calls = 10 + (uint64_t)i, r[i].offloaded = 10, r[i].bytes = 80;
        r[i].host_us = 5.5, r[i].offload_us = 2.0;
    }
    static const char answers[] = "main\n/home/u/app.c:75\n";
    uint8_t buf[sizeof r + sizeof answers];
    memcpy(buf, r, sizeof r);
    memcpy(buf + sizeof r, answers, sizeof answers - 1);
    put("site", "two_ranks", 2, buf, sizeof r + sizeof answers - 1);
}

/* Lines of: variable index (fuzz_config.c's list) and value. */
static void config(void)
{
    static const char set[] = "\001^bcast,barrier\n\0044M\n\012 4\n\013 16\n\017cpu\n\0202\n";
    static const char bad[] = "\001allreduce,nope\n\0021Q\n\005gpu\n\00099\n";
    put("config", "settings", 0xff, set, sizeof set - 1);
    put("config", "bad_settings", 0xff, bad, sizeof bad - 1);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        outdir = argv[1];
    wire();
    engine_msg();
    conf();
    site();
    config();
    return 0;
}
