/*
 * Unit tests for fpga_model/baseline/sched.c: MPICH 4.0's default algorithm
 * choice and every rank's point-to-point program, against an independent
 * transcription of MPICH's code (test/mpich_ref.c).  For P in {2, 5, 8, 13,
 * 16}, every collective, sizes on both sides of every threshold, element
 * sizes 8 and 4, roots 0, 3 % P and P - 1, reduce_scatter with uniform and
 * uneven counts:
 *   - mf_bl_select equals MPICH's choice;
 *   - mf_bl_schedule's steps, as events (send + receive = SENDRECV, then a
 *     REDUCE if reduce_bytes > 0), equal the reference's events exactly for
 *     every rank (kind, peers, bytes, order);
 *   - independently of MPICH: every send s->q is matched, in order, by a
 *     receive of the same size at q, and the programs complete with
 *     synchronous sends.
 * The non-default algorithms of each collective are checked over the same
 * grid, one assertion per (collective, algorithm, P).  The reference itself
 * is checked on hand-derived cases and for the two properties.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/sched.h"
#include "mpich_ref.h"
#include "tap.h"

#define MAXP 16

static const int Ps[] = {2, 5, 8, 13, 16};
#define NP ((int)(sizeof Ps / sizeof Ps[0]))

/* bytes: Bcast/Reduce/Allreduce vector; Allgather/Scatter/Gather one rank's
 * block; Reduce_scatter one rank's block (uniform) or the scale of the
 * uneven counts.  Around: 8 (allreduce avg<=8), 2048 (reduce), 12288 (bcast),
 * 16384 x 5 = 81920 (allgather brucks), 32768 x 16 and 65536 x 8 = 524288
 * (allgather, reduce_scatter), 524288 (bcast). */
static const uint64_t sizes[] = {8,     16,    64,    1024,  2048,   2056,   12288,  12296,
                                 16376, 16384, 32768, 65536, 524288, 524296, 1048576};
#define NS ((int)(sizeof sizes / sizeof sizes[0]))

static const size_t esizes[] = {8, 4};

typedef struct {
    const char *name;
    mf_opcode_t opc;
    int rooted;
    int nalg;
    mf_bl_alg_t alg[3];
} coll_t;

static const coll_t colls[] = {
    {"bcast", MF_OPC_BCAST, 1, 3,
     {MF_BL_BCAST_BINOMIAL, MF_BL_BCAST_SCATTER_RD_ALLGATHER, MF_BL_BCAST_SCATTER_RING_ALLGATHER}},
    {"reduce", MF_OPC_REDUCE, 1, 2, {MF_BL_REDUCE_BINOMIAL, MF_BL_REDUCE_SCATTER_GATHER}},
    {"allreduce", MF_OPC_ALLREDUCE, 0, 2,
     {MF_BL_ALLREDUCE_RECURSIVE_DOUBLING, MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER}},
    {"allgather", MF_OPC_ALLGATHER, 0, 3,
     {MF_BL_ALLGATHER_RECURSIVE_DOUBLING, MF_BL_ALLGATHER_BRUCK, MF_BL_ALLGATHER_RING}},
    {"reduce_scatter", MF_OPC_REDUCE_SCATTER, 0, 2,
     {MF_BL_REDUCE_SCATTER_RECURSIVE_HALVING, MF_BL_REDUCE_SCATTER_PAIRWISE}},
    {"scatter", MF_OPC_SCATTER, 1, 1, {MF_BL_SCATTER_BINOMIAL}},
    {"gather", MF_OPC_GATHER, 1, 1, {MF_BL_GATHER_BINOMIAL}},
    {"barrier", MF_OPC_BARRIER, 0, 1, {MF_BL_BARRIER_DISSEMINATION}},
};
#define NCOLL ((int)(sizeof colls / sizeof colls[0]))

static const char *alg_name(mf_bl_alg_t a)
{
    static const char *n[] = {"bcast_binomial",
                              "bcast_scatter_rd_allgather",
                              "bcast_scatter_ring_allgather",
                              "reduce_binomial",
                              "reduce_scatter_gather",
                              "allreduce_recursive_doubling",
                              "allreduce_reduce_scatter_allgather",
                              "allgather_recursive_doubling",
                              "allgather_bruck",
                              "allgather_ring",
                              "reduce_scatter_recursive_halving",
                              "reduce_scatter_pairwise",
                              "scatter_binomial",
                              "gather_binomial",
                              "barrier_dissemination"};
    return (int)a >= 0 && a < MF_BL_NALGS ? n[a] : "(none)";
}

/* ---- sched.c's programs as events ------------------------------------------- */


static int sched_events(const mf_bl_call_t *c, mf_bl_alg_t alg, int rank, ref_evlist_t *out,
                        char *err, size_t errlen)
{
    mf_bl_prog_t p = {0};
    out->n = 0;
    if (mf_bl_schedule(c, alg, rank, &p, err, errlen) != 0) {
        mf_bl_prog_free(&p);
        return -1;
    }
    for (int i = 0; i < p.n; i++) {
        const mf_bl_step_t *s = &p.v[i];
        ref_ev_t e = {0, -1, 0, -1, 0, 0, 0, 0};
        if (s->send_to >= 0 && s->recv_from >= 0)
            e.kind = REF_SENDRECV;
        else if (s->send_to >= 0)
            e.kind = REF_SEND;
        else if (s->recv_from >= 0)
            e.kind = REF_RECV;
        else if (!s->reduce_bytes)
            e.kind = REF_EMPTY;
        if (e.kind) {
            if (s->send_to >= 0)
                e.speer = s->send_to, e.sbytes = s->send_bytes;
            if (s->recv_from >= 0)
                e.rpeer = s->recv_from, e.rbytes = s->recv_bytes;
            ref_evl_push(out, &e);
        }
        if (s->reduce_bytes > 0) {
            ref_ev_t r = {REF_REDUCE, -1, 0, -1, 0, s->reduce_bytes, 0, 0};
            ref_evl_push(out, &r);
        }
    }
    mf_bl_prog_free(&p);
    return 0;
}

/* ---- one (call, algorithm) comparison ---------------------------------------- */

static ref_evlist_t ref_ev[MAXP], got_ev[MAXP];
static int diag_done; /* details of the first failure printed */
static int n_refused, n_extra;
static char refused_note[1024], extra_note[1024];

static void describe_call(const mf_bl_call_t *c, char *buf, size_t len)
{
    int o = snprintf(buf, len, "P=%d bytes=%llu esize=%zu root=%d", c->size,
                     (unsigned long long)c->bytes, c->esize, c->root);
    if (c->counts && o > 0 && (size_t)o < len) {
        o += snprintf(buf + o, len - (size_t)o, " counts=");
        for (int i = 0; i < c->size && (size_t)o < len; i++)
            o += snprintf(buf + o, len - (size_t)o, "%s%llu", i ? "," : "",
                          (unsigned long long)c->counts[i]);
    }
}

static void print_context(const ref_evlist_t *l, int upto, const char *who)
{
    char b[96];
    for (int i = upto - 2 < 0 ? 0 : upto - 2; i < upto && i < l->n; i++) {
        ref_ev_format(&l->v[i], b, sizeof b);
        diag("    %s[%d] %s", who, i, b);
    }
}

/* 1 = equal; 0 = mismatch (reason in why, details via diag once) */
static int check_alg(const mf_bl_call_t *c, mf_bl_alg_t alg, int forced, char *why, size_t wlen)
{
    char err[256] = "", cbuf[256], b1[96], b2[96];
    int P = c->size;
    int ref_rc = ref_schedule_all(c, alg, ref_ev, err, sizeof err);

    int sched_rc = 0;
    char serr[256] = "";
    for (int r = 0; r < P && !sched_rc; r++)
        sched_rc = sched_events(c, alg, r, &got_ev[r], serr, sizeof serr);

    describe_call(c, cbuf, sizeof cbuf);
    if (ref_rc != 0 && !ref_applies(c, alg, NULL, 0)) { /* MPICH would assert */
        if (sched_rc != 0)
            return 1; /* both say: does not apply */
        if (forced) {
            if (!n_extra++)
                snprintf(extra_note, sizeof extra_note, "%s %s (%s)", alg_name(alg), cbuf, err);
            return 1;
        }
    }
    if (ref_rc != 0) {
        snprintf(why, wlen, "%s: reference failed: %s", alg_name(alg), err);
        if (!diag_done++)
            diag("first failure: %s %s: reference: %s", alg_name(alg), cbuf, err);
        return 0;
    }
    if (sched_rc != 0) {
        if (forced) {
            if (!n_refused++)
                snprintf(refused_note, sizeof refused_note, "%s %s: %s", alg_name(alg), cbuf,
                         serr);
            return 1;
        }
        snprintf(why, wlen, "%s esize=%zu: sched refused: %s", alg_name(alg), c->esize, serr);
        if (!diag_done++)
            diag("first failure: %s %s: mf_bl_schedule refused: %s", alg_name(alg), cbuf, serr);
        return 0;
    }
    /* MPICH-independent properties of sched.c's programs first, so that a
     * mismatch report also says whether sched.c is at least self-consistent */
    char perr[256] = "";
    int props = ref_check_pairing(got_ev, P, perr, sizeof perr) &&
                ref_check_progress(got_ev, P, perr, sizeof perr);
    for (int r = 0; r < P; r++) {
        int n = ref_ev[r].n > got_ev[r].n ? ref_ev[r].n : got_ev[r].n;
        for (int i = 0; i < n; i++) {
            int hw = i < ref_ev[r].n, hg = i < got_ev[r].n;
            if (hw && hg && ref_ev_equal(&ref_ev[r].v[i], &got_ev[r].v[i]))
                continue;
            if (hw)
                ref_ev_format(&ref_ev[r].v[i], b1, sizeof b1);
            else
                snprintf(b1, sizeof b1, "(end, %d events)", ref_ev[r].n);
            if (hg)
                ref_ev_format(&got_ev[r].v[i], b2, sizeof b2);
            else
                snprintf(b2, sizeof b2, "(end, %d events)", got_ev[r].n);
            snprintf(why, wlen, "%s esize=%zu rank %d event %d: MPICH %s, sched %s%s",
                     alg_name(alg), c->esize, r, i, b1, b2,
                     props ? "" : " (sched's own sends and receives do not pair up)");
            if (!diag_done++) {
                diag("first failure: %s %s", alg_name(alg), cbuf);
                diag("  rank %d event %d: MPICH %s | sched %s (MPICH %d events, sched %d)", r, i,
                     b1, b2, ref_ev[r].n, got_ev[r].n);
                diag("  sched.c's programs on their own: %s", props ? "consistent" : perr);
                print_context(&ref_ev[r], i, "MPICH");
                print_context(&got_ev[r], i, "sched");
            }
            return 0;
        }
    }
    if (!props) { /* equal to the reference, so the reference is wrong too */
        snprintf(why, wlen, "%s esize=%zu: %s", alg_name(alg), c->esize, perr);
        if (!diag_done++)
            diag("first failure: %s %s: %s", alg_name(alg), cbuf, perr);
        return 0;
    }
    return 1;
}

/* ---- the grid ----------------------------------------------------------------- */

static uint64_t counts_buf[MAXP];

/* variant for reduce_scatter: 0 uniform (counts NULL), 1 uneven (with zeros) */
static void make_call(mf_bl_call_t *c, const coll_t *co, int P, uint64_t bytes, size_t es, int root,
                      int variant)
{
    memset(c, 0, sizeof *c);
    c->opc = co->opc;
    c->size = P;
    c->root = co->rooted ? root : 0;
    c->bytes = bytes;
    c->esize = es;
    c->counts = NULL;
    if (co->opc == MF_OPC_REDUCE_SCATTER && variant == 1) {
        for (int i = 0; i < P; i++) {
            uint64_t b = (uint64_t)((i * 5 + 1) % 4) * bytes / 2; /* rank 3, 7, 11, 15: 0 */
            counts_buf[i] = b / es * es;
        }
        c->counts = counts_buf;
    }
}

static int nroots(const coll_t *co, int P, int *roots)
{
    int n = 0;
    roots[n++] = 0;
    if (!co->rooted)
        return n;
    int cand[2] = {3 % P, P - 1};
    for (int k = 0; k < 2; k++) {
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= roots[j] == cand[k];
        if (!dup)
            roots[n++] = cand[k];
    }
    return n;
}

/* One assertion per (collective, P, size, root / variant): selection and the
 * selected algorithm's programs, both element sizes. */
static void default_cases(void)
{
    for (int ci = 0; ci < NCOLL; ci++) {
        const coll_t *co = &colls[ci];
        for (int pi = 0; pi < NP; pi++) {
            int P = Ps[pi], roots[3], nr = nroots(co, P, roots);
            int nvar = co->opc == MF_OPC_REDUCE_SCATTER ? 2 : 1;
            int nsz = co->opc == MF_OPC_BARRIER ? 1 : NS;
            for (int si = 0; si < nsz; si++)
                for (int ri = 0; ri < nr; ri++)
                    for (int v = 0; v < nvar; v++) {
                        char why[512] = "";
                        int good = 1;
                        for (int ei = 0; ei < 2 && good; ei++) {
                            mf_bl_call_t c;
                            make_call(&c, co, P, sizes[si], esizes[ei], roots[ri], v);
                            mf_bl_alg_t want = ref_select(&c), got = mf_bl_select(&c);
                            if (want != got) {
                                char cb[256];
                                describe_call(&c, cb, sizeof cb);
                                snprintf(why, sizeof why, "select esize=%zu: MPICH %s, sched %s",
                                         c.esize, alg_name(want), alg_name(got));
                                if (!diag_done++)
                                    diag("first failure: %s %s: MPICH selects %s, mf_bl_select %s",
                                         co->name, cb, alg_name(want), alg_name(got));
                                good = 0;
                                break;
                            }
                            good = check_alg(&c, want, 0, why, sizeof why);
                        }
                        if (co->opc == MF_OPC_BARRIER)
                            ok(good, "barrier P=%d%s%s", P, good ? "" : ": ", why);
                        else if (co->opc == MF_OPC_REDUCE_SCATTER)
                            ok(good, "%s P=%d %lluB %s%s%s", co->name, P,
                               (unsigned long long)sizes[si], v ? "uneven" : "uniform",
                               good ? "" : ": ", why);
                        else if (co->rooted)
                            ok(good, "%s P=%d %lluB root=%d%s%s", co->name, P,
                               (unsigned long long)sizes[si], roots[ri], good ? "" : ": ", why);
                        else
                            ok(good, "%s P=%d %lluB%s%s", co->name, P,
                               (unsigned long long)sizes[si], good ? "" : ": ", why);
                    }
        }
    }
}

/* One assertion per (collective, algorithm, P) for the algorithms MPICH can
 * be forced to (CVAR <COLL>_INTRA_ALGORITHM), over all sizes, roots, esizes. */
static void forced_cases(void)
{
    for (int ci = 0; ci < NCOLL; ci++) {
        const coll_t *co = &colls[ci];
        if (co->nalg < 2)
            continue;
        for (int ai = 0; ai < co->nalg; ai++)
            for (int pi = 0; pi < NP; pi++) {
                int P = Ps[pi], roots[3], nr = nroots(co, P, roots);
                int nvar = co->opc == MF_OPC_REDUCE_SCATTER ? 2 : 1;
                char why[512] = "";
                int good = 1;
                for (int si = 0; si < NS && good; si++)
                    for (int ri = 0; ri < nr && good; ri++)
                        for (int v = 0; v < nvar && good; v++)
                            for (int ei = 0; ei < 2 && good; ei++) {
                                mf_bl_call_t c;
                                make_call(&c, co, P, sizes[si], esizes[ei], roots[ri], v);
                                if (!check_alg(&c, co->alg[ai], 1, why, sizeof why)) {
                                    char cb[256];
                                    describe_call(&c, cb, sizeof cb);
                                    size_t l = strlen(why);
                                    snprintf(why + l, sizeof why - l, " [%s]", cb);
                                    good = 0;
                                }
                            }
                ok(good, "forced %s P=%d%s%s", alg_name(co->alg[ai]), P, good ? "" : ": ", why);
            }
    }
}

/* ---- the reference on its own ------------------------------------------------- */

static int expect(const mf_bl_call_t *c, mf_bl_alg_t alg, int rank, const char *want)
{
    char err[256] = "", buf[2048] = "", b[96];
    if (ref_schedule_all(c, alg, ref_ev, err, sizeof err) != 0) {
        diag("reference: %s", err);
        return 0;
    }
    size_t o = 0;
    for (int i = 0; i < ref_ev[rank].n; i++) {
        ref_ev_format(&ref_ev[rank].v[i], b, sizeof b);
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? "; " : "", b);
    }
    if (strcmp(buf, want)) {
        diag("rank %d: got  %s", rank, buf);
        diag("rank %d: want %s", rank, want);
        return 0;
    }
    return 1;
}

static void reference_self_checks(void)
{
    mf_bl_call_t c = {MF_OPC_BCAST, 5, 0, 8, 8, NULL};
    /* MPICH binomial bcast, P=5, root 0: 0 sends to 4, 2, 1; 2 forwards to 3 */
    ok(expect(&c, MF_BL_BCAST_BINOMIAL, 0, "SEND ->4 8B; SEND ->2 8B; SEND ->1 8B") &&
           expect(&c, MF_BL_BCAST_BINOMIAL, 2, "RECV <-0 8B; SEND ->3 8B") &&
           expect(&c, MF_BL_BCAST_BINOMIAL, 3, "RECV <-2 8B") &&
           expect(&c, MF_BL_BCAST_BINOMIAL, 4, "RECV <-0 8B"),
       "reference: binomial bcast P=5 root 0 (hand-derived)");
    c.root = 3; /* relative ranks: 3->0 4->1 0->2 1->3 2->4 */
    ok(expect(&c, MF_BL_BCAST_BINOMIAL, 3, "SEND ->2 8B; SEND ->0 8B; SEND ->4 8B") &&
           expect(&c, MF_BL_BCAST_BINOMIAL, 0, "RECV <-3 8B; SEND ->1 8B"),
       "reference: binomial bcast P=5 root 3 (hand-derived)");

    /* scatter + ring allgather bcast, 9 bytes over 5: scatter_size 2, blocks 2,2,2,2,1 */
    mf_bl_call_t b9 = {MF_OPC_BCAST, 5, 0, 9, 1, NULL};
    ok(expect(&b9, MF_BL_BCAST_SCATTER_RING_ALLGATHER, 0,
              "SEND ->4 1B; SEND ->2 4B; SEND ->1 2B; SENDRECV ->1 2B <-4 1B; "
              "SENDRECV ->1 1B <-4 2B; SENDRECV ->1 2B <-4 2B; SENDRECV ->1 2B <-4 2B") &&
           expect(&b9, MF_BL_BCAST_SCATTER_RING_ALLGATHER, 2,
                  "RECV <-0 4B; SEND ->3 2B; SENDRECV ->3 2B <-1 2B; SENDRECV ->3 2B <-1 2B; "
                  "SENDRECV ->3 2B <-1 1B; SENDRECV ->3 1B <-1 2B"),
       "reference: scatter-ring bcast P=5 9B (hand-derived)");

    mf_bl_call_t s = {MF_OPC_SCATTER, 5, 0, 8, 8, NULL};
    ok(expect(&s, MF_BL_SCATTER_BINOMIAL, 0, "SEND ->4 8B; SEND ->2 16B; SEND ->1 8B") &&
           expect(&s, MF_BL_SCATTER_BINOMIAL, 2, "RECV <-0 16B; SEND ->3 8B"),
       "reference: binomial scatter P=5 root 0 (hand-derived)");

    mf_bl_call_t g = {MF_OPC_GATHER, 5, 0, 8, 8, NULL};
    ok(expect(&g, MF_BL_GATHER_BINOMIAL, 0, "RECV <-1 8B; RECV <-2 16B; RECV <-4 8B") &&
           expect(&g, MF_BL_GATHER_BINOMIAL, 2, "RECV <-3 8B; SEND ->0 16B") &&
           expect(&g, MF_BL_GATHER_BINOMIAL, 4, "SEND ->0 8B"),
       "reference: binomial gather P=5 root 0 (hand-derived)");

    mf_bl_call_t a = {MF_OPC_ALLREDUCE, 5, 0, 16, 8, NULL};
    ok(expect(&a, MF_BL_ALLREDUCE_RECURSIVE_DOUBLING, 0, "SEND ->1 16B; RECV <-1 16B") &&
           expect(&a, MF_BL_ALLREDUCE_RECURSIVE_DOUBLING, 1,
                  "RECV <-0 16B; REDUCE 16B; SENDRECV ->2 16B <-2 16B; REDUCE 16B; "
                  "SENDRECV ->3 16B <-3 16B; REDUCE 16B; SEND ->0 16B") &&
           expect(&a, MF_BL_ALLREDUCE_RECURSIVE_DOUBLING, 4,
                  "SENDRECV ->3 16B <-3 16B; REDUCE 16B; SENDRECV ->2 16B <-2 16B; REDUCE 16B"),
       "reference: recursive-doubling allreduce P=5 (hand-derived)");

    mf_bl_call_t ag = {MF_OPC_ALLGATHER, 5, 0, 8, 8, NULL};
    ok(expect(&ag, MF_BL_ALLGATHER_BRUCK, 0,
              "SENDRECV ->4 8B <-1 8B; SENDRECV ->3 16B <-2 16B; SENDRECV ->1 8B <-4 8B") &&
           expect(&ag, MF_BL_ALLGATHER_RING, 2,
                  "SENDRECV ->3 8B <-1 8B; SENDRECV ->3 8B <-1 8B; SENDRECV ->3 8B <-1 8B; "
                  "SENDRECV ->3 8B <-1 8B"),
       "reference: Bruck and ring allgather P=5 (hand-derived)");

    mf_bl_call_t rs = {MF_OPC_REDUCE_SCATTER, 5, 0, 8, 8, NULL};
    ok(expect(&rs, MF_BL_REDUCE_SCATTER_PAIRWISE, 0,
              "SENDRECV ->1 8B <-4 8B; REDUCE 8B; SENDRECV ->2 8B <-3 8B; REDUCE 8B; "
              "SENDRECV ->3 8B <-2 8B; REDUCE 8B; SENDRECV ->4 8B <-1 8B; REDUCE 8B"),
       "reference: pairwise reduce_scatter P=5 (hand-derived)");

    mf_bl_call_t br = {MF_OPC_BARRIER, 5, 0, 0, 1, NULL};
    ok(expect(&br, MF_BL_BARRIER_DISSEMINATION, 0,
              "SENDRECV ->1 0B <-4 0B; SENDRECV ->2 0B <-3 0B; SENDRECV ->4 0B <-1 0B"),
       "reference: dissemination barrier P=5 (hand-derived)");

    /* MPICH's selection at the thresholds */
    mf_bl_call_t q = {MF_OPC_BCAST, 8, 0, 12288, 8, NULL};
    int sel = ref_select(&q) == MF_BL_BCAST_BINOMIAL;
    q.bytes = 12296;
    sel &= ref_select(&q) == MF_BL_BCAST_SCATTER_RD_ALLGATHER;
    q.bytes = 524296;
    sel &= ref_select(&q) == MF_BL_BCAST_SCATTER_RING_ALLGATHER;
    q.size = 7, q.bytes = 1048576;
    sel &= ref_select(&q) == MF_BL_BCAST_BINOMIAL;
    q = (mf_bl_call_t){MF_OPC_ALLGATHER, 5, 0, 16384, 8, NULL}; /* 81920 total: not < 81920 */
    sel &= ref_select(&q) == MF_BL_ALLGATHER_RING;
    q.bytes = 16376;
    sel &= ref_select(&q) == MF_BL_ALLGATHER_BRUCK;
    q = (mf_bl_call_t){MF_OPC_ALLREDUCE, 8, 0, 16, 4, NULL}; /* count 4 < pof2 8 */
    sel &= ref_select(&q) == MF_BL_ALLREDUCE_RECURSIVE_DOUBLING;
    q.size = 5; /* count 4 >= pof2 4 */
    sel &= ref_select(&q) == MF_BL_ALLREDUCE_REDUCE_SCATTER_ALLGATHER;
    q = (mf_bl_call_t){MF_OPC_REDUCE, 5, 0, 2048, 8, NULL};
    sel &= ref_select(&q) == MF_BL_REDUCE_BINOMIAL;
    q.bytes = 2056;
    sel &= ref_select(&q) == MF_BL_REDUCE_SCATTER_GATHER;
    ok(sel, "reference: selection at the thresholds");

    /* the property checks themselves, on hand-made programs of 2 ranks */
    {
        ref_evlist_t l[2] = {{0}, {0}};
        ref_ev_t s0 = {REF_SEND, 1, 8, -1, 0, 0, 0, 0}, r0 = {REF_RECV, -1, 0, 1, 8, 0, 0, 0};
        ref_ev_t s1 = {REF_SEND, 0, 8, -1, 0, 0, 0, 0}, r1 = {REF_RECV, -1, 0, 0, 8, 0, 0, 0};
        ref_ev_t x0 = {REF_SENDRECV, 1, 8, 1, 8, 0, 0, 0}, x1 = {REF_SENDRECV, 0, 8, 0, 8, 0, 0, 0};
        char e[256];
        int good = 1;
        ref_evl_push(&l[0], &s0), ref_evl_push(&l[0], &r0), ref_evl_push(&l[1], &s1), ref_evl_push(&l[1], &r1);
        good &= ref_check_pairing(l, 2, e, sizeof e);      /* sizes pair up ... */
        good &= !ref_check_progress(l, 2, e, sizeof e);    /* ... but both block in SEND */
        l[1].n = 0, ref_evl_push(&l[1], &r1), ref_evl_push(&l[1], &s1);    /* 1: RECV then SEND */
        good &= ref_check_progress(l, 2, e, sizeof e);
        l[1].v[0].rbytes = 16;                             /* 0 sends 8, 1 expects 16 */
        good &= !ref_check_pairing(l, 2, e, sizeof e);
        l[0].n = l[1].n = 0, ref_evl_push(&l[0], &x0), ref_evl_push(&l[1], &x1);
        good &= ref_check_pairing(l, 2, e, sizeof e) && ref_check_progress(l, 2, e, sizeof e);
        l[1].n = 0, ref_evl_push(&l[1], &x1), ref_evl_push(&l[1], &s1);    /* an unmatched extra send */
        good &= !ref_check_pairing(l, 2, e, sizeof e);
        ok(good, "property checks: find a size mismatch, an unmatched send, a send-send deadlock");
        ref_evlist_free(&l[0]);
        ref_evlist_free(&l[1]);
    }

    /* the reference passes the MPICH-independent properties everywhere */
    for (int ci = 0; ci < NCOLL; ci++) {
        const coll_t *co = &colls[ci];
        for (int ai = 0; ai < co->nalg; ai++) {
            char why[512] = "", err[256];
            int good = 1;
            for (int pi = 0; pi < NP && good; pi++) {
                int P = Ps[pi], roots[3], nr = nroots(co, P, roots);
                for (int si = 0; si < NS && good; si++)
                    for (int ri = 0; ri < nr && good; ri++)
                        for (int v = 0; v < 2 && good; v++)
                            for (int ei = 0; ei < 2 && good; ei++) {
                                mf_bl_call_t cc;
                                make_call(&cc, co, P, sizes[si], esizes[ei], roots[ri], v);
                                if (!ref_applies(&cc, co->alg[ai], NULL, 0))
                                    continue;
                                err[0] = 0;
                                if (ref_schedule_all(&cc, co->alg[ai], ref_ev, err, sizeof err) ||
                                    !ref_check_pairing(ref_ev, P, err, sizeof err) ||
                                    !ref_check_progress(ref_ev, P, err, sizeof err)) {
                                    describe_call(&cc, why, sizeof why);
                                    size_t l = strlen(why);
                                    snprintf(why + l, sizeof why - l, ": %s", err);
                                    good = 0;
                                }
                            }
            }
            ok(good, "reference %s: sends and receives pair up, no deadlock%s%s",
               alg_name(co->alg[ai]), good ? "" : ": ", why);
        }
    }
}

int main(void)
{
    reference_self_checks();
    default_cases();
    forced_cases();
    if (n_refused)
        diag("note: mf_bl_schedule refused %d forced (algorithm, call) pairs that MPICH runs, "
             "e.g. %s",
             n_refused, refused_note);
    if (n_extra)
        diag("note: mf_bl_schedule accepted %d forced pairs where MPICH asserts, e.g. %s",
             n_extra, extra_note);
    for (int r = 0; r < MAXP; r++) {
        ref_evlist_free(&ref_ev[r]);
        ref_evlist_free(&got_ev[r]);
    }
    return tap_done();
}
