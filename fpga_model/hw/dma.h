/*
 * DMA engine / packet converter (001 sec. 2.5, 3.1, fig. 3; dma.c): reads
 * a call's send buffer into its HOST streams through the node's host port
 * (hw/ports.h; the CCM asks through its read call port), and ends the
 * journey of unicast packets ejected to it (their statistics).
 */
#ifndef MF_HW_DMA_H
#define MF_HW_DMA_H

#include "hw/ports.h"

/* A switch's DMA read side. */
typedef struct {
    mf_stream_pool_t *streams;
    uint64_t window; /* bytes in flight per stream */
} mf_dma_reader_t;

/* Unicast packets ejected to one engine. */
typedef struct {
    uint64_t pkts, lat_sum, lat_max, phits;
} mf_dma_rx_t;

/* Issue this cycle's reads of c's HOST streams (round robin). */
void mf_dma_read_sources(mf_dma_reader_t *r, mf_coll_t *c, uint64_t now);
/* Count unicast packet k, ejected at cycle now. */
void mf_dma_receive(mf_dma_rx_t *rx, const mf_pkt_t *k, uint64_t now);

#endif
