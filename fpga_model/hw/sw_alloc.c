/*
 * Switch allocation (001 sec. 4.3: round-robin arbitration).  For every
 * output port whose link is free, the requesters -- input VC heads routed
 * there, the L2 output queue of that port, and the packet converters'
 * injection queues -- are served round robin; one packet starts per port per
 * cycle.  The Eject port has no arbiter (001 sec. 4.3): see l1_switch.c.
 *
 * Requesters are numbered: input port p, VC v -> p * nvc + v; then the L2
 * queue; then the converters.  One pass over the input VCs that hold packets
 * (s->vc_held) collects each output's requests as a bit set, so arbitration
 * costs one scan of the heads per cycle.  A port counts as free if its
 * serialiser frees up by the cycle after a packet granted now has traversed
 * the switch: the output FIFO behind the L1 switch (001 sec. 4.3) holds it
 * meanwhile, so the link runs back to back.
 */
#include "hw/switch.h"

#define MAX_CAND 256 /* MF_MAX_NET_PORTS * MF_MAX_VCS; converters beyond are rare */
#define WORDS (MAX_CAND / 64)

typedef struct {
    uint64_t bits[MF_MAX_NET_PORTS][WORDS];
} requests_t;

static mf_pkt_t *candidate(mf_switch_t *s, int port, unsigned i, unsigned nvc)
{
    unsigned nin = (unsigned)s->nports * nvc;
    if (i < nin)
        return mf_fifo_head(mf_l1_fifo(s, i));
    if (i == nin)
        return s->coll_out[port].head;
    return s->eng[i - nin - 1]->tx.head;
}

static mf_pkt_t *pop_coll_out(mf_switch_t *s, int port)
{
    mf_pkt_t *k = mf_pq_pop(&s->coll_out[port]);
    if (!s->coll_out[port].n)
        s->coll_out_held &= ~(1u << port);
    return k;
}

static mf_pkt_t *take(mf_switch_t *s, int port, unsigned i, unsigned nvc, uint64_t now)
{
    unsigned nin = (unsigned)s->nports * nvc;
    if (i < nin)
        return mf_l1_pop(s, i, now);
    if (i == nin)
        return pop_coll_out(s, port);
    return mf_pq_pop(&s->eng[i - nin - 1]->tx);
}

static int wants(const mf_pkt_t *k, int port, uint64_t now)
{
    return k && k->out_port == port && k->ready <= now;
}

/* Try requester i for `port`; 1 if granted. */
static int grant(mf_switch_t *s, int port, unsigned i, unsigned nvc, unsigned ncand, uint64_t now)
{
    mf_pkt_t *k = candidate(s, port, i, nvc);
    if (!wants(k, port, now) || mf_vc_alloc(s, k, now) < 0)
        return 0;
    take(s, port, i, nvc, now);
    s->out[port].rr = (i + 1) % ncand;
    mf_l1_traverse(s, port, k, now);
    return 1;
}

/* Round robin over a bit set: first requester at or after rr, wrapping. */
static void arbitrate(mf_switch_t *s, int port, const uint64_t *bits, unsigned nvc,
                      unsigned ncand, uint64_t now)
{
    unsigned rr = s->out[port].rr, words = (ncand + 63) / 64;
    for (unsigned pass = 0; pass < 2; pass++) {
        unsigned lo = pass ? 0 : rr, hi = pass ? rr : ncand;
        for (unsigned w = lo / 64; w < words && w * 64 < hi; w++) {
            uint64_t m = bits[w];
            if (w == lo / 64 && lo % 64)
                m &= ~0ull << (lo % 64);
            while (m) {
                unsigned i = w * 64 + (unsigned)__builtin_ctzll(m);
                if (i >= hi)
                    break;
                if (grant(s, port, i, nvc, ncand, now))
                    return;
                m &= m - 1;
            }
        }
    }
}

/* Fallback for switches with more requesters than the bit set holds. */
static void arbitrate_scan(mf_switch_t *s, int port, unsigned nvc, unsigned ncand, uint64_t now)
{
    for (unsigned j = 0; j < ncand; j++)
        if (grant(s, port, (s->out[port].rr + j) % ncand, nvc, ncand, now))
            return;
}

/* Record requester i for port; a port's bit set is cleared on first use. */
static void request(requests_t *r, uint32_t *ports, int port, unsigned i)
{
    if (!(*ports & (1u << port)))
        for (unsigned w = 0; w < WORDS; w++)
            r->bits[port][w] = 0;
    *ports |= 1u << port;
    r->bits[port][i / 64] |= 1ull << (i % 64);
}

void mf_sw_alloc(mf_switch_t *s, uint64_t now)
{
    unsigned nvc = s->net->p.vcs;
    unsigned nin = (unsigned)s->nports * nvc, ncand = nin + 1 + (unsigned)s->nengines;
    if (ncand > MAX_CAND) {
        for (int p = 0; p < s->nports; p++)
            if (s->out[p].connected && mf_link_free(&s->out[p].link, now + s->net->stage + 1))
                arbitrate_scan(s, p, nvc, ncand, now);
        return;
    }
    requests_t r;
    uint32_t ports = 0; /* outputs with at least one request */
    for (unsigned w = 0; w < (nin + 63) / 64; w++) { /* input VCs holding packets */
        for (uint64_t m = s->vc_held[w]; m; m &= m - 1) {
            unsigned i = w * 64 + (unsigned)__builtin_ctzll(m);
            mf_pkt_t *k = mf_fifo_head(mf_l1_fifo(s, i));
            if (k->out_port >= 0 && k->ready <= now)
                request(&r, &ports, k->out_port, i);
        }
    }
    for (uint32_t m = s->coll_out_held; m; m &= m - 1) {
        int p = __builtin_ctz(m);
        if (wants(s->coll_out[p].head, p, now))
            request(&r, &ports, p, nin);
    }
    for (int e = 0; e < s->nengines; e++) {
        mf_pkt_t *k = s->eng[e]->tx.head;
        if (k && k->out_port >= 0 && k->ready <= now)
            request(&r, &ports, k->out_port, nin + 1 + (unsigned)e);
    }
    while (ports) {
        int p = __builtin_ctz(ports);
        ports &= ports - 1;
        if (mf_link_free(&s->out[p].link, now + s->net->stage + 1))
            arbitrate(s, p, r.bits[p], nvc, ncand, now);
    }
}
