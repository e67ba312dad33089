/*
 * Collectors (001 sec. 4.3): incoming collective packets for a local engine
 * are demultiplexed by (context, tag) into stream buffers and wait there for
 * the flow that consumes them ("waits for all packets corresponding to the
 * child MPI processes").  Packets that arrive before the local processor has
 * posted its side of the collective are parked, in order, and adopted when
 * it does.  The same stream type carries DMA reads and flow-to-flow links.
 */
#include "hw/collector.h"

/* Hand one NET packet to the current collective's stream for its tag.
 * Returns 1 if taken, 0 if it belongs to a later collective. */
static int deliver(mf_collector_t *col, mf_coll_t *c, mf_pkt_t *k)
{
    int idx = k->h.tag < 32 ? c->tag_stream[k->h.tag] : -1;
    if (idx < 0)
        return 0;
    mf_stream_t *st = &c->st[idx];
    if (st->closed)
        return 0;
    if (k->h.opcode != c->req.hdr.opcode || k->h.op != c->req.hdr.op ||
        k->h.dtype != c->req.hdr.dtype) {
        mf_status_fail(&c->status, "mismatched collective on context %u: got %s/%s/%s from rank %u, "
                       "expected %s/%s/%s",
                    k->h.ctx, mf_opcode_name(k->h.opcode), mf_op_name(k->h.op),
                    mf_dtype_name(k->h.dtype), k->src, mf_opcode_name(c->req.hdr.opcode),
                    mf_op_name(c->req.hdr.op), mf_dtype_name(c->req.hdr.dtype));
    }
    if (st->in + k->len > st->len || (k->h.last && st->in + k->len != st->len)) {
        mf_status_fail(&c->status, "mismatched message size on context %u: rank %u sent %llu+ bytes "
                       "for a %llu-byte stream (tag %u)",
                    k->h.ctx, k->src, (unsigned long long)(st->in + k->len),
                    (unsigned long long)st->len, k->h.tag);
        if (st->in + k->len > st->len)
            k->len = (uint32_t)(st->len - st->in); /* never write past the buffer */
    }
    if (k->h.last)
        st->closed = 1; /* seen by the consumer with the packet's data */
    st->src = k->src + 1; /* whose credits its takes return (ccm_credits.c) */
    mf_stream_push(col->streams, st, k->zero ? NULL : mf_pkt_data(k), k->len, k->ready);
    mf_pkt_free(col->pkts, k);
    return 1;
}

void mf_collector_accept(mf_collector_t *col, mf_pkt_t *k, uint64_t now)
{
    unsigned ctx = k->h.ctx;
    uint64_t ready = now + col->cycles;
    uint64_t tail = mf_fx_ceil(k->tail_fx);
    k->ready = ready > tail ? ready : tail;
    mf_coll_t *c = col->cur[ctx];
    if (col->parked[ctx].n || !c || !deliver(col, c, k)) {
        mf_pq_push(&col->parked[ctx], k);
        if (c)
            mf_collector_adopt_parked(col, c);
        return;
    }
}

/* Move parked packets (in arrival order) into c's streams; packets of a
 * stream that is already closed stay parked for the next collective. */
void mf_collector_adopt_parked(mf_collector_t *col, mf_coll_t *c)
{
    mf_pq_t *pq = &col->parked[c->req.hdr.ctx];
    mf_pq_t keep = {0};
    mf_pkt_t *k;
    while ((k = mf_pq_pop(pq)) != NULL) {
        if (!deliver(col, c, k))
            mf_pq_push(&keep, k);
    }
    *pq = keep;
}
