/*
 * Cycle engine (000 sec. 5.1.3): consume before produce in every cycle,
 * idle cycles skipped, modules of a cycle run in id order, a wake-up asked
 * for during produce lands in a later cycle; a consume-only wake-up runs
 * the consume alone unless a full one asks for the same cycle, on one
 * thread and from a parallel phase.
 */
#include <string.h>

#include "sim/engine.h"
#include "tap.h"

typedef struct {
    mf_module_t mod;
    int id;
    uint64_t period, until;
    int runs;
} tick_t;

static char trace[256];
static size_t ntrace;

static void consume(mf_module_t *m, mf_sim_t *s)
{
    (void)s;
    tick_t *t = (tick_t *)m;
    if (ntrace < sizeof trace - 1)
        trace[ntrace++] = (char)('a' + t->id);
}

static void produce(mf_module_t *m, mf_sim_t *s)
{
    tick_t *t = (tick_t *)m;
    if (ntrace < sizeof trace - 1)
        trace[ntrace++] = (char)('A' + t->id);
    t->runs++;
    if (s->now == 0)
        mf_sim_wake(s, m, s->now); /* a same-cycle request moves to the next cycle */
    if (s->now + t->period <= t->until)
        mf_sim_wake(s, m, s->now + t->period); /* kept beside an earlier request */
}

/* ---- consume-only wake-ups ---------------------------------------------- */

typedef struct {
    mf_module_t mod;
    char name;
    mf_module_t *poke; /* its produce in cycle poke_at wakes poke's consume */
    uint64_t poke_at, poke_for;
    int consumes, produces; /* its own counts: safe from a parallel phase */
} cmod_t;

static char ctrace[256];
static size_t nctrace;

static void c_consume(mf_module_t *m, mf_sim_t *s)
{
    cmod_t *c = (cmod_t *)m;
    c->consumes++;
    if (!s->par_phase && nctrace < sizeof ctrace - 1)
        ctrace[nctrace++] = c->name;
}

static void c_produce(mf_module_t *m, mf_sim_t *s)
{
    cmod_t *c = (cmod_t *)m;
    c->produces++;
    if (!s->par_phase && nctrace < sizeof ctrace - 1)
        ctrace[nctrace++] = (char)(c->name - 'a' + 'A');
    if (c->poke && s->now == c->poke_at)
        mf_sim_wake_consume(s, c->poke, c->poke_for);
}

/* Step to cycle `at` and return what ran there. */
static const char *run_cycle(mf_sim_t *s, uint64_t at)
{
    nctrace = 0;
    ctrace[0] = 0;
    if (mf_sim_next(s) != at || mf_sim_step(s) != 1)
        return "(not run)";
    ctrace[nctrace] = 0;
    return ctrace;
}

static void consume_only(int full_wakes)
{
    mf_sim_t s;
    mf_sim_init(&s);
    s.full_wakes = full_wakes;
    cmod_t a = {.name = 'a'}, b = {.name = 'b'};
    mf_sim_add(&s, &a.mod, c_consume, c_produce);
    mf_sim_add(&s, &b.mod, c_consume, c_produce);
    const char *want = full_wakes ? "aA" : "a";
    mf_sim_wake_consume(&s, &a.mod, 10);
    mf_sim_wake_consume(&s, &a.mod, 10); /* asked twice: runs once */
    const char *got = run_cycle(&s, 10);
    ok(!strcmp(got, want), "%sconsume-only wake-up at 10 runs %s (%s)",
       full_wakes ? "MPIFPGA_SIM_FULL_WAKES: " : "", want, got);
    mf_sim_wake_consume(&s, &a.mod, 20);
    mf_sim_wake(&s, &a.mod, 20);
    mf_sim_wake(&s, &b.mod, 30);
    mf_sim_wake_consume(&s, &b.mod, 30);
    got = run_cycle(&s, 20);
    ok(!strcmp(got, "aA"), "consume-only then full for one cycle: both phases (%s)", got);
    got = run_cycle(&s, 30);
    ok(!strcmp(got, "bB"), "full then consume-only for one cycle: both phases (%s)", got);
    /* asked during produce for the current cycle: the next one */
    a.poke = &b.mod;
    a.poke_at = 40;
    a.poke_for = 40;
    mf_sim_wake(&s, &a.mod, 40);
    run_cycle(&s, 40);
    got = run_cycle(&s, 41);
    ok(!strcmp(got, full_wakes ? "bB" : "b"), "a consume-only wake-up for now asked in produce runs next cycle (%s)", got);
    mf_sim_fini(&s);
}

/* From a parallel phase (the chunk's wake-up list, merged after it). */
static void consume_only_parallel(void)
{
    mf_sim_t s;
    mf_sim_init(&s);
    cmod_t a = {.name = 'a'}, b = {.name = 'b'};
    mf_sim_add(&s, &a.mod, c_consume, c_produce);
    mf_sim_add(&s, &b.mod, c_consume, c_produce);
    ok(mf_sim_set_threads(&s, 2, 2) == 0, "two threads for the two modules");
    s.share_min = 1;
    a.poke = &b.mod;
    a.poke_at = 50;
    a.poke_for = 60;
    mf_sim_wake(&s, &a.mod, 50);
    mf_sim_wake(&s, &b.mod, 50);
    ok(mf_sim_next(&s) == 50 && mf_sim_step(&s) == 1 && a.consumes == 1 && a.produces == 1 &&
           b.consumes == 1 && b.produces == 1,
       "cycle 50: both phases of both, on two threads");
    ok(mf_sim_next(&s) == 60 && mf_sim_step(&s) == 1, "next active cycle is 60");
    ok(b.consumes == 2 && b.produces == 1 && a.consumes == 1,
       "a consume-only wake-up asked on a thread runs b's consume alone (b: %d consumes, %d "
       "produces)", b.consumes, b.produces);
    ok(mf_sim_step(&s) == 0, "nothing else scheduled");
    mf_sim_fini(&s);
}

int main(void)
{
    mf_sim_t s;
    mf_sim_init(&s);
    tick_t a = {.id = 0, .period = 1000, .until = 3000}, b = {.id = 1, .period = 1000, .until = 3000};
    mf_sim_add(&s, &a.mod, consume, produce);
    mf_sim_add(&s, &b.mod, consume, produce);
    mf_sim_wake(&s, &b.mod, 0);
    mf_sim_wake(&s, &a.mod, 0);
    ok(mf_sim_step(&s) == 1 && s.now == 0, "first active cycle is 0");
    ok(!strcmp(trace, "abAB"), "all consumes before all produces, in id order (%s)", trace);
    ok(mf_sim_next(&s) == 1, "a wake-up for `now` asked during produce runs next cycle");
    while (mf_sim_step(&s) == 1)
        ;
    ok(a.runs == 7 && b.runs == 7,
       "each module ran in cycles 0, 1, 1000, 1001, 2000, 2001, 3000 (%d, %d runs)", a.runs,
       b.runs);
    ok(s.active_cycles == 7 && s.now == 3000,
       "idle cycles skipped: 7 active cycles up to cycle %llu", (unsigned long long)s.now);
    ok(mf_sim_step(&s) == 0, "nothing scheduled: step returns 0");
    mf_sim_fini(&s);
    consume_only(0);
    consume_only(1);
    consume_only_parallel();
    return tap_done();
}
