/*
 * The OSU-style timing loop (run.h mf_iter_loop) and its exact fast path.
 *
 * The network is drained between iterations.  What one iteration can then
 * leave to the next is the switch allocators' round-robin pointers, and
 * where it starts on the clock-driven parts' cycle (mf_net_shift_period:
 * the engines' turn order).  An iteration is simulated once for each such
 * start; when a start repeats an earlier one, every iteration from there
 * on repeats the ones after it, and is added up instead of simulated.
 *
 * A start also repeats when the iterations since the matching one made no
 * choice with a pointer they found (sw_alloc.c choose_with_found_pointer):
 * the pointers they started from decided nothing, so any others do as
 * well.  And an iteration repeats itself when the pointers it ends with
 * choose as the ones it found did, wherever one of those decided (the
 * range each such choice notes), and the next starts in its phase: the
 * next makes every choice it made, so it ends with the same pointers
 * again.  A loop whose first iteration does either is one iteration
 * simulated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/run.h"
#include "net/domain.h"
#include "net/network.h"

/* Iterations remembered; a loop with no repeat among them is simulated to
 * the end. */
#define MEMO 64

/* What a simulated iteration started from and took. */
typedef struct {
    uint64_t state; /* the allocators' pointers (loop_state) */
    uint64_t phase; /* start cycle mod the shift period */
    uint64_t took;  /* cycles to the next iteration's start */
    int any_state;  /* no choice used a pointer it found */
    int fits_end;   /* the pointers it ended with choose as those it found */
} iter_rec_t;

/* Start a new epoch of the pointers (l1_switch.h mf_l1_t.epoch). */
static void rr_epoch_begin(mf_net_t *n)
{
    for (int s = 0; s < n->nsw; s++)
        if (mf_dom_local(n, s))
            n->sw[s].l1.epoch++;
}

/* Does o's pointer now choose as the one a choice found did (the range
 * sw_alloc.c choose_with_found_pointer noted)? */
static int choice_fits(const mf_outport_t *o)
{
    return o->rr_lo <= o->rr_hi ? o->rr >= o->rr_lo && o->rr <= o->rr_hi
                                : o->rr >= o->rr_lo || o->rr <= o->rr_hi;
}

/* What the network holds for the next iteration: a hash of the
 * allocators' round-robin pointers; whether a pointer set before
 * rr_epoch_begin decided a choice since (a port's rr_decided is this
 * epoch); and whether the pointers now choose as those did.  Sums of one
 * figure per switch, so that the domains of a split network add theirs up
 * to the same figures, in one reduction. */
static int loop_state(mf_net_t *n, uint64_t *state, int *carried, int *fits, char *err,
                      size_t len)
{
    static const int sum[3] = {MF_DOM_SUM, MF_DOM_SUM, MF_DOM_SUM};
    uint64_t v[3] = {0, 0, 0};
    for (int s = 0; s < n->nsw; s++) {
        if (!mf_dom_local(n, s))
            continue;
        const mf_l1_t *l = &n->sw[s].l1;
        uint64_t x = 1469598103934665603ull ^ (uint64_t)s;
        int decided = 0, misfit = 0;
        for (int p = 0; p < l->nports; p++) {
            const mf_outport_t *o = &l->out[p];
            x = (x ^ o->rr) * 1099511628211ull;
            if (o->rr_decided == l->epoch) {
                decided = 1;
                misfit |= !choice_fits(o);
            }
        }
        v[0] += x;
        v[1] += (uint64_t)decided;
        v[2] += (uint64_t)misfit;
    }
    if (mf_dom_reduce(n, v, sum, 3, err, len))
        return -1;
    *state = v[0];
    *carried = v[1] != 0;
    *fits = v[2] == 0;
    return 0;
}

/* The remembered iteration an iteration starting from (state, phase)
 * repeats, or -1.  The last one repeats itself if the pointers it ended
 * with (state) choose as the ones it found; records j..nrec-1 repeat from
 * there on if record j started from the same state, or if none of them
 * used a pointer it found. */
static int repeat_of(const iter_rec_t *r, int nrec, uint64_t state, uint64_t phase)
{
    if (r[nrec - 1].fits_end && r[nrec - 1].phase == phase)
        return nrec - 1;
    int any_state = 1;
    for (int j = nrec - 1; j >= 0; j--) {
        any_state &= r[j].any_state;
        if (r[j].phase == phase && (r[j].state == state || any_state))
            return j;
    }
    return -1;
}

/* The `rest` iterations from now go round records j..nrec-1. */
static void add_repeats(const iter_rec_t *r, const uint64_t *lat_of, int j, int nrec,
                        uint64_t rest, int size, uint64_t *sum, uint64_t *at)
{
    uint64_t round = (uint64_t)(nrec - j);
    for (int k = j; k < nrec; k++) {
        uint64_t times = rest / round + ((uint64_t)(k - j) < rest % round);
        for (int x = 0; x < size; x++)
            sum[x] += times * lat_of[(size_t)k * (size_t)size + (size_t)x];
        *at += times * r[k].took;
    }
}

int mf_iter_loop(mf_net_t *n, int size, int iters, int fast, mf_once_fn once, void *ctx,
                 mf_coll_timing_t *t, int *simulated, char *err, size_t len)
{
    uint64_t period = fast ? mf_net_shift_period(n) : 0; /* 0: simulate them all */
    int memo = period ? (iters < MEMO ? iters : MEMO) : 0;
    uint64_t *lat = calloc((size_t)size, sizeof *lat);
    uint64_t *sum = calloc((size_t)size, sizeof *sum); /* cycles: exact */
    uint64_t *lat_of = calloc((size_t)size * (size_t)(memo ? memo : 1), sizeof *lat_of);
    iter_rec_t rec[MEMO];
    int rc = -1, i, nrec = 0;
    uint64_t at = mf_net_now(n), state = 0;
    if (!lat || !sum || !lat_of) {
        snprintf(err, len, "out of memory");
        goto out;
    }
    int carried = 0, fits = 0;
    if (period && loop_state(n, &state, &carried, &fits, err, len))
        goto out;
    for (i = 0; i < iters; i++) {
        if (nrec == i && nrec > 0) {
            int j = repeat_of(rec, nrec, state, at % period);
            if (j >= 0) {
                add_repeats(rec, lat_of, j, nrec, (uint64_t)(iters - i), size, sum, &at);
                break;
            }
        }
        mf_coll_timing_t one;
        int record = nrec == i && i < memo;
        if (record)
            rr_epoch_begin(n);
        if (once(ctx, at, lat, &one, err, len))
            goto out;
        for (int r = 0; r < size; r++)
            sum[r] += lat[r];
        /* the next iteration starts when every rank has completed, or when
         * the network has drained if traffic outlives the last completion */
        uint64_t next = one.end > mf_net_now(n) ? one.end : mf_net_now(n);
        if (record) {
            uint64_t start = state; /* the next start's, from here on */
            if (loop_state(n, &state, &carried, &fits, err, len))
                goto out;
            rec[nrec] = (iter_rec_t){start, at % period, next - at, !carried, fits};
            memcpy(lat_of + (size_t)nrec * (size_t)size, lat, (size_t)size * sizeof *lat);
            nrec++;
        }
        at = next;
    }
    *simulated = i;
    *t = (mf_coll_timing_t){.min_us = 1e300, .end = at};
    double tot = 0;
    for (int r = 0; r < size; r++)
        mf_coll_timing_add(t, mf_net_cycles_to_us(n, sum[r]) / iters, &tot);
    t->avg_us = tot / size;
    rc = 0;
out:
    free(lat);
    free(sum);
    free(lat_of);
    return rc;
}
