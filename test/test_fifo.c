/*
 * Input FIFO with margin-based back-pressure (001 sec. 2.5) and the link
 * model: an upstream that obeys the delayed stop signal never overflows
 * when the margin covers the round trip, and does overflow when it does not;
 * link serialisation and latency; order kept under jitter.
 */
#include <stdlib.h>

#include "hw/fifo.h"
#include "hw/link.h"
#include "tap.h"

/* Upstream sends one 1-phit packet per cycle whenever it sees "go"; the
 * downstream drains one packet every `drain` cycles.  Packets take `lat`
 * cycles on the wire, the stop signal `lat` cycles back. */
static uint64_t stream(uint32_t cap, uint32_t margin, uint32_t lat, int drain, uint64_t cycles,
                       uint32_t *peak)
{
    mf_fifo_t f;
    mf_fifo_init(&f, cap, margin, lat, NULL);
    mf_pool_t pool;
    mf_pool_init(&pool, 32);
    mf_pq_t wire = {0};
    for (uint64_t t = 0; t < cycles; t++) {
        while (wire.head && wire.head->ready <= t)
            mf_fifo_push(&f, mf_pq_pop(&wire), t);
        if (t % drain == 0 && f.q.head)
            mf_pkt_free(&pool, mf_fifo_pop(&f, t));
        if (!mf_fifo_stop_seen(&f, t)) {
            mf_pkt_t *k = mf_pkt_alloc(&pool);
            k->nphits = 1;
            k->ready = t + lat;
            mf_pq_push(&wire, k);
        }
    }
    uint64_t ov = f.overflows;
    *peak = f.peak;
    mf_pkt_t *k;
    while ((k = mf_pq_pop(&f.q)))
        mf_pkt_free(&pool, k);
    while ((k = mf_pq_pop(&wire)))
        mf_pkt_free(&pool, k);
    mf_fifo_fini(&f);
    mf_pool_fini(&pool);
    return ov;
}

static void test_margin(void)
{
    uint32_t peak;
    uint64_t ov = stream(400, 2 * 20 + 2, 20, 3, 5000, &peak);
    ok(ov == 0 && peak <= 400 && peak > 400 - 42 - 5,
       "margin >= round trip: no overflow, FIFO fills into the margin (peak %u of 400)", peak);
    ov = stream(400, 10, 20, 3, 5000, &peak);
    ok(ov > 0, "margin smaller than the round trip overflows (%llu overflows counted)",
       (unsigned long long)ov);
    ov = stream(400, 42, 20, 1, 5000, &peak);
    ok(ov == 0 && peak < 40, "a drain as fast as the source never asserts stop (peak %u)", peak);
}

static void test_stop_delay(void)
{
    mf_fifo_t f;
    mf_fifo_init(&f, 4, 1, 10, NULL);
    mf_pool_t pool;
    mf_pool_init(&pool, 32);
    for (int i = 0; i < 3; i++) {
        mf_pkt_t *k = mf_pkt_alloc(&pool);
        k->nphits = 1;
        mf_fifo_push(&f, k, 100);
    }
    ok(!f.stopped && !f.tr_cycle, "a FIFO that never passed its threshold holds no transition "
                                  "record (allocated on the first stop)");
    for (int i = 0; i < 1; i++) {
        mf_pkt_t *k = mf_pkt_alloc(&pool);
        k->nphits = 1;
        mf_fifo_push(&f, k, 100);
    }
    ok(f.stopped && f.tr_cycle, "occupancy past capacity - margin asserts stop (and records it)");
    ok(!mf_fifo_stop_seen(&f, 105), "upstream does not see stop before the signal delay");
    ok(mf_fifo_stop_seen(&f, 110), "upstream sees stop after the delay");
    mf_pkt_free(&pool, mf_fifo_pop(&f, 120));
    mf_pkt_free(&pool, mf_fifo_pop(&f, 120));
    ok(!f.stopped && mf_fifo_stop_seen(&f, 129) && !mf_fifo_stop_seen(&f, 130),
       "resume is seen exactly `delay` cycles after draining below the threshold");
    mf_pkt_t *k;
    while ((k = mf_pq_pop(&f.q)))
        mf_pkt_free(&pool, k);
    mf_fifo_fini(&f);
    mf_pool_fini(&pool);
}

static void test_link(void)
{
    mf_link_t l;
    mf_pool_t pool;
    mf_pool_init(&pool, 256);
    /* 32 bytes per cycle: an 8-phit packet (256 + 6 header bytes) takes 8.19 cycles */
    mf_link_init(&l, 110, 0, 32u << 16, 1);
    mf_pkt_t *a = mf_pkt_alloc(&pool), *b = mf_pkt_alloc(&pool);
    a->nphits = b->nphits = 8;
    uint64_t ha = mf_link_send(&l, a, 0, 32);
    ok(ha == 110, "head arrives after the link latency (%llu)", (unsigned long long)ha);
    ok(!mf_link_free(&l, 8) && mf_link_free(&l, 9), "serialiser busy for (256+6)/32 cycles");
    uint64_t hb = mf_link_send(&l, b, 9, 32);
    ok(hb == 119 && mf_link_recv(&l, 109) == NULL && mf_link_recv(&l, 110) == a,
       "packets delivered in order at their arrival cycles");
    ok(mf_link_next_arrival(&l) == 119, "the receiver learns the next arrival (119) from the "
                                        "packet it popped");
    mf_pkt_free(&pool, a);
    mf_pkt_free(&pool, mf_link_recv(&l, 119));
    ok(mf_link_next_arrival(&l) == MF_NEVER && mf_link_recv(&l, 1000) == NULL,
       "an empty wire: no next arrival, nothing to receive");
    mf_link_init(&l, 44, 3.0, 32u << 16, 7);
    uint64_t last = 0, sum = 0;
    int ordered = 1;
    for (int i = 0; i < 2000; i++) {
        mf_pkt_t *k = mf_pkt_alloc(&pool);
        k->nphits = 1;
        uint64_t h = mf_link_send(&l, k, (uint64_t)i * 50, 32);
        ordered &= h >= last;
        last = h;
        sum += h - (uint64_t)i * 50;
        ordered &= mf_link_next_arrival(&l) == h;
        mf_pkt_free(&pool, mf_link_recv(&l, h));
    }
    double mean = sum / 2000.0;
    ok(ordered && mean > 43 && mean < 46, "jittered link keeps order, mean latency %.2f ~ 44",
       mean);
    mf_pool_fini(&pool);
}

/* The stop state seen upstream at t, from the owner's history of
 * transitions (cycle[i], state[i]), oldest first. */
static int truth(const uint64_t *cyc, const uint8_t *st, int n, uint32_t delay, uint64_t t)
{
    int s = 0;
    for (int i = 0; i < n && cyc[i] + delay <= t; i++)
        s = st[i];
    return s;
}

/* mf_fifo_stop_window under a random stream of pushes and pops: for every
 * cycle now and every `at` a reader may ask for (now .. now + delay - 1),
 * the window's state is the one seen at every cycle in it, and the window
 * is the same before and after the owner records this cycle's transitions
 * (a reader on another thread may run either side of them). */
static void test_stop_window(void)
{
    enum { DELAY = 10, CYCLES = 3000 };
    mf_fifo_t f;
    mf_fifo_init(&f, 6, 2, DELAY, NULL);
    mf_pool_t pool;
    mf_pool_init(&pool, 32);
    static uint64_t cyc[2 * CYCLES];
    static uint8_t st[2 * CYCLES];
    int n = 0, bad_state = 0, bad_span = 0, bad_race = 0, windows = 0, wide = 0;
    uint8_t last = 0;
    srand(7);
    for (uint64_t now = 0; now < CYCLES; now++) {
        uint64_t before[DELAY][3];
        for (uint64_t at = now; at < now + DELAY; at++) {
            uint64_t *b = before[at - now];
            b[0] = (uint64_t)mf_fifo_stop_window(&f, now, at, &b[1], &b[2]);
        }
        /* the owner's cycle: a random walk of the occupancy around the
         * threshold (4 of 6), so it stops and resumes often */
        if (f.occ < 7 && rand() % 2) {
            mf_pkt_t *k = mf_pkt_alloc(&pool);
            k->nphits = 1;
            mf_fifo_push(&f, k, now);
        }
        if (f.stopped != last)
            cyc[n] = now, st[n++] = last = f.stopped;
        if (f.q.head && rand() % 2)
            mf_pkt_free(&pool, mf_fifo_pop(&f, now));
        if (f.stopped != last)
            cyc[n] = now, st[n++] = last = f.stopped;
        for (uint64_t at = now; at < now + DELAY; at++) {
            uint64_t from, until;
            int s = mf_fifo_stop_window(&f, now, at, &from, &until);
            const uint64_t *b = before[at - now];
            bad_race += (uint64_t)s != b[0] || from != b[1] || until != b[2];
            bad_span += from > at || until < at || until > now + DELAY - 1;
            for (uint64_t t = from; t <= until; t++)
                bad_state += truth(cyc, st, n, DELAY, t) != s;
            windows++;
            wide += until > at;
        }
    }
    ok(n > 100, "the stream stops and resumes the FIFO often (%d transitions)", n);
    ok(!bad_state, "every cycle of every window sees the window's state (%d of %d windows wrong)",
       bad_state, windows);
    ok(!bad_span, "a window holds `at` and ends by now + delay - 1 (%d wrong)", bad_span);
    ok(!bad_race, "a window is the same before and after the owner's transitions of this "
                  "cycle (%d differ)", bad_race);
    ok(wide > windows / 2, "windows reach past `at` (%d of %d): the reader keeps them", wide,
       windows);
    mf_pkt_t *k;
    while ((k = mf_pq_pop(&f.q)))
        mf_pkt_free(&pool, k);
    mf_fifo_fini(&f);
    mf_pool_fini(&pool);
}

int main(void)
{
    test_margin();
    test_stop_delay();
    test_stop_window();
    test_link();
    return tap_done();
}
