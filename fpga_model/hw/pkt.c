/* Packet pool: packets are recycled, never freed during a run. */
#include "hw/pkt.h"

#include <stdlib.h>

void mf_pool_init(mf_pool_t *p, size_t payload_cap)
{
    *p = (mf_pool_t){.payload_cap = payload_cap};
}

void mf_pool_fini(mf_pool_t *p)
{
    for (int t = 0; t < MF_SIM_MAX_THREADS; t++)
        while (p->loc[t].free) {
            mf_pkt_t *n = p->loc[t].free->next;
            free(p->loc[t].free);
            p->loc[t].free = n;
        }
}

mf_pkt_t *mf_pkt_alloc(mf_pool_t *p)
{
    mf_pool_local_t *l = &p->loc[mf_sim_tid];
    mf_pkt_t *k = l->free;
    if (k) {
        l->free = k->next;
    } else {
        /* header and payload in one allocation */
        k = malloc(sizeof *k + p->payload_cap);
        if (!k)
            return NULL;
        k->data = (uint8_t *)(k + 1);
    }
    uint8_t *data = k->data;
    *k = (mf_pkt_t){.data = data};
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

size_t mf_pool_live(const mf_pool_t *p)
{
    int64_t live = 0;
    for (int t = 0; t < MF_SIM_MAX_THREADS; t++)
        live += p->loc[t].live;
    return (size_t)live;
}

void mf_pool_note_peak(mf_pool_t *p)
{
    size_t live = mf_pool_live(p);
    if (live > p->peak)
        p->peak = live;
}
