/* Margin-based back-pressure FIFO (001 sec. 2.5); see fifo.h. */
#include "hw/fifo.h"

#include <stdlib.h>

int mf_fifo_init(mf_fifo_t *f, uint32_t cap_phits, uint32_t margin, uint32_t delay)
{
    *f = (mf_fifo_t){.cap = cap_phits, .margin = margin, .delay = delay};
    /* at most a few transitions per cycle can be in flight on the wire */
    f->tr_cap = 4 * (delay + 8);
    f->tr_cycle = malloc(f->tr_cap * sizeof *f->tr_cycle);
    f->tr_state = malloc(f->tr_cap);
    if (!f->tr_cycle || !f->tr_state) {
        mf_fifo_fini(f);
        return -1;
    }
    return 0;
}

void mf_fifo_fini(mf_fifo_t *f)
{
    free(f->tr_cycle);
    free(f->tr_state);
    f->tr_cycle = NULL;
    f->tr_state = NULL;
}

/* Index i places after the ring's slot `from` (i <= tr_cap): a compare in
 * place of a division, which cost more than the rest of these loops. */
static inline uint32_t ring_at(const mf_fifo_t *f, uint32_t from, uint32_t i)
{
    uint32_t j = from + i;
    return j >= f->tr_cap ? j - f->tr_cap : j;
}

/* Forget transitions the upstream can no longer need to look behind. */
static void prune(mf_fifo_t *f, uint64_t now)
{
    while (f->tr_n > 1) {
        uint32_t second = ring_at(f, f->tr_head, 1);
        if (f->tr_cycle[second] + f->delay > now)
            break;
        f->seen_old = f->tr_state[f->tr_head];
        f->tr_head = second;
        f->tr_n--;
    }
}

static void record(mf_fifo_t *f, uint8_t state, uint64_t now)
{
    if (state == f->stopped)
        return;
    f->stopped = state;
    prune(f, now);
    if (f->tr_n == f->tr_cap) { /* cannot happen with tr_cap sized from delay */
        f->seen_old = f->tr_state[f->tr_head];
        f->tr_head = ring_at(f, f->tr_head, 1);
        f->tr_n--;
    }
    uint32_t i = ring_at(f, f->tr_head, f->tr_n++);
    f->tr_cycle[i] = now;
    f->tr_state[i] = state;
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

int mf_fifo_stop_seen_slow(mf_fifo_t *f, uint64_t now)
{
    prune(f, now);
    if (now < f->delay)
        return 0; /* nothing has reached upstream yet: initial state is "go" */
    uint64_t t = now - f->delay;
    uint8_t s = f->seen_old;
    for (uint32_t i = 0; i < f->tr_n; i++) {
        uint32_t j = ring_at(f, f->tr_head, i);
        if (f->tr_cycle[j] > t)
            break;
        s = f->tr_state[j];
    }
    return s;
}
