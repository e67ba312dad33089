/*
 * AgLU kernels (fpga_model/hw/aglu.c) against hand-checked values and the
 * independent reference element code (test/ref_coll.c), plus the reference
 * collectives themselves on 5 ranks.
 */
#include <stdint.h>
#include <string.h>

#include "hw/aglu.h"
#include "ref_coll.h"
#include "tap.h"

static const char *const op_names[MF_OP_COUNT] = {
    "sum", "prod", "min", "max", "land", "lor", "lxor", "band", "bor", "bxor", "minloc", "maxloc",
    "cprod",
};
static const char *const dt_names[MF_DT_COUNT] = {
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float", "double",
    "float_int", "double_int", "long_int", "2int", "short_int",
};

static int is_float(mf_dtype_t t) { return t == MF_DT_FLOAT || t == MF_DT_DOUBLE; }

/* ---- random data ----------------------------------------------------- */

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* Element i of p: a mix of zeros, small values of both signs and full-range
 * values (random bits for integers, random magnitudes for floats). */
/* A (value, index) pair: value -3..3 so that ties are common, random
 * index, random pad bytes (the AgLU must keep acc's). */
static void rand_pair(mf_dtype_t t, unsigned char *e)
{
    uint64_t x = rnd();
    for (size_t k = 0; k < ref_dtype_size(t); k++)
        e[k] = (unsigned char)(rnd() >> 24);
    ref_pair_store(t, e, (int64_t)(x % 7) - 3, (int32_t)((x >> 8) % 2001) - 1000);
}

static void rand_elem(mf_dtype_t t, unsigned char *p, size_t i)
{
    size_t sz = ref_dtype_size(t);
    if (mf_dtype_is_pair(t)) {
        rand_pair(t, p + i * sz);
        return;
    }
    uint64_t x = rnd();
    int kind = (int)(x % 4);
    int64_t small = (int64_t)((x >> 8) % 7) - 3;
    if (is_float(t)) {
        double v = kind == 0 ? 0.0 : kind == 1 ? (double)small
                 : (double)((int64_t)(x >> 11) - (1ll << 52)) / (double)(1ull << ((x >> 2) % 60));
        if (t == MF_DT_FLOAT) {
            float f = (float)v;
            memcpy(p + i * sz, &f, sz);
        } else {
            memcpy(p + i * sz, &v, sz);
        }
        return;
    }
    uint64_t bits = kind == 0 ? 0 : kind == 1 ? (uint64_t)small : rnd();
    memcpy(p + i * sz, &bits, sz); /* little-endian: low bytes */
}

static void rand_buf(mf_dtype_t t, unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rand_elem(t, p, i);
}

/* ---- lanes ---------------------------------------------------------- */

static void test_lanes(void)
{
    ok(mf_aglu_lanes(256, MF_DT_DOUBLE) == 4, "lanes: 256-bit = 4 doubles");
    ok(mf_aglu_lanes(256, MF_DT_INT8) == 32, "lanes: 256-bit = 32 int8");
    ok(mf_aglu_lanes(256, MF_DT_UINT16) == 16, "lanes: 256-bit = 16 uint16");
    ok(mf_aglu_lanes(256, MF_DT_FLOAT) == 8, "lanes: 256-bit = 8 floats");
    ok(mf_aglu_lanes(512, MF_DT_INT64) == 8, "lanes: 512-bit = 8 int64");
    int all = 1;
    for (int t = 0; t < MF_DT_COUNT; t++)
        all &= mf_aglu_lanes(256, (mf_dtype_t)t) == 256 / (8 * ref_dtype_size((mf_dtype_t)t));
    ok(all, "lanes: 256 / element bits for every type");
}

/* ---- hand-checked kernels ------------------------------------------- */

/* MINLOC/MAXLOC on MPI_DOUBLE_INT-shaped pairs: better value wins, a tie
 * takes the lower index whichever operand holds it; pads keep acc's. */
typedef struct { double v; int32_t i; int32_t pad; } dint_t;
static dint_t loc1(mf_op_t op, dint_t a, dint_t b)
{
    mf_aglu_combine(op, MF_DT_DOUBLE_INT, &a, &b, sizeof a);
    return a;
}

static void test_loc_ties(void)
{
    dint_t a = {1.5, 7, 0x11}, b = {1.5, 3, 0x22}, c = {-2.0, 9, 0x33};
    dint_t r = loc1(MF_OP_MINLOC, a, b);
    ok(r.v == 1.5 && r.i == 3 && r.pad == 0x11, "minloc tie: lower index (3), acc's pad kept");
    r = loc1(MF_OP_MINLOC, b, a);
    ok(r.v == 1.5 && r.i == 3, "minloc tie, operands swapped: still index 3");
    r = loc1(MF_OP_MAXLOC, a, b);
    ok(r.v == 1.5 && r.i == 3, "maxloc tie: lower index (3)");
    r = loc1(MF_OP_MINLOC, a, c);
    ok(r.v == -2.0 && r.i == 9, "minloc: smaller value wins with its index (9)");
    r = loc1(MF_OP_MAXLOC, c, a);
    ok(r.v == 1.5 && r.i == 7, "maxloc: larger value wins with its index (7)");
    ok(!mf_aglu_zero_closed(MF_OP_SUM, MF_DT_2INT, 8) && mf_aglu_zero_closed(MF_OP_MINLOC,
       MF_DT_2INT, 8), "pairs take only minloc/maxloc");
}

#define COMBINE1(OP, DT, T, a, b) \
    ({ T acc_ = (a), src_ = (b); mf_aglu_combine(OP, DT, &acc_, &src_, sizeof(T)); acc_; })

static void test_hand_checked(void)
{
    ok(COMBINE1(MF_OP_SUM, MF_DT_INT8, int8_t, 100, 100) == -56, "int8 sum wraps: 100+100 = -56");
    ok(COMBINE1(MF_OP_SUM, MF_DT_INT8, int8_t, -128, -1) == 127, "int8 sum wraps: -128-1 = 127");
    ok(COMBINE1(MF_OP_SUM, MF_DT_UINT8, uint8_t, 200, 100) == 44, "uint8 sum wraps: 200+100 = 44");
    ok(COMBINE1(MF_OP_SUM, MF_DT_INT32, int32_t, INT32_MAX, 1) == INT32_MIN, "int32 sum wraps");
    ok(COMBINE1(MF_OP_PROD, MF_DT_INT16, int16_t, 300, 300) == 24464, "int16 prod wraps: 300*300");
    ok(COMBINE1(MF_OP_PROD, MF_DT_UINT16, uint16_t, 65535, 65535) == 1, "uint16 prod: 65535^2 = 1");
    ok(COMBINE1(MF_OP_PROD, MF_DT_INT64, int64_t, INT64_MIN, -1) == INT64_MIN, "int64 prod wraps");
    ok(COMBINE1(MF_OP_MIN, MF_DT_INT32, int32_t, 3, -5) == -5, "int32 min mixed sign");
    ok(COMBINE1(MF_OP_MAX, MF_DT_INT8, int8_t, -5, 3) == 3, "int8 max mixed sign");
    ok(COMBINE1(MF_OP_MAX, MF_DT_UINT32, uint32_t, 1, 0xffffffffu) == 0xffffffffu,
       "uint32 max compares unsigned");
    ok(COMBINE1(MF_OP_MIN, MF_DT_UINT64, uint64_t, UINT64_MAX, 2) == 2, "uint64 min unsigned");
    ok(COMBINE1(MF_OP_MIN, MF_DT_INT64, int64_t, 0, INT64_MIN) == INT64_MIN, "int64 min");
    ok(COMBINE1(MF_OP_MIN, MF_DT_DOUBLE, double, -0.5, -2.25) == -2.25, "double min");
    ok(COMBINE1(MF_OP_MAX, MF_DT_FLOAT, float, -0.5f, -2.25f) == -0.5f, "float max");
    ok(COMBINE1(MF_OP_SUM, MF_DT_FLOAT, float, 0.1f, 0.2f) == 0.1f + 0.2f, "float sum");
    ok(COMBINE1(MF_OP_LAND, MF_DT_INT32, int32_t, 5, -3) == 1, "int32 land(5,-3) = 1");
    ok(COMBINE1(MF_OP_LAND, MF_DT_INT32, int32_t, 5, 0) == 0, "int32 land(5,0) = 0");
    ok(COMBINE1(MF_OP_LOR, MF_DT_INT16, int16_t, 0, 7) == 1, "int16 lor(0,7) = 1");
    ok(COMBINE1(MF_OP_LOR, MF_DT_INT16, int16_t, 0, 0) == 0, "int16 lor(0,0) = 0");
    ok(COMBINE1(MF_OP_LXOR, MF_DT_UINT8, uint8_t, 2, 3) == 0, "uint8 lxor(2,3) = 0");
    ok(COMBINE1(MF_OP_LXOR, MF_DT_UINT8, uint8_t, 0, 4) == 1, "uint8 lxor(0,4) = 1");
    ok(COMBINE1(MF_OP_LAND, MF_DT_UINT64, uint64_t, 1ull << 63, 1ull << 32) == 1,
       "uint64 land of high bits = 1");
    ok(COMBINE1(MF_OP_LAND, MF_DT_FLOAT, float, 0.5f, -2.0f) == 1.0f, "float land(0.5,-2) = 1");
    ok(COMBINE1(MF_OP_LXOR, MF_DT_DOUBLE, double, 0.25, 0.0) == 1.0, "double lxor(0.25,0) = 1");
    ok(COMBINE1(MF_OP_BAND, MF_DT_UINT16, uint16_t, 0xf0f0, 0xff00) == 0xf000, "uint16 band");
    ok(COMBINE1(MF_OP_BOR, MF_DT_INT8, int8_t, -128, 1) == -127, "int8 bor");
    ok(COMBINE1(MF_OP_BXOR, MF_DT_INT64, int64_t, -1, 0x0f) == -16, "int64 bxor");
    double z[2] = {1.5, -2.0};
    const double w[2] = {3.0, 0.5}; /* (1.5 - 2i)(3 + 0.5i) = 5.5 - 5.25i */
    mf_aglu_combine(MF_OP_CPROD, MF_DT_DOUBLE, z, w, sizeof z);
    ok(z[0] == 5.5 && z[1] == -5.25, "double complex product (1.5-2i)(3+0.5i) = 5.5-5.25i");
    float zf[4] = {0, 1, 2, 0};
    const float wf[4] = {0, 1, 0, -1}; /* i * i = -1; 2 * -i = -2i */
    mf_aglu_combine(MF_OP_CPROD, MF_DT_FLOAT, zf, wf, sizeof zf);
    ok(zf[0] == -1 && zf[1] == 0 && zf[2] == 0 && zf[3] == -2, "float complex: i*i = -1, 2*(-i) = -2i");
    test_loc_ties();
}

/* ---- every op x type against the reference, unaligned, with tails -------- */

#define GUARD 0x5a
#define MAXN 300 /* elements */

/* Run one (op, t, n elements, misalignments) case; 1 if it matches the
 * reference and no byte outside acc[0..n) changed. */
static int check_case(mf_op_t op, mf_dtype_t t, size_t n, size_t acc_off, size_t src_off)
{
    static unsigned char acc_buf[MAXN * 16 + 64], src_buf[MAXN * 16 + 64], want[MAXN * 16 + 64];
    size_t sz = ref_dtype_size(t), bytes = n * sz;
    memset(acc_buf, GUARD, sizeof acc_buf);
    unsigned char *acc = acc_buf + 16 + acc_off, *src = src_buf + src_off;
    rand_buf(t, acc, n);
    rand_buf(t, src, n);
    memcpy(want, acc_buf, sizeof acc_buf);
    ref_combine(op, t, want + 16 + acc_off, src, bytes);
    mf_aglu_combine(op, t, acc, src, bytes);
    return memcmp(acc_buf, want, sizeof acc_buf) == 0;
}

static void test_against_ref(void)
{
    /* element counts around the 256-bit block size, offsets 0..7 */
    for (int op = 0; op < MF_OP_COUNT; op++) {
        for (int t = 0; t < MF_DT_COUNT; t++) {
            if (!ref_op_valid((mf_op_t)op, (mf_dtype_t)t))
                continue;
            size_t lanes = mf_aglu_lanes(256, (mf_dtype_t)t);
            /* CPROD takes whole (re, im) lane pairs: even counts only */
            size_t unit = op == MF_OP_CPROD ? 2 : 1;
            const size_t lens[] = {0, 1, lanes - 1, lanes, lanes + 1, 3 * lanes + 5, MAXN};
            int good = 1, cases = 0;
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
                for (size_t ao = 0; ao < 8; ao += 3)
                    for (size_t so = 0; so < 8; so += 5, cases++)
                        good &= check_case((mf_op_t)op, (mf_dtype_t)t, lens[li] / unit * unit,
                                           ao, so);
            for (int k = 0; k < 20; k++, cases++) /* random lengths and offsets */
                good &= check_case((mf_op_t)op, (mf_dtype_t)t, rnd() % (MAXN + 1) / unit * unit,
                                   rnd() % 8, rnd() % 8);
            ok(good, "%s %s matches reference (%d cases, unaligned, guards intact)",
               op_names[op], dt_names[t], cases);
        }
    }
}

/* 1 if element i of p is exactly 0 or 1 of type t. */
static int is_0_or_1(mf_dtype_t t, const unsigned char *p, size_t i)
{
    size_t sz = ref_dtype_size(t);
    if (t == MF_DT_FLOAT) {
        float f;
        memcpy(&f, p + i * sz, sz);
        return f == 0.0f || f == 1.0f;
    }
    if (t == MF_DT_DOUBLE) {
        double d;
        memcpy(&d, p + i * sz, sz);
        return d == 0.0 || d == 1.0;
    }
    uint64_t v = 0;
    memcpy(&v, p + i * sz, sz); /* little-endian: zero-extended */
    return v <= 1;
}

static void test_logical_01(void)
{
    enum { N = 200 };
    static unsigned char acc[N * 8 + 1], src[N * 8 + 1];
    for (int op = MF_OP_LAND; op <= MF_OP_LXOR; op++) {
        int good = 1, saw0 = 0, saw1 = 0;
        for (int t = 0; t < MF_DT_COUNT; t++) {
            if (mf_dtype_is_pair((mf_dtype_t)t))
                continue; /* logical ops are not defined on pairs */
            rand_buf((mf_dtype_t)t, acc + 1, N);
            rand_buf((mf_dtype_t)t, src, N);
            mf_aglu_combine((mf_op_t)op, (mf_dtype_t)t, acc + 1, src, N * ref_dtype_size((mf_dtype_t)t));
            for (size_t i = 0; i < N; i++) {
                good &= is_0_or_1((mf_dtype_t)t, acc + 1, i);
                saw0 |= acc[1 + i * ref_dtype_size((mf_dtype_t)t)] == 0;
                saw1 |= acc[1 + i * ref_dtype_size((mf_dtype_t)t)] != 0;
            }
        }
        ok(good && saw0 && saw1, "%s yields exactly 0/1 in every type", op_names[op]);
    }
}

/* ---- reference collectives, 5 ranks ------------------------------------- */

enum { P = 5, MAXE = 16 };

/* Per-rank int32 buffers; recv pre-filled with a sentinel. */
typedef struct {
    int32_t send[P][MAXE], recv[P][MAXE];
    const void *sp[P];
    void *rp[P];
} bufs_t;

static void bufs_init(bufs_t *b)
{
    memset(b->send, 0, sizeof b->send);
    memset(b->recv, 0xab, sizeof b->recv);
    for (int r = 0; r < P; r++) {
        b->sp[r] = b->send[r];
        b->rp[r] = b->recv[r];
    }
}

static int recv_is(const bufs_t *b, int r, const int32_t *want, size_t n)
{
    return memcmp(b->recv[r], want, n * sizeof *want) == 0;
}

static int untouched(const bufs_t *b, int r)
{
    for (int i = 0; i < MAXE; i++)
        if ((uint32_t)b->recv[r][i] != 0xababababu)
            return 0;
    return 1;
}

static void test_ref_bcast(void)
{
    bufs_t b;
    bufs_init(&b);
    ref_coll_t c = {.opc = MF_OPC_BCAST, .dtype = MF_DT_INT32, .root = 2, .bytes = 8};
    b.send[2][0] = 7, b.send[2][1] = -8;
    b.send[0][0] = 99; /* non-root send is ignored */
    const int32_t want[] = {7, -8};
    int good = ref_coll_run(&c, P, b.sp, b.rp) == 0;
    for (int r = 0; r < P; r++)
        good &= recv_is(&b, r, want, 2) && (uint32_t)b.recv[r][2] == 0xababababu;
    ok(good, "ref bcast: root 2's {7,-8} at every rank, nothing beyond");
    ok(ref_send_bytes(&c, P, 2) == 8 && ref_send_bytes(&c, P, 0) == 0 &&
           ref_recv_bytes(&c, P, 0) == 8 && ref_recv_bytes(&c, P, 2) == 8,
       "ref bcast: send/recv sizes");
}

static void test_ref_reduce(void)
{
    bufs_t b;
    bufs_init(&b);
    ref_coll_t c = {.opc = MF_OPC_REDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .root = 3,
                    .bytes = 12};
    for (int r = 0; r < P; r++)
        b.send[r][0] = r, b.send[r][1] = 10 * r, b.send[r][2] = -r;
    const int32_t want[] = {10, 100, -10};
    int good = ref_coll_run(&c, P, b.sp, b.rp) == 0 && recv_is(&b, 3, want, 3);
    for (int r = 0; r < P; r++)
        good &= r == 3 || untouched(&b, r);
    ok(good, "ref reduce sum: root 3 gets {10,100,-10}, others untouched");
    ok(ref_recv_bytes(&c, P, 3) == 12 && ref_recv_bytes(&c, P, 1) == 0 &&
           ref_send_bytes(&c, P, 1) == 12,
       "ref reduce: send/recv sizes");
}

static void test_ref_allreduce(void)
{
    bufs_t b;
    bufs_init(&b);
    ref_coll_t c = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_MAX, .dtype = MF_DT_INT32, .bytes = 8};
    for (int r = 0; r < P; r++)
        b.send[r][0] = r - 2, b.send[r][1] = -7 - r;
    const int32_t want[] = {2, -7};
    int good = ref_coll_run(&c, P, b.sp, b.rp) == 0;
    for (int r = 0; r < P; r++)
        good &= recv_is(&b, r, want, 2);
    ok(good, "ref allreduce max: {2,-7} at every rank");

    /* float sum: 0.5 * (0+1+2+3+4) = 5 */
    float fs[P], fr[P];
    const void *fsp[P];
    void *frp[P];
    for (int r = 0; r < P; r++)
        fs[r] = 0.5f * (float)r, fsp[r] = &fs[r], frp[r] = &fr[r];
    c = (ref_coll_t){.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_FLOAT, .bytes = 4};
    good = ref_coll_run(&c, P, fsp, frp) == 0;
    for (int r = 0; r < P; r++)
        good &= fr[r] == 5.0f;
    ok(good, "ref allreduce float sum: 5.0 at every rank");
}

static void test_ref_scatter(void)
{
    bufs_t b;
    bufs_init(&b);
    ref_coll_t c = {.opc = MF_OPC_SCATTER, .dtype = MF_DT_INT32, .root = 1, .bytes = 4};
    for (int i = 0; i < P; i++)
        b.send[1][i] = 10 + i;
    int good = ref_coll_run(&c, P, b.sp, b.rp) == 0;
    for (int r = 0; r < P; r++)
        good &= b.recv[r][0] == 10 + r && (uint32_t)b.recv[r][1] == 0xababababu;
    ok(good, "ref scatter: rank i gets 10+i from root 1");
    ok(ref_send_bytes(&c, P, 1) == 20 && ref_send_bytes(&c, P, 0) == 0 &&
           ref_recv_bytes(&c, P, 4) == 4,
       "ref scatter: send/recv sizes");
}

static void test_ref_gather(void)
{
    bufs_t b;
    bufs_init(&b);
    ref_coll_t c = {.opc = MF_OPC_GATHER, .dtype = MF_DT_INT32, .root = 4, .bytes = 8};
    for (int r = 0; r < P; r++)
        b.send[r][0] = 3 * r, b.send[r][1] = -r;
    const int32_t want[] = {0, 0, 3, -1, 6, -2, 9, -3, 12, -4};
    int good = ref_coll_run(&c, P, b.sp, b.rp) == 0 && recv_is(&b, 4, want, 10);
    for (int r = 0; r < 4; r++)
        good &= untouched(&b, r);
    ok(good, "ref gather: root 4 gets the blocks in rank order, others untouched");
    ok(ref_recv_bytes(&c, P, 4) == 40 && ref_recv_bytes(&c, P, 0) == 0, "ref gather: recv sizes");
}

static void test_ref_allgather(void)
{
    bufs_t b;
    bufs_init(&b);
    ref_coll_t c = {.opc = MF_OPC_ALLGATHER, .dtype = MF_DT_INT32, .bytes = 4};
    for (int r = 0; r < P; r++)
        b.send[r][0] = r * r;
    const int32_t want[] = {0, 1, 4, 9, 16};
    int good = ref_coll_run(&c, P, b.sp, b.rp) == 0;
    for (int r = 0; r < P; r++)
        good &= recv_is(&b, r, want, 5);
    ok(good, "ref allgather: {0,1,4,9,16} at every rank");
}

static void test_ref_reduce_scatter(void)
{
    bufs_t b;
    bufs_init(&b);
    /* uniform 1-element blocks: rank r holds v[i] = r + i; block i = 10 + 5i */
    ref_coll_t c = {.opc = MF_OPC_REDUCE_SCATTER, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .bytes = 4};
    for (int r = 0; r < P; r++)
        for (int i = 0; i < P; i++)
            b.send[r][i] = r + i;
    int good = ref_coll_run(&c, P, b.sp, b.rp) == 0;
    for (int r = 0; r < P; r++)
        good &= b.recv[r][0] == 10 + 5 * r && (uint32_t)b.recv[r][1] == 0xababababu;
    ok(good, "ref reduce_scatter uniform: rank i gets 10+5i");
    ok(ref_send_bytes(&c, P, 0) == 20 && ref_recv_bytes(&c, P, 3) == 4,
       "ref reduce_scatter uniform: sizes");

    /* counts {0,2,1,0,3} elements: rank r holds v[j] = (r+1)(j+1), sum 15(j+1) */
    static const size_t counts[P] = {0, 8, 4, 0, 12};
    bufs_init(&b);
    c.counts = counts;
    for (int r = 0; r < P; r++)
        for (int j = 0; j < 6; j++)
            b.send[r][j] = (r + 1) * (j + 1);
    const int32_t want1[] = {15, 30}, want2[] = {45}, want4[] = {60, 75, 90};
    good = ref_coll_run(&c, P, b.sp, b.rp) == 0 && untouched(&b, 0) && untouched(&b, 3) &&
           recv_is(&b, 1, want1, 2) && recv_is(&b, 2, want2, 1) && recv_is(&b, 4, want4, 3) &&
           (uint32_t)b.recv[2][1] == 0xababababu;
    ok(good, "ref reduce_scatter counts {0,2,1,0,3}: blocks {}, {15,30}, {45}, {}, {60,75,90}");
    ok(ref_send_bytes(&c, P, 2) == 24 && ref_recv_bytes(&c, P, 4) == 12 &&
           ref_recv_bytes(&c, P, 3) == 0,
       "ref reduce_scatter counts: sizes");
}

static void test_ref_barrier_and_errors(void)
{
    bufs_t b;
    bufs_init(&b);
    ref_coll_t c = {.opc = MF_OPC_BARRIER};
    int good = ref_coll_run(&c, P, b.sp, b.rp) == 0;
    for (int r = 0; r < P; r++)
        good &= untouched(&b, r) && ref_send_bytes(&c, P, r) == 0 && ref_recv_bytes(&c, P, r) == 0;
    ok(good, "ref barrier: no data");

    ref_coll_t bad_root = {.opc = MF_OPC_BCAST, .dtype = MF_DT_INT32, .root = P, .bytes = 4};
    ref_coll_t bad_op = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_BXOR, .dtype = MF_DT_FLOAT, .bytes = 4};
    ref_coll_t bad_len = {.opc = MF_OPC_REDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .bytes = 6};
    ref_coll_t bad_opc = {.opc = MF_OPC_CT_CONFIG};
    ok(ref_coll_run(&bad_root, P, b.sp, b.rp) == -1 && ref_coll_run(&bad_op, P, b.sp, b.rp) == -1 &&
           ref_coll_run(&bad_len, P, b.sp, b.rp) == -1 && ref_coll_run(&bad_opc, P, b.sp, b.rp) == -1,
       "ref rejects bad root, bitwise float op, partial elements, non-collective opcode");
    good = 1;
    for (int r = 0; r < P; r++)
        good &= untouched(&b, r);
    ok(good, "ref writes nothing on error");
}

/* ---- ref_fill_input ---------------------------------------------------- */

/* Reduce P filled inputs forward and backward; 1 if bit-identical. */
static int fill_is_order_exact(mf_op_t op, mf_dtype_t t)
{
    enum { BYTES = 256 };
    ref_coll_t c = {.opc = MF_OPC_ALLREDUCE, .op = op, .dtype = t, .bytes = BYTES};
    unsigned char in[P][BYTES], fwd[BYTES], bwd[BYTES];
    for (int r = 0; r < P; r++)
        ref_fill_input(&c, r, in[r], BYTES, 42);
    memcpy(fwd, in[0], BYTES);
    memcpy(bwd, in[P - 1], BYTES);
    for (int r = 1; r < P; r++) {
        ref_combine(op, t, fwd, in[r], BYTES);
        ref_combine(op, t, bwd, in[P - 1 - r], BYTES);
    }
    return memcmp(fwd, bwd, BYTES) == 0;
}

static void test_fill(void)
{
    ref_coll_t c = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_LAND, .dtype = MF_DT_INT16, .bytes = 64};
    int16_t a[32], b[32], d[32];
    ref_fill_input(&c, 1, a, sizeof a, 7);
    ref_fill_input(&c, 1, b, sizeof b, 7);
    ref_fill_input(&c, 2, d, sizeof d, 7);
    ok(memcmp(a, b, sizeof a) == 0 && memcmp(a, d, sizeof a) != 0,
       "fill: deterministic, differs between ranks");
    int zero = 0, one = 0, other = 0;
    for (int i = 0; i < 32; i++)
        zero |= a[i] == 0, one |= a[i] == 1, other |= a[i] != 0 && a[i] != 1;
    ok(zero && one && other, "fill: logical inputs mix 0, 1 and other nonzero values");

    int good = 1;
    const mf_op_t ops[] = {MF_OP_SUM, MF_OP_PROD, MF_OP_MIN, MF_OP_MAX};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        good &= fill_is_order_exact(ops[k], MF_DT_FLOAT) && fill_is_order_exact(ops[k], MF_DT_DOUBLE);
    ok(good, "fill: float/double reductions exact in any order");

    /* AgLU over the filled inputs agrees with ref_coll_run's allreduce */
    good = 1;
    for (int op = 0; op < MF_OP_COUNT; op++) {
        for (int t = 0; t < MF_DT_COUNT; t++) {
            if (!ref_op_valid((mf_op_t)op, (mf_dtype_t)t))
                continue;
            enum { BYTES = 96 };
            c = (ref_coll_t){.opc = MF_OPC_ALLREDUCE, .op = (mf_op_t)op, .dtype = (mf_dtype_t)t,
                             .bytes = BYTES};
            unsigned char in[P][BYTES], out[P][BYTES], acc[BYTES];
            const void *sp[P];
            void *rp[P];
            for (int r = 0; r < P; r++) {
                ref_fill_input(&c, r, in[r], BYTES, 3);
                sp[r] = in[r], rp[r] = out[r];
            }
            good &= ref_coll_run(&c, P, sp, rp) == 0;
            memcpy(acc, in[0], BYTES);
            for (int r = 1; r < P; r++)
                mf_aglu_combine((mf_op_t)op, (mf_dtype_t)t, acc, in[r], BYTES);
            good &= memcmp(acc, out[P - 1], BYTES) == 0;
        }
    }
    ok(good, "fill + AgLU chain matches ref allreduce for every op x type");
}

int main(void)
{
    test_lanes();
    test_hand_checked();
    test_against_ref();
    test_logical_01();
    test_ref_bcast();
    test_ref_reduce();
    test_ref_allreduce();
    test_ref_scatter();
    test_ref_gather();
    test_ref_allgather();
    test_ref_reduce_scatter();
    test_ref_barrier_and_errors();
    test_fill();
    return tap_done();
}
