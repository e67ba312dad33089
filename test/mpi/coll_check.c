/* coll_check: every intercepted collective, compared with MPICH itself.
 *
 *   coll_check [--quick] [--sizes LIST] [--shapes LIST] [--colls LIST] [--list]
 *
 * Plain MPI: it builds with mpicc and runs under mpiexec without the library.
 * Under libmpifpga the MPI_Xxx calls are intercepted while the PMPI_Xxx calls
 * go straight to MPICH, so each case runs the MPI_ call on one set of buffers
 * and the PMPI_ version of the same call on an identical set, and compares:
 * integers and floating point exactly (the inputs are small integers, and
 * products of mostly 1 with a few 2 and -1, so every reduction is exact in any
 * association order).  Non-exact random doubles are only checked for being
 * bit-identical on every rank (MPI_Allreduce), never against PMPI.
 * Exception: MPI_MIN/MPI_MAX on unsigned types, where Debian's MPICH 4.0.2
 * is wrong (pmodels/mpich#6083); there the reference is computed in C.
 *
 * It also checks that the send buffer is left unchanged and that nothing is
 * written past the end of any buffer (guard bytes).  Buffers that MPI says are
 * not significant (the receive buffer of a non-root in Reduce/Gather, the send
 * buffer of a non-root in Scatter) are passed as NULL, as real programs do.
 *
 * All of the test's own bookkeeping (verdicts, messages, timing barriers)
 * uses PMPI_ so the library does not see or count it.  Communicator creation
 * uses the MPI_ names, as an unmodified program would.
 *
 * Output: TAP from rank 0 ("ok K - desc" per case, "1..N" at the end), each
 * verdict being the AND over all ranks.  On failure a "#" line names the
 * lowest failing rank and the first differing element.  Exit status 0 iff
 * every case passed on every rank.
 *
 * LIST syntax:
 *   --colls   reduce,allreduce,bcast,scatter,gather,allgather,reduce_scatter,
 *             reduce_scatter_block,barrier,nonexact  (default: all)
 *   --shapes  world,halves,odd,dup,cart,scrambled    (default: all)
 *   --sizes   0, 1el (one element), odd (7 elements), oddl (1023 elements),
 *             or a number of bytes (4096, 4k, 1m, ...; rounded down to whole
 *             elements, at least one).  Sizes are per-rank block/vector bytes.
 *             default: 0,1el,odd,oddl,4k,1m;  --quick: 0,1el,odd,4k (and 1 MiB
 *             only for Allreduce/Bcast of MPI_INT on the world).
 *   --pmpi-reference  compare with PMPI_ everywhere, even unsigned MIN/MAX
 *             (for runs where every call falls back: results must equal
 *             MPICH's, bugs included)
 *   --strict  only (type, op) pairs that the MPI standard allows (by default
 *             MPI_CHAR, which MPICH accepts with every op, is tested with all
 *             ops too; those cases are marked [mpich-ext]).
 *   --list    print the case list (rank 0) without running anything.
 *   --verbose every rank prints each case to stderr before running it (to
 *             find the call that hangs).
 */
#include <mpi.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* Types and ops                                                             */
/* ------------------------------------------------------------------------ */
enum kind { K_SINT, K_UINT, K_FLT };
/* category of the type for the MPI standard's op table (MPI-4.0 6.9.2) */
enum cat { CAT_CINT, CAT_BYTE, CAT_FLOAT, CAT_CHAR };

typedef struct {
    MPI_Datatype t;
    const char *name;
    int size;
    enum kind kind;
    enum cat cat;
} tinfo_t;

static tinfo_t types[] = {
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
#define NTYPES ((int)(sizeof types / sizeof types[0]))
enum { T_CHAR, T_SCHAR, T_UCHAR, T_BYTE, T_SHORT, T_INT, T_LONG, T_UNSIGNED,
       T_UINT64, T_INT8, T_FLOAT, T_DOUBLE };

enum opk { O_SUM, O_PROD, O_MIN, O_MAX, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR,
           O_BXOR, NOPS, O_NONE = NOPS };
static MPI_Op ops[NOPS];
static const char *opnames[NOPS] = {"SUM", "PROD", "MIN", "MAX", "LAND", "LOR",
                                    "LXOR", "BAND", "BOR", "BXOR"};

static int accepted[NTYPES][NOPS]; /* MPICH accepts the pair (probed) */
static int standard(int t, int o)  /* the MPI standard allows the pair */
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
static int strict_pairs;
static int pair_ok(int t, int o)
{
    return accepted[t][o] && (standard(t, o) || (!strict_pairs && types[t].cat == CAT_CHAR));
}

/* Which (type, op) pairs does this MPICH accept?  PMPI_Allreduce on
 * MPI_COMM_SELF with MPI_ERRORS_RETURN; MPICH checks the pair even there. */
static void probe_pairs(void)
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
static const int rep_pairs[][2] = {
    {T_INT, O_SUM},     {T_DOUBLE, O_SUM},   {T_SCHAR, O_MIN},
    {T_UCHAR, O_BOR},   {T_BYTE, O_BXOR},    {T_SHORT, O_PROD},
    {T_LONG, O_MAX},    {T_UNSIGNED, O_BAND}, {T_UINT64, O_LOR},
    {T_INT8, O_LXOR},   {T_FLOAT, O_MAX},    {T_INT, O_LAND},
    {T_FLOAT, O_SUM},   {T_DOUBLE, O_PROD},  {T_CHAR, O_SUM},
    {T_DOUBLE, O_MIN},  {T_UINT64, O_SUM},   {T_BYTE, O_BAND},
};
#define NREP ((int)(sizeof rep_pairs / sizeof rep_pairs[0]))
/* types for the data-movement collectives, in rotation */
static const int rep_types[] = {T_INT, T_DOUBLE, T_BYTE, T_SHORT, T_UCHAR, T_LONG,
                                T_FLOAT, T_UINT64, T_CHAR, T_INT8, T_UNSIGNED, T_SCHAR};
#define NREPT ((int)(sizeof rep_types / sizeof rep_types[0]))

/* ------------------------------------------------------------------------ */
/* Collectives, shapes, sizes                                                */
/* ------------------------------------------------------------------------ */
enum coll { C_REDUCE, C_ALLREDUCE, C_BCAST, C_SCATTER, C_GATHER, C_ALLGATHER,
            C_RS, C_RSB, C_BARRIER, C_NONEXACT, NCOLLS };
static const char *collnames[NCOLLS] = {"reduce", "allreduce", "bcast", "scatter",
    "gather", "allgather", "reduce_scatter", "reduce_scatter_block", "barrier",
    "nonexact"};
static const char *collmpi[NCOLLS] = {"MPI_Reduce", "MPI_Allreduce", "MPI_Bcast",
    "MPI_Scatter", "MPI_Gather", "MPI_Allgather", "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block", "MPI_Barrier", "MPI_Allreduce(non-exact)"};
static int is_reduction(int c)
{
    return c == C_REDUCE || c == C_ALLREDUCE || c == C_RS || c == C_RSB;
}
static int is_rooted(int c)
{
    return c == C_REDUCE || c == C_BCAST || c == C_SCATTER || c == C_GATHER;
}
static int has_inplace(int c)
{
    return c != C_BCAST && c != C_BARRIER && c != C_NONEXACT;
}

enum shape { S_WORLD, S_HALVES, S_ODD, S_DUP, S_CART, S_SCRAMBLED, NSHAPES };
static const char *shapenames[NSHAPES] = {"world", "halves", "odd", "dup", "cart", "scrambled"};
static MPI_Comm shape_comm[NSHAPES];
static int shape_on[NSHAPES];

/* sizes: elements = fixed count (kind 1) or bytes / type size (kind 0) */
typedef struct { const char *label; int by_elems; long val; } size_t_;
#define MAXSIZES 32
static size_t_ sizes[MAXSIZES];
static int nsizes;
#define BIG_BYTES (1L << 20)

static long size_count(const size_t_ *s, int t)
{
    if (s->by_elems)
        return s->val;
    if (s->val == 0)
        return 0;
    long c = s->val / types[t].size;
    return c < 1 ? 1 : c;
}
static int size_is_big(const size_t_ *s)
{
    return !s->by_elems && s->val >= BIG_BYTES;
}

enum var { V_STD, V_INPLACE, V_LARGE };
static const char *varnames[] = {"", " in_place", " _c"};

/* ------------------------------------------------------------------------ */
/* Globals                                                                   */
/* ------------------------------------------------------------------------ */
static int wrank, wsize;
static int quick, list_only, verbose;
static int coll_on[NCOLLS];

typedef struct {
    int coll, shape, type, op, var, rootsel; /* rootsel: 0 = rank 0, 1 = last */
    long count;
    int nonstd;
} case_t;

/* Verdict batching: local verdicts and messages, reduced every BATCH cases. */
#define BATCH 64
static int nbatch, ncases, nfailed;
static int vloc[BATCH];
static char vmsg[BATCH][256];
static char vdesc[BATCH][200];

static void flush_batch(void)
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

static int cur_ok;
static char cur_msg[256];
static void fail(const char *fmt, ...)
{
    va_list ap;
    if (!cur_ok)
        return; /* keep the first failure */
    cur_ok = 0;
    va_start(ap, fmt);
    vsnprintf(cur_msg, sizeof cur_msg, fmt, ap);
    va_end(ap);
}
static void record(const char *desc)
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
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static uint64_t hash3(uint64_t a, uint64_t b, uint64_t c)
{
    return mix(mix(mix(a) ^ b) ^ c);
}

static void store(void *buf, long i, int t, int64_t iv, double dv, uint64_t bits)
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
static void gen_elem(void *buf, long pos, long i, int t, int op, uint64_t seed, int r)
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

static void fill_gen(void *buf, long pos, long n, long gi0, int t, int op, uint64_t seed, int r)
{
    for (long k = 0; k < n; k++)
        gen_elem(buf, pos + k, gi0 + k, t, op, seed, r);
}

static void fmt_elem(char *out, size_t len, const void *buf, long i, int t)
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
#define GUARD 64
#define GUARD_BYTE 0xEE
#define JUNK_BYTE 0xA5

typedef struct { unsigned char *p; size_t bytes; } gbuf_t;

static gbuf_t galloc(size_t bytes, int junk)
{
    gbuf_t g = {malloc(bytes + GUARD), bytes};
    if (!g.p) { fprintf(stderr, "coll_check: out of memory\n"); PMPI_Abort(MPI_COMM_WORLD, 2); }
    memset(g.p, junk, bytes);
    memset(g.p + bytes, GUARD_BYTE, GUARD);
    return g;
}
static int guard_ok(const gbuf_t *g)
{
    for (int k = 0; k < GUARD; k++)
        if (g->p[g->bytes + k] != GUARD_BYTE)
            return 0;
    return 1;
}

static void compare(const char *what, const void *got, const void *exp, long off, long n, int t)
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

/* ------------------------------------------------------------------------ */
/* One case                                                                  */
/* ------------------------------------------------------------------------ */
#define CALL(pm, fn, ...) ((pm) ? P##fn(__VA_ARGS__) : fn(__VA_ARGS__))

typedef struct {
    gbuf_t send, recv;
    const void *sb;  /* what is passed as sendbuf (may be MPI_IN_PLACE / NULL) */
    void *rb;        /* what is passed as recvbuf */
} bufs_t;

static int do_call(int pm, const case_t *c, bufs_t *b, MPI_Comm comm, int p, int root,
                   const int *rc, const MPI_Count *rcc)
{
    MPI_Datatype t = types[c->type].t;
    MPI_Op op = c->op < NOPS ? ops[c->op] : MPI_OP_NULL;
    int n = (int)c->count;
    MPI_Count nc = (MPI_Count)c->count;
    int L = c->var == V_LARGE;
    (void)p;
    switch (c->coll) {
    case C_ALLREDUCE:
        return L ? CALL(pm, MPI_Allreduce_c, b->sb, b->rb, nc, t, op, comm)
                 : CALL(pm, MPI_Allreduce, b->sb, b->rb, n, t, op, comm);
    case C_REDUCE:
        return L ? CALL(pm, MPI_Reduce_c, b->sb, b->rb, nc, t, op, root, comm)
                 : CALL(pm, MPI_Reduce, b->sb, b->rb, n, t, op, root, comm);
    case C_BCAST:
        return L ? CALL(pm, MPI_Bcast_c, b->rb, nc, t, root, comm)
                 : CALL(pm, MPI_Bcast, b->rb, n, t, root, comm);
    case C_SCATTER:
        return L ? CALL(pm, MPI_Scatter_c, b->sb, nc, t, b->rb, nc, t, root, comm)
                 : CALL(pm, MPI_Scatter, b->sb, n, t, b->rb, n, t, root, comm);
    case C_GATHER:
        return L ? CALL(pm, MPI_Gather_c, b->sb, nc, t, b->rb, nc, t, root, comm)
                 : CALL(pm, MPI_Gather, b->sb, n, t, b->rb, n, t, root, comm);
    case C_ALLGATHER:
        return L ? CALL(pm, MPI_Allgather_c, b->sb, nc, t, b->rb, nc, t, comm)
                 : CALL(pm, MPI_Allgather, b->sb, n, t, b->rb, n, t, comm);
    case C_RS:
        return L ? CALL(pm, MPI_Reduce_scatter_c, b->sb, b->rb, rcc, t, op, comm)
                 : CALL(pm, MPI_Reduce_scatter, b->sb, b->rb, rc, t, op, comm);
    case C_RSB:
        return L ? CALL(pm, MPI_Reduce_scatter_block_c, b->sb, b->rb, nc, t, op, comm)
                 : CALL(pm, MPI_Reduce_scatter_block, b->sb, b->rb, n, t, op, comm);
    case C_BARRIER:
        return CALL(pm, MPI_Barrier, comm);
    }
    return MPI_ERR_OTHER;
}

/* Lay out and fill one buffer set.  Returns the region of rb to compare. */
static void setup(const case_t *c, bufs_t *b, int r, int p, int root, long total_rs,
                  long rsoff, uint64_t seed, long *cmp_off, long *cmp_n)
{
    int t = c->type, sz = types[t].size, op = c->op;
    long n = c->count;
    int ip = c->var == V_INPLACE;
    int isroot = r == root;
    long sendn = 0, recvn = 0;
    int send_null = 0, recv_null = 0;
    *cmp_off = 0;
    *cmp_n = 0;
    switch (c->coll) {
    case C_ALLREDUCE: sendn = n; recvn = n; *cmp_n = n; break;
    case C_REDUCE:    sendn = n; recvn = n; recv_null = !isroot; *cmp_n = isroot ? n : 0; break;
    case C_BCAST:     send_null = 1; recvn = n; *cmp_n = n; break;
    case C_SCATTER:   sendn = (long)p * n; send_null = !isroot; recvn = n; *cmp_n = n; break;
    case C_GATHER:    sendn = n; recvn = (long)p * n; recv_null = !isroot; *cmp_n = isroot ? recvn : 0; break;
    case C_ALLGATHER: sendn = n; recvn = (long)p * n; *cmp_n = recvn; break;
    case C_RS:        sendn = total_rs; recvn = n; *cmp_n = n; break;  /* n = my recvcount */
    case C_RSB:       sendn = (long)p * n; recvn = n; *cmp_n = n; break;
    default: break;
    }
    b->send.p = b->recv.p = NULL;
    b->sb = NULL;
    b->rb = NULL;
    if (!ip) {
        if (!send_null) {
            b->send = galloc(sendn * sz, JUNK_BYTE);
            fill_gen(b->send.p, 0, sendn, 0, t, op, seed, wrank);
            b->sb = b->send.p;
        }
        if (!recv_null) {
            b->recv = galloc(recvn * sz, JUNK_BYTE);
            b->rb = b->recv.p;
            if (c->coll == C_BCAST && isroot)
                fill_gen(b->recv.p, 0, n, 0, t, op, seed, wrank);
        }
        return;
    }
    /* MPI_IN_PLACE layouts */
    switch (c->coll) {
    case C_ALLREDUCE:
        b->recv = galloc(n * sz, JUNK_BYTE);
        fill_gen(b->recv.p, 0, n, 0, t, op, seed, wrank);
        b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        break;
    case C_REDUCE:
        if (isroot) {
            b->recv = galloc(n * sz, JUNK_BYTE);
            fill_gen(b->recv.p, 0, n, 0, t, op, seed, wrank);
            b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        } else {
            b->send = galloc(n * sz, JUNK_BYTE);
            fill_gen(b->send.p, 0, n, 0, t, op, seed, wrank);
            b->sb = b->send.p;
        }
        break;
    case C_SCATTER: /* root: recvbuf = MPI_IN_PLACE, its block stays in sendbuf */
        if (isroot) {
            b->send = galloc((long)p * n * sz, JUNK_BYTE);
            fill_gen(b->send.p, 0, (long)p * n, 0, t, op, seed, wrank);
            b->sb = b->send.p; b->rb = MPI_IN_PLACE;
            *cmp_n = 0;
        } else {
            b->recv = galloc(n * sz, JUNK_BYTE);
            b->rb = b->recv.p;
        }
        break;
    case C_GATHER: /* root: sendbuf = MPI_IN_PLACE, its block already in place */
        if (isroot) {
            b->recv = galloc((long)p * n * sz, JUNK_BYTE);
            fill_gen(b->recv.p, (long)root * n, n, 0, t, op, seed, wrank);
            b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        } else {
            b->send = galloc(n * sz, JUNK_BYTE);
            fill_gen(b->send.p, 0, n, 0, t, op, seed, wrank);
            b->sb = b->send.p;
        }
        break;
    case C_ALLGATHER:
        b->recv = galloc((long)p * n * sz, JUNK_BYTE);
        fill_gen(b->recv.p, (long)r * n, n, 0, t, op, seed, wrank);
        b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        break;
    case C_RS: /* input = whole recvbuf, result in its first recvcounts[r] */
        b->recv = galloc(total_rs * sz, JUNK_BYTE);
        fill_gen(b->recv.p, 0, total_rs, 0, t, op, seed, wrank);
        b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        break;
    case C_RSB:
        b->recv = galloc((long)p * n * sz, JUNK_BYTE);
        fill_gen(b->recv.p, 0, (long)p * n, 0, t, op, seed, wrank);
        b->sb = MPI_IN_PLACE; b->rb = b->recv.p;
        break;
    default: break;
    }
    (void)rsoff;
}

static void free_bufs(bufs_t *b)
{
    free(b->send.p);
    free(b->recv.p);
}

static void describe(char *d, size_t len, const case_t *c, int p, int root)
{
    char tp[80] = "";
    if (c->coll != C_BARRIER)
        snprintf(tp, sizeof tp, " %s%s%s count=%ld", types[c->type].name,
                 c->op < NOPS ? " " : "", c->op < NOPS ? opnames[c->op] : "", c->count);
    char rt[32] = "";
    if (is_rooted(c->coll))
        snprintf(rt, sizeof rt, " root=%d", root);
    snprintf(d, len, "%s%s %s(p=%d)%s%s%s%s", collmpi[c->coll],
             c->var == V_LARGE ? "_c" : "", shapenames[c->shape], p, tp, rt,
             varnames[c->var == V_INPLACE ? 1 : 0], c->nonstd ? " [mpich-ext]" : "");
}

static uint64_t case_seed;

/* Debian's MPICH 4.0.2 compares unsigned integers as signed in MPI_MIN and
 * MPI_MAX (pmodels/mpich#6083, fixed upstream by #6085), so its PMPI_ result
 * is wrong there.  For those (type, op) pairs the expected result is not
 * taken from PMPI: it is computed here in C, with an unsigned comparison,
 * from every rank's input, regenerated from (seed, world rank, index) -- the
 * inputs of every reducing collective are fill_gen(..., 0, len, 0, ...). */
static int pmpi_always; /* --pmpi-reference: MPICH's answer even where it is wrong */

static int mpich_unsigned_minmax(const case_t *c)
{
    return types[c->type].kind == K_UINT && (c->op == O_MIN || c->op == O_MAX);
}

/* rb[off + k] = MIN/MAX over the ranks of comm of input element base + k. */
static void unsigned_minmax_ref(const case_t *c, void *rb, long off, long n, long base,
                                MPI_Comm comm, int p, uint64_t seed)
{
    int t = c->type, sz = types[t].size;
    MPI_Group g, wg;
    int *cr = malloc(sizeof(int) * p), *wr = malloc(sizeof(int) * p);
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int q = 0; q < p; q++)
        cr[q] = q;
    PMPI_Group_translate_ranks(g, p, cr, wg, wr); /* comm rank -> world rank */
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    for (long k = 0; k < n; k++) {
        uint64_t best = 0;
        for (int q = 0; q < p; q++) {
            unsigned char e[8];
            uint64_t v = 0;
            gen_elem(e, 0, base + k, t, c->op, seed, wr[q]);
            memcpy(&v, e, sz); /* little-endian, zero-extended */
            if (q == 0 || (c->op == O_MIN ? v < best : v > best))
                best = v;
        }
        memcpy((char *)rb + (off + k) * sz, &best, sz);
    }
    free(cr);
    free(wr);
}

static void run_case(case_t *c)
{
    MPI_Comm comm = shape_comm[c->shape];
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int root = c->rootsel ? p - 1 : 0;
    char desc[200];
    describe(desc, sizeof desc, c, p, root);
    if (list_only) {
        if (wrank == 0)
            printf("%s\n", desc);
        return;
    }
    uint64_t seed = ++case_seed * 1000003u;
    cur_ok = 1;
    cur_msg[0] = 0;
    if (verbose)
        fprintf(stderr, "# rank %d running: %s\n", wrank, desc);

    if (c->coll == C_BARRIER) {
        int rc = MPI_Barrier(comm);
        if (rc != MPI_SUCCESS)
            fail("MPI_Barrier returned %d", rc);
        record(desc);
        return;
    }

    /* Reduce_scatter: unequal recvcounts, one of them zero (if p > 1). */
    int *rcounts = NULL;
    MPI_Count *rcc = NULL;
    long total = 0, myoff = 0, myn = c->count;
    if (c->coll == C_RS) {
        rcounts = malloc(sizeof(int) * p);
        rcc = malloc(sizeof(MPI_Count) * p);
        for (int i = 0; i < p; i++) {
            long v = c->count == 0 ? 0 : c->count + (i % 3) - 1; /* count-1, count, count+1 */
            if (v < 0) v = 0;
            if (p > 1 && i == p / 2) v = 0;
            if (p > 1 && c->count > 0 && i == 0 && v == 0) v = 1;
            rcounts[i] = (int)v;
            rcc[i] = v;
            if (i < r) myoff += v;
            total += v;
        }
        myn = rcounts[r];
    }
    case_t cc = *c;
    if (c->coll == C_RS)
        cc.count = myn;

    bufs_t got, exp;
    long off, n, off2, n2;
    setup(&cc, &got, r, p, root, total, myoff, seed, &off, &n);
    setup(&cc, &exp, r, p, root, total, myoff, seed, &off2, &n2);
    cc.count = c->count;

    int rc = do_call(0, &cc, &got, comm, p, root, rcounts, rcc);
    int rce = MPI_SUCCESS;
    if (mpich_unsigned_minmax(c) && !pmpi_always) {
        /* the input block this rank's result reduces */
        long base = c->coll == C_RS ? myoff : c->coll == C_RSB ? (long)r * c->count : 0;
        if (exp.rb && n2 > 0)
            unsigned_minmax_ref(c, exp.rb, off2, n2, base, comm, p, seed);
    } else {
        rce = do_call(1, &cc, &exp, comm, p, root, rcounts, rcc);
    }
    if (rc != MPI_SUCCESS) {
        char es[MPI_MAX_ERROR_STRING];
        int l;
        PMPI_Error_string(rc, es, &l);
        fail("%s returned %d (%s)", collmpi[c->coll], rc, es);
    }
    if (rce != MPI_SUCCESS)
        fail("PMPI reference returned %d", rce);
    if (cur_ok) {
        compare("result", got.rb, exp.rb, off, n, c->type);
        if (got.send.p && memcmp(got.send.p, exp.send.p, got.send.bytes))
            fail("send buffer modified by the call");
        if (got.send.p && !guard_ok(&got.send))
            fail("write past the end of the send buffer");
        if (got.recv.p && !guard_ok(&got.recv))
            fail("write past the end of the receive buffer (%zu bytes)", got.recv.bytes);
    }
    free_bufs(&got);
    free_bufs(&exp);
    free(rcounts);
    free(rcc);
    record(desc);
}

/* Non-exact doubles: MPI_Allreduce SUM must give bit-identical results on
 * every rank of the communicator (not compared with PMPI). */
static void run_nonexact(int shape, long n)
{
    MPI_Comm comm = shape_comm[shape];
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    char desc[200];
    snprintf(desc, sizeof desc, "MPI_Allreduce %s(p=%d) MPI_DOUBLE SUM count=%ld random values: "
             "bit-identical on every rank", shapenames[shape], p, n);
    if (list_only) {
        if (wrank == 0) printf("%s\n", desc);
        return;
    }
    uint64_t seed = ++case_seed * 1000003u;
    cur_ok = 1;
    cur_msg[0] = 0;
    double *in = malloc(sizeof(double) * (n ? n : 1)), *out = malloc(sizeof(double) * (n ? n : 1));
    double *all = malloc(sizeof(double) * (n ? n : 1) * p);
    for (long i = 0; i < n; i++) {
        uint64_t h = hash3(seed, wrank, i);
        double m = (double)(h >> 11) / 9007199254740992.0 - 0.5;
        int e = (int)(h % 41) - 20;
        double s = 1;
        for (int k = 0; k < (e < 0 ? -e : e); k++) s *= 2;
        in[i] = e < 0 ? m / s : m * s;
    }
    int rc = MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, comm);
    if (rc != MPI_SUCCESS)
        fail("MPI_Allreduce returned %d", rc);
    PMPI_Allgather(out, (int)n, MPI_DOUBLE, all, (int)n, MPI_DOUBLE, comm);
    for (int q = 0; q < p && cur_ok; q++)
        if (memcmp(all + (long)q * n, out, sizeof(double) * n))
            for (long i = 0; i < n; i++)
                if (memcmp(&all[(long)q * n + i], &out[i], 8)) {
                    fail("element %ld: comm rank %d has %.17g, comm rank %d has %.17g", i, r,
                         out[i], q, all[(long)q * n + i]);
                    break;
                }
    free(in); free(out); free(all);
    record(desc);
}

/* Barrier semantics: the last rank of the comm sleeps 100 ms before entering;
 * nobody may leave before that (generous 50 ms lower bound). */
static void run_barrier_timing(int shape)
{
    MPI_Comm comm = shape_comm[shape];
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    char desc[200];
    snprintf(desc, sizeof desc, "MPI_Barrier %s(p=%d): no rank leaves before the last one entered",
             shapenames[shape], p);
    if (list_only) {
        if (wrank == 0) printf("%s\n", desc);
        return;
    }
    cur_ok = 1;
    cur_msg[0] = 0;
    PMPI_Barrier(comm);
    double t0 = PMPI_Wtime();
    if (r == p - 1) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
    int rc = MPI_Barrier(comm);
    double dt = PMPI_Wtime() - t0;
    if (rc != MPI_SUCCESS)
        fail("MPI_Barrier returned %d", rc);
    else if (p > 1 && dt < 0.05)
        fail("left MPI_Barrier after %.1f ms, the last rank sleeps 100 ms first", dt * 1e3);
    record(desc);
}

/* ------------------------------------------------------------------------ */
/* Case enumeration (identical on every rank)                               */
/* ------------------------------------------------------------------------ */
static void emit(int coll, int shape, int t, int op, long count, int var, int rootsel)
{
    /* MPICH 4.0.2 (and 4.1.1) crash in MPI_Reduce(MPI_IN_PLACE) at a root
     * other than 0 when the message is over 2048 bytes (reduce_scatter_gather
     * algorithm; pmodels/mpich#6540, fixed by #6543).  The PMPI reference and
     * any fallback would crash too, so those cases use root 0. */
    if (coll == C_REDUCE && var == V_INPLACE && count * types[t].size > 2048)
        rootsel = 0;
    case_t c = {coll, shape, t, op, var, rootsel, count, 0};
    if (op < NOPS)
        c.nonstd = !standard(t, op);
    run_case(&c);
}

static void enumerate(void)
{
    int k = 0; /* rotation counter */
    for (int coll = 0; coll < NCOLLS; coll++) {
        if (!coll_on[coll])
            continue;
        if (coll == C_BARRIER) {
            for (int s = 0; s < NSHAPES; s++)
                if (shape_on[s]) emit(C_BARRIER, s, T_INT, O_NONE, 0, V_STD, 0);
            if (shape_on[S_WORLD]) run_barrier_timing(S_WORLD);
            if (shape_on[S_SCRAMBLED] && !quick) run_barrier_timing(S_SCRAMBLED);
            continue;
        }
        if (coll == C_NONEXACT) {
            static const int sh[] = {S_WORLD, S_HALVES, S_SCRAMBLED};
            for (int i = 0; i < 3; i++)
                if (shape_on[sh[i]]) {
                    run_nonexact(sh[i], 1023);
                    if (!quick) run_nonexact(sh[i], 4096 / 8 * 8 + 5);
                }
            continue;
        }
        int red = is_reduction(coll), rooted = is_rooted(coll);
        for (int s = 0; s < NSHAPES; s++) {
            if (!shape_on[s])
                continue;
            for (int z = 0; z < nsizes; z++) {
                const size_t_ *sz = &sizes[z];
                /* 1 MiB: INT/DOUBLE (SUM), world and halves, root 0, MPI_ call only.
                 * --quick: only Allreduce/Bcast of MPI_INT on the world. */
                if (size_is_big(sz)) {
                    if (quick && !((coll == C_ALLREDUCE || coll == C_BCAST) && s == S_WORLD))
                        continue;
                    if (s != S_WORLD && s != S_HALVES)
                        continue;
                    emit(coll, s, T_INT, red ? O_SUM : O_NONE, size_count(sz, T_INT), V_STD, 0);
                    if (!quick)
                        emit(coll, s, T_DOUBLE, red ? O_SUM : O_NONE, size_count(sz, T_DOUBLE), V_STD, 0);
                    continue;
                }
                int full = s == S_WORLD && sz->by_elems && sz->val == 7;
                if (full) {
                    /* the (type, op) matrix */
                    if (coll == C_ALLREDUCE) {
                        for (int t = 0; t < NTYPES; t++)
                            for (int o = 0; o < NOPS; o++)
                                if (pair_ok(t, o)) emit(coll, s, t, o, size_count(sz, t), V_STD, 0);
                    } else if (red) {
                        for (int i = 0; i < NREP; i++) {
                            int t = rep_pairs[i][0], o = rep_pairs[i][1];
                            if (!pair_ok(t, o)) continue;
                            emit(coll, s, t, o, size_count(sz, t), V_STD, i % 2);
                        }
                    } else {
                        for (int t = 0; t < NTYPES; t++)
                            emit(coll, s, t, O_NONE, size_count(sz, t), V_STD, t % 2);
                    }
                    continue;
                }
                /* elsewhere: one rotating (type, op) per variant */
                int nvar = quick ? 2 : 3;
                for (int v = 0; v < nvar; v++) {
                    int var = v == 0 ? V_STD : (quick ? ((k & 1) ? V_LARGE : V_INPLACE)
                                                      : (v == 1 ? V_INPLACE : V_LARGE));
                    if (var == V_INPLACE && !has_inplace(coll))
                        var = V_LARGE;
                    int t, o;
                    do {
                        if (red) { t = rep_pairs[k % NREP][0]; o = rep_pairs[k % NREP][1]; }
                        else { t = rep_types[k % NREPT]; o = O_NONE; }
                        k++;
                    } while (red && !pair_ok(t, o));
                    if (rooted && !quick && var == V_STD) {
                        emit(coll, s, t, o, size_count(sz, t), var, 0);
                        emit(coll, s, t, o, size_count(sz, t), var, 1);
                    } else {
                        emit(coll, s, t, o, size_count(sz, t), var, k & 1);
                    }
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Communicators                                                             */
/* ------------------------------------------------------------------------ */
static MPI_Comm cart_comm = MPI_COMM_NULL;

static int odd_part(int n) /* size of the odd part, or 0 if it would be < 3 */
{
    int k = (n - 1) % 2 ? n - 1 : n - 2;
    return k >= 3 ? k : 0;
}

static void make_comms(void)
{
    shape_comm[S_WORLD] = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, wrank < wsize / 2, wrank, &shape_comm[S_HALVES]);
    int k = odd_part(wsize);
    if (k)
        MPI_Comm_split(MPI_COMM_WORLD, wrank < k, wrank, &shape_comm[S_ODD]);
    else
        shape_on[S_ODD] = 0, shape_comm[S_ODD] = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &shape_comm[S_DUP]);
    int dims[2] = {0, 0}, periods[2] = {0, 0}, keep[2] = {0, 1};
    MPI_Dims_create(wsize, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart_comm);
    MPI_Cart_sub(cart_comm, keep, &shape_comm[S_CART]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, (wrank * 7 + 3) % wsize, &shape_comm[S_SCRAMBLED]);
    for (int s = 0; s < NSHAPES; s++)
        if (shape_comm[s] != MPI_COMM_NULL)
            MPI_Comm_set_errhandler(shape_comm[s], MPI_ERRORS_RETURN);
}

static void free_comms(void)
{
    for (int s = 1; s < NSHAPES; s++)
        if (shape_comm[s] != MPI_COMM_NULL)
            MPI_Comm_free(&shape_comm[s]);
    MPI_Comm_free(&cart_comm);
}

/* ------------------------------------------------------------------------ */
/* Arguments                                                                 */
/* ------------------------------------------------------------------------ */
static void usage(void)
{
    if (wrank == 0)
        fprintf(stderr, "usage: coll_check [--quick] [--strict] [--pmpi-reference] [--list] [--verbose] [--sizes LIST] "
                        "[--shapes LIST] [--colls LIST]\n");
    PMPI_Finalize();
    exit(2);
}

static int parse_list(char *arg, const char *const *names, int n, int *on)
{
    for (int i = 0; i < n; i++) on[i] = 0;
    for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int i = 0; i < n; i++)
            if (!strcmp(tok, names[i])) on[i] = found = 1;
        if (!found) {
            if (wrank == 0) fprintf(stderr, "coll_check: unknown name '%s'\n", tok);
            return 0;
        }
    }
    return 1;
}

static int add_size(const char *tok)
{
    if (nsizes == MAXSIZES) return 0;
    size_t_ *s = &sizes[nsizes];
    s->label = tok;
    if (!strcmp(tok, "1el")) { s->by_elems = 1; s->val = 1; }
    else if (!strcmp(tok, "odd")) { s->by_elems = 1; s->val = 7; }
    else if (!strcmp(tok, "oddl")) { s->by_elems = 1; s->val = 1023; }
    else {
        char *end;
        long v = strtol(tok, &end, 10);
        if (end == tok || v < 0) return 0;
        if (*end == 'k' || *end == 'K') v <<= 10, end++;
        else if (*end == 'm' || *end == 'M') v <<= 20, end++;
        if (*end) return 0;
        s->by_elems = 0;
        s->val = v;
    }
    nsizes++;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Op o[NOPS] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR, MPI_LXOR,
                      MPI_BAND, MPI_BOR, MPI_BXOR};
    memcpy(ops, o, sizeof ops);
    for (int i = 0; i < NCOLLS; i++) coll_on[i] = 1;
    for (int i = 0; i < NSHAPES; i++) shape_on[i] = 1;
    char *sizearg = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--strict")) strict_pairs = 1;
        else if (!strcmp(argv[i], "--pmpi-reference")) pmpi_always = 1;
        else if (!strcmp(argv[i], "--list")) list_only = 1;
        else if (!strcmp(argv[i], "--verbose")) verbose = 1;
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizearg = argv[++i];
        else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            if (!parse_list(argv[++i], shapenames, NSHAPES, shape_on)) usage();
        } else if (!strcmp(argv[i], "--colls") && i + 1 < argc) {
            if (!parse_list(argv[++i], collnames, NCOLLS, coll_on)) usage();
        } else usage();
    }
    const char *def = quick ? "0,1el,odd,4k,1m" : "0,1el,odd,oddl,4k,1m";
    static char defbuf[64];
    if (!sizearg) { snprintf(defbuf, sizeof defbuf, "%s", def); sizearg = defbuf; }
    for (char *tok = strtok(sizearg, ","); tok; tok = strtok(NULL, ","))
        if (!add_size(tok)) {
            if (wrank == 0) fprintf(stderr, "coll_check: bad size '%s'\n", tok);
            usage();
        }

    probe_pairs();
    if (wrank == 0 && !list_only) {
        printf("# coll_check: %d ranks%s%s\n# (type, op) pairs MPICH rejects:", wsize,
               quick ? ", --quick" : "", strict_pairs ? ", --strict" : "");
        for (int t = 0; t < NTYPES; t++)
            for (int op = 0; op < NOPS; op++)
                if (!accepted[t][op]) printf(" %s/%s", types[t].name + 4, opnames[op]);
        printf("\n# skipped: those, and pairs the MPI standard does not allow%s",
               strict_pairs ? "" : " (except MPI_CHAR: tested with every op, [mpich-ext])");
        printf("\n");
    }
    make_comms();
    double t0 = PMPI_Wtime();
    enumerate();
    flush_batch();
    free_comms();
    if (wrank == 0 && !list_only) {
        printf("1..%d\n", ncases);
        printf("# %d cases, %d failed, %.2f s\n", ncases, nfailed, PMPI_Wtime() - t0);
    }
    MPI_Finalize();
    return nfailed ? 1 : 0;
}
