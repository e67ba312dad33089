/* Packet pool: packets are recycled, never freed during a run. */
#include "hw/pkt.h"

#include <stdlib.h>

void mf_pool_init(mf_pool_t *p, size_t payload_cap)
{
    *p = (mf_pool_t){.payload_cap = payload_cap};
}

void mf_pool_fini(mf_pool_t *p)
{
    while (p->free) {
        mf_pkt_t *n = p->free->next;
        free(p->free);
        p->free = n;
    }
}

mf_pkt_t *mf_pkt_alloc(mf_pool_t *p)
{
    mf_pkt_t *k = p->free;
    if (k) {
        p->free = k->next;
    } else {
        /* header and payload in one allocation */
        k = malloc(sizeof *k + p->payload_cap);
        if (!k)
            return NULL;
        k->data = (uint8_t *)(k + 1);
    }
    uint8_t *data = k->data;
    *k = (mf_pkt_t){.data = data};
    if (++p->live > p->peak)
        p->peak = p->live;
    return k;
}

void mf_pkt_free(mf_pool_t *p, mf_pkt_t *k)
{
    k->next = p->free;
    p->free = k;
    p->live--;
}
