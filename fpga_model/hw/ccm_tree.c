/* Binomial-tree schedules (001 Table 1): bcast, reduce, scatter, gather. */
#include <stdlib.h>
#include <string.h>

#include "hw/ccm_build.h"

void ccm_bcast_binomial(bld_t *b)
{
    int vr = vrank(b);
    int in = vr ? ccm_net_in(b, parent_level(b, vr), b->n) : ccm_host_src(b, 0, b->n);
    int f = ccm_copy_of(b, in); /* CCM multicast: one bit per child */
    for (int k = 0; k < parent_level(b, vr); k++)
        if (has_child(b, vr, k))
            ccm_to_net(b, f, 0, b->n, b->ct->up[k], k);
    if (vr)
        ccm_to_host(b, f, 0, b->n, 0);
}

void ccm_reduce_binomial(bld_t *b)
{
    int vr = vrank(b), in[MF_FLOW_MAXIN], nin = 0;
    in[nin++] = ccm_host_src(b, 0, b->n);
    for (int k = 0; k < parent_level(b, vr); k++)
        if (has_child(b, vr, k))
            in[nin++] = ccm_net_in(b, k, b->n);
    int f = ccm_flow(b, MF_FLOW_REDUCE, b->n, nin, in);
    if (vr)
        ccm_to_net(b, f, 0, b->n, b->ct->down[parent_level(b, vr)], parent_level(b, vr));
    else
        ccm_to_host(b, f, 0, b->n, 0);
}

/* Root's send buffer in vr order: blocks [v0, v1) of `bs` bytes, wrapping. */
static int root_blocks(bld_t *b, int v0, int v1, uint64_t bs)
{
    int R = b->c->req.hdr.root, a = (v0 + R) % b->P, cnt = v1 - v0;
    if (a + cnt <= b->P)
        return ccm_copy_of(b, ccm_host_src(b, (uint64_t)a * bs, (uint64_t)cnt * bs));
    int in[2] = {ccm_host_src(b, (uint64_t)a * bs, (uint64_t)(b->P - a) * bs),
                 ccm_host_src(b, 0, (uint64_t)(a + cnt - b->P) * bs)};
    return ccm_flow(b, MF_FLOW_CONCAT, (uint64_t)cnt * bs, 2, in);
}

/* The root reads each child's subtree range as its own host stream (and
 * its own block as another): the DMA serves them round robin, so the
 * children's links carry data at the same time.  One flow over the whole
 * buffer would hand the children their ranges one after another, each at
 * a single link's rate, below the DMA's. */
void ccm_scatter_binomial(bld_t *b)
{
    int vr = vrank(b);
    uint64_t bs = b->n;
    if (!vr) {
        ccm_to_host(b, root_blocks(b, 0, 1, bs), 0, bs, 0);
        for (int k = 0; k < parent_level(b, vr); k++)
            if (has_child(b, vr, k)) {
                int c = 1 << k, n = subtree(b, c);
                ccm_to_net(b, root_blocks(b, c, c + n, bs), 0, (uint64_t)n * bs, b->ct->up[k], k);
            }
        return;
    }
    int f = ccm_copy_of(b, ccm_net_in(b, parent_level(b, vr), subtree(b, vr) * bs));
    ccm_to_host(b, f, 0, bs, 0);
    for (int k = 0; k < parent_level(b, vr); k++)
        if (has_child(b, vr, k))
            ccm_to_net(b, f, ((uint64_t)1 << k) * bs, subtree(b, vr + (1 << k)) * bs,
                   b->ct->up[k], k);
}

/* Flow f holds the blocks of vr [v0, v0 + cnt): write them where the root's
 * receive buffer keeps them (vr j is comm rank (j + root) mod P). */
static void to_host_vr(bld_t *b, int f, int v0, int cnt, uint64_t bs)
{
    int a = (v0 + b->c->req.hdr.root) % b->P;
    if (a + cnt <= b->P) {
        ccm_to_host(b, f, 0, (uint64_t)cnt * bs, (uint64_t)a * bs);
        return;
    }
    ccm_to_host(b, f, 0, (uint64_t)(b->P - a) * bs, (uint64_t)a * bs);
    ccm_to_host(b, f, (uint64_t)(b->P - a) * bs, (uint64_t)(a + cnt - b->P) * bs, 0);
}

/* The parent's switch parks this rank's gather stream in its memory
 * (park_mib) while its collector serialises the streams before it: its
 * share of that memory, in proportion to the bytes its children send,
 * extends the stream's credit window.  The rank's send then completes at
 * its link's rate, as a leaf's send does in MPICH, instead of when the
 * root's DMA has drained everything before it. */
static void park_at_parent(bld_t *b, int vr, mf_sink_t *k)
{
    if (!k)
        return;
    uint64_t park = (uint64_t)b->c->eng->ccm->cfg->p->park_mib << 20;
    int parent = vr - (1 << parent_level(b, vr));
    uint64_t parked = (uint64_t)(subtree(b, parent) - 1) * b->n; /* all its children send */
    k->extra_win = parked <= park ? k->len : (uint64_t)((double)k->len * park / parked);
}

/* Non-roots CONCAT their own block and their children's subtree streams in
 * rank order (L2 reorder) for the parent.  The root writes each stream to
 * its place in host memory as it arrives: concatenating there would take
 * one child's link at a time, below the DMA's rate. */
void ccm_gather_binomial(bld_t *b)
{
    int vr = vrank(b), in[MF_FLOW_MAXIN], nin = 0;
    uint64_t bs = b->n;
    if (!vr) {
        to_host_vr(b, ccm_copy_of(b, ccm_host_src(b, 0, bs)), 0, 1, bs);
        for (int k = 0; k < parent_level(b, vr); k++)
            if (has_child(b, vr, k)) {
                int c = 1 << k, n = subtree(b, c);
                to_host_vr(b, ccm_copy_of(b, ccm_net_in(b, k, (uint64_t)n * bs)), c, n, bs);
            }
        return;
    }
    in[nin++] = ccm_host_src(b, 0, bs);
    for (int k = 0; k < parent_level(b, vr); k++)
        if (has_child(b, vr, k))
            in[nin++] = ccm_net_in(b, k, subtree(b, vr + (1 << k)) * bs);
    uint64_t len = subtree(b, vr) * bs;
    int f = ccm_flow(b, MF_FLOW_CONCAT, len, nin, in); /* L2: rank order */
    park_at_parent(b, vr, ccm_to_net(b, f, 0, len, b->ct->down[parent_level(b, vr)],
                                     parent_level(b, vr)));
}

