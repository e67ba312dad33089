/*
 * Transceiver link (001 sec. 6, Table 2; 000 sec. 3.4): fixed latency plus
 * optional Gaussian jitter (000 Table 3.3), bandwidth as a serialisation rate
 * in bytes per cycle.  Every packet pays its 6-byte header on the wire.
 * Delivery order is preserved even with jitter (a lane never reorders).
 */
#ifndef MF_LINK_H
#define MF_LINK_H

#include <stdint.h>
#include "hw/pkt.h"

typedef struct {
    mf_pq_t q;           /* packets on the wire, in arrival order */
    uint64_t head_at;    /* head arrival of q's first packet, MF_NEVER if none */
    uint64_t busy_fx;    /* serialiser free at this fixed-point cycle */
    uint64_t last_head;  /* last head arrival (keeps order under jitter) */
    uint32_t latency;    /* cycles */
    double jitter_sd;    /* cycles, 0 = none */
    uint32_t bpc_fx;     /* bytes per cycle, 16.16 */
    uint64_t rng;        /* per-link deterministic RNG state */
    uint64_t ser_bytes;  /* wire bytes of the last packet sent (0: none yet) */
    uint64_t ser_fx;     /* its serialisation time (saves a division per packet) */
    uint64_t bytes, pkts;
} mf_link_t;

void mf_link_init(mf_link_t *l, uint32_t latency, double jitter_sd_cycles, uint32_t bpc_fx,
                  uint64_t seed);
/* Fixed-point cycles a packet occupies the serialiser. */
uint64_t mf_link_ser_fx(const mf_link_t *l, const mf_pkt_t *k, unsigned phit_bytes);
/* Can a packet start at cycle now? */
static inline int mf_link_free(const mf_link_t *l, uint64_t now) { return l->busy_fx <= mf_fx(now); }
/* The serialiser's part of sending k at cycle now: when its head arrives
 * downstream (returned) and its tail (k->tail_fx); k is not queued. */
uint64_t mf_link_serialise(mf_link_t *l, mf_pkt_t *k, uint64_t now, unsigned phit_bytes);
/* Queue k, whose head arrives at `head` (not before the last one's): the
 * wire's part -- after mf_link_serialise here, or for a packet sent on
 * this link's copy in another domain (net/domain.c). */
static inline void mf_link_put(mf_link_t *l, mf_pkt_t *k, uint64_t head)
{
    /* the tail was sent by this switch a moment ago: still in its cache */
    if (l->q.tail)
        l->q.tail->next_at = head;
    else
        l->head_at = head;
    mf_pq_push(&l->q, k);
}
/* Put k on the wire at cycle now (serialise, then queue); returns the head
 * arrival cycle downstream. */
uint64_t mf_link_send(mf_link_t *l, mf_pkt_t *k, uint64_t now, unsigned phit_bytes);
/* Next packet whose head has arrived by now, or NULL. */
mf_pkt_t *mf_link_recv(mf_link_t *l, uint64_t now);
/* Head arrival of the first packet on the wire, MF_NEVER if none. */
static inline uint64_t mf_link_next_arrival(const mf_link_t *l) { return l->head_at; }

#endif
