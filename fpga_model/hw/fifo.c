/* Margin-based back-pressure FIFO (001 sec. 2.5); see fifo.h. */
#include "hw/fifo.h"

#include <stdlib.h>

void mf_fifo_init(mf_fifo_t *f, uint32_t cap_phits, uint32_t margin, uint32_t delay,
                  const mf_fault_port_t *fault)
{
    *f = (mf_fifo_t){.cap = cap_phits, .margin = margin, .delay = delay, .fault = fault};
    /* a push can stop the FIFO and a pop resume it: two transitions a cycle
     * at most, so 2 * delay + 2 are ever needed; twice that, as a power of
     * two, leaves a reader that saw an old tr_lo valid slots to read */
    uint32_t need = 4 * (delay + 2);
    f->tr_cap = 16;
    while (f->tr_cap < need)
        f->tr_cap *= 2;
}

/* The transition ring, at the FIFO's first stop.  The upstream reader
 * looks at it only once tr_hi (published after the pointers) is nonzero.
 * (Allocated up front, the rings of 16x16x16's 57,344 VCs took ~250 MB,
 * and a page of RSS each, for the few FIFOs a run ever stops.) */
static int alloc_ring(mf_fifo_t *f)
{
    uint8_t *mem = malloc((size_t)f->tr_cap * (sizeof *f->tr_cycle + 1));
    if (!mem) {
        if (f->fault)
            mf_fault(f->fault, "out of memory for an input FIFO's stop/resume record");
        return -1;
    }
    f->tr_cycle = (uint64_t *)mem;
    f->tr_state = mem + (size_t)f->tr_cap * sizeof *f->tr_cycle;
    return 0;
}

void mf_fifo_fini(mf_fifo_t *f)
{
    free(f->tr_cycle);
    f->tr_cycle = NULL;
    f->tr_state = NULL;
}

static inline uint32_t slot(const mf_fifo_t *f, uint32_t i) { return i & (f->tr_cap - 1); }

/* Forget transitions the upstream can no longer need to look behind: all
 * but the newest one at least `delay` old.  seen_old is written before
 * tr_lo is published, so a reader that sees the new tr_lo sees it too. */
static void prune(mf_fifo_t *f, uint64_t now)
{
    uint32_t lo = f->tr_lo;
    while (f->tr_hi - lo > 1 && f->tr_cycle[slot(f, lo + 1)] + f->delay <= now) {
        __atomic_store_n(&f->seen_old, f->tr_state[slot(f, lo)], __ATOMIC_RELAXED);
        lo++;
    }
    if (f->tr_hi - lo >= f->tr_cap / 2) { /* cannot happen: tr_cap is sized from delay */
        __atomic_store_n(&f->seen_old, f->tr_state[slot(f, lo)], __ATOMIC_RELAXED);
        lo++;
    }
    __atomic_store_n(&f->tr_lo, lo, __ATOMIC_RELEASE);
}

static void record(mf_fifo_t *f, uint8_t state, uint64_t now)
{
    if (state == f->stopped)
        return;
    if (!f->tr_cycle && alloc_ring(f))
        return; /* the run fails (mf_fault): upstream keeps seeing "go" */
    f->stopped = state;
    prune(f, now);
    uint32_t i = slot(f, f->tr_hi);
    f->tr_cycle[i] = now;
    f->tr_state[i] = state;
    __atomic_store_n(&f->tr_hi, f->tr_hi + 1, __ATOMIC_RELEASE);
    if (f->remote)
        f->remote->stop(f->remote->ctx, f->remote_id, state, now);
    else if (!state && f->upstream) /* seen upstream `delay` cycles on */
        mf_wake(f->upstream, now + f->delay);
}

void mf_fifo_apply_remote(mf_fifo_t *f, uint8_t state, uint64_t cycle)
{
    record(f, state, cycle);
}

static inline void update_state(mf_fifo_t *f, uint64_t now)
{
    uint32_t threshold = f->cap > f->margin ? f->cap - f->margin : 0;
    uint8_t state = f->occ > threshold;
    if (state != f->stopped) /* else record() has nothing to do */
        record(f, state, now);
}

int mf_fifo_push(mf_fifo_t *f, mf_pkt_t *k, uint64_t now)
{
    uint32_t c = mf_fifo_cost(k);
    int rc = 0;
    if (f->occ + c > f->cap) {
        f->overflows++; /* margin too small: kept so the model never loses data */
        rc = -1;
    }
    mf_pq_push(&f->q, k);
    f->occ += c;
    if (f->occ > f->peak)
        f->peak = f->occ;
    update_state(f, now);
    return rc;
}

mf_pkt_t *mf_fifo_pop(mf_fifo_t *f, uint64_t now)
{
    mf_pkt_t *k = mf_pq_pop_ahead(&f->q);
    if (k) {
        f->occ -= mf_fifo_cost(k);
        update_state(f, now);
    }
    return k;
}

/* The transitions the reader needs (cycle < now) were all recorded in
 * earlier cycles; one the owner records now is newer and ends the scan.
 * If the owner prunes meanwhile, the slots between an old tr_lo and the new
 * one still hold their transitions (tr_cap is twice what is ever live), and
 * the newest one seen by `at` -- the answer -- is kept by every prune. */
int mf_fifo_stop_window(const mf_fifo_t *f, uint64_t now, uint64_t at, uint64_t *from,
                        uint64_t *until)
{
    /* what is recorded now or later is seen after the horizon; in another
     * domain's copy, what was recorded from known_before on */
    uint64_t known = f->known_before && *f->known_before < now ? *f->known_before : now;
    uint64_t horizon = known + f->delay - 1;
    uint32_t lo = __atomic_load_n(&f->tr_lo, __ATOMIC_ACQUIRE);
    uint32_t hi = __atomic_load_n(&f->tr_hi, __ATOMIC_ACQUIRE);
    if (hi != lo && f->tr_cycle[slot(f, hi - 1)] + f->delay <= at) {
        /* the newest is seen by `at` (the usual case): it holds from its
         * arrival up to the horizon */
        *from = f->tr_cycle[slot(f, hi - 1)] + f->delay;
        *until = horizon > at ? horizon : at;
        return f->tr_state[slot(f, hi - 1)];
    }
    uint8_t s = lo ? __atomic_load_n(&f->seen_old, __ATOMIC_RELAXED) : 0;
    /* the state before the ring's first transition holds from the start,
     * or from a cycle no later than `at` (pruned: when is not kept) */
    uint64_t start = lo ? at : 0, end = horizon;
    for (uint32_t i = lo; i != hi; i++) {
        uint64_t c = f->tr_cycle[slot(f, i)];
        if (c + f->delay > at) { /* not seen by `at`: the window ends before it */
            end = c + f->delay - 1 < end ? c + f->delay - 1 : end;
            break;
        }
        s = f->tr_state[slot(f, i)];
        start = c + f->delay;
    }
    *from = start;
    *until = end > at ? end : at;
    return s;
}
