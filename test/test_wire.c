/* Unit tests for src/proto/wire.c: header, CT-entry and forwarding-table codecs. */
#include <stdlib.h>
#include <string.h>

#include "mpifpga/wire.h"
#include "tap.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void) /* xorshift64*: deterministic across runs */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static unsigned rnd_below(unsigned n) { return (unsigned)(rnd() % n); }

/* ---- processor header ---------------------------------------------------- */

static int proc_eq(const mf_proc_hdr_t *a, const mf_proc_hdr_t *b)
{
    return a->opcode == b->opcode && a->ctx == b->ctx && a->alg == b->alg && a->op == b->op &&
           a->dtype == b->dtype && a->root == b->root && a->size == b->size;
}

static int proc_round_trip(const mf_proc_hdr_t *h)
{
    uint8_t buf[MF_PROC_HDR_BYTES];
    mf_proc_hdr_t back;
    mf_proc_hdr_pack(h, buf);
    return mf_proc_hdr_unpack(buf, &back) == 0 && proc_eq(h, &back);
}

static mf_proc_hdr_t random_proc(void)
{
    return (mf_proc_hdr_t){
        .opcode = (uint8_t)rnd_below(MF_OPC_COUNT), .ctx = (uint8_t)rnd_below(32),
        .alg = (uint8_t)rnd_below(4), .op = (uint8_t)rnd_below(MF_OP_COUNT),
        .dtype = (uint8_t)rnd_below(MF_DT_COUNT), .root = (uint16_t)rnd(),
        .size = (uint32_t)(rnd() & MF_PROC_MAX_SIZE),
    };
}

static void test_proc_hdr(void)
{
    int good = 1;
    for (int i = 0; i < 10000; i++) {
        mf_proc_hdr_t h = random_proc();
        good &= proc_round_trip(&h);
    }
    ok(good, "proc header: 10000 random round trips");

    mf_proc_hdr_t zero = {0};
    mf_proc_hdr_t max = {.opcode = MF_OPC_COUNT - 1, .ctx = 31, .alg = 3, .op = MF_OP_COUNT - 1,
                         .dtype = MF_DT_COUNT - 1, .root = 0xffff, .size = MF_PROC_MAX_SIZE};
    ok(proc_round_trip(&zero), "proc header: all-zero round trip");
    ok(proc_round_trip(&max), "proc header: all-maximum round trip");

    /* allreduce ctx 3, rec. doubling, max, int32, root 0x1234, 256 bytes:
     * 4 | 3<<4 | 1<<9 | 3<<11 | 2<<15 | 0x1234<<19 | 256<<35 = 0x0000080091a11a34 */
    mf_proc_hdr_t k = {.opcode = MF_OPC_ALLREDUCE, .ctx = 3, .alg = MF_ALG_RECURSIVE_DBL,
                       .op = MF_OP_MAX, .dtype = MF_DT_INT32, .root = 0x1234, .size = 256};
    const uint8_t want[MF_PROC_HDR_BYTES] = {0x34, 0x1a, 0xa1, 0x91, 0x00, 0x08, 0x00, 0x00};
    uint8_t buf[MF_PROC_HDR_BYTES];
    mf_proc_hdr_pack(&k, buf);
    ok(memcmp(buf, want, sizeof want) == 0, "proc header: known encoding is byte-exact");

    /* Each field lands in its own bits: a single field at max sets exactly its range. */
    mf_proc_hdr_t sz = {.size = MF_PROC_MAX_SIZE};
    mf_proc_hdr_pack(&sz, buf);
    ok(buf[0] == 0 && buf[1] == 0 && buf[2] == 0 && buf[3] == 0 && buf[4] == 0xf8 &&
           buf[5] == 0xff && buf[6] == 0xff && buf[7] == 0xff,
       "proc header: size occupies bits 35-63");
    mf_proc_hdr_t rt = {.root = 0xffff};
    mf_proc_hdr_pack(&rt, buf);
    ok(buf[0] == 0 && buf[1] == 0 && buf[2] == 0xf8 && buf[3] == 0xff && buf[4] == 0x07 &&
           buf[5] == 0,
       "proc header: root occupies bits 19-34");

    /* An oversize field must not spill into its neighbours. */
    mf_proc_hdr_t back;
    mf_proc_hdr_t wide = {.opcode = 0xff};
    mf_proc_hdr_pack(&wide, buf);
    int masked = buf[0] == 0x0f && buf[1] == 0;
    wide = (mf_proc_hdr_t){.ctx = 0xff};
    mf_proc_hdr_pack(&wide, buf);
    masked &= buf[0] == 0xf0 && buf[1] == 0x01 && buf[2] == 0;
    wide = (mf_proc_hdr_t){.dtype = 0xff};
    mf_proc_hdr_pack(&wide, buf);
    masked &= buf[1] == 0x80 && buf[2] == 0x07 && buf[3] == 0;
    wide = (mf_proc_hdr_t){.size = 0xffffffffu};
    mf_proc_hdr_pack(&wide, buf);
    masked &= buf[4] == 0xf8 && buf[3] == 0;
    ok(masked, "proc header: pack masks oversize fields");

    mf_proc_hdr_t bad = k;
    /* the 4-bit opcode field is full (MF_OPC_COUNT == 16): every code is one */
    int all = MF_OPC_COUNT == 16;
    for (int o = 0; o < 16; o++) {
        bad.opcode = (uint8_t)o;
        mf_proc_hdr_pack(&bad, buf);
        all &= mf_proc_hdr_unpack(buf, &back) == 0 && back.opcode == o;
    }
    ok(all, "proc header: all 16 opcode codes are defined and round-trip");
    bad = k;
    bad.op = MF_OP_COUNT;
    mf_proc_hdr_pack(&bad, buf);
    ok(mf_proc_hdr_unpack(buf, &back) == -1, "proc header: op %d rejected", MF_OP_COUNT);
    bad = k;
    bad.dtype = MF_DT_COUNT;
    mf_proc_hdr_pack(&bad, buf);
    ok(mf_proc_hdr_unpack(buf, &back) == -1, "proc header: dtype %d rejected", MF_DT_COUNT);
    bad = k;
    bad.dtype = 15;
    mf_proc_hdr_pack(&bad, buf);
    ok(mf_proc_hdr_unpack(buf, &back) == -1, "proc header: dtype 15 rejected");
}

/* ---- network header ------------------------------------------------------ */

static int net_eq(const mf_net_hdr_t *a, const mf_net_hdr_t *b)
{
    return a->dest == b->dest && a->ctx == b->ctx && a->opcode == b->opcode && a->pad == b->pad &&
           a->op == b->op && a->dtype == b->dtype && a->tag == b->tag && a->psize == b->psize &&
           a->last == b->last && a->vc == b->vc;
}

static int net_round_trip(const mf_net_hdr_t *h)
{
    uint8_t buf[MF_NET_HDR_BYTES];
    mf_net_hdr_t back;
    mf_net_hdr_pack(h, buf);
    return mf_net_hdr_unpack(buf, &back) == 0 && net_eq(h, &back);
}

static mf_net_hdr_t random_net(void)
{
    return (mf_net_hdr_t){
        .dest = (uint16_t)rnd(), .ctx = (uint8_t)rnd_below(32),
        .opcode = (uint8_t)rnd_below(MF_OPC_COUNT),
        .op = (uint8_t)rnd_below(MF_OP_COUNT), .dtype = (uint8_t)rnd_below(MF_DT_COUNT),
        .tag = (uint8_t)rnd_below(32), .psize = (uint8_t)(1 + rnd_below(MF_NET_MAX_PSIZE)),
        .last = (uint8_t)rnd_below(2), .vc = (uint8_t)rnd_below(2),
        .pad = (uint8_t)rnd_below(32),
    };
}

static void test_net_hdr(void)
{
    int good = 1;
    for (int i = 0; i < 10000; i++) {
        mf_net_hdr_t h = random_net();
        good &= net_round_trip(&h);
    }
    ok(good, "net header: 10000 random round trips");

    mf_net_hdr_t zero = {0};
    mf_net_hdr_t max = {.dest = 0xffff, .ctx = 31, .opcode = MF_OPC_COUNT - 1,
                        .op = MF_OP_COUNT - 1, .dtype = MF_DT_COUNT - 1, .tag = 31,
                        .psize = MF_NET_MAX_PSIZE, .last = 1, .vc = 1, .pad = 31};
    ok(net_round_trip(&zero), "net header: all-zero round trip");
    ok(net_round_trip(&max), "net header: all-maximum round trip");

    /* dest 0xbeef, ctx 31, reduce, sum, double, tag 5, psize 7, last, vc 1, pad 3:
     * 0xbeef | 31<<16 | 3<<21 | 0<<25 | 9<<29 | 5<<33 | 7<<38 | 1<<41 | 1<<42 | 3<<43
     * = 0x1fcb207fbeef */
    mf_net_hdr_t k = {.dest = 0xbeef, .ctx = 31, .opcode = MF_OPC_REDUCE,
                      .op = MF_OP_SUM, .dtype = MF_DT_DOUBLE, .tag = 5, .psize = 7,
                      .last = 1, .vc = 1, .pad = 3};
    const uint8_t want[MF_NET_HDR_BYTES] = {0xef, 0xbe, 0x7f, 0x20, 0xcb, 0x1f};
    uint8_t buf[MF_NET_HDR_BYTES];
    mf_net_hdr_pack(&k, buf);
    ok(memcmp(buf, want, sizeof want) == 0, "net header: known encoding is byte-exact");

    mf_net_hdr_t one = {.vc = 1};
    mf_net_hdr_pack(&one, buf);
    ok(buf[5] == 0x04 && buf[4] == 0, "net header: vc is bit 42");
    one = (mf_net_hdr_t){.tag = 31};
    mf_net_hdr_pack(&one, buf);
    ok(buf[3] == 0 && buf[4] == 0x3e && buf[5] == 0, "net header: tag occupies bits 33-37");
    one = (mf_net_hdr_t){.pad = 31};
    mf_net_hdr_pack(&one, buf);
    ok(buf[4] == 0 && buf[5] == 0xf8, "net header: pad occupies bits 43-47");

    mf_net_hdr_t wide = {.ctx = 0xff};
    mf_net_hdr_pack(&wide, buf);
    int masked = buf[1] == 0 && buf[2] == 0x1f && buf[3] == 0;
    wide = (mf_net_hdr_t){.tag = 0xff};
    mf_net_hdr_pack(&wide, buf);
    masked &= buf[4] == 0x3e && buf[5] == 0;
    wide = (mf_net_hdr_t){.vc = 0xff};
    mf_net_hdr_pack(&wide, buf);
    masked &= buf[5] == 0x04;
    ok(masked, "net header: pack masks oversize fields");

    mf_net_hdr_t back;
    mf_net_hdr_t bad = k;
    int all = MF_OPC_COUNT == 16;
    for (int o = 0; o < 16; o++) {
        bad.opcode = (uint8_t)o;
        mf_net_hdr_pack(&bad, buf);
        all &= mf_net_hdr_unpack(buf, &back) == 0 && back.opcode == o;
    }
    ok(all, "net header: all 16 opcode codes are defined and round-trip");
    bad = k;
    bad.op = 15;
    mf_net_hdr_pack(&bad, buf);
    ok(mf_net_hdr_unpack(buf, &back) == -1, "net header: op 15 rejected");
    bad = k;
    bad.dtype = MF_DT_COUNT;
    mf_net_hdr_pack(&bad, buf);
    ok(mf_net_hdr_unpack(buf, &back) == -1, "net header: dtype %d rejected", MF_DT_COUNT);
    bad = k;
    bad.psize = 0;
    mf_net_hdr_pack(&bad, buf);
    ok(mf_net_hdr_unpack(buf, &back) == -1, "net header: padding on a header-only packet rejected");

    ok(mf_psize_phits(0) == 0 && mf_psize_phits(1) == 1 && mf_psize_phits(7) == 64,
       "psize: 0 -> 0 phits, 1 -> 1, 7 -> 64");
}

/* ---- CT entry ------------------------------------------------------------ */

/* A syntactically valid entry of a `size`-member communicator (contents random). */
static mf_ct_entry_t random_ct(unsigned size)
{
    mf_ct_entry_t e;
    memset(&e, 0xff, sizeof e);
    unsigned levels = 0, floor = 0;
    while ((1u << levels) < size)
        levels++;
    while ((2u << floor) <= size)
        floor++;
    e.size = (uint16_t)size;
    e.rank = (uint16_t)rnd_below(size);
    e.levels = (uint8_t)levels;
    e.pof2_levels = (uint8_t)floor;
    e.fold = (uint16_t)rnd();
    e.global0 = (uint16_t)rnd();
    e.ident = (uint8_t)(rnd() & 1);
    for (unsigned k = 0; k < levels; k++) {
        e.hc[k] = (uint16_t)rnd();
        e.up[k] = (uint16_t)rnd();
        e.down[k] = (uint16_t)rnd();
    }
    return e;
}

static int ct_round_trip(const mf_ct_entry_t *e)
{
    uint8_t buf[256];
    mf_ct_entry_t back;
    size_t n = mf_ct_entry_pack(e, buf, sizeof buf);
    return n == mf_ct_entry_wire_bytes(e) && mf_ct_entry_unpack(buf, n, &back) == 0 &&
           memcmp(e, &back, sizeof back) == 0;
}

static void test_ct_entry(void)
{
    const unsigned sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 1000, 32768, 32769, 65535};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        mf_ct_entry_t e = random_ct(sizes[i]);
        ok(ct_round_trip(&e), "CT entry: round trip, size %u (levels %u)", sizes[i], e.levels);
    }

    mf_ct_entry_t e = random_ct(5);
    e.rank = 4;
    e.ident = 0;
    e.fold = 0x0102;
    e.global0 = 0x0304;
    e.hc[0] = 0xa0a1, e.hc[1] = 0xa2a3, e.hc[2] = 0xa4a5;
    e.up[0] = 0xb0b1, e.up[1] = 0xb2b3, e.up[2] = 0xb4b5;
    e.down[0] = 0xc0c1, e.down[1] = 0xc2c3, e.down[2] = 0xc4c5;
    const uint8_t want[] = {5, 0, 4, 0, 3, 2, 0x02, 0x01, 0x04, 0x03,
                            0xa1, 0xa0, 0xa3, 0xa2, 0xa5, 0xa4,
                            0xb1, 0xb0, 0xb3, 0xb2, 0xb5, 0xb4,
                            0xc1, 0xc0, 0xc3, 0xc2, 0xc5, 0xc4};
    uint8_t buf[256];
    size_t n = mf_ct_entry_pack(&e, buf, sizeof buf);
    ok(n == sizeof want && memcmp(buf, want, n) == 0, "CT entry: size-5 encoding is byte-exact");
    e.ident = 1;
    n = mf_ct_entry_pack(&e, buf, sizeof buf);
    ok(n == sizeof want && buf[5] == 0x82 && memcmp(buf + 6, want + 6, n - 6) == 0,
       "CT entry: ident rides in bit 7 of the pof2_levels byte (0x%02x)", buf[5]);
    e.ident = 0;
    n = mf_ct_entry_pack(&e, buf, sizeof buf);
    ok(mf_ct_entry_wire_bytes(&e) == 10 + 6 * 3, "CT entry: wire bytes = 10 + 6*levels");

    ok(mf_ct_entry_pack(&e, buf, n - 1) == 0, "CT entry: pack refuses a too-small buffer");
    ok(mf_ct_entry_pack(&e, buf, n) == n, "CT entry: pack fits an exact-size buffer");

    mf_ct_entry_t back;
    int trunc_ok = 1;
    for (size_t len = 0; len < n; len++) {
        /* exact-size heap copy, so a sanitizer build catches any over-read */
        uint8_t *part = malloc(len ? len : 1);
        memcpy(part, buf, len);
        trunc_ok &= mf_ct_entry_unpack(part, len, &back) == -1;
        free(part);
    }
    ok(trunc_ok, "CT entry: every truncation (0..%zu bytes) rejected", n - 1);
    ok(mf_ct_entry_unpack(buf, n, &back) == 0, "CT entry: full payload accepted");

    uint8_t bad[256];
    memcpy(bad, buf, n);
    bad[2] = 5; /* rank 5 in a size-5 communicator */
    ok(mf_ct_entry_unpack(bad, n, &back) == -1, "CT entry: rank >= size rejected");
    memcpy(bad, buf, n);
    bad[4] = 2; /* levels 2 for size 5 */
    ok(mf_ct_entry_unpack(bad, n, &back) == -1, "CT entry: levels != ceil(log2(size)) rejected");
    memcpy(bad, buf, n);
    bad[4] = 17;
    ok(mf_ct_entry_unpack(bad, sizeof bad, &back) == -1, "CT entry: levels 17 rejected");
    memcpy(bad, buf, n);
    bad[5] = 3; /* pof2_levels 3 for size 5 */
    ok(mf_ct_entry_unpack(bad, n, &back) == -1, "CT entry: pof2_levels != floor(log2) rejected");
    memcpy(bad, buf, n);
    bad[0] = 0, bad[2] = 0; /* size 0 */
    ok(mf_ct_entry_unpack(bad, n, &back) == -1, "CT entry: size 0 rejected");

    mf_ct_entry_t one = random_ct(1);
    one.levels = 1;
    n = mf_ct_entry_pack(&one, buf, sizeof buf);
    ok(n > 0 && mf_ct_entry_unpack(buf, n, &back) == -1, "CT entry: size 1 needs levels 0");
    e.levels = MF_MAX_LEVELS + 1;
    ok(mf_ct_entry_pack(&e, buf, sizeof buf) == 0, "CT entry: pack refuses levels > %d",
       MF_MAX_LEVELS);
}

/* ---- forwarding table ---------------------------------------------------- */

static void test_fwd(void)
{
    mf_fwd_entry_t in[50], out[50];
    for (int i = 0; i < 50; i++)
        in[i] = (mf_fwd_entry_t){.rank = (uint16_t)rnd_below(0xffff), .node = (uint16_t)rnd(),
                                 .port = (uint8_t)rnd()};
    uint8_t buf[50 * MF_FWD_ENTRY_BYTES];
    size_t n = 0, bytes = mf_fwd_pack(in, 50, buf, sizeof buf);
    ok(bytes == 250, "fwd: 50 entries pack to 250 bytes");
    int same = mf_fwd_unpack(buf, bytes, out, 50, &n) == 0 && n == 50;
    for (size_t i = 0; same && i < n; i++)
        same = in[i].rank == out[i].rank && in[i].node == out[i].node && in[i].port == out[i].port;
    ok(same, "fwd: 50-entry round trip");

    mf_fwd_entry_t k = {.rank = 0x0102, .node = 0x0304, .port = 5};
    ok(mf_fwd_pack(&k, 1, buf, 5) == 5 && buf[0] == 2 && buf[1] == 1 && buf[2] == 4 &&
           buf[3] == 3 && buf[4] == 5,
       "fwd: known encoding is byte-exact");
    ok(mf_fwd_pack(in, 50, buf, sizeof buf - 1) == 0, "fwd: pack refuses a too-small buffer");

    mf_fwd_pack(in, 50, buf, sizeof buf);
    ok(mf_fwd_unpack(buf, 249, out, 50, &n) == -1, "fwd: truncated entry rejected");
    ok(mf_fwd_unpack(buf, 250, out, 49, &n) == -1, "fwd: more entries than capacity rejected");
    ok(mf_fwd_unpack(buf, 0, out, 50, &n) == 0 && n == 0, "fwd: empty table accepted");
    buf[0] = buf[1] = 0xff;
    ok(mf_fwd_unpack(buf, 250, out, 50, &n) == -1, "fwd: rank 0xffff (MF_RANK_NONE) rejected");
}

/* ---- names, parsing, op/type compatibility ------------------------------- */

static void test_names(void)
{
    int good = 1;
    for (int t = 0; t < MF_DT_COUNT; t++) {
        mf_dtype_t back = MF_DT_COUNT;
        good &= mf_dtype_parse(mf_dtype_name((mf_dtype_t)t), &back) == 0 && back == (mf_dtype_t)t;
    }
    ok(good, "dtype: name/parse round trip for all %d types", MF_DT_COUNT);
    good = 1;
    for (int o = 0; o < MF_OP_COUNT; o++) {
        mf_op_t back = MF_OP_COUNT;
        good &= mf_op_parse(mf_op_name((mf_op_t)o), &back) == 0 && back == (mf_op_t)o;
    }
    ok(good, "op: name/parse round trip for all %d ops", MF_OP_COUNT);
    good = 1;
    for (int c = 0; c < MF_OPC_COUNT; c++) {
        mf_opcode_t back = MF_OPC_COUNT;
        good &= mf_coll_parse(mf_opcode_name((mf_opcode_t)c), &back) == 0 &&
                back == (mf_opcode_t)c;
    }
    ok(good, "opcode: name/parse round trip for all %d opcodes", MF_OPC_COUNT);

    static const char *const dt[MF_DT_COUNT] = {
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float",
        "double", "float_int", "double_int", "long_int", "2int", "short_int"};
    static const char *const ops[MF_OP_COUNT] = {"sum", "prod", "min", "max", "land", "lor",
                                                 "lxor", "band", "bor", "bxor", "minloc", "maxloc",
                                                 "cprod"};
    static const char *const opc[] = {"unicast",   "barrier",   "bcast",     "reduce",
                                      "allreduce", "scatter",   "gather",    "allgather",
                                      "reduce_scatter", "ct_config", "ct_free", "fwd_table",
                                      "scan", "exscan", "alltoall", "alltoallv"};
    good = 1;
    for (int t = 0; t < MF_DT_COUNT; t++)
        good &= strcmp(mf_dtype_name((mf_dtype_t)t), dt[t]) == 0;
    ok(good, "dtype names: int8 .. double, float_int .. short_int");
    good = 1;
    for (int o = 0; o < MF_OP_COUNT; o++)
        good &= strcmp(mf_op_name((mf_op_t)o), ops[o]) == 0;
    ok(good, "op names: sum .. bxor, minloc, maxloc");
    ok(mf_op_valid_for(MF_OP_MINLOC, MF_DT_DOUBLE_INT) && mf_op_valid_for(MF_OP_MAXLOC, MF_DT_2INT) &&
           !mf_op_valid_for(MF_OP_MINLOC, MF_DT_DOUBLE) && !mf_op_valid_for(MF_OP_SUM, MF_DT_2INT),
       "minloc/maxloc only on the pair types, and nothing else on them");
    unsigned vb, io;
    mf_pair_layout(MF_DT_DOUBLE_INT, &vb, &io);
    ok(vb == 8 && io == 8 && mf_dtype_size(MF_DT_DOUBLE_INT) == 16,
       "double_int lane: value 8 B at 0, index at 8, 16 B (the C struct)");
    mf_pair_layout(MF_DT_SHORT_INT, &vb, &io);
    ok(vb == 2 && io == 4 && mf_dtype_size(MF_DT_SHORT_INT) == 8,
       "short_int lane: value 2 B at 0, index at 4, 8 B");
    good = 1;
    for (int c = 0; c < MF_OPC_COUNT; c++)
        good &= strcmp(mf_opcode_name((mf_opcode_t)c), opc[c]) == 0;
    ok(good, "opcode names: unicast .. fwd_table, scan, exscan, alltoall, alltoallv");
    ok(strcmp(mf_dtype_name(MF_DT_COUNT), "?") == 0 && strcmp(mf_op_name(MF_OP_COUNT), "?") == 0 &&
           strcmp(mf_opcode_name(MF_OPC_COUNT), "?") == 0,
       "out-of-range names are \"?\"");

    mf_dtype_t t;
    mf_op_t op;
    mf_opcode_t c;
    ok(mf_dtype_parse("DOUBLE", &t) == 0 && t == MF_DT_DOUBLE, "dtype parse is case-insensitive");
    ok(mf_dtype_parse("int128", &t) == -1 && mf_dtype_parse("", &t) == -1 &&
           mf_dtype_parse(NULL, &t) == -1,
       "dtype parse rejects unknown / empty / NULL");
    ok(mf_op_parse("Max", &op) == 0 && op == MF_OP_MAX, "op parse is case-insensitive");
    ok(mf_op_parse("MPI_BXOR", &op) == 0 && op == MF_OP_BXOR, "op parse accepts MPI_ prefix");
    ok(mf_op_parse("avg", &op) == -1, "op parse rejects unknown");
    ok(mf_coll_parse("osu_allreduce", &c) == 0 && c == MF_OPC_ALLREDUCE,
       "coll parse: osu_allreduce");
    ok(mf_coll_parse("reduce-scatter", &c) == 0 && c == MF_OPC_REDUCE_SCATTER,
       "coll parse: reduce-scatter");
    ok(mf_coll_parse("ReduceScatter", &c) == 0 && c == MF_OPC_REDUCE_SCATTER,
       "coll parse: ReduceScatter");
    ok(mf_coll_parse("OSU_REDUCE_SCATTER", &c) == 0 && c == MF_OPC_REDUCE_SCATTER,
       "coll parse: OSU_REDUCE_SCATTER");
    ok(mf_coll_parse("BCAST", &c) == 0 && c == MF_OPC_BCAST, "coll parse: BCAST");
    ok(mf_coll_parse("MPI_Allgather", &c) == 0 && c == MF_OPC_ALLGATHER,
       "coll parse: MPI_Allgather");
    ok(mf_coll_parse("osu_alltoall", &c) == 0 && c == MF_OPC_ALLTOALL, "coll parse: osu_alltoall");
    ok(mf_coll_parse("alltoallw", &c) == -1 && mf_coll_parse("osu_", &c) == -1 &&
           mf_coll_parse("", &c) == -1,
       "coll parse rejects unknown / empty");
    ok(mf_coll_parse("a_very_long_collective_name_that_overflows_buffers", &c) == -1,
       "coll parse rejects over-long input");
    ok(mf_dtype_size(MF_DT_INT8) == 1 && mf_dtype_size(MF_DT_UINT16) == 2 &&
           mf_dtype_size(MF_DT_FLOAT) == 4 && mf_dtype_size(MF_DT_DOUBLE) == 8 &&
           mf_dtype_size(MF_DT_INT64) == 8 && mf_dtype_size(MF_DT_COUNT) == 0,
       "dtype sizes");
}

static void test_op_valid(void)
{
    int good = 1;
    for (int o = 0; o < MF_OP_COUNT; o++)
        for (int t = 0; t < MF_DT_COUNT; t++) {
            int bitwise = o == MF_OP_BAND || o == MF_OP_BOR || o == MF_OP_BXOR;
            int is_float = t == MF_DT_FLOAT || t == MF_DT_DOUBLE;
            int loc = o == MF_OP_MINLOC || o == MF_OP_MAXLOC, pair = t >= MF_DT_FLOAT_INT;
            int want = loc || pair ? loc && pair : !(bitwise && is_float);
            if (o == MF_OP_CPROD)
                want = is_float;
            good &= mf_op_valid_for((mf_op_t)o, (mf_dtype_t)t) == want;
        }
    ok(good, "op_valid_for: bitwise ops only on integers, minloc/maxloc only on pairs, "
             "cprod only on float/double, all others on every non-pair type");
    ok(mf_elem_bytes(MF_OP_CPROD, MF_DT_DOUBLE) == 16 && mf_elem_bytes(MF_OP_CPROD, MF_DT_FLOAT) == 8 &&
           mf_elem_bytes(MF_OP_SUM, MF_DT_DOUBLE) == 8,
       "elem_bytes: a cprod element is a (re, im) lane pair");
    ok(!mf_op_valid_for(MF_OP_BAND, MF_DT_DOUBLE) && mf_op_valid_for(MF_OP_BAND, MF_DT_UINT8) &&
           mf_op_valid_for(MF_OP_LAND, MF_DT_FLOAT) && mf_op_valid_for(MF_OP_SUM, MF_DT_DOUBLE),
       "op_valid_for: band/double no, band/uint8 yes, land/float yes, sum/double yes");
    ok(!mf_op_valid_for(MF_OP_COUNT, MF_DT_INT8) && !mf_op_valid_for(MF_OP_SUM, MF_DT_COUNT),
       "op_valid_for: out-of-range op/type rejected");
}

int main(void)
{
    test_proc_hdr();
    test_net_hdr();
    test_ct_entry();
    test_fwd();
    test_names();
    test_op_valid();
    return tap_done();
}
