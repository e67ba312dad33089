/*
 * Collectors (001 sec. 4.3; collector.c), one per engine: collective
 * packets for it arrive on its packet port (from the L1 switch's eject, or
 * the L2's loopback) and are demultiplexed by (context, tag) into the
 * running call's streams, or parked until the call starts (the CCM's call
 * port hands it over).
 */
#ifndef MF_HW_COLLECTOR_H
#define MF_HW_COLLECTOR_H

#include "hw/ports.h"

typedef struct {
    mf_coll_t *const *cur;       /* the engine's running call per context (the CCM's) */
    mf_stream_pool_t *streams;
    mf_pool_t *pkts;
    uint32_t cycles;             /* collector latency */
    mf_pq_t parked[MF_MAX_CTX];  /* packets that came before their call */
} mf_collector_t;

void mf_collector_accept(mf_collector_t *col, mf_pkt_t *k, uint64_t now);
/* Move the packets parked for c's context into its streams. */
void mf_collector_adopt_parked(mf_collector_t *col, mf_coll_t *c);

#endif
