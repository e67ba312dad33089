/* Two-phase cycle engine with idle-cycle skipping (see engine.h). */
#include "sim/engine.h"

#include <stdlib.h>

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

int mf_sim_init(mf_sim_t *s)
{
    *s = (mf_sim_t){0};
    return 0;
}

void mf_sim_fini(mf_sim_t *s)
{
    for (int i = 0; i < MF_WHEEL; i++)
        free(s->wheel[i].ids);
    free(s->mods);
    free(s->due);
    free(s->soon);
    free(s->todo);
    free(s->late);
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
    m->last_req = MF_NEVER;
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
        uint64_t *t = realloc(s->todo, words * sizeof *t);
        if (!t)
            return -1;
        t[words - 1] = 0;
        s->todo = t;
        uint64_t *l = realloc(s->late, words * sizeof *l);
        if (!l)
            return -1;
        l[words - 1] = 0;
        s->late = l;
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

int mf_sim_enqueue(mf_sim_t *s, mf_module_t *m, uint64_t cycle)
{
    m->last_req = cycle;
    if (cycle - s->now < MF_WHEEL) {
        if (bucket_add(&s->wheel[cycle % MF_WHEEL], m->id))
            return -1;
        s->nwheel++;
        return 0;
    }
    if (grow((void **)&s->heap, &s->capheap, s->nheap + 1, sizeof *s->heap))
        return -1;
    s->heap[s->nheap] = (mf_wake_t){cycle, m->id};
    heap_up(s->heap, s->nheap++);
    return 0;
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

/* Mark module id as due this cycle (several requests count once). */
static void mark_due(mf_sim_t *s, uint32_t id)
{
    s->due[id / 64] |= 1ull << (id % 64);
}

/* The due modules in id order (and as the produce phase's to-do bitmap);
 * clears the marks. */
static int collect_due(mf_sim_t *s)
{
    size_t words = (s->nmods + 63) / 64;
    for (size_t w = 0; w < words; w++) {
        uint64_t m = s->due[w];
        s->due[w] = 0;
        s->todo[w] = m;
        while (m) {
            s->run[s->nrun++] = s->mods[w * 64 + (size_t)__builtin_ctzll(m)];
            m &= m - 1;
        }
    }
    return 0;
}

static void produce_all(mf_sim_t *s);

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
    for (size_t i = 0; i < s->nrun; i++)
        if (s->run[i]->consume)
            s->run[i]->consume(s->run[i], s);
    s->in_produce = 1;
    produce_all(s);
    s->in_produce = 0;
    s->active_cycles++;
    return 1;
}

/* The produce phase: the to-do bitmap in id order, re-read as it goes so
 * that a module woken for this cycle (mf_sim_wake_now) runs in its place. */
static void produce_all(mf_sim_t *s)
{
    size_t words = (s->nmods + 63) / 64;
    for (size_t w = 0; w < words; w++) {
        while (s->todo[w]) {
            uint64_t bit = s->todo[w] & -s->todo[w];
            s->todo[w] &= ~bit;
            mf_module_t *m = s->mods[w * 64 + (size_t)__builtin_ctzll(bit)];
            s->running = m->id;
            if (s->late[w] & bit) {
                s->late[w] &= ~bit;
                if (m->consume)
                    m->consume(m, s);
            }
            /* the cycle's request is served: asking for this cycle again
             * later (between steps) must run the module again, not be dropped */
            m->last_req = MF_NEVER;
            m->produce(m, s);
            s->module_steps++;
        }
    }
}

int mf_sim_wake_now(mf_sim_t *s, mf_module_t *m)
{
    if (!s->in_produce || m->id <= s->running)
        return mf_sim_wake(s, m, s->now); /* next cycle while producing */
    uint64_t bit = 1ull << (m->id % 64);
    if (!(s->todo[m->id / 64] & bit)) { /* not due this cycle: its consume has not run */
        s->todo[m->id / 64] |= bit;
        s->late[m->id / 64] |= bit;
    }
    return 0;
}
