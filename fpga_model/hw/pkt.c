/* Packet pool: packets are recycled, never freed during a run.
 *
 * Packets come in slabs (pkt.h mf_pkt_slab_t): the packets of a slab side
 * by side, one cache line each, the payloads in a block of their own.  A
 * packet in flight then costs one line of cache, and its neighbours in
 * memory are other packets, not lines nobody reads per hop: with a
 * second line for a payload pointer, 8x8x8 uniform traffic at 0.6 took
 * 3.57 s against 3.15 s (one thread, side by side, 4 runs each), 4x4x4
 * at 0.85 2.69 against 2.59 s; the prefetchers fetch lines in pairs.
 *
 * The payload blocks are mapped apart from the heap: a timing run never
 * writes most payloads (a packet of zeros only counts them, pk->zero), so
 * their pages are never backed -- unless they sit on the heap's 2 MiB
 * pages (sim/hugepages.c) between slab headers that are written, which
 * back them whole (16x16x16 256 KiB Allreduce: 1,085 MB peak RSS with
 * payloads on the heap). */
#include "hw/pkt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SLAB_PKTS (MF_PKT_SLAB_BYTES / MF_PKT_LINE - 1) /* after the header line */

_Static_assert(sizeof(mf_pkt_t) <= MF_PKT_LINE, "a packet fits one cache line");
_Static_assert(sizeof(mf_pkt_slab_t) <= MF_PKT_LINE, "a slab's header fits one line");

void mf_pool_init(mf_pool_t *p, size_t payload_cap)
{
    *p = (mf_pool_t){.payload_cap = payload_cap};
}

void mf_pool_fini(mf_pool_t *p)
{
    for (int t = 0; t < MF_SIM_MAX_THREADS; t++) {
        mf_pool_local_t *l = &p->loc[t];
        while (l->slabs) {
            mf_pkt_slab_t *s = l->slabs;
            l->slabs = s->next;
            munmap(s->payload, s->payload_bytes);
            free(s);
        }
        l->free = NULL;
    }
}

/* A slab of SLAB_PKTS packets onto l's free list, the first one on top. */
static int add_slab(mf_pool_t *p, mf_pool_local_t *l)
{
    mf_pkt_slab_t *s = aligned_alloc(MF_PKT_SLAB_BYTES, MF_PKT_SLAB_BYTES);
    size_t bytes = SLAB_PKTS * (p->payload_cap ? p->payload_cap : 1);
    uint8_t *payload = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    if (!s || payload == MAP_FAILED) {
        free(s);
        if (payload != MAP_FAILED)
            munmap(payload, bytes);
        return -1;
    }
    s->payload = payload;
    s->payload_bytes = bytes;
    s->payload_cap = p->payload_cap;
    s->next = l->slabs;
    l->slabs = s;
    for (int i = SLAB_PKTS - 1; i >= 0; i--) {
        mf_pkt_t *k = (mf_pkt_t *)((uint8_t *)s + MF_PKT_LINE * (size_t)(i + 1));
        k->next = l->free;
        l->free = k;
    }
    return 0;
}

mf_pkt_t *mf_pkt_alloc(mf_pool_t *p)
{
    mf_pool_local_t *l = &p->loc[mf_sim_tid];
    if (!l->free && add_slab(p, l))
        return NULL;
    mf_pkt_t *k = l->free;
    l->free = k->next;
    memset(k, 0, sizeof *k);
    l->live++;
    return k;
}

void mf_pkt_free(mf_pool_t *p, mf_pkt_t *k)
{
    mf_pool_local_t *l = &p->loc[mf_sim_tid];
    k->next = l->free;
    l->free = k;
    l->live--;
}

size_t mf_pool_live(const mf_pool_t *p, int nthreads)
{
    int64_t live = 0;
    for (int t = 0; t < nthreads; t++)
        live += p->loc[t].live;
    return (size_t)live;
}

void mf_pool_note_peak(mf_pool_t *p, int nthreads)
{
    size_t live = mf_pool_live(p, nthreads);
    if (live > p->peak)
        p->peak = live;
}
