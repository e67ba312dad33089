/* Transceiver link model; see link.h. */
#include "hw/link.h"

#include <math.h>

void mf_link_init(mf_link_t *l, uint32_t latency, double jitter_sd_cycles, uint32_t bpc_fx,
                  uint64_t seed)
{
    *l = (mf_link_t){.latency = latency, .jitter_sd = jitter_sd_cycles, .bpc_fx = bpc_fx,
                     .head_at = MF_NEVER};
    l->rng = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
}

static uint64_t next_u64(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Standard normal sample (Box-Muller), deterministic per link. */
static double gauss(uint64_t *s)
{
    double u1 = ((next_u64(s) >> 11) + 1.0) / 9007199254740993.0;
    double u2 = (next_u64(s) >> 11) / 9007199254740992.0;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t mf_link_ser_fx(const mf_link_t *l, const mf_pkt_t *k, unsigned phit_bytes)
{
    uint64_t bytes = (uint64_t)k->nphits * phit_bytes + MF_NET_HDR_BYTES;
    return (bytes * MF_FX_ONE * MF_FX_ONE + l->bpc_fx - 1) / l->bpc_fx;
}

static uint32_t sample_latency(mf_link_t *l)
{
    if (l->jitter_sd <= 0)
        return l->latency;
    double v = l->latency + l->jitter_sd * gauss(&l->rng);
    return v < 1 ? 1 : (uint32_t)llround(v);
}

uint64_t mf_link_serialise(mf_link_t *l, mf_pkt_t *k, uint64_t now, unsigned phit_bytes)
{
    uint64_t start = mf_fx(now) > l->busy_fx ? mf_fx(now) : l->busy_fx;
    uint64_t bytes = (uint64_t)k->nphits * phit_bytes + MF_NET_HDR_BYTES;
    if (bytes != l->ser_bytes) { /* packets of one size follow each other */
        l->ser_bytes = bytes;
        l->ser_fx = mf_link_ser_fx(l, k, phit_bytes);
    }
    uint64_t end = start + l->ser_fx;
    if (end < k->tail_fx) /* cut-through: the tail cannot leave before it came in */
        end = k->tail_fx;
    l->busy_fx = end;
    uint32_t lat = sample_latency(l);
    uint64_t head = mf_fx_ceil(start) + lat;
    if (head < l->last_head)
        head = l->last_head;
    l->last_head = head;
    k->tail_fx = end + mf_fx(lat);
    if (k->tail_fx < mf_fx(head))
        k->tail_fx = mf_fx(head);
    l->bytes += bytes;
    l->pkts++;
    return head;
}

uint64_t mf_link_send(mf_link_t *l, mf_pkt_t *k, uint64_t now, unsigned phit_bytes)
{
    uint64_t head = mf_link_serialise(l, k, now, phit_bytes);
    mf_link_put(l, k, head);
    return head;
}

mf_pkt_t *mf_link_recv(mf_link_t *l, uint64_t now)
{
    if (l->head_at > now)
        return NULL; /* none, or the first has not arrived */
    mf_pkt_t *k = mf_pq_pop_ahead(&l->q);
    l->head_at = l->q.head ? k->next_at : MF_NEVER;
    return k;
}
