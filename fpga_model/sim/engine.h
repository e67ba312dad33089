/*
 * Cycle engine (000 sec. 5.1.3, fig. 5-1, Algorithms 1-3).  Every module has
 * a consume phase (latch inputs that arrived by this cycle) and a produce
 * phase (compute, drive outputs that arrive in a LATER cycle).  Channels are
 * timestamped, so the order in which modules run inside a phase never
 * changes a result.  Idle cycles are skipped: a module runs only in cycles
 * it was woken for, and the engine jumps straight to the next such cycle.
 * Modules of one cycle run in id order, so runs are deterministic.
 */
#ifndef MF_ENGINE_H
#define MF_ENGINE_H

#include <stdint.h>
#include <stddef.h>

#define MF_NEVER UINT64_MAX

typedef struct mf_sim mf_sim_t;
typedef struct mf_module mf_module_t;
typedef void (*mf_phase_fn)(mf_module_t *m, mf_sim_t *sim);

struct mf_module {
    mf_phase_fn consume;
    mf_phase_fn produce;
    uint64_t last_req; /* last cycle asked for (drops repeated requests) */
    uint32_t id;
};

typedef struct {
    uint64_t cycle;
    uint32_t id;
} mf_wake_t;

#define MF_WHEEL 4096 /* cycles ahead kept in the timing wheel */

typedef struct {
    uint32_t *ids;
    uint32_t n, cap;
} mf_bucket_t;

struct mf_sim {
    uint64_t now;
    mf_module_t **mods;
    size_t nmods, capmods;
    /* wake-ups less than MF_WHEEL cycles ahead: one bucket per cycle */
    mf_bucket_t wheel[MF_WHEEL];
    size_t nwheel;   /* entries in the wheel */
    mf_wake_t *heap; /* min-heap on (cycle, id) of wake-ups further ahead */
    size_t nheap, capheap;
    mf_module_t **run; /* modules of the current cycle */
    size_t nrun, caprun;
    uint64_t *due;     /* bitmap by module id of the current cycle's modules */
    size_t capdue;     /* words (of due and soon) */
    /* wake-ups for cycle soon_at (asked for as now + 1: a busy module asking
     * for the next cycle, the common case) as a bitmap by module id */
    uint64_t *soon;
    uint64_t soon_at;
    int soon_any;      /* soon has a bit set */
    uint64_t active_cycles; /* cycles in which at least one module ran */
    uint64_t module_steps;  /* module-cycles executed */
    int in_produce;
    /* the current cycle's produce phase: modules still to run (bitmap by
     * id), those among them whose consume has not run (woken during the
     * phase, mf_sim_wake_now), and the one running */
    uint64_t *todo, *late;
    uint32_t running;
};

int mf_sim_init(mf_sim_t *s);
void mf_sim_fini(mf_sim_t *s);
/* Register a module; returns 0 or -1 (out of memory). */
int mf_sim_add(mf_sim_t *s, mf_module_t *m, mf_phase_fn consume, mf_phase_fn produce);
/* Queue a wake-up of m at `cycle` (already clamped, not a repeat, not for the
 * soon bitmap); use mf_sim_wake. */
int mf_sim_enqueue(mf_sim_t *s, mf_module_t *m, uint64_t cycle);
/* Ask for module m to run in `cycle` (> now while producing, >= now otherwise).
 * Inline because most requests repeat the module's last one (a busy module
 * asks for the next cycle many times per cycle) and are dropped here. */
static inline int mf_sim_wake(mf_sim_t *s, mf_module_t *m, uint64_t cycle)
{
    if (s->in_produce && cycle <= s->now)
        cycle = s->now + 1; /* outputs of a produce phase are seen next cycle */
    if (cycle < s->now)
        cycle = s->now;
    if (cycle == m->last_req)
        return 0;
    if (cycle == s->now + 1 && (!s->soon_any || s->soon_at == cycle)) {
        m->last_req = cycle;
        s->soon[m->id / 64] |= 1ull << (m->id % 64);
        s->soon_at = cycle;
        s->soon_any = 1;
        return 0;
    }
    return mf_sim_enqueue(s, m, cycle);
}
/* Run module m in the current cycle if that can still be done in id order
 * -- its produce comes after the running module's -- else in the next.  This
 * is when a module that reads state the running one writes in this cycle
 * would see it (a partner's credits, hw/flow.c).  Returns 0 or -1. */
int mf_sim_wake_now(mf_sim_t *s, mf_module_t *m);
/* Cycle of the next scheduled activity, MF_NEVER if none. */
uint64_t mf_sim_next(const mf_sim_t *s);
/* Run the next active cycle (consume all, then produce all).  Returns 1 if a
 * cycle ran, 0 if nothing is scheduled, -1 on out-of-memory. */
int mf_sim_step(mf_sim_t *s);

#endif
