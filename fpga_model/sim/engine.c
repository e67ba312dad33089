/* Two-phase cycle engine with idle-cycle skipping (see engine.h). */
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

#include "sim/par.h"

__thread int mf_sim_tid __attribute__((tls_model("initial-exec")));
static __thread int cur_chunk __attribute__((tls_model("initial-exec"))); /* the chunk this thread runs: its s->local */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static int nlocals(const mf_sim_t *s) { return s->nthreads * MF_SIM_CHUNKS_PER_THREAD; }

/* A cache line per chunk's record (aligned_alloc: calloc gives 16 bytes). */
static mf_sim_local_t *alloc_locals(int n)
{
    mf_sim_local_t *l = aligned_alloc(64, (size_t)n * sizeof *l);
    if (l)
        memset(l, 0, (size_t)n * sizeof *l);
    return l;
}

static void free_locals(mf_sim_t *s)
{
    for (int c = 0; s->local && c < nlocals(s); c++) {
        free(s->local[c].wakes);
        free(s->local[c].defer);
    }
    free(s->local);
    s->local = NULL;
}

int mf_sim_init(mf_sim_t *s)
{
    *s = (mf_sim_t){0};
    s->nthreads = 1;
    s->local = alloc_locals(nlocals(s));
    return s->local ? 0 : -1;
}

void mf_sim_fini(mf_sim_t *s)
{
    mf_par_stop(s->par);
    free_locals(s);
    for (int i = 0; i < MF_WHEEL; i++)
        free(s->wheel[i].ids);
    free(s->mods);
    free(s->due);
    free(s->pdue);
    free(s->soon);
    free(s->heap);
    free(s->run);
    *s = (mf_sim_t){0};
}

int mf_sim_add(mf_sim_t *s, mf_module_t *m, mf_phase_fn consume, mf_phase_fn produce)
{
    if (grow((void **)&s->mods, &s->capmods, s->nmods + 1, sizeof *s->mods))
        return -1;
    m->consume = consume;
    m->produce = produce;
    m->prefetch = NULL; /* the module may set one after adding */
    m->last_req = m->last_creq = MF_NEVER;
    m->id = (uint32_t)s->nmods;
    s->mods[s->nmods++] = m;
    if (grow((void **)&s->run, &s->caprun, s->nmods, sizeof *s->run))
        return -1; /* a cycle runs each module at most once */
    size_t words = (s->nmods + 63) / 64;
    if (words > s->capdue) {
        uint64_t *d = realloc(s->due, words * sizeof *d);
        if (!d)
            return -1;
        d[words - 1] = 0;
        s->due = d;
        uint64_t *q = realloc(s->soon, words * sizeof *q);
        if (!q)
            return -1;
        q[words - 1] = 0;
        s->soon = q;
        uint64_t *pd = realloc(s->pdue, words * sizeof *pd);
        if (!pd)
            return -1;
        pd[words - 1] = 0;
        s->pdue = pd;
        s->capdue = words;
    }
    return 0;
}

static int wake_less(const mf_wake_t *a, const mf_wake_t *b)
{
    return a->cycle < b->cycle || (a->cycle == b->cycle && a->id < b->id);
}

static void heap_up(mf_wake_t *h, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!wake_less(&h[i], &h[p]))
            break;
        mf_wake_t t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static void heap_down(mf_wake_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && wake_less(&h[l], &h[m]))
            m = l;
        if (r < n && wake_less(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        mf_wake_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static int bucket_add(mf_bucket_t *b, uint32_t id)
{
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 8;
        uint32_t *q = realloc(b->ids, cap * sizeof *q);
        if (!q)
            return -1;
        b->ids = q;
        b->cap = cap;
    }
    b->ids[b->n++] = id;
    return 0;
}

/* Queue id (with MF_WAKE_CONSUME or not) for `cycle`. */
static int enqueue_id(mf_sim_t *s, uint32_t id, uint64_t cycle)
{
    if (cycle - s->now < MF_WHEEL) {
        if (bucket_add(&s->wheel[cycle % MF_WHEEL], id))
            return -1;
        s->nwheel++;
        return 0;
    }
    if (grow((void **)&s->heap, &s->capheap, s->nheap + 1, sizeof *s->heap))
        return -1;
    s->heap[s->nheap] = (mf_wake_t){cycle, id};
    heap_up(s->heap, s->nheap++);
    return 0;
}

int mf_sim_enqueue(mf_sim_t *s, mf_module_t *m, uint64_t cycle)
{
    m->last_req = cycle;
    return enqueue_id(s, m->id, cycle);
}

static int wake_local(mf_sim_t *s, uint32_t id, uint64_t cycle);

int mf_sim_wake_consume(mf_sim_t *s, mf_module_t *m, uint64_t cycle)
{
    if (s->full_wakes)
        return mf_sim_wake(s, m, cycle);
    if (cycle <= s->now)
        cycle = s->now + 1;
    if (cycle == __atomic_load_n(&m->last_req, __ATOMIC_RELAXED) ||
        cycle == __atomic_load_n(&m->last_creq, __ATOMIC_RELAXED))
        return 0; /* asked already: that request runs the consume */
    __atomic_store_n(&m->last_creq, cycle, __ATOMIC_RELAXED);
    return s->par_phase ? wake_local(s, m->id | MF_WAKE_CONSUME, cycle)
                        : enqueue_id(s, m->id | MF_WAKE_CONSUME, cycle);
}

uint64_t mf_sim_next(const mf_sim_t *s)
{
    uint64_t best = s->nheap ? s->heap[0].cycle : MF_NEVER;
    if (s->soon_any && s->soon_at < best)
        best = s->soon_at;
    if (s->nwheel) /* the wheel holds only cycles in [now, now + MF_WHEEL) */
        for (uint64_t t = s->now; t < s->now + MF_WHEEL && t < best; t++)
            if (s->wheel[t % MF_WHEEL].n)
                return t;
    return best;
}

/* Mark module id as due this cycle (several requests count once); without
 * MF_WAKE_CONSUME its produce runs too. */
static void mark_due(mf_sim_t *s, uint32_t id)
{
    uint32_t i = id & ~MF_WAKE_CONSUME;
    s->due[i / 64] |= 1ull << (i % 64);
    if (!(id & MF_WAKE_CONSUME))
        s->pdue[i / 64] |= 1ull << (i % 64);
}

/* The due modules in id order; clears the marks. */
static int collect_due(mf_sim_t *s)
{
    size_t words = (s->nmods + 63) / 64;
    for (size_t w = 0; w < words; w++) {
        uint64_t m = s->due[w], p = s->pdue[w];
        s->due[w] = s->pdue[w] = 0;
        s->module_steps += (uint64_t)__builtin_popcountll(p); /* not a consume alone */
        while (m) {
            unsigned b = (unsigned)__builtin_ctzll(m);
            mf_module_t *mod = s->mods[w * 64 + b];
            mod->produce_due = (int)(p >> b & 1);
            s->run[s->nrun++] = mod;
            m &= m - 1;
        }
    }
    return 0;
}

/* ---- parallel phases of the module prefix [0, npar) ------------------------ */

/* Due modules of this cycle that belong to the prefix (run[] is in id order). */
static size_t prefix_len(const mf_sim_t *s)
{
    size_t lo = 0, hi = s->nrun;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->run[mid]->id < s->npar)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* While one module runs, the one PREFETCH_AHEAD places on in the phase
 * starts loading its lines (mf_module_t.prefetch).  A large network's
 * switches do not fit the cache together, so a module's first loads of
 * packets last touched a link latency ago miss; issued a module ahead,
 * those misses overlap with the work in between.  Purely a load hint:
 * results are the same without it (doc/model.md section 1, "Load hints";
 * bench/README.md, "Load hints"). */
#define PREFETCH_AHEAD 2

static inline void prefetch_ahead(mf_sim_t *s, size_t i, size_t hi, int produce)
{
    if (s->no_hints || i + PREFETCH_AHEAD >= hi)
        return;
    mf_module_t *m = s->run[i + PREFETCH_AHEAD];
    if (m->prefetch && (!produce || m->produce_due))
        m->prefetch(m, produce, s->now);
}

static void run_one(mf_sim_t *s, mf_module_t *m, int produce)
{
    if (!produce) {
        if (m->consume)
            m->consume(m, s);
        return;
    }
    if (!m->produce_due)
        return; /* woken for its consume only */
    /* the cycle's request is served: asking for this cycle again later
     * (between steps) must run the module again, not be dropped */
    __atomic_store_n(&m->last_req, MF_NEVER, __ATOMIC_RELAXED);
    m->produce(m, s);
}

typedef struct {
    mf_sim_t *s;
    int produce, nchunks;
    size_t n;
} phase_t;

/* Chunk c: a contiguous slice, so chunk order is id order. */
static void phase_slice(void *ctx, int c)
{
    phase_t *ph = ctx;
    size_t lo = ph->n * (size_t)c / (size_t)ph->nchunks;
    size_t hi = ph->n * (size_t)(c + 1) / (size_t)ph->nchunks;
    cur_chunk = c;
    for (size_t i = lo; i < hi; i++) {
        prefetch_ahead(ph->s, i, hi, ph->produce);
        run_one(ph->s, ph->s->run[i], ph->produce);
    }
    cur_chunk = 0;
}

/* Wake-ups the chunks collected go to the wheel / heap. */
static int merge_wakes(mf_sim_t *s)
{
    int rc = 0;
    for (int c = 0; c < nlocals(s); c++) {
        mf_sim_local_t *l = &s->local[c];
        for (size_t i = 0; i < l->nwakes; i++) {
            uint32_t id = l->wakes[i].id;
            if (id & MF_WAKE_CONSUME ? enqueue_id(s, id, l->wakes[i].cycle)
                                     : mf_sim_file(s, s->mods[id], l->wakes[i].cycle))
                rc = -1;
        }
        l->nwakes = 0;
        if (l->oom)
            rc = -1;
        l->oom = 0;
    }
    return rc;
}

/* One phase of the prefix's n due modules: on the threads when there is
 * enough to share, else here; the same result either way. */
static int run_prefix(mf_sim_t *s, int produce, size_t n)
{
    if (!n)
        return 0;
    s->deferring = produce;
    int nchunks = n < (size_t)nlocals(s) ? (int)n : nlocals(s);
    phase_t ph = {s, produce, nchunks, n};
    if (s->reverse_chunks) {
        /* the order check: the slices on one thread, last first -- any
         * result that depends on the order inside a phase changes */
        for (int c = nchunks - 1; c >= 0; c--)
            phase_slice(&ph, c);
    } else if (s->par && n >= (size_t)s->share_min * (size_t)s->nthreads) {
        s->par_phase = 1;
        mf_par_run(s->par, phase_slice, &ph, ph.nchunks);
        s->par_phase = 0;
    } else {
        for (size_t i = 0; i < n; i++) {
            prefetch_ahead(s, i, n, produce);
            run_one(s, s->run[i], produce);
        }
    }
    if (s->phase_end)
        s->phase_end(s->phase_end_ctx);
    return merge_wakes(s);
}

/* The prefix's deferred effects, in chunk order (= module-id order). */
static int run_deferred(mf_sim_t *s)
{
    s->deferring = 0;
    for (int c = 0; c < nlocals(s); c++) {
        mf_sim_local_t *l = &s->local[c];
        for (size_t i = 0; i < l->ndefer; i++)
            l->defer[i].fn(l->defer[i].a, l->defer[i].b, l->defer[i].x);
        l->ndefer = 0;
    }
    return 0;
}

int mf_sim_defer(mf_sim_t *s, void (*fn)(void *a, void *b, uint64_t x), void *a, void *b,
                 uint64_t x)
{
    if (!s->deferring) {
        fn(a, b, x);
        return 0;
    }
    mf_sim_local_t *l = &s->local[cur_chunk];
    if (grow((void **)&l->defer, &l->capdefer, l->ndefer + 1, sizeof *l->defer)) {
        l->oom = 1;
        return -1;
    }
    l->defer[l->ndefer++] = (mf_deferred_t){fn, a, b, x};
    return 0;
}

/* Wake-up id for `cycle` into this chunk's list (a parallel phase). */
static int wake_local(mf_sim_t *s, uint32_t id, uint64_t cycle)
{
    mf_sim_local_t *l = &s->local[cur_chunk];
    if (grow((void **)&l->wakes, &l->capwakes, l->nwakes + 1, sizeof *l->wakes)) {
        l->oom = 1;
        return -1;
    }
    l->wakes[l->nwakes++] = (mf_wake_t){cycle, id};
    return 0;
}

int mf_sim_wake_par(mf_sim_t *s, mf_module_t *m, uint64_t cycle)
{
    if (s->in_produce && cycle <= s->now)
        cycle = s->now + 1;
    if (cycle < s->now)
        cycle = s->now;
    if (cycle == __atomic_load_n(&m->last_req, __ATOMIC_RELAXED))
        return 0; /* asked already (by whichever thread): recorded */
    /* into this chunk's list: nothing the other threads write (the shared
     * next-cycle bitmap, written by every thread, cost more than the phase
     * gained); merge_wakes files it */
    if (wake_local(s, m->id, cycle))
        return -1;
    __atomic_store_n(&m->last_req, cycle, __ATOMIC_RELAXED);
    return 0;
}

int mf_sim_set_threads(mf_sim_t *s, int nthreads, uint32_t npar)
{
    if (nthreads < 1)
        nthreads = 1;
    if (nthreads > MF_SIM_MAX_THREADS)
        nthreads = MF_SIM_MAX_THREADS;
    mf_par_stop(s->par);
    s->par = NULL;
    free_locals(s);
    s->npar = npar;
    s->nthreads = nthreads;
    s->share_min = MF_SIM_PAR_MIN;
    s->local = alloc_locals(nlocals(s));
    if (s->local && (nthreads == 1 || mf_par_start(&s->par, nthreads) == 0))
        return 0;
    free_locals(s);
    s->nthreads = 1; /* serial, as before the call */
    s->local = alloc_locals(nlocals(s));
    return -1;
}

int mf_sim_step(mf_sim_t *s)
{
    uint64_t t = mf_sim_next(s);
    if (t == MF_NEVER)
        return 0;
    s->now = t;
    s->nrun = 0;
    mf_bucket_t *b = &s->wheel[t % MF_WHEEL];
    for (uint32_t i = 0; i < b->n; i++)
        mark_due(s, b->ids[i]);
    s->nwheel -= b->n;
    b->n = 0;
    if (s->soon_any && s->soon_at == t) {
        size_t words = (s->nmods + 63) / 64;
        for (size_t w = 0; w < words; w++) {
            s->due[w] |= s->soon[w];
            s->pdue[w] |= s->soon[w];
            s->soon[w] = 0;
        }
        s->soon_any = 0;
    }
    while (s->nheap && s->heap[0].cycle == t) {
        mark_due(s, s->heap[0].id);
        s->heap[0] = s->heap[--s->nheap];
        heap_down(s->heap, s->nheap, 0);
    }
    /* modules of one cycle run in id order: results never depend on the
     * order in which they were woken */
    if (collect_due(s))
        return -1;
    size_t npar = prefix_len(s);
    if (run_prefix(s, 0, npar) < 0)
        return -1;
    for (size_t i = npar; i < s->nrun; i++)
        if (s->run[i]->consume)
            s->run[i]->consume(s->run[i], s);
    s->in_produce = 1;
    if (run_prefix(s, 1, npar) < 0 || run_deferred(s) < 0)
        return -1;
    for (size_t i = npar; i < s->nrun; i++) {
        if (!s->run[i]->produce_due)
            continue;
        s->run[i]->last_req = MF_NEVER;
        s->run[i]->produce(s->run[i], s);
    }
    s->in_produce = 0;
    s->active_cycles++;
    return 1;
}
