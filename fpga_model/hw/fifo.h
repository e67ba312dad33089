/*
 * Input FIFO with margin-based back-pressure (001 sec. 2.5): when occupancy
 * passes capacity - m the upstream node is told to stop; when it drains below
 * that again it is told to resume.  The signal reaches upstream `delay`
 * cycles later (it travels back over the link), so the margin must absorb
 * what is in flight meanwhile.  An arrival that does not fit is counted as an
 * overflow: with a margin >= the round trip it never happens (test_fifo).
 */
#ifndef MF_FIFO_H
#define MF_FIFO_H

#include <stdint.h>
#include "hw/pkt.h"
#include "hw/ports.h"

typedef struct {
    mf_pq_t q;
    uint32_t occ;      /* phits held */
    uint32_t cap;      /* capacity in phits */
    uint32_t margin;   /* m, phits */
    uint32_t delay;    /* cycles for stop/resume to reach upstream */
    uint32_t peak;
    uint64_t overflows;
    /* stop/resume transitions, oldest first, so upstream can see the state
     * as it was `delay` cycles ago: transitions [tr_lo, tr_hi) (running
     * counts; slot i & (tr_cap - 1)).  Only the FIFO's own switch writes
     * them; the upstream switch reads them while that switch may be popping
     * on another thread, so the counts are published with release stores
     * and the reader never writes. */
    uint64_t *tr_cycle; /* allocated at the first transition: most FIFOs never stop */
    uint8_t *tr_state;
    uint32_t tr_lo, tr_hi, tr_cap;
    const mf_fault_port_t *fault; /* no memory for the transitions */
    const mf_wake_port_t *upstream; /* the switch whose VC allocation reads the stop
                                     * state, if it sleeps while a head waits for a
                                     * resume: woken when it sees one (l1_switch.c) */
    /* the upstream reader is in another domain (net/domain.c): transitions
     * go to it through the remote port; and, for this FIFO's copy in the
     * reader's domain, the cycle before which every transition is known
     * there (NULL: here, all of them up to now) */
    const mf_remote_port_t *remote;
    uint32_t remote_id;
    const uint64_t *known_before;
    uint8_t stopped;   /* current local state */
    uint8_t seen_old;  /* state before transition tr_lo */
} mf_fifo_t;

/* No allocation: the transition ring comes with the first stop (fifo.c). */
void mf_fifo_init(mf_fifo_t *f, uint32_t cap_phits, uint32_t margin, uint32_t delay,
                  const mf_fault_port_t *fault);
void mf_fifo_fini(mf_fifo_t *f);
/* Phits a packet occupies (a header-only packet still takes one slot). */
static inline uint32_t mf_fifo_cost(const mf_pkt_t *k) { return k->nphits ? k->nphits : 1; }
/* Accept an arriving packet at cycle now; returns -1 (and counts) on overflow. */
int mf_fifo_push(mf_fifo_t *f, mf_pkt_t *k, uint64_t now);
mf_pkt_t *mf_fifo_pop(mf_fifo_t *f, uint64_t now);
static inline mf_pkt_t *mf_fifo_head(const mf_fifo_t *f) { return f->q.head; }
/* The stop state upstream sees at cycle `at`, and the cycles [*from,
 * *until] around `at` through which it sees the same, for a reader running
 * in cycle now (now <= at < now + delay).  Every transition before cycle
 * now is recorded, and one recorded in cycle now or later is seen from
 * now + delay on, so the window ends by now + delay - 1 and is the same
 * whether or not the owner has recorded this cycle's transition yet.  In
 * another domain's copy (known_before set) read "known_before" for "now"
 * there: the window ends by known_before + delay - 1, and `at` must not be
 * later (net/domain.c keeps its windows shorter than delay).  The reader
 * keeps it (l1_switch.h, mf_stop_view_t) and reads the FIFO again only for
 * a cycle outside it. */
int mf_fifo_stop_window(const mf_fifo_t *f, uint64_t now, uint64_t at, uint64_t *from,
                        uint64_t *until);
/* A transition recorded by this FIFO's owner in another domain, at
 * `cycle`, applied to the copy the reader's domain keeps (net/domain.c);
 * a resume wakes the local upstream reader as it would there. */
void mf_fifo_apply_remote(mf_fifo_t *f, uint8_t state, uint64_t cycle);
/* Stop state as the upstream node sees it at cycle now (a reader running
 * in cycle now; the switches keep the window instead, vc_alloc.c). */
static inline int mf_fifo_stop_seen(const mf_fifo_t *f, uint64_t now)
{
    uint64_t from, until;
    return mf_fifo_stop_window(f, now, now, &from, &until);
}

#endif
