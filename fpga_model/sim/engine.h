/*
 * Cycle engine (000 sec. 5.1.3, fig. 5-1, Algorithms 1-3).  Every module has
 * a consume phase (latch inputs that arrived by this cycle) and a produce
 * phase (compute, drive outputs that arrive in a LATER cycle).  Channels are
 * timestamped, so the order in which modules run inside a phase never
 * changes a result.  Idle cycles are skipped: a module runs only in cycles
 * it was woken for, and the engine jumps straight to the next such cycle.
 * Modules of one cycle run in id order, so runs are deterministic.
 *
 * Parallel phases (sim/par.c): the first `npar` modules (the switches) may
 * run a phase on several threads at once.  A module of that prefix touches
 * only its own state, timestamped channels and the wake machinery (made
 * safe for it here); an effect on shared state (a completion handed to the
 * host, a packet handed to the traffic generator, a call posted to another
 * switch's engine, a freed call) is deferred with mf_sim_defer and runs
 * after the prefix's produce phase, in module-id order -- with one thread
 * as with many, so the thread count never changes a result.
 */
#ifndef MF_ENGINE_H
#define MF_ENGINE_H

#include <stdint.h>
#include <stddef.h>

#define MF_NEVER UINT64_MAX

typedef struct mf_sim mf_sim_t;
typedef struct mf_par mf_par_t;

#define MF_SIM_MAX_THREADS 64
#define MF_SIM_CHUNKS_PER_THREAD 4 /* a phase's slices: threads take them as they come free */
/* Due modules per thread below which a phase runs on the caller alone:
 * sharing a few switches costs more in hand-over and cache lines than it
 * saves (8x8x8 1 MiB Allreduce on 2 threads: 17.4 s wall at 2, 11.3 s at
 * 16, the same from 8 to 64). */
#define MF_SIM_PAR_MIN 16
/* The thread running a module's phase: 0 outside parallel phases. */
extern __thread int mf_sim_tid __attribute__((tls_model("initial-exec")));
typedef struct mf_module mf_module_t;
typedef void (*mf_phase_fn)(mf_module_t *m, mf_sim_t *sim);

struct mf_module {
    mf_phase_fn consume;
    mf_phase_fn produce;
    /* optional: start loading the lines the module's consume (produce = 0) or
     * produce will miss on; called a couple of modules ahead in the cycle's
     * run, it must read only what no module run before it writes in that
     * phase, and write nothing (engine.c prefetch_ahead) */
    void (*prefetch)(mf_module_t *m, int produce, uint64_t now);
    uint64_t last_req; /* last cycle asked for (drops repeated requests) */
    uint64_t last_creq; /* last cycle asked for by mf_sim_wake_consume */
    uint32_t id;
    int produce_due;   /* this cycle runs its produce (not only its consume) */
};

/* A wake-up's id with this bit runs only the module's consume phase. */
#define MF_WAKE_CONSUME 0x80000000u

typedef struct {
    uint64_t cycle;
    uint32_t id;
} mf_wake_t;

#define MF_WHEEL 4096 /* cycles ahead kept in the timing wheel */

typedef struct {
    uint32_t *ids;
    uint32_t n, cap;
} mf_bucket_t;

/* A deferred effect: fn(a, b, x) after the parallel prefix's produce. */
typedef struct {
    void (*fn)(void *a, void *b, uint64_t x);
    void *a, *b;
    uint64_t x;
} mf_deferred_t;

/* What one chunk (a contiguous slice of the phase's modules) collects
 * during a parallel phase. */
typedef struct {
    mf_wake_t *wakes; /* wake-ups for the wheel / heap, merged after the phase */
    size_t nwakes, capwakes;
    mf_deferred_t *defer;
    size_t ndefer, capdefer;
    int oom;
} __attribute__((aligned(64))) mf_sim_local_t; /* a line each: chunks on different threads */

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
    uint64_t *pdue;    /* those of them whose produce runs (not consume-only) */
    size_t capdue;     /* words (of due and soon) */
    /* wake-ups for cycle soon_at (asked for as now + 1: a busy module asking
     * for the next cycle, the common case) as a bitmap by module id */
    uint64_t *soon;
    uint64_t soon_at;
    int soon_any;      /* soon has a bit set */
    uint64_t active_cycles; /* cycles in which at least one module ran */
    uint64_t module_steps;  /* module-cycles whose produce ran (consume-only ones excluded) */
    int in_produce;
    /* parallel phases */
    uint32_t npar;          /* modules [0, npar) may run a phase concurrently */
    int nthreads;           /* 1: everything on the caller's thread */
    int par_phase;          /* a phase of the prefix is running (wakes go to `local`) */
    int deferring;          /* the prefix's produce: shared effects wait (mf_sim_defer) */
    int reverse_chunks;     /* test: run a phase's slices last first, on the caller */
    int full_wakes;         /* test: a consume-only request runs the produce too, and
                             * blocks wake for every event they skip (hw/switch.c) */
    int no_hints;           /* skip the load hints (mf_module_t.prefetch): a
                             * network that fits the cache gains nothing by them */
    int share_min;          /* due modules a thread for a phase to be shared
                             * (MF_SIM_PAR_MIN; tests: 1) */
    mf_sim_local_t *local;  /* per chunk: nthreads * MF_SIM_CHUNKS_PER_THREAD */
    mf_par_t *par;          /* the worker threads (sim/par.c) */
    void (*phase_end)(void *ctx); /* after each parallel phase, on one thread */
    void *phase_end_ctx;
};

int mf_sim_init(mf_sim_t *s);
void mf_sim_fini(mf_sim_t *s);
/* Register a module; returns 0 or -1 (out of memory). */
int mf_sim_add(mf_sim_t *s, mf_module_t *m, mf_phase_fn consume, mf_phase_fn produce);
/* Queue a wake-up of m at `cycle` (already clamped, not a repeat, not for the
 * soon bitmap); use mf_sim_wake. */
int mf_sim_enqueue(mf_sim_t *s, mf_module_t *m, uint64_t cycle);
/* mf_sim_wake during a parallel phase: safe against other threads. */
int mf_sim_wake_par(mf_sim_t *s, mf_module_t *m, uint64_t cycle);
/* File a request for `cycle` (clamped, not a repeat): the next cycle's
 * bitmap when it can take it, else the wheel / heap. */
static inline int mf_sim_file(mf_sim_t *s, mf_module_t *m, uint64_t cycle)
{
    if (cycle == s->now + 1 && (!s->soon_any || s->soon_at == cycle)) {
        m->last_req = cycle;
        s->soon[m->id / 64] |= 1ull << (m->id % 64);
        s->soon_at = cycle;
        s->soon_any = 1;
        return 0;
    }
    return mf_sim_enqueue(s, m, cycle);
}
/* Ask for module m to run in `cycle` (> now while producing, >= now otherwise).
 * Inline because most requests repeat the module's last one (a busy module
 * asks for the next cycle many times per cycle) and are dropped here. */
static inline int mf_sim_wake(mf_sim_t *s, mf_module_t *m, uint64_t cycle)
{
    if (__builtin_expect(s->par_phase, 0))
        return mf_sim_wake_par(s, m, cycle);
    if (s->in_produce && cycle <= s->now)
        cycle = s->now + 1; /* outputs of a produce phase are seen next cycle */
    if (cycle < s->now)
        cycle = s->now;
    if (cycle == m->last_req)
        return 0;
    return mf_sim_file(s, m, cycle);
}
/* Ask for module m's consume phase only in `cycle` (>= now + 1): an input
 * arrives then that its produce cannot use before a later cycle, which
 * its consume asks for.  A cycle with a consume-only request and no other
 * runs its consume and skips its produce. */
int mf_sim_wake_consume(mf_sim_t *s, mf_module_t *m, uint64_t cycle);
/* Run fn(a, b, x) now, or -- during the parallel prefix's produce phase --
 * after it, in the order of the modules that asked (see above).  Returns 0
 * or -1 (out of memory). */
int mf_sim_defer(mf_sim_t *s, void (*fn)(void *a, void *b, uint64_t x), void *a, void *b,
                 uint64_t x);
/* Let modules [0, npar) run their phases on up to nthreads threads (1: on
 * the caller's); phase_end(ctx), if set, runs after each such phase.
 * Returns 0 or -1 (threads could not start; the engine stays serial). */
int mf_sim_set_threads(mf_sim_t *s, int nthreads, uint32_t npar);
/* Cycle of the next scheduled activity, MF_NEVER if none. */
uint64_t mf_sim_next(const mf_sim_t *s);
/* Run the next active cycle (consume all, then produce all).  Returns 1 if a
 * cycle ran, 0 if nothing is scheduled, -1 on out-of-memory. */
int mf_sim_step(mf_sim_t *s);

#endif
