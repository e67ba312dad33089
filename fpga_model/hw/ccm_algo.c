/*
 * The CCM's algorithm selection (001 sec. 4.2, fig. 6; Table 1): dispatch a
 * collective to its schedule builder (ccm_build.h) and finish the dataflow.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/ccm_build.h"

/* MPI: a collective that moves no data completes locally (MPICH returns
 * at once for count 0); only Barrier synchronises. */
static int moves_no_data(const bld_t *b)
{
    const mf_proc_hdr_t *h = &b->c->req.hdr;
    if (h->opcode == MF_OPC_BARRIER || h->opcode == MF_OPC_ALLTOALLV)
        return 0; /* alltoallv: per-pair sizes in the counts (ccm_alltoall.c) */
    if (h->opcode == MF_OPC_REDUCE_SCATTER && b->c->counts)
        return ccm_rs_disp(b, b->P) == 0;
    return b->n == 0;
}

/* A streaming tree asked for (mf_alg_tree): run it where the communicator
 * fits one, else the paper's algorithm MPICH's selection picks -- every
 * switch reaches the same verdict from the same header and CT flag.  1 if
 * the tree was built. */
static int stree(bld_t *b, mf_proc_hdr_t *h)
{
    if (mf_alg_tree(h->opcode) < 0 || h->alg != (unsigned)mf_alg_tree(h->opcode))
        return 0;
    int rings = h->opcode == MF_OPC_ALLGATHER || h->opcode == MF_OPC_REDUCE_SCATTER;
    if (!(rings ? ccm_dring_fits(b) : ccm_stree_fits(b))) {
        h->alg = (uint8_t)mf_coll_alg((mf_opcode_t)h->opcode, (unsigned)b->P, b->n, b->n / b->es);
        return 0;
    }
    if (h->opcode == MF_OPC_ALLGATHER)
        ccm_allgather_dring(b);
    else if (h->opcode == MF_OPC_REDUCE_SCATTER)
        ccm_reduce_scatter_dring(b);
    else if (h->opcode == MF_OPC_BCAST)
        ccm_bcast_stree(b);
    else if (h->opcode == MF_OPC_REDUCE)
        ccm_reduce_stree(b);
    else
        ccm_allreduce_stree(b);
    return 1;
}

static void dispatch(bld_t *b)
{
    mf_proc_hdr_t *h = &b->c->req.hdr;
    if (moves_no_data(b)) {
        ccm_to_host(b, ccm_copy_of(b, ccm_host_src(b, 0, 0)), 0, 0, 0);
        return;
    }
    if (ccm_ftree_fits(b)) { /* the fat tree's switches aggregate (001 sec. 4.4) */
        ccm_ftree(b);
        return;
    }
    if (stree(b, h))
        return;
    switch (h->opcode) {
    case MF_OPC_BCAST:
        if (h->alg == MF_ALG_RING && b->P > 1)
            ccm_bcast_scatter_ring(b);
        else if (h->alg == MF_ALG_RECURSIVE_DBL && b->P > 1 && !(b->P & (b->P - 1)))
            ccm_bcast_scatter_rd(b);
        else
            ccm_bcast_binomial(b);
        break;
    case MF_OPC_REDUCE:
        if (h->alg == MF_ALG_RABENSEIFNER && b->n / b->es >= (uint64_t)mf_pof2_floor(b->P))
            ccm_reduce_rabenseifner(b);
        else
            ccm_reduce_binomial(b);
        break;
    case MF_OPC_ALLREDUCE:
        if (h->alg == MF_ALG_RABENSEIFNER && b->n / b->es >= (uint64_t)mf_pof2_floor(b->P))
            ccm_allreduce_rabenseifner(b);
        else
            ccm_allreduce_rd(b);
        break;
    case MF_OPC_BARRIER:
        b->n = 0;
        ccm_allreduce_rd(b);
        break;
    case MF_OPC_SCATTER:
        ccm_scatter_binomial(b);
        break;
    case MF_OPC_GATHER:
        ccm_gather_binomial(b);
        break;
    case MF_OPC_ALLGATHER:
        if (h->alg == MF_ALG_RECURSIVE_DBL && (b->P & (b->P - 1)) == 0)
            ccm_allgather_rd(b);
        else if (b->P > 1)
            ccm_allgather_ring(b);
        else
            ccm_to_host(b, ccm_copy_of(b, ccm_host_src(b, 0, b->n)), 0, b->n, 0);
        break;
    case MF_OPC_REDUCE_SCATTER:
        ccm_reduce_scatter_halving(b);
        break;
    case MF_OPC_SCAN:
    case MF_OPC_EXSCAN:
        ccm_scan(b, h->opcode == MF_OPC_EXSCAN);
        break;
    case MF_OPC_ALLTOALL:
    case MF_OPC_ALLTOALLV:
        ccm_alltoall(b);
        break;
    default:
        b->fail = 1;
    }
}

/* The prefix sums of a reduce_scatter's counts, once per build: the
 * builders ask for block offsets O(P) times (a sum each made a 512-node
 * Reduce_scatter's builds O(P^2) per switch).  0, or -1 out of memory. */
static int rs_displacements(bld_t *b)
{
    if (b->c->req.hdr.opcode != MF_OPC_REDUCE_SCATTER || !b->c->counts)
        return 0;
    b->disp = malloc(((size_t)b->P + 1) * sizeof *b->disp);
    if (!b->disp)
        return -1;
    b->disp[0] = 0;
    for (int j = 0; j < b->P; j++)
        b->disp[j + 1] = b->disp[j] + b->c->counts[j];
    return 0;
}

int mf_ccm_build(mf_coll_t *c, const mf_ct_entry_t *ct)
{
    bld_t b = {.c = c, .ct = ct, .P = ct->size, .r = ct->rank, .n = c->req.hdr.size,
               .es = mf_elem_bytes((mf_op_t)c->req.hdr.op, (mf_dtype_t)c->req.hdr.dtype)};
    if (c->req.hdr.root >= ct->size && c->req.hdr.opcode != MF_OPC_BARRIER) {
        mf_status_fail(&c->status, "root %u is not a rank of the %u-member communicator",
                    c->req.hdr.root, ct->size);
        return -1;
    }
    memset(c->tag_stream, 0xff, sizeof c->tag_stream);
    if (rs_displacements(&b)) {
        mf_status_fail(&c->status, "out of memory for the %u ranks' reduce_scatter offsets",
                       ct->size);
        return -1;
    }
    dispatch(&b);
    free(b.B);
    free(b.disp);
    if (b.fail || ccm_pack(c))
        return -1;
    for (int f = 0; f < c->nfl; f++) /* streams wake the flow that reads them */
        for (int i = 0; i < c->fl[f].nin; i++)
        {
            c->st[c->fl[f].in[i]].check = &c->fl[f].next_check;
            c->st[c->fl[f].in[i]].call = c;
            c->st[c->fl[f].in[i]].consumer = f;
        }
    c->flows_left = c->nfl;
    return 0;
}
