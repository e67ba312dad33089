/*
 * Network packets as the model carries them: the decoded 6-byte header of
 * include/mpifpga/wire.h plus the payload and timing bookkeeping.  At its
 * destination engine a packet's payload is copied into a collector stream
 * buffer and the packet is recycled.
 */
#ifndef MF_PKT_H
#define MF_PKT_H

#include <stddef.h>
#include <stdint.h>
#include "mpifpga/wire.h"
#include "sim/engine.h"

typedef struct mf_pkt {
    struct mf_pkt *next;
    mf_net_hdr_t h;
    uint16_t src;      /* source global rank: model bookkeeping, not on the wire */
    uint16_t nphits;   /* payload phits (0 for a header-only packet) */
    int8_t out_port;   /* route computation result (-1: eject; < MF_MAX_NET_PORTS) */
    uint8_t out_vc;    /* VC on the output link (chosen with the route) */
    uint8_t in_vc;     /* VC it occupies at this hop */
    int8_t in_port;    /* network port it arrived on, -1 if injected here */
    uint32_t len : 31; /* valid payload bytes (mf_pkt_data) */
    uint32_t zero : 1; /* the payload is not filled: a collective's payload of
                        * zeros (flow.c), or synthetic and baseline traffic's */
    uint64_t ready;    /* cycle from which the head may be used here */
    uint64_t tail_fx;  /* 16.16 fixed-point cycle the tail is here */
    union {            /* about the packet behind it (next), so that a pop
                        * learns it without loading that packet: */
        uint64_t next_at;  /* on a link: its head arrival (link.c) */
        int16_t next_out;  /* in an input VC FIFO: its output port (l1_switch.c) */
    };
    uint64_t born;     /* cycle the packet was created (latency stats) */
    /* one cache line in all: a packet in flight costs one line (pkt.c) */
} mf_pkt_t;

/* Packets come in slabs of MF_PKT_SLAB_BYTES, aligned to that size: this
 * header in the first line, then one packet a line.  A packet's payload is
 * found from its own address (its slab, its index there), so the packet
 * needs no pointer to it and fits one line. */
#define MF_PKT_LINE 64
#define MF_PKT_SLAB_BYTES 16384
typedef struct mf_pkt_slab {
    struct mf_pkt_slab *next;
    uint8_t *payload;     /* mapped: payload_bytes, payload_cap a packet */
    size_t payload_bytes;
    size_t payload_cap;
} mf_pkt_slab_t;

/* The payload of a packet from mf_pkt_alloc: capacity the pool's
 * payload_cap, len bytes valid. */
static inline uint8_t *mf_pkt_data(const mf_pkt_t *k)
{
    uintptr_t a = (uintptr_t)k;
    const mf_pkt_slab_t *s = (const mf_pkt_slab_t *)(a & ~(uintptr_t)(MF_PKT_SLAB_BYTES - 1));
    return s->payload + ((a - (uintptr_t)s) / MF_PKT_LINE - 1) * s->payload_cap;
}

/* One thread's free list and slabs (a packet is freed on the thread of the
 * switch that holds it last, often not the one that allocated it). */
typedef struct {
    mf_pkt_t *free;
    struct mf_pkt_slab *slabs; /* allocated in slabs (pkt.c), freed by mf_pool_fini */
    int64_t live;      /* allocated minus freed on this thread */
    char pad[40];      /* a cache line each */
} mf_pool_local_t;

typedef struct {
    size_t payload_cap;
    size_t peak;       /* packets in use at once, as of mf_pool_note_peak */
    mf_pool_local_t loc[MF_SIM_MAX_THREADS]; /* by mf_sim_tid */
} mf_pool_t;

void mf_pool_init(mf_pool_t *p, size_t payload_cap);
void mf_pool_fini(mf_pool_t *p);
mf_pkt_t *mf_pkt_alloc(mf_pool_t *p); /* NULL on out-of-memory */
void mf_pkt_free(mf_pool_t *p, mf_pkt_t *k);
/* Packets in use now, over threads [0, nthreads) (the only ones that
 * allocate or free); mf_pool_note_peak folds it into peak (the engine
 * calls it after every parallel phase). */
size_t mf_pool_live(const mf_pool_t *p, int nthreads);
void mf_pool_note_peak(mf_pool_t *p, int nthreads);

/* Singly linked packet queue. */
typedef struct {
    mf_pkt_t *head, *tail;
    size_t n;
} mf_pq_t;

static inline void mf_pq_push(mf_pq_t *q, mf_pkt_t *k)
{
    k->next = NULL;
    if (q->tail)
        q->tail->next = k;
    else
        q->head = k;
    q->tail = k;
    q->n++;
}

static inline mf_pkt_t *mf_pq_pop(mf_pq_t *q)
{
    mf_pkt_t *k = q->head;
    if (k) {
        q->head = k->next;
        if (!q->head)
            q->tail = NULL;
        q->n--;
        k->next = NULL;
    }
    return k;
}

/* Pop q's head and start loading the new head, for queues whose head is
 * looked at again soon (a link's, a FIFO's, an injection queue's).  It
 * does not reach further: the packet behind the new head is only known by
 * loading the new head, and waiting for that load here stalled the pop
 * (perf: most of mf_fifo_pop's time). */
static inline mf_pkt_t *mf_pq_pop_ahead(mf_pq_t *q)
{
    mf_pkt_t *k = mf_pq_pop(q);
    if (q->head)
        __builtin_prefetch(q->head);
    return k;
}

/* Fixed-point cycle helpers (16 fractional bits). */
#define MF_FX_ONE 65536ull
static inline uint64_t mf_fx(uint64_t cycle) { return cycle << 16; }
static inline uint64_t mf_fx_ceil(uint64_t fx) { return (fx + MF_FX_ONE - 1) >> 16; }

#endif
