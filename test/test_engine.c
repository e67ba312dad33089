/*
 * Cycle engine (000 sec. 5.1.3): consume before produce in every cycle,
 * idle cycles skipped, modules of a cycle run in id order, a wake-up asked
 * for during produce lands in a later cycle, and one asked for "now"
 * (mf_sim_wake_now) runs in this cycle only after the running module.
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

/* Module 0 wakes module 2 "now" in cycle 10 (2 comes later: it runs in
 * cycle 10, its consume first); module 2 wakes module 1 "now" (1 came
 * before: it runs in cycle 11). */
static mf_module_t *now_mods[3];

static void wake_produce(mf_module_t *m, mf_sim_t *s)
{
    produce(m, s);
    tick_t *t = (tick_t *)m;
    if (s->now == 10 && t->id == 0)
        mf_sim_wake_now(s, now_mods[2]);
    if (s->now == 10 && t->id == 2)
        mf_sim_wake_now(s, now_mods[1]);
}

static void test_wake_now(void)
{
    mf_sim_t s;
    mf_sim_init(&s);
    tick_t t[3] = {{.id = 0}, {.id = 1}, {.id = 2}};
    for (int i = 0; i < 3; i++) {
        mf_sim_add(&s, &t[i].mod, consume, wake_produce);
        now_mods[i] = &t[i].mod;
    }
    mf_sim_wake(&s, &t[0].mod, 10);
    ntrace = 0;
    memset(trace, 0, sizeof trace);
    ok(mf_sim_step(&s) == 1 && s.now == 10 && !strcmp(trace, "aAcC"),
       "woken now by module 0, module 2 runs in the same cycle, consume first (%s)", trace);
    ok(mf_sim_step(&s) == 1 && s.now == 11 && !strcmp(trace, "aAcCbB"),
       "woken now by module 2, module 1 runs in the next cycle (%s)", trace);
    ok(mf_sim_step(&s) == 0 && s.module_steps == 3, "nothing else ran (%llu module steps)",
       (unsigned long long)s.module_steps);
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
    test_wake_now();
    return tap_done();
}
