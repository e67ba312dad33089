/*
 * MPI-FPGA wire format (include/mpifpga/wire.h, doc/protocol.md).
 *
 * All multi-byte quantities are little-endian.  Headers are packed as one
 * little-endian integer (64 bits for the processor header, 48 bits for the
 * network header) so that the bit positions in doc/protocol.md are exactly
 * the shifts used here.
 */
#include "mpifpga/wire.h"

#include <ctype.h>
#include <string.h>
#include <strings.h> /* strncasecmp */

/* ---- little-endian helpers -------------------------------------------- */

void mf_put_le(uint8_t *out, uint64_t v, unsigned nbytes)
{
    for (unsigned i = 0; i < nbytes; i++)
        out[i] = (uint8_t)(v >> (8 * i));
}

uint64_t mf_get_le(const uint8_t *in, unsigned nbytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < nbytes; i++)
        v |= (uint64_t)in[i] << (8 * i);
    return v;
}

static void put_u16(uint8_t **p, uint16_t v)
{
    mf_put_le(*p, v, 2);
    *p += 2;
}

static uint16_t get_u16(const uint8_t **p)
{
    uint16_t v = (uint16_t)mf_get_le(*p, 2);
    *p += 2;
    return v;
}

/* Mask `v` to `width` bits and place it at bit `shift`. */
static uint64_t field_put(uint64_t v, unsigned shift, unsigned width)
{
    return (v & ((UINT64_C(1) << width) - 1)) << shift;
}

static uint64_t field_get(uint64_t word, unsigned shift, unsigned width)
{
    return (word >> shift) & ((UINT64_C(1) << width) - 1);
}

/* Fields every collective header carries; shared validity rule. */
static int coll_fields_valid(unsigned opcode, unsigned op, unsigned dtype)
{
    return opcode < MF_OPC_COUNT && op < MF_OP_COUNT && dtype < MF_DT_COUNT;
}

/* ---- processor header (8 bytes) ---------------------------------------- */

/* Bit positions: see doc/protocol.md, "Processor packet header". */
enum {
    PH_OPCODE = 0, PH_CTX = 4, PH_ALG = 9, PH_OP = 11, PH_DTYPE = 15,
    PH_ROOT = 19, PH_SIZE = 35,
};

void mf_proc_hdr_pack(const mf_proc_hdr_t *h, uint8_t out[MF_PROC_HDR_BYTES])
{
    uint64_t v = field_put(h->opcode, PH_OPCODE, 4) | field_put(h->ctx, PH_CTX, 5) |
                 field_put(h->alg, PH_ALG, 2) | field_put(h->op, PH_OP, 4) |
                 field_put(h->dtype, PH_DTYPE, 4) | field_put(h->root, PH_ROOT, 16) |
                 field_put(h->size, PH_SIZE, 29);
    mf_put_le(out, v, MF_PROC_HDR_BYTES);
}

int mf_proc_hdr_unpack(const uint8_t in[MF_PROC_HDR_BYTES], mf_proc_hdr_t *h)
{
    uint64_t v = mf_get_le(in, MF_PROC_HDR_BYTES);
    mf_proc_hdr_t t = {
        .opcode = (uint8_t)field_get(v, PH_OPCODE, 4),
        .ctx = (uint8_t)field_get(v, PH_CTX, 5),
        .alg = (uint8_t)field_get(v, PH_ALG, 2),
        .op = (uint8_t)field_get(v, PH_OP, 4),
        .dtype = (uint8_t)field_get(v, PH_DTYPE, 4),
        .root = (uint16_t)field_get(v, PH_ROOT, 16),
        .size = (uint32_t)field_get(v, PH_SIZE, 29),
    };
    if (!coll_fields_valid(t.opcode, t.op, t.dtype))
        return -1;
    *h = t;
    return 0;
}

/* ---- network header (6 bytes) ------------------------------------------ */

/* Bit positions: see doc/protocol.md, "Network packet header". */
enum {
    NH_DEST = 0, NH_CTX = 16, NH_OPCODE = 21, NH_OP = 25, NH_DTYPE = 29,
    NH_TAG = 33, NH_PSIZE = 38, NH_LAST = 41, NH_VC = 42, NH_PAD = 43,
};

void mf_net_hdr_pack(const mf_net_hdr_t *h, uint8_t out[MF_NET_HDR_BYTES])
{
    uint64_t v = field_put(h->dest, NH_DEST, 16) | field_put(h->ctx, NH_CTX, 5) |
                 field_put(h->opcode, NH_OPCODE, 4) | field_put(h->op, NH_OP, 4) |
                 field_put(h->dtype, NH_DTYPE, 4) | field_put(h->tag, NH_TAG, 5) |
                 field_put(h->psize, NH_PSIZE, 3) | field_put(h->last, NH_LAST, 1) |
                 field_put(h->vc, NH_VC, 1) | field_put(h->pad, NH_PAD, 5);
    mf_put_le(out, v, MF_NET_HDR_BYTES);
}

int mf_net_hdr_unpack(const uint8_t in[MF_NET_HDR_BYTES], mf_net_hdr_t *h)
{
    uint64_t v = mf_get_le(in, MF_NET_HDR_BYTES);
    mf_net_hdr_t t = {
        .dest = (uint16_t)field_get(v, NH_DEST, 16),
        .ctx = (uint8_t)field_get(v, NH_CTX, 5),
        .opcode = (uint8_t)field_get(v, NH_OPCODE, 4),
        .op = (uint8_t)field_get(v, NH_OP, 4),
        .dtype = (uint8_t)field_get(v, NH_DTYPE, 4),
        .tag = (uint8_t)field_get(v, NH_TAG, 5),
        .psize = (uint8_t)field_get(v, NH_PSIZE, 3),
        .last = (uint8_t)field_get(v, NH_LAST, 1),
        .vc = (uint8_t)field_get(v, NH_VC, 1),
        .pad = (uint8_t)field_get(v, NH_PAD, 5),
    };
    /* A header-only packet has no last phit to pad: a corrupt header. */
    if ((t.psize == 0 && t.pad != 0) || !coll_fields_valid(t.opcode, t.op, t.dtype))
        return -1;
    *h = t;
    return 0;
}

/* ---- CT entry (payload of MF_OPC_CT_CONFIG) ---------------------------- */

#define CT_FIXED_BYTES 10 /* size, rank, levels, pof2_levels, fold, global0 */

static unsigned ceil_log2_u(unsigned n)
{
    unsigned k = 0;
    while ((1u << k) < n)
        k++;
    return k;
}

static unsigned floor_log2_u(unsigned n)
{
    unsigned k = 0;
    while (n >>= 1)
        k++;
    return k;
}

size_t mf_ct_entry_wire_bytes(const mf_ct_entry_t *e)
{
    return CT_FIXED_BYTES + 3u * 2u * e->levels;
}

size_t mf_ct_entry_pack(const mf_ct_entry_t *e, uint8_t *out, size_t cap)
{
    size_t need = mf_ct_entry_wire_bytes(e);
    if (e->levels > MF_MAX_LEVELS || cap < need)
        return 0;
    uint8_t *p = out;
    put_u16(&p, e->size);
    put_u16(&p, e->rank);
    *p++ = e->levels;
    *p++ = (uint8_t)(e->pof2_levels | (e->ident ? 0x80 : 0));
    put_u16(&p, e->fold);
    put_u16(&p, e->global0);
    const uint16_t *sets[3] = {e->hc, e->up, e->down};
    for (int s = 0; s < 3; s++)
        for (unsigned k = 0; k < e->levels; k++)
            put_u16(&p, sets[s][k]);
    return need;
}

/* size/rank/levels agree with each other (the switch trusts them blindly). */
static int ct_header_consistent(const mf_ct_entry_t *e)
{
    if (e->size < 1 || e->rank >= e->size || e->levels > MF_MAX_LEVELS)
        return 0;
    return e->levels == ceil_log2_u(e->size) && e->pof2_levels == floor_log2_u(e->size);
}

int mf_ct_entry_unpack(const uint8_t *in, size_t len, mf_ct_entry_t *e)
{
    if (len < CT_FIXED_BYTES)
        return -1;
    mf_ct_entry_t t;
    memset(&t, 0xff, sizeof t); /* unused partner slots read MF_RANK_NONE */
    const uint8_t *p = in;
    t.size = get_u16(&p);
    t.rank = get_u16(&p);
    t.levels = *p++;
    t.pof2_levels = *p & 0x7f;
    t.ident = *p++ >> 7;
    t.fold = get_u16(&p);
    t.global0 = get_u16(&p);
    if (!ct_header_consistent(&t) || len < mf_ct_entry_wire_bytes(&t))
        return -1;
    uint16_t *sets[3] = {t.hc, t.up, t.down};
    for (int s = 0; s < 3; s++)
        for (unsigned k = 0; k < t.levels; k++)
            sets[s][k] = get_u16(&p);
    *e = t;
    return 0;
}

/* ---- forwarding table (payload of MF_OPC_FWD_TABLE) -------------------- */

size_t mf_fwd_pack(const mf_fwd_entry_t *e, size_t n, uint8_t *out, size_t cap)
{
    if (n > cap / MF_FWD_ENTRY_BYTES)
        return 0;
    uint8_t *p = out;
    for (size_t i = 0; i < n; i++) {
        put_u16(&p, e[i].rank);
        put_u16(&p, e[i].node);
        *p++ = e[i].port;
    }
    return n * MF_FWD_ENTRY_BYTES;
}

int mf_fwd_unpack(const uint8_t *in, size_t len, mf_fwd_entry_t *e, size_t cap, size_t *n)
{
    if (len % MF_FWD_ENTRY_BYTES != 0 || len / MF_FWD_ENTRY_BYTES > cap)
        return -1;
    size_t cnt = len / MF_FWD_ENTRY_BYTES;
    const uint8_t *p = in;
    for (size_t i = 0; i < cnt; i++) {
        e[i].rank = get_u16(&p);
        e[i].node = get_u16(&p);
        e[i].port = *p++;
        if (e[i].rank == MF_RANK_NONE) /* 0xffff is never a global rank */
            return -1;
    }
    *n = cnt;
    return 0;
}

/* ---- sizes and names ---------------------------------------------------- */

static const char *const dtype_names[MF_DT_COUNT] = {
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float", "double",
    "float_int", "double_int", "long_int", "2int", "short_int",
};
/* pair lanes: the C struct's size (value, int index, padding) */
static const size_t dtype_sizes[MF_DT_COUNT] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16, 16, 8, 8};
static const char *const op_names[MF_OP_COUNT] = {
    "sum", "prod", "min", "max", "land", "lor", "lxor", "band", "bor", "bxor", "minloc", "maxloc",
    "cprod",
};
static const char *const opcode_names[MF_OPC_COUNT] = {
    "unicast", "barrier", "bcast", "reduce", "allreduce", "scatter", "gather",
    "allgather", "reduce_scatter", "ct_config", "ct_free", "fwd_table", "scan", "exscan",
    "alltoall", "alltoallv",
};

size_t mf_dtype_size(mf_dtype_t t)
{
    return (unsigned)t < MF_DT_COUNT ? dtype_sizes[t] : 0;
}

const char *mf_dtype_name(mf_dtype_t t)
{
    return (unsigned)t < MF_DT_COUNT ? dtype_names[t] : "?";
}

const char *mf_op_name(mf_op_t op)
{
    return (unsigned)op < MF_OP_COUNT ? op_names[op] : "?";
}

const char *mf_opcode_name(mf_opcode_t opc)
{
    return (unsigned)opc < MF_OPC_COUNT ? opcode_names[opc] : "?";
}

/*
 * Normalise a user-supplied name into buf: lower case, an optional prefix
 * dropped, and (if drop_seps) '_' / '-' removed.  Returns -1 if too long.
 */
static int normalise(const char *s, const char *prefix, int drop_seps, char *buf, size_t cap)
{
    size_t plen = prefix ? strlen(prefix) : 0;
    if (plen && strncasecmp(s, prefix, plen) == 0)
        s += plen;
    size_t n = 0;
    for (; *s; s++) {
        if (drop_seps && (*s == '_' || *s == '-'))
            continue;
        if (n + 1 >= cap)
            return -1;
        buf[n++] = (char)tolower((unsigned char)*s);
    }
    buf[n] = '\0';
    return 0;
}

/* Index of `key` in names[0..n) after applying the same normalisation. */
static int lookup(const char *const *names, int n, const char *key, int drop_seps)
{
    char cand[32];
    for (int i = 0; i < n; i++)
        if (normalise(names[i], NULL, drop_seps, cand, sizeof cand) == 0 &&
            strcmp(cand, key) == 0)
            return i;
    return -1;
}

int mf_dtype_parse(const char *s, mf_dtype_t *t)
{
    char key[32];
    if (!s || normalise(s, NULL, 0, key, sizeof key) < 0)
        return -1;
    int i = lookup(dtype_names, MF_DT_COUNT, key, 0);
    if (i < 0)
        return -1;
    *t = (mf_dtype_t)i;
    return 0;
}

int mf_op_parse(const char *s, mf_op_t *op)
{
    char key[32];
    if (!s || normalise(s, "mpi_", 0, key, sizeof key) < 0) /* "MPI_SUM" too */
        return -1;
    int i = lookup(op_names, MF_OP_COUNT, key, 0);
    if (i < 0)
        return -1;
    *op = (mf_op_t)i;
    return 0;
}

/* Accepts "allreduce", "osu_allreduce", "reduce-scatter", "ReduceScatter", ... */
int mf_coll_parse(const char *s, mf_opcode_t *opc)
{
    char key[32];
    if (!s)
        return -1;
    const char *prefix = strncasecmp(s, "osu_", 4) == 0 ? "osu_" : "mpi_";
    if (normalise(s, prefix, 1, key, sizeof key) < 0 || key[0] == '\0')
        return -1;
    int i = lookup(opcode_names, MF_OPC_COUNT, key, 1);
    if (i < 0)
        return -1;
    *opc = (mf_opcode_t)i;
    return 0;
}

int mf_op_valid_for(mf_op_t op, mf_dtype_t t)
{
    if ((unsigned)op >= MF_OP_COUNT || (unsigned)t >= MF_DT_COUNT)
        return 0;
    int loc = op == MF_OP_MINLOC || op == MF_OP_MAXLOC;
    if (loc || mf_dtype_is_pair(t))
        return loc && mf_dtype_is_pair(t); /* MINLOC/MAXLOC on pairs, nothing else */
    if (op == MF_OP_CPROD)
        return t == MF_DT_FLOAT || t == MF_DT_DOUBLE;
    int bitwise = op == MF_OP_BAND || op == MF_OP_BOR || op == MF_OP_BXOR;
    int integer = t <= MF_DT_UINT64;
    return !bitwise || integer;
}

size_t mf_elem_bytes(mf_op_t op, mf_dtype_t t)
{
    return mf_dtype_size(t) * (op == MF_OP_CPROD ? 2 : 1);
}

/* ---- board streams (doc/protocol.md, "Board streams") ----------------- */

void mf_board_cpl_pack(const mf_board_cpl_t *c, uint8_t out[MF_BOARD_CPL_BYTES])
{
    uint64_t cycles = c->cycles > MF_BOARD_CYCLES_MAX ? MF_BOARD_CYCLES_MAX : c->cycles;
    mf_put_le(out, field_put(c->status, 0, 8) | field_put(c->reason, 8, 8) | cycles << 16,
              MF_BOARD_CPL_BYTES);
}

void mf_board_cpl_unpack(const uint8_t in[MF_BOARD_CPL_BYTES], mf_board_cpl_t *c)
{
    uint64_t v = mf_get_le(in, MF_BOARD_CPL_BYTES);
    c->status = (uint8_t)field_get(v, 0, 8);
    c->reason = (uint8_t)field_get(v, 8, 8);
    c->cycles = v >> 16;
}

int mf_board_runs(unsigned opc)
{
    return (opc >= MF_OPC_BARRIER && opc <= MF_OPC_REDUCE_SCATTER) || opc == MF_OPC_CT_CONFIG ||
           opc == MF_OPC_CT_FREE;
}

static int is_rooted(unsigned opc)
{
    return opc == MF_OPC_BCAST || opc == MF_OPC_REDUCE || opc == MF_OPC_SCATTER ||
           opc == MF_OPC_GATHER;
}

int mf_board_bytes(const mf_proc_hdr_t *h, unsigned comm_size, unsigned comm_rank,
                   const uint32_t *counts, uint64_t *send, uint64_t *recv)
{
    unsigned opc = h->opcode;
    if (!mf_board_runs(opc) || comm_rank >= comm_size ||
        (is_rooted(opc) && h->root >= comm_size) || (opc == MF_OPC_REDUCE_SCATTER && !counts))
        return -1;
    uint64_t b = h->size, all = b * comm_size;
    int root = comm_rank == h->root;
    uint64_t s = 0, r = 0;
    switch (opc) {
    case MF_OPC_BCAST: s = root ? b : 0, r = root ? 0 : b; break;
    case MF_OPC_REDUCE: s = b, r = root ? b : 0; break;
    case MF_OPC_ALLREDUCE: s = r = b; break;
    case MF_OPC_SCATTER: s = root ? all : 0, r = b; break;
    case MF_OPC_GATHER: s = b, r = root ? all : 0; break;
    case MF_OPC_ALLGATHER: s = b, r = all; break;
    case MF_OPC_REDUCE_SCATTER:
        for (unsigned i = 0; i < comm_size; i++)
            s += counts[i];
        r = counts[comm_rank];
        break;
    case MF_OPC_CT_CONFIG: s = b; break;
    default: break; /* barrier, ct_free: header only */
    }
    *send = s, *recv = r;
    return 0;
}

size_t mf_board_counts_bytes(unsigned ncounts)
{
    return ((size_t)ncounts * 4 + MF_BOARD_BEAT_BYTES - 1) / MF_BOARD_BEAT_BYTES *
           MF_BOARD_BEAT_BYTES;
}

size_t mf_board_h2c_pack(const mf_proc_hdr_t *h, const uint32_t *counts, unsigned ncounts,
                         const void *payload, size_t n, uint8_t *out, size_t cap)
{
    size_t cb = mf_board_counts_bytes(ncounts), need = MF_PROC_HDR_BYTES + cb + n;
    if (cap < need || h->size > MF_PROC_MAX_SIZE)
        return 0;
    mf_proc_hdr_pack(h, out);
    memset(out + MF_PROC_HDR_BYTES, 0, cb);
    for (unsigned i = 0; i < ncounts; i++)
        mf_put_le(out + MF_PROC_HDR_BYTES + 4 * i, counts[i], 4);
    if (n)
        memcpy(out + MF_PROC_HDR_BYTES + cb, payload, n);
    return need;
}

int mf_board_h2c_unpack(const uint8_t *in, size_t len, unsigned ncounts, mf_proc_hdr_t *h,
                        uint32_t *counts, const uint8_t **payload, size_t *n)
{
    size_t cb = mf_board_counts_bytes(ncounts);
    if (len < MF_PROC_HDR_BYTES + cb || mf_proc_hdr_unpack(in, h) != 0)
        return -1;
    for (unsigned i = 0; i < ncounts; i++)
        counts[i] = (uint32_t)mf_get_le(in + MF_PROC_HDR_BYTES + 4 * i, 4);
    *payload = in + MF_PROC_HDR_BYTES + cb;
    *n = len - MF_PROC_HDR_BYTES - cb;
    return 0;
}

size_t mf_board_c2h_pack(const mf_proc_hdr_t *h, const mf_board_cpl_t *c, const void *result,
                         size_t n, uint8_t *out, size_t cap)
{
    size_t padded = mf_board_pad8(n), need = MF_PROC_HDR_BYTES + padded + MF_BOARD_CPL_BYTES;
    if (cap < need || n > MF_PROC_MAX_SIZE)
        return 0;
    mf_proc_hdr_t echo = *h;
    echo.size = (uint32_t)n;
    mf_proc_hdr_pack(&echo, out);
    memset(out + MF_PROC_HDR_BYTES, 0, padded);
    if (n)
        memcpy(out + MF_PROC_HDR_BYTES, result, n);
    mf_board_cpl_pack(c, out + MF_PROC_HDR_BYTES + padded);
    return need;
}

int mf_board_c2h_unpack(const uint8_t *in, size_t len, mf_proc_hdr_t *h, mf_board_cpl_t *c,
                        const uint8_t **result, size_t *n)
{
    const size_t fixed = MF_PROC_HDR_BYTES + MF_BOARD_CPL_BYTES;
    if (len < fixed || mf_proc_hdr_unpack(in, h) != 0 ||
        len - fixed != mf_board_pad8(h->size))
        return -1;
    mf_board_cpl_unpack(in + len - MF_BOARD_CPL_BYTES, c);
    *result = in + MF_PROC_HDR_BYTES;
    *n = h->size;
    return 0;
}
