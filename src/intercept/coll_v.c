/*
 * MPI_Alltoallv (and _c): per-pair sizes.  The host packs this rank's
 * blocks in destination order from any displacements and datatype, and the
 * COLL carries its sizes (wire.h, MF_OPC_ALLTOALLV: the members' global
 * ranks, then the bytes to each destination and from each source); the
 * switch moves the blocks (fpga_model/hw/ccm_alltoall.c); the host unpacks
 * the received blocks at the receive displacements.  Only the communicator
 * and the datatypes' validity decide alike on every rank: sizes differ per
 * rank, so the size thresholds do not apply, and what one rank cannot do
 * (a block over 4 GiB, memory for the staging) is its vote.
 */
#include <stdlib.h>
#include <string.h>

#include "intercept/coll.h"
#include "intercept/host.h"
#include "intercept/offload.h"
#include "profile/callsite.h"
#include "select/dtpack.h"
#include "select/select.h"

/* One side of the call: counts and displacements as int or MPI_Count. */
typedef struct {
    const void *buf;
    const int *ic;
    const int *id;
    const MPI_Count *cc;
    const MPI_Aint *cd;
    MPI_Datatype type;
} side_t;

static int64_t count_of(const side_t *s, int j) { return s->ic ? s->ic[j] : (int64_t)s->cc[j]; }
static int64_t displ_of(const side_t *s, int j) { return s->id ? s->id[j] : (int64_t)s->cd[j]; }

/* Bytes of each block into bytes[]; the vote if a block cannot travel. */
static mf_fb_reason_t block_bytes(const side_t *s, int P, uint32_t *bytes, uint64_t *total)
{
    int size = 0;
    mf_fb_reason_t r = mf_select_move_type(s->type, &size);
    *total = 0;
    for (int j = 0; j < P; j++) {
        int64_t n = count_of(s, j);
        uint64_t b = r || n < 0 ? 0 : (uint64_t)n * (uint64_t)size;
        if (!r && (n < 0 || b > UINT32_MAX))
            r = MF_FB_SIZE;
        bytes[j] = (uint32_t)b;
        *total += b;
    }
    return r;
}

/* Pack (or, unpack, the reverse) every block between the user's layout
 * and `staged`, in rank order.  0 on success. */
static int move_blocks(const side_t *s, int P, const uint32_t *bytes, uint8_t *staged, int unpack)
{
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(s->type, &lb, &extent);
    uint64_t off = 0;
    for (int j = 0; j < P; off += bytes[j++]) {
        if (!bytes[j])
            continue;
        mf_typed_buf_t tb = {(const uint8_t *)s->buf + displ_of(s, j) * extent,
                             (uint64_t)count_of(s, j), s->type};
        if (mf_dt_contiguous(s->type)) {
            if (unpack)
                memcpy((void *)tb.buf, staged + off, bytes[j]);
            else
                memcpy(staged + off, tb.buf, bytes[j]);
            continue;
        }
        if (unpack ? mf_dt_unpack(staged + off, bytes[j], &tb) : 0)
            return -1;
        if (!unpack) {
            void *packed;
            if (mf_dt_pack(&tb, bytes[j], &packed))
                return -1;
            memcpy(staged + off, packed, bytes[j]);
            free(packed);
        }
    }
    return 0;
}

static int alltoallv(const side_t *snd, const side_t *rcv, MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_ALLTOALLV, .opc = MF_OPC_ALLTOALLV, .comm = comm,
                   .dt = MF_DT_UINT8, .op = MF_OP_SUM, .esize = 1};
    int P = 0, handled = 0;
    PMPI_Comm_size(comm, &P);
    uint32_t *sizes = mf_offload_wanted(c.id) ? calloc(2 * (size_t)P + 1, sizeof *sizes) : NULL;
    uint8_t *sst = NULL, *rst = NULL;
    uint64_t stot = 0, rtot = 0;
    if (!sizes) {
        c.vote = MF_FB_SIZE; /* not wanted, or no memory: mf_offload decides */
        return mf_offload(&c, rc);
    }
    const side_t *from = snd->buf == MPI_IN_PLACE ? rcv : snd;
    c.vote = block_bytes(from, P, sizes, &stot);
    mf_fb_reason_t rv = block_bytes(rcv, P, sizes + P, &rtot);
    if (!c.vote)
        c.vote = rv;
    if (!c.vote && (!(sst = malloc(stot + 1)) || !(rst = malloc(rtot + 1))))
        c.vote = MF_FB_SIZE;
    if (!c.vote && move_blocks(from, P, sizes, sst, 0))
        c.vote = MF_FB_SIZE;
    c.send = sst, c.send_bytes = c.vote ? 0 : stot;
    c.recv = rst, c.recv_bytes = c.vote ? 0 : rtot;
    c.block = stot;
    c.sizes = sizes;
    handled = mf_offload(&c, rc);
    if (handled && *rc == MPI_SUCCESS && move_blocks(rcv, P, sizes + P, rst, 1))
        *rc = mf_raise(comm, "mpifpga: unpacking MPI_Alltoallv's blocks failed");
    free(sst);
    free(rst);
    free(sizes);
    return handled;
}

MF_PUBLIC int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_ALLTOALLV, __builtin_return_address(0), recvtype, MPI_OP_NULL,
                  comm);
    side_t s = {sendbuf, sendcounts, sdispls, NULL, NULL, sendtype};
    side_t r = {recvbuf, recvcounts, rdispls, NULL, NULL, recvtype};
    if (!alltoallv(&s, &r, comm, &rc))
        rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_ALLTOALLV, __builtin_return_address(0), recvtype, MPI_OP_NULL,
                  comm);
    side_t s = {sendbuf, NULL, NULL, sendcounts, sdispls, sendtype};
    side_t r = {recvbuf, NULL, NULL, recvcounts, rdispls, recvtype};
    if (!alltoallv(&s, &r, comm, &rc))
        rc = PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                              rdispls, recvtype, comm);
    return mf_site_end(&site, rc);
}
