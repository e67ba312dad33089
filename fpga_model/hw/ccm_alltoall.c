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

void ccm_alltoall(bld_t *b)
{
    const uint32_t *addr = b->c->counts;
    int P = b->P, r = b->r;
    uint64_t m = b->n;
    if (!addr || P > MF_ALLTOALL_MAX_MEMBERS) {
        mf_ccm_fail(b->c, "alltoall needs the members' addresses and at most %d members (has %d)",
                    MF_ALLTOALL_MAX_MEMBERS, P);
        b->fail = 1;
        return;
    }
    ccm_to_host(b, ccm_copy_of(b, ccm_host_src(b, (uint64_t)r * m, m)), 0, m, (uint64_t)r * m);
    for (int i = 1; i < P; i++) { /* to r + i first: every destination at once */
        int d = (r + i) % P;
        ccm_to_net(b, ccm_copy_of(b, ccm_host_src(b, (uint64_t)d * m, m)), 0, m,
                   (uint16_t)addr[d], i);
    }
    for (int i = 1; i < P; i++) {
        int s = (r - i + P) % P;
        ccm_to_host(b, ccm_copy_of(b, ccm_net_in(b, i, m)), 0, m, (uint64_t)s * m);
    }
}
