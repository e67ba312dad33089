/*
 * Reference MPI collective results (see ref_coll.h).  Kept deliberately
 * naive: every element is loaded into a 64-bit integer (sign- or
 * zero-extended) or a double, combined, and stored back.  Float sum/prod
 * computed in double and rounded once to float equal float arithmetic
 * (double has > 2*24+2 mantissa bits), so results match bit for bit.
 */
#include "ref_coll.h"

#include <string.h>

/* ---- element types ---------------------------------------------------- */

size_t ref_dtype_size(mf_dtype_t t)
{
    switch (t) {
    case MF_DT_INT8: case MF_DT_UINT8: return 1;
    case MF_DT_INT16: case MF_DT_UINT16: return 2;
    case MF_DT_INT32: case MF_DT_UINT32: case MF_DT_FLOAT: return 4;
    case MF_DT_INT64: case MF_DT_UINT64: case MF_DT_DOUBLE: return 8;
    case MF_DT_FLOAT_INT: case MF_DT_2INT: case MF_DT_SHORT_INT: return 8;
    case MF_DT_DOUBLE_INT: case MF_DT_LONG_INT: return 16;
    default: return 0;
    }
}

/* ---- MINLOC / MAXLOC pairs: (value, int index) as the C structs ------- */

static int is_pair(mf_dtype_t t) { return t >= MF_DT_FLOAT_INT && t <= MF_DT_SHORT_INT; }
static int is_loc(mf_op_t op) { return op == MF_OP_MINLOC || op == MF_OP_MAXLOC; }

/* Byte offset of the index in a pair lane. */
static size_t pair_index_off(mf_dtype_t t)
{
    return t == MF_DT_DOUBLE_INT || t == MF_DT_LONG_INT ? 8 : 4;
}

static double pair_value(mf_dtype_t t, const unsigned char *e)
{
    float f; double d; int64_t l; int32_t i; int16_t h;
    switch (t) {
    case MF_DT_FLOAT_INT: memcpy(&f, e, 4); return f;
    case MF_DT_DOUBLE_INT: memcpy(&d, e, 8); return d;
    case MF_DT_LONG_INT: memcpy(&l, e, 8); return (double)l;
    case MF_DT_2INT: memcpy(&i, e, 4); return i;
    default: memcpy(&h, e, 2); return h;
    }
}

void ref_pair_store(mf_dtype_t t, unsigned char *e, int64_t v, int32_t idx)
{
    float f = (float)v; double d = (double)v; int32_t i = (int32_t)v; int16_t h = (int16_t)v;
    switch (t) {
    case MF_DT_FLOAT_INT: memcpy(e, &f, 4); break;
    case MF_DT_DOUBLE_INT: memcpy(e, &d, 8); break;
    case MF_DT_LONG_INT: memcpy(e, &v, 8); break;
    case MF_DT_2INT: memcpy(e, &i, 4); break;
    default: memcpy(e, &h, 2); break;
    }
    memcpy(e + pair_index_off(t), &idx, 4);
}

/* MPI-4.0 sec. 6.9.4: the better value; on a tie the lower index. */
static void pair_combine(mf_op_t op, mf_dtype_t t, unsigned char *a, const unsigned char *b)
{
    size_t io = pair_index_off(t);
    double av = pair_value(t, a), bv = pair_value(t, b);
    int32_t ai, bi;
    memcpy(&ai, a + io, 4);
    memcpy(&bi, b + io, 4);
    int b_wins = op == MF_OP_MINLOC ? bv < av : bv > av;
    if (b_wins || (av == bv && bi < ai)) {
        memcpy(a, b, t == MF_DT_SHORT_INT ? 2 : io); /* value bytes; pads keep acc's */
        memcpy(a + io, &bi, 4);
    }
}

static int is_float(mf_dtype_t t) { return t == MF_DT_FLOAT || t == MF_DT_DOUBLE; }

static int is_signed(mf_dtype_t t)
{
    return t == MF_DT_INT8 || t == MF_DT_INT16 || t == MF_DT_INT32 || t == MF_DT_INT64;
}

static int is_bitwise(mf_op_t op) { return op == MF_OP_BAND || op == MF_OP_BOR || op == MF_OP_BXOR; }

int ref_op_valid(mf_op_t op, mf_dtype_t t)
{
    if ((unsigned)op >= MF_OP_COUNT || ref_dtype_size(t) == 0)
        return 0;
    if (is_loc(op) || is_pair(t))
        return is_loc(op) && is_pair(t);
    if (op == MF_OP_CPROD)
        return is_float(t);
    return !(is_bitwise(op) && is_float(t));
}

/* (a + bi)(c + di) = (ac - bd) + (ad + bc)i in T's own precision, lane
 * pairs i, i + 1 (MF_OP_CPROD). */
#define REF_CPROD(T, a, b, i)                                                 \
    do {                                                                      \
        T x[2], y[2];                                                         \
        memcpy(x, (a) + (i) * sizeof(T), sizeof x);                           \
        memcpy(y, (b) + (i) * sizeof(T), sizeof y);                           \
        T p1 = x[0] * y[0], p2 = x[1] * y[1], p3 = x[0] * y[1], p4 = x[1] * y[0]; \
        T r[2] = {p1 - p2, p3 + p4};                                          \
        memcpy((a) + (i) * sizeof(T), r, sizeof r);                           \
    } while (0)

/* Integer element i of p, sign-extended for signed types. */
static uint64_t load_int(const unsigned char *p, mf_dtype_t t, size_t i)
{
    p += i * ref_dtype_size(t);
    switch (t) {
    case MF_DT_INT8: { int8_t v; memcpy(&v, p, sizeof v); return (uint64_t)(int64_t)v; }
    case MF_DT_INT16: { int16_t v; memcpy(&v, p, sizeof v); return (uint64_t)(int64_t)v; }
    case MF_DT_INT32: { int32_t v; memcpy(&v, p, sizeof v); return (uint64_t)(int64_t)v; }
    case MF_DT_INT64: { int64_t v; memcpy(&v, p, sizeof v); return (uint64_t)v; }
    case MF_DT_UINT8: { uint8_t v; memcpy(&v, p, sizeof v); return v; }
    case MF_DT_UINT16: { uint16_t v; memcpy(&v, p, sizeof v); return v; }
    case MF_DT_UINT32: { uint32_t v; memcpy(&v, p, sizeof v); return v; }
    default: { uint64_t v; memcpy(&v, p, sizeof v); return v; }
    }
}

/* Store the low bits of v (two's complement) as element i of p. */
static void store_int(unsigned char *p, mf_dtype_t t, size_t i, uint64_t v)
{
    size_t sz = ref_dtype_size(t);
    p += i * sz;
    switch (sz) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static double load_flt(const unsigned char *p, mf_dtype_t t, size_t i)
{
    if (t == MF_DT_FLOAT) {
        float v;
        memcpy(&v, p + i * sizeof v, sizeof v);
        return v;
    }
    double v;
    memcpy(&v, p + i * sizeof v, sizeof v);
    return v;
}

static void store_flt(unsigned char *p, mf_dtype_t t, size_t i, double v)
{
    if (t == MF_DT_FLOAT) {
        float x = (float)v;
        memcpy(p + i * sizeof x, &x, sizeof x);
    } else {
        memcpy(p + i * sizeof v, &v, sizeof v);
    }
}

/* ---- element operations ------------------------------------------------ */

/* a OP b on sign-/zero-extended integers; the caller truncates the result
 * to the element width, which makes sum/prod wrap modulo 2^width. */
static uint64_t int_op(mf_op_t op, int sgn, uint64_t a, uint64_t b)
{
    int b_less = sgn ? (int64_t)b < (int64_t)a : b < a;
    int b_more = sgn ? (int64_t)b > (int64_t)a : b > a;
    switch (op) {
    case MF_OP_SUM: return a + b;
    case MF_OP_PROD: return a * b;
    case MF_OP_MIN: return b_less ? b : a;
    case MF_OP_MAX: return b_more ? b : a;
    case MF_OP_LAND: return a != 0 && b != 0;
    case MF_OP_LOR: return a != 0 || b != 0;
    case MF_OP_LXOR: return (a != 0) != (b != 0);
    case MF_OP_BAND: return a & b;
    case MF_OP_BOR: return a | b;
    case MF_OP_BXOR: return a ^ b;
    default: return a;
    }
}

static double flt_op(mf_op_t op, double a, double b)
{
    switch (op) {
    case MF_OP_SUM: return a + b;
    case MF_OP_PROD: return a * b;
    case MF_OP_MIN: return b < a ? b : a;
    case MF_OP_MAX: return b > a ? b : a;
    case MF_OP_LAND: return a != 0 && b != 0;
    case MF_OP_LOR: return a != 0 || b != 0;
    case MF_OP_LXOR: return (a != 0) != (b != 0);
    default: return a;
    }
}

int ref_combine(mf_op_t op, mf_dtype_t t, void *acc, const void *src, size_t nbytes)
{
    if (!ref_op_valid(op, t))
        return -1;
    unsigned char *a = acc;
    const unsigned char *b = src;
    size_t n = nbytes / ref_dtype_size(t);
    for (size_t i = 0; op == MF_OP_CPROD && i + 2 <= n; i += 2) {
        if (t == MF_DT_FLOAT)
            REF_CPROD(float, a, b, i);
        else
            REF_CPROD(double, a, b, i);
    }
    for (size_t i = 0; op != MF_OP_CPROD && i < n; i++) {
        if (is_pair(t))
            pair_combine(op, t, a + i * ref_dtype_size(t), b + i * ref_dtype_size(t));
        else if (is_float(t))
            store_flt(a, t, i, flt_op(op, load_flt(a, t, i), load_flt(b, t, i)));
        else
            store_int(a, t, i, int_op(op, is_signed(t), load_int(a, t, i), load_int(b, t, i)));
    }
    return 0;
}

/* ---- collectives ----------------------------------------------------- */

static int is_rooted(mf_opcode_t opc)
{
    return opc == MF_OPC_BCAST || opc == MF_OPC_REDUCE || opc == MF_OPC_SCATTER ||
           opc == MF_OPC_GATHER;
}

static int is_reducing(mf_opcode_t opc)
{
    return opc == MF_OPC_REDUCE || opc == MF_OPC_ALLREDUCE || opc == MF_OPC_REDUCE_SCATTER ||
           opc == MF_OPC_SCAN || opc == MF_OPC_EXSCAN;
}

/* Bytes of block i (reduce_scatter's counts, or the uniform block). */
static size_t block_bytes(const ref_coll_t *c, int i)
{
    return c->counts ? c->counts[i] : c->bytes;
}

/* Offset of block i in a P-block vector. */
static size_t block_offset(const ref_coll_t *c, int i)
{
    size_t off = 0;
    for (int k = 0; k < i; k++)
        off += block_bytes(c, k);
    return off;
}

size_t ref_send_bytes(const ref_coll_t *c, int nranks, int rank)
{
    switch (c->opc) {
    case MF_OPC_BCAST: return rank == c->root ? c->bytes : 0;
    case MF_OPC_SCATTER: return rank == c->root ? (size_t)nranks * c->bytes : 0;
    case MF_OPC_REDUCE: case MF_OPC_ALLREDUCE: case MF_OPC_GATHER: case MF_OPC_ALLGATHER:
    case MF_OPC_SCAN: case MF_OPC_EXSCAN:
        return c->bytes;
    case MF_OPC_ALLTOALL: return (size_t)nranks * c->bytes;
    case MF_OPC_REDUCE_SCATTER: return block_offset(c, nranks);
    default: return 0;
    }
}

size_t ref_recv_bytes(const ref_coll_t *c, int nranks, int rank)
{
    switch (c->opc) {
    case MF_OPC_BCAST: case MF_OPC_ALLREDUCE: case MF_OPC_SCATTER: return c->bytes;
    case MF_OPC_REDUCE: return rank == c->root ? c->bytes : 0;
    case MF_OPC_GATHER: return rank == c->root ? (size_t)nranks * c->bytes : 0;
    case MF_OPC_ALLGATHER: case MF_OPC_ALLTOALL: return (size_t)nranks * c->bytes;
    case MF_OPC_REDUCE_SCATTER: return block_bytes(c, rank);
    case MF_OPC_SCAN: return c->bytes;
    case MF_OPC_EXSCAN: return rank ? c->bytes : 0; /* rank 0's is undefined */
    default: return 0;
    }
}

static int args_valid(const ref_coll_t *c, int nranks)
{
    if (nranks < 1 || (unsigned)c->opc >= MF_OPC_COUNT)
        return 0;
    if (c->opc != MF_OPC_BARRIER && !is_rooted(c->opc) && !is_reducing(c->opc) &&
        c->opc != MF_OPC_ALLGATHER && c->opc != MF_OPC_ALLTOALL)
        return 0; /* unicast / control messages are not collectives */
    if (is_rooted(c->opc) && (c->root < 0 || c->root >= nranks))
        return 0;
    if (!is_reducing(c->opc))
        return 1;
    if (!ref_op_valid(c->op, c->dtype))
        return 0;
    size_t esize = ref_dtype_size(c->dtype);
    int nblocks = c->opc == MF_OPC_REDUCE_SCATTER ? nranks : 1;
    for (int i = 0; i < nblocks; i++)
        if (block_bytes(c, i) % esize)
            return 0;
    return 1;
}

static void copy(void *dst, const void *src, size_t n)
{
    if (n) /* memcpy with a NULL pointer is UB even for n == 0 */
        memcpy(dst, src, n);
}

/* out = send[0][off..] OP send[1][off..] OP ... in rank order, n bytes. */
static void reduce_range(const ref_coll_t *c, int nranks, const void *const *send,
                         size_t off, size_t n, void *out)
{
    if (n == 0)
        return;
    memcpy(out, (const unsigned char *)send[0] + off, n);
    for (int r = 1; r < nranks; r++)
        ref_combine(c->op, c->dtype, out, (const unsigned char *)send[r] + off, n);
}

int ref_coll_run(const ref_coll_t *c, int nranks, const void *const *send, void **recv)
{
    if (!args_valid(c, nranks))
        return -1;
    size_t b = c->bytes;
    const unsigned char *root_send = is_rooted(c->opc) ? send[c->root] : NULL;
    for (int r = 0; r < nranks; r++) {
        unsigned char *out = recv[r];
        switch (c->opc) {
        case MF_OPC_BCAST:
            copy(out, root_send, b);
            break;
        case MF_OPC_REDUCE:
            if (r == c->root)
                reduce_range(c, nranks, send, 0, b, out);
            break;
        case MF_OPC_ALLREDUCE:
            reduce_range(c, nranks, send, 0, b, out);
            break;
        case MF_OPC_SCATTER:
            copy(out, root_send ? root_send + (size_t)r * b : NULL, b);
            break;
        case MF_OPC_GATHER:
        case MF_OPC_ALLGATHER:
            if (c->opc == MF_OPC_ALLGATHER || r == c->root)
                for (int s = 0; s < nranks; s++)
                    copy(out + (size_t)s * b, send[s], b);
            break;
        case MF_OPC_REDUCE_SCATTER:
            reduce_range(c, nranks, send, block_offset(c, r), block_bytes(c, r), out);
            break;
        case MF_OPC_ALLTOALL: /* block r of every rank s, at s */
            for (int s = 0; s < nranks; s++)
                copy(out + (size_t)s * b, (const unsigned char *)send[s] + (size_t)r * b, b);
            break;
        case MF_OPC_SCAN: /* ranks 0..r in rank order */
            reduce_range(c, r + 1, send, 0, b, out);
            break;
        case MF_OPC_EXSCAN: /* ranks 0..r-1; rank 0 gets nothing */
            if (r > 0)
                reduce_range(c, r, send, 0, b, out);
            break;
        default: /* barrier: no data */
            break;
        }
    }
    return 0;
}

/* ---- deterministic inputs ------------------------------------------------ */

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Random word for (seed, rank, i): independent streams per rank. */
static uint64_t rand_word(uint64_t seed, int rank, size_t i)
{
    return splitmix64(splitmix64(seed ^ splitmix64((uint64_t)rank + 1)) + i);
}

/* Signed types and float take lo..hi; unsigned types 0..hi-lo. */
static int64_t small_int(mf_dtype_t t, uint64_t x, int64_t lo, int64_t hi)
{
    int64_t v = (int64_t)(x % (uint64_t)(hi - lo + 1));
    return is_signed(t) || is_float(t) ? lo + v : v;
}

/* Store an element value chosen for op from random word x. */
static void fill_elem(mf_op_t op, mf_dtype_t t, unsigned char *p, size_t i, uint64_t x)
{
    if (is_pair(t)) { /* values -3..3: many ties, so the index rule matters */
        memset(p + i * ref_dtype_size(t), 0, ref_dtype_size(t)); /* pads are zero */
        ref_pair_store(t, p + i * ref_dtype_size(t), (int64_t)(x % 7) - 3,
                       (int32_t)((x >> 8) % 201) - 100);
        return;
    }
    int neg_ok = is_signed(t) || is_float(t);
    int64_t v;
    switch (op) {
    case MF_OP_SUM: v = small_int(t, x, -16, 16); break;
    case MF_OP_MIN: case MF_OP_MAX: v = small_int(t, x, -100, 100); break;
    case MF_OP_CPROD: /* re in {1, -1}, im in {-1, 0, 1}: never 0, products of
                       * P such numbers stay small Gaussian integers, exact */
        v = i % 2 ? (int64_t)(x % 3) - 1 : x % 4 == 0 ? -1 : 1;
        break;
    case MF_OP_PROD: /* mostly 1: products stay small and exact */
        v = x % 16 == 0 ? 2 : (x % 16 == 1 && neg_ok) ? -1 : 1;
        break;
    case MF_OP_LAND: case MF_OP_LOR: case MF_OP_LXOR:
        /* 0, 1, or a "true" value that is not 1: -3, only the top bit set
         * (caught by a truncating bool conversion) or 0.5 for floats */
        switch (x % 4) {
        case 0: v = 0; break;
        case 1: v = 1; break;
        default:
            if (is_float(t)) {
                store_flt(p, t, i, x % 4 == 2 ? 0.5 : -3.0);
                return;
            }
            v = neg_ok ? -3 : (int64_t)(1ull << (8 * ref_dtype_size(t) - 1));
            break;
        }
        break;
    default: /* bitwise: any bits (float: not a valid op; small ints) */
        if (!is_float(t)) {
            store_int(p, t, i, x >> 7);
            return;
        }
        v = small_int(t, x, -16, 16);
        break;
    }
    if (is_float(t))
        store_flt(p, t, i, (double)v);
    else
        store_int(p, t, i, (uint64_t)v);
}

void ref_fill_input(const ref_coll_t *c, int rank, void *buf, size_t bytes, uint64_t seed)
{
    unsigned char *p = buf;
    size_t esize = ref_dtype_size(c->dtype);
    size_t n = 0; /* elements filled by value */
    if (is_reducing(c->opc) && esize) {
        n = bytes / esize;
        for (size_t i = 0; i < n; i++)
            fill_elem(c->op, c->dtype, p, i, rand_word(seed, rank, i));
        n *= esize;
    }
    for (size_t k = n; k < bytes; k++) /* raw bytes / trailing partial element */
        p[k] = (unsigned char)(rand_word(seed, rank, k) >> 24);
}
