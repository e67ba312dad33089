/*
 * DMA engine / packet converter (001 sec. 2.5, 3.1, fig. 3): moves
 * processor-packet payload between host memory and the switch over PCIe at
 * dma_phits_per_cycle, one engine per node shared by its ranks.  Reads for
 * the streams a collective needs from the send buffer are issued round
 * robin, each landing pcie_latency later; writes of results land in the
 * receive buffer pcie_latency after they leave the switch.  Unicast packets
 * ejected here end their journey (synthetic traffic statistics).
 */
#include <string.h>

#include "hw/dma.h"

static void host_read(mf_coll_t *c, uint64_t off, uint8_t *dst, size_t len)
{
    const mf_buf_t *b = &c->req.send;
    if (b->base) {
        if (off + len <= b->len) {
            memcpy(dst, (const uint8_t *)b->base + off, len);
            return;
        }
        mf_status_fail(&c->status, "send buffer too small: need %llu bytes, have %zu",
                    (unsigned long long)(off + len), b->len);
        memset(dst, 0, len);
    } else if (b->read) {
        b->read(b->ctx, off, dst, len);
    } else {
        memset(dst, 0, len); /* timing-only run: no payload */
    }
}

/* Reads in flight per stream are capped (r->window) so one stream cannot
 * hog the DMA and a multi-megabyte read is not materialised at once. */
static int read_one(mf_dma_reader_t *r, mf_coll_t *c, mf_stream_t *st, uint64_t now)
{
    mf_host_port_t *d = c->host;
    if (st->issued == st->len || !mf_stream_read_room(st, r->window) || d->rd_left == 0)
        return 0;
    uint64_t m = st->len - st->issued;
    if (m > d->rd_left)
        m = d->rd_left; /* at most one cycle's DMA bytes */
    uint64_t ready;
    if (!c->req.send.base && !c->req.send.read) { /* timing-only run: zeros */
        ready = mf_stream_push(r->streams, st, NULL, (size_t)m, now + d->pcie);
    } else {
        uint8_t data[m];
        host_read(c, st->host_off + st->issued, data, (size_t)m);
        ready = mf_stream_push(r->streams, st, data, (size_t)m, now + d->pcie);
    }
    st->issued += m;
    d->rd_left -= (uint32_t)m;
    if (st->issued == st->len) {
        st->closed = 1;
        c->reads_left--;
        if (ready > c->host_done)
            c->host_done = ready;
    }
    return 1;
}

/* Round robin over the HOST streams in index order.  c->rd_st lists the
 * ones not read completely (a finished one would read nothing). */
static __attribute__((noinline)) void read_pass(mf_dma_reader_t *r, mf_coll_t *c, uint64_t now)
{
    mf_host_budgets(c->host, now);
    int progress = 1;
    while (progress && c->host->rd_left) {
        progress = 0;
        int m = 0;
        for (int j = 0; j < c->nrd; j++) {
            mf_stream_t *st = &c->st[c->rd_st[j]];
            progress |= read_one(r, c, st, now);
            if (st->issued < st->len)
                c->rd_st[m++] = c->rd_st[j];
        }
        c->nrd = m;
    }
}

/* Has one of c's unfinished HOST streams room in its read window? */
static int window_room(const mf_dma_reader_t *r, const mf_coll_t *c)
{
    for (int j = 0; j < c->nrd; j++)
        if (mf_stream_read_room(&c->st[c->rd_st[j]], r->window))
            return 1;
    return 0;
}

/* c->read_room tells the CCM whether a read may follow next cycle: after
 * one that read, if a window still has room (this cycle's bytes ran out
 * first); when every window is full, only a flow taking bytes from a
 * stream (flow.c wakes the switch then) makes room.  (Looking again after
 * every read ran a switch whose reads had just filled the windows once
 * more for nothing: a million runs of the 8x8x8 1 MiB Allreduce.) */
void mf_dma_read_sources(mf_dma_reader_t *r, mf_coll_t *c, uint64_t now)
{
    /* Mostly every stream has a full window in flight: then nothing is read
     * and the budgets (reset lazily by whoever uses them) need no look. */
    if (!window_room(r, c)) {
        c->read_room = 0;
        return;
    }
    read_pass(r, c, now);
    c->read_room = window_room(r, c) || r->streams->wake.sim->full_wakes;
}

void mf_dma_receive(mf_dma_rx_t *rx, const mf_pkt_t *k, uint64_t now)
{
    uint64_t tail = mf_fx_ceil(k->tail_fx);
    uint64_t lat = (tail > now ? tail : now) - k->born;
    rx->pkts++;
    rx->phits += k->nphits;
    rx->lat_sum += lat;
    if (lat > rx->lat_max)
        rx->lat_max = lat;
}
