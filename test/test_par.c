/*
 * Parallel phases of the cycle engine (sim/engine.h, sim/par.c): the
 * prefix's modules run on several threads, wake each other safely, and
 * their deferred effects run after the prefix's produce phase in module-id
 * order -- so a run's trace is the same for 1, 2, 3 or 4 threads.  Packets
 * allocated on one thread and freed on another keep the pool's count.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/pkt.h"
#include "sim/engine.h"
#include "tap.h"

#define NPAR 160 /* enough due modules a cycle for 4 threads to share (MF_SIM_PAR_MIN) */
#define CYCLES 300

typedef struct {
    mf_module_t mod;
    int id;
    uint64_t runs_at[CYCLES]; /* cycles it produced in (own state only) */
    int nruns;
    int foreign;              /* produced on a thread other than 0 */
    mf_pkt_t *held;           /* a packet a neighbour allocated for it */
} node_t;

typedef struct {
    mf_module_t mod;
    int order_ok, cycles_checked;
} checker_t;

static node_t nodes[NPAR];
static checker_t checker;
static mf_pool_t pool;
static int deferred[NPAR * 4];
static int ndeferred;
static int ran_outside;

static void record_id(void *a, void *b, uint64_t x)
{
    (void)b;
    (void)x;
    deferred[ndeferred++] = ((node_t *)a)->id;
}

static void hand_over(void *to, void *pkt, uint64_t x)
{
    (void)x;
    node_t *n = to;
    if (n->held)
        mf_pkt_free(&pool, n->held);
    n->held = pkt;
}

static void busy_work(void)
{
    volatile uint64_t v = 0;
    for (int i = 0; i < 1000; i++)
        v += (uint64_t)i * i;
}

static void node_produce(mf_module_t *m, mf_sim_t *s)
{
    node_t *n = (node_t *)m;
    if (n->nruns < CYCLES)
        n->runs_at[n->nruns++] = s->now;
    n->foreign |= mf_sim_tid != 0;
    busy_work();
    /* free the packet a neighbour handed over, allocate one for the next
     * node and hand it over after the phase: packets are allocated and
     * freed on different threads */
    if (n->held) {
        mf_pkt_free(&pool, n->held);
        n->held = NULL;
    }
    mf_pkt_t *k = mf_pkt_alloc(&pool);
    mf_sim_defer(s, record_id, n, NULL, 0);
    mf_sim_defer(s, hand_over, &nodes[(n->id + 1) % NPAR], k, 0);
    /* wake a neighbour a little later, and itself on a pattern of its own */
    if (s->now < CYCLES) {
        mf_sim_wake(s, &nodes[(n->id * 7 + 3) % NPAR].mod, s->now + 1 + (uint64_t)(n->id % 3));
        if ((s->now + (uint64_t)n->id) % 5 == 0)
            mf_sim_wake(s, m, s->now + 2);
    }
}

/* The serial module after the prefix: the cycle's deferred ids are there,
 * in increasing order. */
static void check_produce(mf_module_t *m, mf_sim_t *s)
{
    checker_t *c = (checker_t *)m;
    for (int i = 1; i < ndeferred; i++)
        if (deferred[i] <= deferred[i - 1])
            c->order_ok = 0;
    c->cycles_checked += ndeferred > 0;
    ndeferred = 0;
    if (s->now < CYCLES)
        mf_sim_wake(s, m, s->now + 1);
}

static void outside(void *a, void *b, uint64_t x)
{
    (void)a;
    (void)b;
    ran_outside = (int)x;
}

/* Run the model on nthreads; its trace goes to runs (NPAR * CYCLES). */
static int run(int nthreads, uint64_t *runs, int *foreign, int *order_ok, size_t *live)
{
    mf_sim_t s;
    if (mf_sim_init(&s))
        return -1;
    memset(nodes, 0, sizeof nodes);
    checker = (checker_t){.order_ok = 1};
    ndeferred = 0;
    mf_pool_init(&pool, 64);
    for (int i = 0; i < NPAR; i++) {
        nodes[i].id = i;
        mf_sim_add(&s, &nodes[i].mod, NULL, node_produce);
    }
    mf_sim_add(&s, &checker.mod, NULL, check_produce);
    if (mf_sim_set_threads(&s, nthreads, NPAR))
        return -1;
    for (int i = 0; i < NPAR; i++)
        mf_sim_wake(&s, &nodes[i].mod, (uint64_t)i % 4);
    mf_sim_wake(&s, &checker.mod, 0);
    while (mf_sim_step(&s) == 1)
        ;
    *foreign = 0;
    for (int i = 0; i < NPAR; i++) {
        memcpy(runs + (size_t)i * CYCLES, nodes[i].runs_at, sizeof nodes[i].runs_at);
        *foreign |= nodes[i].foreign;
    }
    *order_ok = checker.order_ok && checker.cycles_checked > CYCLES / 2;
    for (int i = 0; i < NPAR; i++)
        if (nodes[i].held)
            mf_pkt_free(&pool, nodes[i].held);
    *live = mf_pool_live(&pool, nthreads);
    mf_sim_fini(&s);
    mf_pool_fini(&pool);
    return 0;
}

int main(void)
{
    static uint64_t ref[NPAR * CYCLES], got[NPAR * CYCLES];
    int foreign, order_ok;
    size_t live;
    ok(run(1, ref, &foreign, &order_ok, &live) == 0, "one thread: runs");
    ok(!foreign, "one thread: every module ran on the caller's thread");
    ok(order_ok, "one thread: deferred effects ran after the prefix, in module-id order");
    ok(live == 0, "one thread: every packet allocated was freed (%zu live)", live);
    for (int t = 2; t <= 4; t++) {
        ok(run(t, got, &foreign, &order_ok, &live) == 0, "%d threads: runs", t);
        ok(foreign, "%d threads: modules ran on worker threads", t);
        ok(!memcmp(ref, got, sizeof ref), "%d threads: every module ran in the same cycles", t);
        ok(order_ok, "%d threads: deferred effects in module-id order", t);
        ok(live == 0, "%d threads: packets freed on other threads still counted (%zu live)", t,
           live);
    }
    mf_sim_t s;
    mf_sim_init(&s);
    ok(mf_sim_defer(&s, outside, NULL, NULL, 7) == 0 && ran_outside == 7,
       "a deferred effect outside a step runs at once");
    ok(mf_sim_set_threads(&s, 1000, 1) == 0 && s.nthreads == MF_SIM_MAX_THREADS,
       "thread count capped at %d", MF_SIM_MAX_THREADS);
    mf_sim_fini(&s);
    return tap_done();
}
