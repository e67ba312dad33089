/* Unit tests for src/ct/ct_entry.c: CT-entry partner sets and algorithm choice. */
#include <stdlib.h>
#include <string.h>

#include "mpifpga/ct.h"
#include "tap.h"

#define N MF_RANK_NONE
#define MAX_SIZE 40

/* ---- brute-force reference definitions ----------------------------------- */

static int ref_levels(int size) /* smallest L with 2^L >= size */
{
    int l = 0;
    while ((1 << l) < size)
        l++;
    return l;
}

static int ref_pof2(int size) /* largest power of two <= size */
{
    int p = 1;
    while (p * 2 <= size)
        p *= 2;
    return p;
}

/* MPICH's renumbering for the pof2 phase: -1 if the rank sits it out. */
static int ref_newrank(int size, int rank)
{
    int rem = size - ref_pof2(size);
    if (rank < 2 * rem)
        return rank % 2 ? rank / 2 : -1;
    return rank - rem;
}

/* Comm rank whose newrank is `nr`, found by search rather than by formula. */
static int ref_rank_of_newrank(int size, int nr)
{
    for (int r = 0; r < size; r++)
        if (ref_newrank(size, r) == nr)
            return r;
    return -1;
}

static int ref_mod(int a, int m) { return ((a % m) + m) % m; }

/* Reverse lookup of a global rank in `global_of`, -1 if absent. */
static int comm_rank_of(const int *global_of, int size, unsigned g)
{
    for (int r = 0; r < size; r++)
        if ((unsigned)global_of[r] == g)
            return r;
    return -1;
}

/* ---- checks of one built entry against the reference --------------------- */

static int up_down_ok(const mf_ct_entry_t *e, int size, int rank, const int *g)
{
    if (e->levels != ref_levels(size))
        return 0;
    for (int k = 0; k < MF_MAX_LEVELS; k++) {
        int used = k < e->levels;
        unsigned up = used ? (unsigned)g[ref_mod(rank + (1 << k), size)] : N;
        unsigned down = used ? (unsigned)g[ref_mod(rank - (1 << k), size)] : N;
        if (e->up[k] != up || e->down[k] != down)
            return 0;
    }
    return 1;
}

static int hc_ok(const mf_ct_entry_t *e, int size, int rank, const int *g)
{
    int pof2 = ref_pof2(size), nr = ref_newrank(size, rank);
    if ((1 << e->pof2_levels) != pof2)
        return 0;
    for (int k = 0; k < MF_MAX_LEVELS; k++) {
        unsigned want = N;
        if (nr >= 0 && (1 << k) < pof2)
            want = (unsigned)g[ref_rank_of_newrank(size, nr ^ (1 << k))];
        if (e->hc[k] != want)
            return 0;
    }
    return 1;
}

static int fold_ok(const mf_ct_entry_t *e, int size, int rank, const int *g)
{
    int rem = size - ref_pof2(size);
    unsigned want = N;
    if (rank < 2 * rem)
        want = (unsigned)g[rank % 2 ? rank - 1 : rank + 1];
    return e->fold == want && e->global0 == (unsigned)g[0] && e->size == size &&
           e->rank == rank;
}

/* Build all entries of a size-`size` communicator; 0 on any build failure. */
static int build_all(int size, const int *g, mf_ct_entry_t *out)
{
    char err[128];
    for (int r = 0; r < size; r++)
        if (mf_ct_entry_build(size, r, g, &out[r], err, sizeof err) != 0)
            return 0;
    return 1;
}

/* hc[k] pairs ranks up: A -> B implies B -> A, and no rank pairs with itself. */
static int hc_symmetric(int size, const int *g, const mf_ct_entry_t *e)
{
    int participants = 0;
    for (int r = 0; r < size; r++) {
        if (ref_newrank(size, r) < 0)
            continue;
        participants++;
        for (int k = 0; k < e[r].pof2_levels; k++) {
            int b = comm_rank_of(g, size, e[r].hc[k]);
            if (b < 0 || b == r || e[b].hc[k] != (unsigned)g[r])
                return 0;
        }
    }
    return participants == ref_pof2(size);
}

/* fold pairs ranks up too, and exactly one of each pair takes part in hc. */
static int fold_paired(int size, const int *g, const mf_ct_entry_t *e)
{
    int folded = 0;
    for (int r = 0; r < size; r++) {
        if (e[r].fold == N)
            continue;
        folded++;
        int b = comm_rank_of(g, size, e[r].fold);
        if (b < 0 || e[b].fold != (unsigned)g[r])
            return 0;
        if ((e[r].hc[0] == N) == (e[b].hc[0] == N))
            return 0;
    }
    return folded == 2 * (size - ref_pof2(size));
}

static void check_sizes(const char *label, int (*map)(int i, int size))
{
    int g[MAX_SIZE];
    mf_ct_entry_t e[MAX_SIZE];
    int built = 1, ud = 1, hc = 1, fold = 1, sym = 1, pair = 1, wire = 1;
    for (int size = 1; size <= MAX_SIZE; size++) {
        for (int i = 0; i < size; i++)
            g[i] = map(i, size);
        if (!build_all(size, g, e)) {
            built = 0;
            continue;
        }
        for (int r = 0; r < size; r++) {
            ud &= up_down_ok(&e[r], size, r, g);
            hc &= hc_ok(&e[r], size, r, g);
            fold &= fold_ok(&e[r], size, r, g);
            /* A built entry must survive its own wire format unchanged. */
            uint8_t buf[128];
            mf_ct_entry_t back;
            size_t n = mf_ct_entry_pack(&e[r], buf, sizeof buf);
            wire &= n > 0 && mf_ct_entry_unpack(buf, n, &back) == 0 &&
                    memcmp(&back, &e[r], sizeof back) == 0;
        }
        sym &= hc_symmetric(size, g, e);
        pair &= fold_paired(size, g, e);
    }
    ok(built, "%s: sizes 1..%d, every rank builds", label, MAX_SIZE);
    ok(ud, "%s: levels, up[], down[] match brute force", label);
    ok(hc, "%s: hc[] matches brute-force MPICH renumbering", label);
    ok(fold, "%s: fold, global0, size, rank correct", label);
    ok(sym, "%s: hc[k] is a symmetric pairing over the pof2 participants", label);
    ok(pair, "%s: fold partners pair up, one of each pair participates", label);
    ok(wire, "%s: built entries round-trip through the CT-config wire format", label);
}

static int identity_map(int i, int size) { (void)size; return i; }

/* A permutation of distinct, non-contiguous global ranks (gcd(7, 41) = 1). */
static int scrambled_map(int i, int size) { (void)size; return 60000 - 37 * ((i * 7) % 41); }

/* ---- hand-written expectations ------------------------------------------- */

typedef struct {
    int size, rank;
    unsigned fold;
    unsigned hc[4], up[4], down[4];
} expect_t;

static const expect_t expected[] = {
    /* size 5: pof2 4, rem 1 -> rank 0 folds into rank 1 */
    {5, 0, 1, {N, N, N, N}, {1, 2, 4, N}, {4, 3, 1, N}},
    {5, 1, 0, {2, 3, N, N}, {2, 3, 0, N}, {0, 4, 2, N}},
    {5, 4, N, {3, 2, N, N}, {0, 1, 3, N}, {3, 2, 0, N}},
    /* size 8: power of two, hc[k] = rank ^ 2^k */
    {8, 0, N, {1, 2, 4, N}, {1, 2, 4, N}, {7, 6, 4, N}},
    {8, 5, N, {4, 7, 1, N}, {6, 7, 1, N}, {4, 3, 1, N}},
    /* size 13: pof2 8, rem 5 -> ranks 0..9 pair up, newrank(12) = 7 */
    {13, 6, 7, {N, N, N, N}, {7, 8, 10, 1}, {5, 4, 2, 11}},
    {13, 7, 6, {5, 3, 12, N}, {8, 9, 11, 2}, {6, 5, 3, 12}},
    {13, 10, N, {9, 12, 3, N}, {11, 12, 1, 5}, {9, 8, 6, 2}},
    {13, 12, N, {11, 10, 7, N}, {0, 1, 3, 7}, {11, 10, 8, 4}},
};

static int matches(const mf_ct_entry_t *e, const expect_t *x, const int *g)
{
    /* expectations are comm ranks; translate through g (N stays N) */
#define G(v) ((v) == N ? N : (unsigned)g[(v)])
    if (e->fold != G(x->fold))
        return 0;
    for (int k = 0; k < 4; k++)
        if (e->hc[k] != G(x->hc[k]) || e->up[k] != G(x->up[k]) || e->down[k] != G(x->down[k]))
            return 0;
    return 1;
#undef G
}

static void check_expected(void)
{
    int id[13], scr[13];
    for (int i = 0; i < 13; i++) {
        id[i] = i;
        scr[i] = 500 + (i * 5) % 13 * 11; /* 500, 555, 522, ... */
    }
    char err[128];
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        const expect_t *x = &expected[i];
        mf_ct_entry_t e;
        int rc = mf_ct_entry_build(x->size, x->rank, id, &e, err, sizeof err);
        ok(rc == 0 && matches(&e, x, id), "size %d rank %d: hand-written partners", x->size,
           x->rank);
        rc = mf_ct_entry_build(x->size, x->rank, scr, &e, err, sizeof err);
        ok(rc == 0 && matches(&e, x, scr) && e.global0 == (unsigned)scr[0],
           "size %d rank %d: scrambled global_of respected", x->size, x->rank);
    }
    mf_ct_entry_t e;
    mf_ct_entry_build(13, 7, scr, &e, err, sizeof err);
    ok(e.hc[2] == 500 + (12 * 5) % 13 * 11 && e.fold == 500 + (6 * 5) % 13 * 11,
       "size 13 rank 7, scrambled: hc[2] = global_of[12], fold = global_of[6]");
    mf_ct_entry_build(1, 0, scr, &e, err, sizeof err);
    ok(e.levels == 0 && e.pof2_levels == 0 && e.fold == N && e.hc[0] == N && e.up[0] == N &&
           e.global0 == 500,
       "size 1: no partners at all");
}

/* ---- errors --------------------------------------------------------------- */

static int fails(int size, int rank, const int *g)
{
    char err[128] = "";
    mf_ct_entry_t e;
    return mf_ct_entry_build(size, rank, g, &e, err, sizeof err) == -1 && err[0] != '\0' &&
           strlen(err) < sizeof err;
}

static void check_errors(void)
{
    static int big[65536];
    for (int i = 0; i < 65536; i++)
        big[i] = i < 65535 ? i : 0;
    ok(fails(0, 0, big), "size 0 rejected with a message");
    ok(fails(-3, 0, big), "size -3 rejected with a message");
    ok(fails(65536, 0, big), "size 65536 rejected with a message");
    ok(fails(4, 4, big), "rank == size rejected with a message");
    ok(fails(4, -1, big), "rank -1 rejected with a message");
    int g[4] = {0, 1, 65535, 3};
    ok(fails(4, 0, g), "global rank 65535 rejected with a message");
    g[2] = -1;
    ok(fails(4, 1, g), "negative global rank rejected with a message");
    ok(fails(4, 0, NULL), "NULL global_of rejected with a message");

    char err[128];
    mf_ct_entry_build(4, 9, big, &(mf_ct_entry_t){0}, err, sizeof err);
    ok(strstr(err, "9") != NULL && strstr(err, "0..3") != NULL,
       "error message names the bad value and the allowed range: \"%s\"", err);

    g[2] = 65534;
    mf_ct_entry_t e;
    ok(mf_ct_entry_build(4, 0, g, &e, err, sizeof err) == 0, "global rank 65534 accepted");
    ok(mf_ct_entry_build(65535, 65534, big, &e, err, sizeof err) == 0 && e.levels == 16 &&
           e.pof2_levels == 15 && e.hc[14] != N && e.hc[15] == N,
       "size 65535, rank 65534 accepted: levels 16, pof2_levels 15");
}

/* ---- log2 helpers and algorithm selection --------------------------------- */

static void check_log2(void)
{
    ok(mf_log2_floor(1) == 0 && mf_log2_floor(2) == 1 && mf_log2_floor(3) == 1 &&
           mf_log2_floor(4) == 2 && mf_log2_floor(65535) == 15 && mf_log2_floor(65536) == 16,
       "mf_log2_floor at powers of two and neighbours");
    int good = 1;
    for (unsigned n = 1; n <= 70000; n++) {
        unsigned p = 1;
        while (p * 2 <= n)
            p *= 2;
        good &= mf_pof2_floor(n) == p && (1u << mf_log2_floor(n)) == p;
    }
    ok(good, "mf_pof2_floor / mf_log2_floor match brute force for 1..70000");
    ok(mf_pof2_floor(13) == 8 && mf_pof2_floor(65536) == 65536, "mf_pof2_floor(13) = 8");
}

static void check_alg(void)
{
    /* bcast: SHORT_MSG_SIZE 12288, LONG_MSG_SIZE 524288, MIN_PROCS 8 (<=) */
    ok(mf_coll_alg(MF_OPC_BCAST, 8, 12288, 0) == MF_ALG_BINOMIAL, "bcast 12288 B / 8 -> binomial");
    ok(mf_coll_alg(MF_OPC_BCAST, 8, 12289, 0) == MF_ALG_RECURSIVE_DBL,
       "bcast 12289 B / 8 -> scatter + recursive doubling");
    ok(mf_coll_alg(MF_OPC_BCAST, 16, 524288, 0) == MF_ALG_RECURSIVE_DBL,
       "bcast 512 KiB / 16 -> scatter + recursive doubling");
    ok(mf_coll_alg(MF_OPC_BCAST, 16, 524289, 0) == MF_ALG_RING, "bcast 512 KiB + 1 / 16 -> ring");
    ok(mf_coll_alg(MF_OPC_BCAST, 12, 12289, 0) == MF_ALG_RING, "bcast 12289 B / 12 -> ring");
    ok(mf_coll_alg(MF_OPC_BCAST, 7, 1 << 20, 0) == MF_ALG_BINOMIAL, "bcast 1 MiB / 7 -> binomial");

    /* reduce: > 2048 B and count >= pof2 -> Rabenseifner */
    ok(mf_coll_alg(MF_OPC_REDUCE, 8, 2048, 512) == MF_ALG_BINOMIAL, "reduce 2048 B -> binomial");
    ok(mf_coll_alg(MF_OPC_REDUCE, 8, 2049, 8) == MF_ALG_RABENSEIFNER,
       "reduce 2049 B, 8 elems / 8 -> rabenseifner");
    ok(mf_coll_alg(MF_OPC_REDUCE, 8, 2049, 7) == MF_ALG_BINOMIAL,
       "reduce 2049 B, 7 elems / 8 -> binomial");
    ok(mf_coll_alg(MF_OPC_REDUCE, 13, 4096, 8) == MF_ALG_RABENSEIFNER &&
           mf_coll_alg(MF_OPC_REDUCE, 13, 4096, 7) == MF_ALG_BINOMIAL,
       "reduce on 13 ranks compares elems with pof2 = 8");

    /* allreduce: <= 2048 B or count < pof2 -> recursive doubling */
    ok(mf_coll_alg(MF_OPC_ALLREDUCE, 8, 2048, 512) == MF_ALG_RECURSIVE_DBL,
       "allreduce 2048 B -> recursive doubling");
    ok(mf_coll_alg(MF_OPC_ALLREDUCE, 8, 2049, 8) == MF_ALG_RABENSEIFNER,
       "allreduce 2049 B, 8 elems / 8 -> rabenseifner");
    ok(mf_coll_alg(MF_OPC_ALLREDUCE, 8, 2049, 7) == MF_ALG_RECURSIVE_DBL,
       "allreduce 2049 B, 7 elems / 8 -> recursive doubling");
    ok(mf_coll_alg(MF_OPC_ALLREDUCE, 13, 1 << 20, 8) == MF_ALG_RABENSEIFNER &&
           mf_coll_alg(MF_OPC_ALLREDUCE, 13, 1 << 20, 7) == MF_ALG_RECURSIVE_DBL,
       "allreduce on 13 ranks compares elems with pof2 = 8");

    /* allgather: pof2 and total < 512 KiB -> recursive doubling */
    ok(mf_coll_alg(MF_OPC_ALLGATHER, 8, 65535, 0) == MF_ALG_RECURSIVE_DBL,
       "allgather 8 x 65535 B (total 524280) -> recursive doubling");
    ok(mf_coll_alg(MF_OPC_ALLGATHER, 8, 65536, 0) == MF_ALG_RING,
       "allgather 8 x 65536 B (total 524288) -> ring");
    ok(mf_coll_alg(MF_OPC_ALLGATHER, 12, 1, 0) == MF_ALG_RING, "allgather on 12 ranks -> ring");
    ok(mf_coll_alg(MF_OPC_ALLGATHER, 1, 1, 0) == MF_ALG_RECURSIVE_DBL,
       "allgather on 1 rank -> recursive doubling");

    ok(mf_coll_alg(MF_OPC_SCATTER, 13, 1 << 20, 0) == MF_ALG_BINOMIAL &&
           mf_coll_alg(MF_OPC_GATHER, 13, 1 << 20, 0) == MF_ALG_BINOMIAL,
       "scatter, gather -> binomial");
    ok(mf_coll_alg(MF_OPC_REDUCE_SCATTER, 13, 4, 1) == MF_ALG_RABENSEIFNER,
       "reduce_scatter -> recursive halving (rabenseifner code)");
    ok(mf_coll_alg(MF_OPC_BARRIER, 13, 0, 0) == MF_ALG_RECURSIVE_DBL,
       "barrier -> recursive doubling");
    ok(mf_coll_alg(MF_OPC_UNICAST, 13, 1 << 20, 0) == MF_ALG_BINOMIAL &&
           mf_coll_alg(MF_OPC_CT_CONFIG, 13, 1 << 20, 0) == MF_ALG_BINOMIAL,
       "other opcodes -> binomial");
}

int main(void)
{
    check_sizes("identity map", identity_map);
    check_sizes("scrambled map", scrambled_map);
    check_expected();
    check_errors();
    check_log2();
    check_alg();
    return tap_done();
}
