/* The CCM schedule builder's building blocks: streams, flows and sinks of
 * one collective's dataflow (see ccm_build.h). */
#include <stdlib.h>
#include <string.h>

#include "hw/ccm_build.h"

static int grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

static int stream(bld_t *b, int kind, uint64_t len)
{
    mf_coll_t *c = b->c;
    if (grow((void **)&c->st, &c->capst, c->nst + 1, sizeof *c->st)) {
        b->fail = 1;
        return 0;
    }
    mf_stream_t *st = &c->st[c->nst];
    *st = (mf_stream_t){.kind = (uint8_t)kind, .len = len};
    if (kind == MF_ST_INTERNAL && len == 0)
        st->closed = 0; /* closed by its producer's zero-length sink */
    if (kind == MF_ST_HOST && len == 0)
        st->closed = 1;
    return c->nst++;
}

int ccm_host_src(bld_t *b, uint64_t off, uint64_t len)
{
    int s = stream(b, MF_ST_HOST, len);
    if (!b->fail) {
        b->c->st[s].host_off = off;
        b->c->reads_left += len > 0;
    }
    return s;
}

int ccm_net_in(bld_t *b, int tag, uint64_t len)
{
    int s = stream(b, MF_ST_NET, len);
    if (b->fail)
        return 0;
    if (b->c->tag_stream[tag] >= 0) {
        b->fail = 1; /* schedule bug: two streams on one tag */
        return 0;
    }
    b->c->st[s].tag = (uint8_t)tag;
    b->c->tag_stream[tag] = (int16_t)s;
    return s;
}

int ccm_flow(bld_t *b, int kind, uint64_t len, int nin, const int *in)
{
    mf_coll_t *c = b->c;
    if (nin > MF_FLOW_MAXIN || grow((void **)&c->fl, &c->capfl, c->nfl + 1, sizeof *c->fl)) {
        b->fail = 1;
        return 0;
    }
    mf_flow_t *f = &c->fl[c->nfl];
    *f = (mf_flow_t){.kind = (uint8_t)kind, .nin = (uint8_t)nin, .len = len};
    memcpy(f->in, in, (size_t)nin * sizeof *in);
    return c->nfl++;
}

int ccm_copy_of(bld_t *b, int st)
{
    return ccm_flow(b, MF_FLOW_COPY, b->c->st[st].len, 1, &st);
}

static mf_sink_t *sink(bld_t *b, int f, int kind, uint64_t off, uint64_t len)
{
    mf_coll_t *c = b->c;
    if (grow((void **)&c->sk, &c->capsk, c->nsk + 1, sizeof *c->sk)) {
        b->fail = 1;
        return NULL;
    }
    mf_sink_t *k = &c->sk[c->nsk++];
    *k = (mf_sink_t){.kind = (uint8_t)kind, .off = off, .len = len, .flow = f, .stream = -1};
    return k;
}

void ccm_to_host(bld_t *b, int f, uint64_t off, uint64_t len, uint64_t host_off)
{
    mf_sink_t *k = sink(b, f, MF_SINK_HOST, off, len);
    if (k)
        k->host_off = host_off;
}

mf_sink_t *ccm_to_net(bld_t *b, int f, uint64_t off, uint64_t len, uint16_t dest, int tag)
{
    mf_sink_t *k = sink(b, f, MF_SINK_NET, off, len);
    if (k) {
        k->dest = dest;
        k->tag = (uint8_t)tag;
    }
    return k;
}

/* A new internal stream fed by [off, off+len) of flow f. */
int ccm_to_stream(bld_t *b, int f, uint64_t off, uint64_t len)
{
    int s = stream(b, MF_ST_INTERNAL, len);
    mf_sink_t *k = sink(b, f, MF_SINK_STREAM, off, len);
    if (k)
        k->stream = s;
    return s;
}

/* A flow of no bytes (a rank with nothing left to hold or receive). */
int ccm_empty(bld_t *b)
{
    return ccm_copy_of(b, ccm_host_src(b, 0, 0));
}
