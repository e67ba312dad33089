/* coll_check: types and ops, sizes, verdicts, input data, guarded buffers
 * (coll_check.h). */
#include "coll_check.h"

/* ------------------------------------------------------------------------ */
/* Types and ops                                                             */

tinfo_t types[NTYPES] = {
    {MPI_CHAR,          "MPI_CHAR",          1, K_SINT, CAT_CHAR},
    {MPI_SIGNED_CHAR,   "MPI_SIGNED_CHAR",   1, K_SINT, CAT_CINT},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, K_UINT, CAT_CINT},
    {MPI_BYTE,          "MPI_BYTE",          1, K_UINT, CAT_BYTE},
    {MPI_SHORT,         "MPI_SHORT",         2, K_SINT, CAT_CINT},
    {MPI_INT,           "MPI_INT",           4, K_SINT, CAT_CINT},
    {MPI_LONG,          "MPI_LONG",          8, K_SINT, CAT_CINT},
    {MPI_UNSIGNED,      "MPI_UNSIGNED",      4, K_UINT, CAT_CINT},
    {MPI_UINT64_T,      "MPI_UINT64_T",      8, K_UINT, CAT_CINT},
    {MPI_INT8_T,        "MPI_INT8_T",        1, K_SINT, CAT_CINT},
    {MPI_FLOAT,         "MPI_FLOAT",         4, K_FLT,  CAT_FLOAT},
    {MPI_DOUBLE,        "MPI_DOUBLE",        8, K_FLT,  CAT_FLOAT},
};

MPI_Op ops[NOPS];
const char *opnames[NOPS] = {"SUM", "PROD", "MIN", "MAX", "LAND", "LOR",
                                    "LXOR", "BAND", "BOR", "BXOR"};

int accepted[NTYPES][NOPS]; /* MPICH accepts the pair (probed) */
int standard(int t, int o)  /* the MPI standard allows the pair */
{
    switch (types[t].cat) {
    case CAT_CINT:  return 1;
    case CAT_BYTE:  return o == O_BAND || o == O_BOR || o == O_BXOR;
    case CAT_FLOAT: return o <= O_MAX;
    case CAT_CHAR:  return 0;
    }
    return 0;
}
/* Pairs tested: those MPICH accepts (probed) that the standard allows, plus,
 * unless --strict, MPI_CHAR with every op (not allowed by the standard for
 * reductions, but accepted and computed by MPICH, so programs use it).
 * MPICH 4.0.2 also accepts MPI_FLOAT/MPI_DOUBLE with MPI_LAND/MPI_LOR in its
 * argument check but then aborts in the op itself (opland.c assertion), so
 * the floating-point logical ops are never tested. */
int strict_pairs;
int pair_ok(int t, int o)
{
    return accepted[t][o] && (standard(t, o) || (!strict_pairs && types[t].cat == CAT_CHAR));
}

/* Which (type, op) pairs does this MPICH accept?  PMPI_Allreduce on
 * MPI_COMM_SELF with MPI_ERRORS_RETURN; MPICH checks the pair even there. */
void probe_pairs(void)
{
    MPI_Errhandler old;
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &old);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int t = 0; t < NTYPES; t++)
        for (int o = 0; o < NOPS; o++) {
            unsigned char in[16] = {0}, out[16];
            accepted[t][o] = PMPI_Allreduce(in, out, 1, types[t].t, ops[o],
                                            MPI_COMM_SELF) == MPI_SUCCESS;
        }
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, old);
    if (old != MPI_ERRHANDLER_NULL && old != MPI_ERRORS_ARE_FATAL && old != MPI_ERRORS_RETURN)
        PMPI_Errhandler_free(&old);
}

/* Representative pairs: every type and every op at least once. */
const int rep_pairs[NREP][2] = {
    {T_INT, O_SUM},     {T_DOUBLE, O_SUM},   {T_SCHAR, O_MIN},
    {T_UCHAR, O_BOR},   {T_BYTE, O_BXOR},    {T_SHORT, O_PROD},
    {T_LONG, O_MAX},    {T_UNSIGNED, O_BAND}, {T_UINT64, O_LOR},
    {T_INT8, O_LXOR},   {T_FLOAT, O_MAX},    {T_INT, O_LAND},
    {T_FLOAT, O_SUM},   {T_DOUBLE, O_PROD},  {T_CHAR, O_SUM},
    {T_DOUBLE, O_MIN},  {T_UINT64, O_SUM},   {T_BYTE, O_BAND},
};
/* types for the data-movement collectives, in rotation */
const int rep_types[NREPT] = {T_INT, T_DOUBLE, T_BYTE, T_SHORT, T_UCHAR, T_LONG,
                                T_FLOAT, T_UINT64, T_CHAR, T_INT8, T_UNSIGNED, T_SCHAR};

/* ------------------------------------------------------------------------ */
/* Collectives, shapes, sizes                                                */
const char *collnames[NCOLLS] = {"reduce", "allreduce", "bcast", "scatter",
    "gather", "allgather", "reduce_scatter", "reduce_scatter_block", "barrier",
    "nonexact"};
const char *collmpi[NCOLLS] = {"MPI_Reduce", "MPI_Allreduce", "MPI_Bcast",
    "MPI_Scatter", "MPI_Gather", "MPI_Allgather", "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block", "MPI_Barrier", "MPI_Allreduce(non-exact)"};
int is_reduction(int c)
{
    return c == C_REDUCE || c == C_ALLREDUCE || c == C_RS || c == C_RSB;
}
int is_rooted(int c)
{
    return c == C_REDUCE || c == C_BCAST || c == C_SCATTER || c == C_GATHER;
}
int has_inplace(int c)
{
    return c != C_BCAST && c != C_BARRIER && c != C_NONEXACT;
}

const char *shapenames[NSHAPES] = {"world", "halves", "odd", "dup", "cart", "scrambled"};
MPI_Comm shape_comm[NSHAPES];
int shape_on[NSHAPES];

size_t_ sizes[MAXSIZES];
int nsizes;

long size_count(const size_t_ *s, int t)
{
    if (s->by_elems)
        return s->val;
    if (s->val == 0)
        return 0;
    long c = s->val / types[t].size;
    return c < 1 ? 1 : c;
}
int size_is_big(const size_t_ *s)
{
    return !s->by_elems && s->val >= BIG_BYTES;
}

const char *varnames[] = {"", " in_place", " _c"};

/* ------------------------------------------------------------------------ */
/* Globals                                                                   */
/* ------------------------------------------------------------------------ */
int wrank, wsize;
int quick, list_only, verbose;
int coll_on[NCOLLS];

/* Verdict batching: local verdicts and messages, reduced every BATCH cases. */
int nbatch, ncases, nfailed;
int vloc[BATCH];
char vmsg[BATCH][256];
char vdesc[BATCH][200];

void flush_batch(void)
{
    int vall[BATCH], who[BATCH], whoall[BATCH];
    if (nbatch == 0)
        return;
    PMPI_Allreduce(vloc, vall, nbatch, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (int i = 0; i < nbatch; i++)
        who[i] = vloc[i] ? INT_MAX : wrank;
    PMPI_Allreduce(who, whoall, nbatch, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (int i = 0; i < nbatch; i++) {
        char msg[256];
        msg[0] = 0;
        if (!vall[i]) {
            /* the lowest failing rank tells rank 0 what it saw */
            if (whoall[i] == wrank && wrank != 0)
                PMPI_Send(vmsg[i], 256, MPI_CHAR, 0, 77, MPI_COMM_WORLD);
            if (wrank == 0) {
                if (whoall[i] == 0)
                    memcpy(msg, vmsg[i], 256);
                else
                    PMPI_Recv(msg, 256, MPI_CHAR, whoall[i], 77, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE);
            }
        }
        ncases++;
        if (wrank == 0) {
            printf("%s %d - %s\n", vall[i] ? "ok" : "not ok", ncases, vdesc[i]);
            if (!vall[i])
                printf("# rank %d: %s\n", whoall[i], msg);
        }
        if (!vall[i])
            nfailed++;
    }
    if (wrank == 0)
        fflush(stdout);
    nbatch = 0;
}

int cur_ok;
char cur_msg[256];
void fail(const char *fmt, ...)
{
    va_list ap;
    if (!cur_ok)
        return; /* keep the first failure */
    cur_ok = 0;
    va_start(ap, fmt);
    vsnprintf(cur_msg, sizeof cur_msg, fmt, ap);
    va_end(ap);
}
void record(const char *desc)
{
    vloc[nbatch] = cur_ok;
    memcpy(vmsg[nbatch], cur_msg, sizeof cur_msg);
    snprintf(vdesc[nbatch], sizeof vdesc[nbatch], "%s", desc);
    if (++nbatch == BATCH)
        flush_batch();
}

/* ------------------------------------------------------------------------ */
/* Deterministic data                                                        */
/* ------------------------------------------------------------------------ */
uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
uint64_t hash3(uint64_t a, uint64_t b, uint64_t c)
{
    return mix(mix(mix(a) ^ b) ^ c);
}

void store(void *buf, long i, int t, int64_t iv, double dv, uint64_t bits)
{
    const tinfo_t *ti = &types[t];
    char *p = (char *)buf + i * ti->size;
    if (ti->kind == K_FLT) {
        if (ti->size == 4) { float f = (float)dv; memcpy(p, &f, 4); }
        else memcpy(p, &dv, 8);
        return;
    }
    (void)iv;
    memcpy(p, &bits, ti->size); /* little-endian: low bytes */
}

/* Value of element i (global index within the buffer) for world rank r. */
void gen_elem(void *buf, long pos, long i, int t, int op, uint64_t seed, int r)
{
    uint64_t h = hash3(seed, (uint64_t)r, (uint64_t)i);
    const tinfo_t *ti = &types[t];
    int one_byte = ti->size == 1;
    int64_t v = 0;
    switch (op) {
    case O_SUM:
        if (ti->kind == K_UINT) v = (int64_t)(h % (one_byte ? 7 : 1001));
        else v = (int64_t)(h % (one_byte ? 7 : 201)) - (one_byte ? 3 : 100);
        break;
    case O_PROD: {
        /* mostly 1; at most one rank (mod 8) has 2 and one has -1 per element */
        int r8 = r % 8;
        v = 1;
        if ((int)((i * 3 + seed) % 8) == r8) v = 2;
        else if (ti->kind != K_UINT && (int)((i * 5 + seed + 1) % 8) == r8) v = -1;
        break;
    }
    case O_MIN: case O_MAX:
        if (ti->kind == K_FLT) v = (int64_t)(h % 2000001) - 1000000;
        else { store(buf, pos, t, 0, 0, h); return; }
        break;
    case O_LAND: case O_LOR: case O_LXOR: {
        static const int lv[4] = {0, 1, 3, 1};
        v = lv[h % 4];
        if (i % 5 == 0) v = 0; /* a column of zeros: LOR of all-zero */
        if (i % 5 == 1) v = 2; /* a column of nonzeros: LAND of all-true */
        break;
    }
    case O_BAND: case O_BOR: case O_BXOR:
        if (ti->kind == K_FLT) v = (int64_t)(h % 100);
        else { store(buf, pos, t, 0, 0, h); return; }
        break;
    default: /* data movement: any bit pattern, small integers for floats */
        if (ti->kind == K_FLT) v = (int64_t)(h % 2000001) - 1000000;
        else { store(buf, pos, t, 0, 0, h); return; }
    }
    store(buf, pos, t, v, (double)v, (uint64_t)v);
}

void fill_gen(void *buf, long pos, long n, long gi0, int t, int op, uint64_t seed, int r)
{
    for (long k = 0; k < n; k++)
        gen_elem(buf, pos + k, gi0 + k, t, op, seed, r);
}

void fmt_elem(char *out, size_t len, const void *buf, long i, int t)
{
    const tinfo_t *ti = &types[t];
    const char *p = (const char *)buf + i * ti->size;
    if (ti->kind == K_FLT) {
        double d;
        if (ti->size == 4) { float f; memcpy(&f, p, 4); d = f; }
        else memcpy(&d, p, 8);
        snprintf(out, len, "%.17g", d);
    } else if (ti->kind == K_SINT) {
        int64_t v = 0;
        switch (ti->size) {
        case 1: { int8_t x; memcpy(&x, p, 1); v = x; break; }
        case 2: { int16_t x; memcpy(&x, p, 2); v = x; break; }
        case 4: { int32_t x; memcpy(&x, p, 4); v = x; break; }
        default: memcpy(&v, p, 8);
        }
        snprintf(out, len, "%lld", (long long)v);
    } else {
        uint64_t v = 0;
        memcpy(&v, p, ti->size);
        snprintf(out, len, "%llu", (unsigned long long)v);
    }
}

/* ------------------------------------------------------------------------ */
/* Buffers with guard bytes                                                  */
/* ------------------------------------------------------------------------ */

gbuf_t galloc(size_t bytes, int junk)
{
    gbuf_t g = {malloc(bytes + GUARD), bytes};
    if (!g.p) { fprintf(stderr, "coll_check: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 2); }
    memset(g.p, junk, bytes);
    memset(g.p + bytes, GUARD_BYTE, GUARD);
    return g;
}
int guard_ok(const gbuf_t *g)
{
    for (int k = 0; k < GUARD; k++)
        if (g->p[g->bytes + k] != GUARD_BYTE)
            return 0;
    return 1;
}

void compare(const char *what, const void *got, const void *exp, long off, long n, int t)
{
    int sz = types[t].size;
    const char *a = (const char *)got, *b = (const char *)exp;
    for (long i = off; i < off + n; i++)
        if (memcmp(a + i * sz, b + i * sz, sz)) {
            char ga[64], ea[64];
            fmt_elem(ga, sizeof ga, got, i, t);
            fmt_elem(ea, sizeof ea, exp, i, t);
            fail("%s: first difference at element %ld: got %s, expected %s", what, i, ga, ea);
            return;
        }
}
