/*
 * MPI_Alltoall in the switch: an engine-driven personalized exchange.  The
 * CT entry keeps only log-size partner sets (001 sec. 3.1), so the
 * processor sends its communicator's member addresses along with the call
 * (the global ranks it computed at communicator creation, 001 sec. 3.3):
 * the COLL's counts.  Every block is its own DMA read and its own stream
 * straight to its destination's switch; the DMA serves the reads round
 * robin, so all destinations progress at once, as MPICH's isend/irecv
 * ("scattered") exchange does.  Rank r's data from comm rank s arrives on
 * tag (r - s) mod P: the 5-bit tag field bounds P (MF_ALLTOALL_MAX_MEMBERS;
 * the host falls back beyond it).
 */
#include "hw/ccm_build.h"

/* Block sizes: uniform (alltoall: the header size) or this member's own
 * (alltoallv: counts[P..2P) to each destination, [2P..3P) from each
 * source, packed by the host in rank order). */
static uint64_t sent_to(const bld_t *b, int j)
{
    return b->c->req.hdr.opcode == MF_OPC_ALLTOALLV ? b->c->counts[b->P + j] : b->n;
}
static uint64_t got_from(const bld_t *b, int j)
{
    return b->c->req.hdr.opcode == MF_OPC_ALLTOALLV ? b->c->counts[2 * b->P + j] : b->n;
}

/* An empty block is neither sent nor expected: sender and receiver agree
 * on its size (MPI: sendcount[j] at i matches recvcount[i] at j). */
void ccm_alltoall(bld_t *b)
{
    const uint32_t *addr = b->c->counts;
    int P = b->P, r = b->r;
    if (!addr || P > MF_ALLTOALL_MAX_MEMBERS) {
        mf_status_fail(&b->c->status, "alltoall needs the members' addresses and at most %d members (has %d)",
                    MF_ALLTOALL_MAX_MEMBERS, P);
        b->fail = 1;
        return;
    }
    uint64_t soff[MF_ALLTOALL_MAX_MEMBERS + 1] = {0}, roff[MF_ALLTOALL_MAX_MEMBERS + 1] = {0};
    for (int j = 0; j < P; j++) {
        soff[j + 1] = soff[j] + sent_to(b, j);
        roff[j + 1] = roff[j] + got_from(b, j);
    }
    uint64_t own = sent_to(b, r) < got_from(b, r) ? sent_to(b, r) : got_from(b, r);
    if (own)
        ccm_to_host(b, ccm_copy_of(b, ccm_host_src(b, soff[r], own)), 0, own, roff[r]);
    for (int i = 1; i < P; i++) { /* to r + i first: every destination at once */
        int d = (r + i) % P;
        if (sent_to(b, d))
            ccm_to_net(b, ccm_copy_of(b, ccm_host_src(b, soff[d], sent_to(b, d))), 0,
                       sent_to(b, d), (uint16_t)addr[d], i);
    }
    for (int i = 1; i < P; i++) {
        int s = (r - i + P) % P;
        if (got_from(b, s))
            ccm_to_host(b, ccm_copy_of(b, ccm_net_in(b, i, got_from(b, s))), 0, got_from(b, s),
                        roff[s]);
    }
    if (!b->c->nsk) /* nothing to move here: complete at once */
        ccm_to_host(b, ccm_empty(b), 0, 0, 0);
}
