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

static size_t line_up(size_t b) { return (b + 63) / 64 * 64; }

/* The builder's own arrays (before ccm_pack, or a build that stopped). */
static void free_built(mf_coll_t *c)
{
    free(c->fl);
    free(c->st);
    free(c->sk);
}

/* The built schedule moved into one block, flows first, then streams,
 * sinks (grouped by flow: each flow's from its sink0) and the per-sink and
 * per-stream index arrays flow.c fills: a call's state in neighbouring
 * lines instead of wherever the builder's reallocations left its pieces
 * (a large network's calls do not fit the cache together).  Only the
 * record points at these arrays, and only from here on. */
int ccm_pack(mf_coll_t *c)
{
    size_t fl_b = line_up((size_t)c->nfl * sizeof *c->fl), st_b = line_up((size_t)c->nst * sizeof *c->st),
           sk_b = line_up((size_t)c->nsk * sizeof *c->sk), ix_b = line_up(((size_t)c->nsk + 1) * sizeof(int)),
           rd_b = line_up(((size_t)c->nst + 1) * sizeof(int));
    char *a = aligned_alloc(64, fl_b + st_b + sk_b + 2 * ix_b + rd_b);
    if (!a)
        return -1;
    mf_flow_t *fl = (mf_flow_t *)a;
    mf_stream_t *st = (mf_stream_t *)(a + fl_b);
    mf_sink_t *sk = (mf_sink_t *)(a + fl_b + st_b);
    if (c->nfl)
        memcpy(fl, c->fl, (size_t)c->nfl * sizeof *fl);
    if (c->nst)
        memcpy(st, c->st, (size_t)c->nst * sizeof *st);
    int m = 0;
    for (int f = 0; f < c->nfl; f++) {
        fl[f].sink0 = m;
        for (int i = 0; i < c->nsk; i++)
            if (c->sk[i].flow == f)
                sk[m++] = c->sk[i];
        fl[f].nsink = m - fl[f].sink0;
    }
    for (; m < c->nsk; m++) /* none: every sink belongs to a flow */
        sk[m] = c->sk[m];
    free_built(c);
    c->fl = fl;
    c->st = st;
    c->sk = sk;
    c->sk_active = (int *)(a + fl_b + st_b + sk_b);
    c->sk_by_off = (int *)(a + fl_b + st_b + sk_b + ix_b);
    c->rd_st = (int *)(a + fl_b + st_b + sk_b + 2 * ix_b);
    c->arena = a;
    return 0;
}

void mf_ccm_free_schedule(mf_coll_t *c)
{
    if (c->arena)
        free(c->arena);
    else /* the build stopped before ccm_pack */
        free_built(c);
    c->arena = NULL;
    c->fl = NULL;
    c->st = NULL;
    c->sk = NULL;
    c->sk_active = c->sk_by_off = c->rd_st = NULL;
}
