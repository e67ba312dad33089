/*
 * Switch allocation (001 sec. 4.3: round-robin arbitration).  For every
 * output port whose link is free, the requesters -- input VC heads routed
 * there, the L2 output queue of that port, and the packet converters'
 * injection queues -- are served round robin; one packet starts per port per
 * cycle.  The Eject port has no arbiter (001 sec. 4.3): see l1_switch.c.
 *
 * Requesters are numbered: input port p, VC v -> p * nvc + v; then the L2
 * queue; then the converters.  One pass over the input VCs that hold packets
 * (l->vc_held) collects each output's requests as a bit set, so arbitration
 * costs one scan of the heads per cycle.  A port counts as free if its
 * serialiser frees up by the cycle after a packet granted now has traversed
 * the switch: the output FIFO behind the L1 switch (001 sec. 4.3) holds it
 * meanwhile, so the link runs back to back.
 */
#include "hw/l1_switch.h"

#define MAX_CAND 256 /* MF_MAX_NET_PORTS * MF_MAX_VCS; converters beyond are rare */
#define WORDS (MAX_CAND / 64)

typedef struct {
    uint64_t bits[MF_MAX_NET_PORTS][WORDS];
} requests_t;

static mf_pkt_t *candidate(mf_l1_t *l, int port, unsigned i, unsigned nvc)
{
    unsigned nin = (unsigned)l->nports * nvc;
    if (i < nin)
        return mf_fifo_head(mf_l1_fifo(l, i));
    if (i == nin)
        return l->l2_out[port].head;
    return l->tx[i - nin - 1]->head;
}

static mf_pkt_t *pop_l2_out(mf_l1_t *l, int port)
{
    mf_pkt_t *k = mf_pq_pop(&l->l2_out[port]);
    if (!l->l2_out[port].n)
        l->l2_held &= ~(1u << port);
    return k;
}

static mf_pkt_t *take(mf_l1_t *l, int port, unsigned i, unsigned nvc, uint64_t now)
{
    unsigned nin = (unsigned)l->nports * nvc;
    if (i < nin)
        return mf_l1_pop(l, i, now);
    if (i == nin)
        return pop_l2_out(l, port);
    return mf_pq_pop_ahead(l->tx[i - nin - 1]);
}

static int wants(const mf_pkt_t *k, int port, uint64_t now)
{
    return k && k->out_port == port && k->ready <= now;
}

/* Try requester i for `port`; 1 if granted. */
static int grant(mf_l1_t *l, int port, unsigned i, unsigned nvc, unsigned ncand, uint64_t now)
{
    mf_pkt_t *k = candidate(l, port, i, nvc);
    if (!wants(k, port, now) || mf_vc_stopped(l, k, now)) /* VA: k->out_vc is free */
        return 0;
    take(l, port, i, nvc, now);
    l->out[port].rr = i + 1 == ncand ? 0 : i + 1; /* i < ncand */
    l->out[port].rr_epoch = l->epoch;
    mf_l1_traverse(l, port, k, now);
    return 1;
}

/* Could requester i -- if a set bit of `bits`, or any when bits is NULL --
 * be granted `port` now?  The checks grant() makes, without its effects:
 * wants() and the downstream stop. */
static int grantable(mf_l1_t *l, int port, const uint64_t *bits, unsigned i, unsigned nvc,
                     uint64_t now)
{
    if (bits && !(bits[i / 64] >> (i % 64) & 1))
        return 0;
    mf_pkt_t *k = candidate(l, port, i, nvc);
    return wants(k, port, now) && !mf_vc_stopped(l, k, now);
}

/* Arbitration for `port` among several requesters with a round-robin
 * pointer set before this epoch (coll/iter.c: what decides whether an
 * iteration repeats): the winner is the first requester at or after the
 * pointer that can be granted, as in the arbiters below.  If two or more
 * can be granted, the pointer decides: note the pointers that choose the
 * same winner: a cyclic range, from the one after the grantable
 * requester before the winner up to the winner.  The grant sets the
 * pointer, so a port makes one such choice per epoch; one with nothing to
 * grant costs what the arbiters' own tries would. */
static int choose_with_found_pointer(mf_l1_t *l, int port, const uint64_t *bits,
                                     unsigned nvc, unsigned ncand, uint64_t now)
{
    mf_outport_t *o = &l->out[port];
    unsigned w = o->rr, tried = 0;
    while (tried < ncand && !grantable(l, port, bits, w, nvc, now))
        w = w + 1 == ncand ? 0 : w + 1, tried++;
    if (tried == ncand)
        return 0; /* none can be granted */
    unsigned g = w;
    do
        g = g ? g - 1 : ncand - 1;
    while (g != w && !grantable(l, port, bits, g, nvc, now));
    if (g != w) { /* else the winner from any pointer */
        o->rr_lo = g + 1 == ncand ? 0 : g + 1;
        o->rr_hi = w;
        o->rr_decided = l->epoch;
    }
    return grant(l, port, w, nvc, ncand, now); /* grants: w is grantable */
}

static inline int found_pointer(const mf_l1_t *l, int port)
{
    return l->out[port].rr_epoch != l->epoch;
}

/* Round robin over a bit set: first requester at or after rr, wrapping; 1
 * if it granted. */
static int arbitrate(mf_l1_t *l, int port, const uint64_t *bits, unsigned nvc,
                      unsigned ncand, uint64_t now)
{
    unsigned rr = l->out[port].rr, words = (ncand + 63) / 64;
    if (found_pointer(l, port)) {
        unsigned nreq = 0;
        for (unsigned w = 0; w < words; w++)
            nreq += (unsigned)__builtin_popcountll(bits[w]);
        if (nreq > 1)
            return choose_with_found_pointer(l, port, bits, nvc, ncand, now);
    }
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
                if (grant(l, port, i, nvc, ncand, now))
                    return 1;
                m &= m - 1;
            }
        }
    }
    return 0;
}

/* Fallback for switches with more requesters than the bit set holds. */
static int arbitrate_scan(mf_l1_t *l, int port, unsigned nvc, unsigned ncand, uint64_t now)
{
    if (found_pointer(l, port)) /* requesters not counted: assume several */
        return choose_with_found_pointer(l, port, NULL, nvc, ncand, now);
    for (unsigned j = 0; j < ncand; j++)
        if (grant(l, port, (l->out[port].rr + j) % ncand, nvc, ncand, now))
            return 1;
    return 0;
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

/* Round robin over one word of requesters (ncand <= 64): those at or after
 * rr first, then the rest, each in ascending order, as arbitrate(). */
static int arbitrate_word(mf_l1_t *l, int port, uint64_t bits, unsigned nvc, unsigned ncand,
                          uint64_t now)
{
    if ((bits & (bits - 1)) && found_pointer(l, port))
        return choose_with_found_pointer(l, port, &bits, nvc, ncand, now);
    uint64_t late = bits & (~0ull << l->out[port].rr); /* rr < ncand <= 64 */
    while (bits) {
        unsigned i = (unsigned)__builtin_ctzll(late ? late : bits);
        if (grant(l, port, i, nvc, ncand, now))
            return 1;
        late &= ~(1ull << i);
        bits &= ~(1ull << i);
    }
    return 0;
}

/* Switches with at most 64 requesters (a torus switch has 6 ports x VCs,
 * the L2 queue and its converters): each output's requests in one word. */
static int alloc_word(mf_l1_t *l, unsigned nin, unsigned ncand, uint64_t now)
{
    unsigned nvc = l->vcs;
    uint64_t bits[MF_MAX_NET_PORTS];
    uint32_t ports = 0;
#define REQUEST(p_, i_)                                                              \
    do {                                                                             \
        uint32_t pb_ = 1u << (p_);                                                   \
        if (!(ports & pb_))                                                          \
            bits[p_] = 0;                                                            \
        bits[p_] |= 1ull << (i_);                                                    \
        ports |= pb_;                                                                \
    } while (0)
    /* held VCs whose head is routed on (eject heads are the others) */
    for (uint64_t m = l->vc_held[0] & ~l->eject_head[0]; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        mf_pkt_t *k = mf_fifo_head(mf_l1_fifo(l, i));
        if (k->ready <= now)
            REQUEST(k->out_port, i);
    }
    for (uint32_t m = l->l2_held; m; m &= m - 1) {
        int p = __builtin_ctz(m);
        if (wants(l->l2_out[p].head, p, now))
            REQUEST(p, nin);
    }
    for (int e = 0; e < l->nengines; e++) {
        mf_pkt_t *k = l->tx[e]->head;
        if (k && k->out_port >= 0 && k->ready <= now)
            REQUEST(k->out_port, nin + 1 + (unsigned)e);
    }
#undef REQUEST
    int granted = 0;
    while (ports) {
        int p = __builtin_ctz(ports);
        ports &= ports - 1;
        if (mf_link_free(&l->out[p].link, now + l->stage + 1))
            granted += arbitrate_word(l, p, bits[p], nvc, ncand, now);
    }
    return granted;
}

int mf_sw_alloc(mf_l1_t *l, uint64_t now)
{
    unsigned nvc = l->vcs;
    unsigned nin = (unsigned)l->nports * nvc, ncand = nin + 1 + (unsigned)l->nengines;
    if (ncand <= 64)
        return alloc_word(l, nin, ncand, now);
    int granted = 0;
    if (ncand > MAX_CAND) {
        for (int p = 0; p < l->nports; p++)
            if (l->out[p].connected && mf_link_free(&l->out[p].link, now + l->stage + 1))
                granted += arbitrate_scan(l, p, nvc, ncand, now);
        return granted;
    }
    requests_t r;
    uint32_t ports = 0; /* outputs with at least one request */
    for (unsigned w = 0; w < (nin + 63) / 64; w++) { /* input VCs holding packets */
        for (uint64_t m = l->vc_held[w]; m; m &= m - 1) {
            unsigned i = w * 64 + (unsigned)__builtin_ctzll(m);
            mf_pkt_t *k = mf_fifo_head(mf_l1_fifo(l, i));
            if (k->out_port >= 0 && k->ready <= now)
                request(&r, &ports, k->out_port, i);
        }
    }
    for (uint32_t m = l->l2_held; m; m &= m - 1) {
        int p = __builtin_ctz(m);
        if (wants(l->l2_out[p].head, p, now))
            request(&r, &ports, p, nin);
    }
    for (int e = 0; e < l->nengines; e++) {
        mf_pkt_t *k = l->tx[e]->head;
        if (k && k->out_port >= 0 && k->ready <= now)
            request(&r, &ports, k->out_port, nin + 1 + (unsigned)e);
    }
    while (ports) {
        int p = __builtin_ctz(ports);
        ports &= ports - 1;
        if (mf_link_free(&l->out[p].link, now + l->stage + 1))
            granted += arbitrate(l, p, r.bits[p], nvc, ncand, now);
    }
    return granted;
}
