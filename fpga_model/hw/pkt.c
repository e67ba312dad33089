/* Packet pool: packets are recycled, never freed during a run. */
#include "hw/pkt.h"

#include <stdlib.h>

void mf_pool_init(mf_pool_t *p, size_t payload_cap, size_t small_cap)
{
    *p = (mf_pool_t){.payload_cap = payload_cap,
                     .small_cap = small_cap < payload_cap ? small_cap : payload_cap};
}

static void free_list(mf_pkt_t *k)
{
    while (k) {
        mf_pkt_t *n = k->next;
        free(k);
        k = n;
    }
}

void mf_pool_fini(mf_pool_t *p)
{
    free_list(p->free);
    free_list(p->free_small);
    p->free = p->free_small = NULL;
}

static mf_pkt_t *take(mf_pool_t *p, mf_pkt_t **list, size_t cap, uint8_t small)
{
    mf_pkt_t *k = *list;
    if (k) {
        *list = k->next;
    } else {
        /* header and payload in one allocation */
        k = malloc(sizeof *k + cap);
        if (!k)
            return NULL;
        k->data = (uint8_t *)(k + 1);
    }
    uint8_t *data = k->data;
    *k = (mf_pkt_t){.data = data, .small = small};
    if (++p->live > p->peak)
        p->peak = p->live;
    return k;
}

mf_pkt_t *mf_pkt_alloc(mf_pool_t *p) { return take(p, &p->free, p->payload_cap, 0); }
mf_pkt_t *mf_chunk_alloc(mf_pool_t *p) { return take(p, &p->free_small, p->small_cap, 1); }

void mf_pkt_free(mf_pool_t *p, mf_pkt_t *k)
{
    mf_pkt_t **list = k->small ? &p->free_small : &p->free;
    k->next = *list;
    *list = k;
    p->live--;
}
