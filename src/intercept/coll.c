/*
 * The intercepted collectives.  Each public MPI_ function (and its MPI-4
 * large-count _c twin, coll_c.c) describes its call in bytes (mf_call_t),
 * hands it to mf_offload(), and runs the PMPI_ function when that falls
 * back.  Buffers per collective follow doc/protocol.md ("size") and
 * test/ref_coll.h: e.g. gather's root receives P blocks.  With call sites
 * recorded (MPIFPGA_INSTANCES, MPIFPGA_PROFILE) each MPI_ function also
 * names its caller and times the whole call (profile/callsite.h).
 */
#include <stdlib.h>

#include "intercept/coll.h"
#include "intercept/host.h"
#include "intercept/offload.h"
#include "profile/callsite.h"
#include "select/select.h"

static int comm_rank(MPI_Comm c)
{
    int r = 0;
    PMPI_Comm_rank(c, &r);
    return r;
}

static int comm_size(MPI_Comm c)
{
    int s = 1;
    PMPI_Comm_size(c, &s);
    return s;
}

/* MPICH encodes a builtin datatype's size in its handle (kind bits 0x4...,
 * size in bits 8-15: MPIR_Datatype_get_basic_size): no call needed on the
 * path every intercepted call takes, fallbacks included. */
static uint64_t type_size(MPI_Datatype t)
{
    int s = 0;
    if (((unsigned)t & 0xc0000000u) == 0x40000000u)
        return ((unsigned)t >> 8) & 0xffu;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS || s < 0)
        return 0;
    return (uint64_t)s;
}

/* Where the call's bytes come from and go to.  A contiguous type is used
 * in place; any other is packed / unpacked by its type map around the
 * device call (offload.c, select/dtpack.h), never read as count x size
 * bytes of memory. */
static void send_from(mf_call_t *c, const void *buf, uint64_t count, MPI_Datatype t)
{
    c->send = buf;
    if (buf && count && mf_offload_wanted(c->id) && !c->pair_lanes && !mf_dt_contiguous(t)) {
        c->pack_send = 1;
        c->send_map = (mf_typed_buf_t){buf, count, t};
    }
}

static void recv_into(mf_call_t *c, void *buf, uint64_t count, MPI_Datatype t)
{
    c->recv = buf;
    if (buf && count && mf_offload_wanted(c->id) && (c->pair_lanes || !mf_dt_contiguous(t))) {
        c->unpack_recv = 1;
        c->recv_map = (mf_typed_buf_t){buf, count, t};
    }
}

/* `count` elements of t starting `index` elements into buf (extent
 * stride, as MPI addresses a rank's block). */
static const void *element_at(const void *buf, uint64_t index, MPI_Datatype t)
{
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_get_extent(t, &lb, &extent);
    return (const uint8_t *)buf + index * (uint64_t)extent;
}

/* Reductions: lane type and op, or the reason not to.  When offload is
 * off for this collective only the size is needed (the report's bytes):
 * a call that falls back then costs a few dozen instructions more. */
static void reduction(mf_call_t *c, MPI_Datatype t, MPI_Op op, uint64_t count)
{
    int es = 0;
    uint64_t size = type_size(t);
    c->esize = size ? (size_t)size : 1;
    c->block = count * size;
    if (!mf_offload_wanted(c->id))
        return;
    c->local = mf_select_op_known(op);
    c->vote = mf_select_reduce(t, op, &c->dt, &c->op, &es);
    if (!c->vote && mf_dtype_is_pair(c->dt)) { /* MINLOC/MAXLOC: elements are lanes */
        c->pair_lanes = 1;
        c->esize = mf_dtype_size(c->dt);
        c->block = count * c->esize;
    }
}

/* Data movers: any type moves as its packed bytes.  The first reason
 * found among this rank's types is its vote. */
static void mover(mf_call_t *c, MPI_Datatype t, uint64_t count)
{
    int es = 0;
    c->dt = MF_DT_UINT8;
    c->op = MF_OP_SUM;
    c->esize = 1;
    c->block = count * type_size(t);
    if (!mf_offload_wanted(c->id))
        return;
    mf_fb_reason_t r = mf_select_move_type(t, &es);
    if (r && !c->vote)
        c->vote = r;
}

int mf_allreduce(const void *sbuf, void *rbuf, uint64_t count, MPI_Datatype t, MPI_Op op,
                 MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_ALLREDUCE, .opc = MF_OPC_ALLREDUCE, .comm = comm};
    reduction(&c, t, op, count);
    send_from(&c, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, t);
    recv_into(&c, rbuf, count, t);
    c.send_bytes = c.recv_bytes = c.block;
    return mf_offload(&c, rc);
}

/* recvbuf is significant only at the root (MPI-4.0 sec. 6.9.1). */
int mf_reduce(const void *sbuf, void *rbuf, uint64_t count, MPI_Datatype t, MPI_Op op, int root,
              MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_REDUCE, .opc = MF_OPC_REDUCE, .comm = comm, .root = root};
    int me = comm_rank(comm) == root;
    reduction(&c, t, op, count);
    send_from(&c, me && sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, t);
    c.send_bytes = c.block;
    recv_into(&c, me ? rbuf : NULL, count, t);
    c.recv_bytes = me ? c.block : 0;
    return mf_offload(&c, rc);
}

int mf_bcast(void *buf, uint64_t count, MPI_Datatype t, int root, MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_BCAST, .opc = MF_OPC_BCAST, .comm = comm, .root = root};
    int me = comm_rank(comm) == root;
    mover(&c, t, count);
    send_from(&c, me ? buf : NULL, count, t);
    c.send_bytes = me ? c.block : 0;
    recv_into(&c, me ? NULL : buf, count, t); /* the root already holds the data */
    c.recv_bytes = c.block;
    return mf_offload(&c, rc);
}

/* The send side is significant only at the root, the receive side
 * everywhere but at a root passing MPI_IN_PLACE (MPI-4.0 sec. 6.6): the
 * block size comes from whichever side this rank's arguments define, and
 * the standard makes the two equal.  A negative significant count is left
 * to MPICH to report. */
int mf_scatter(const void *sbuf, int64_t scount, MPI_Datatype stype, void *rbuf, int64_t rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_SCATTER, .opc = MF_OPC_SCATTER, .comm = comm, .root = root};
    int me = comm_rank(comm) == root, in_place = me && rbuf == MPI_IN_PLACE;
    int p = comm_size(comm);
    if ((me && scount < 0) || (!in_place && rcount < 0))
        return 0;
    if (!in_place)
        mover(&c, rtype, (uint64_t)rcount);
    if (me)
        mover(&c, stype, (uint64_t)scount);
    send_from(&c, me ? sbuf : NULL, me ? (uint64_t)scount * (uint64_t)p : 0, stype);
    c.send_bytes = me ? c.block * (uint64_t)p : 0;
    recv_into(&c, in_place ? NULL : rbuf, in_place ? 0 : (uint64_t)rcount, rtype);
    c.recv_bytes = c.block;
    return mf_offload(&c, rc);
}

/* The receive side is significant only at the root, the send side
 * everywhere but at a root passing MPI_IN_PLACE (MPI-4.0 sec. 6.5). */
int mf_gather(const void *sbuf, int64_t scount, MPI_Datatype stype, void *rbuf, int64_t rcount,
              MPI_Datatype rtype, int root, MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_GATHER, .opc = MF_OPC_GATHER, .comm = comm, .root = root};
    int me = comm_rank(comm) == root, in_place = me && sbuf == MPI_IN_PLACE;
    int p = comm_size(comm);
    if ((me && rcount < 0) || (!in_place && scount < 0))
        return 0;
    if (!in_place)
        mover(&c, stype, (uint64_t)scount);
    if (me)
        mover(&c, rtype, (uint64_t)rcount);
    if (in_place)
        send_from(&c, element_at(rbuf, (uint64_t)root * (uint64_t)rcount, rtype),
                  (uint64_t)rcount, rtype);
    else
        send_from(&c, sbuf, (uint64_t)scount, stype);
    c.send_bytes = c.block;
    recv_into(&c, me ? rbuf : NULL, me ? (uint64_t)rcount * (uint64_t)p : 0, rtype);
    c.recv_bytes = me ? c.block * (uint64_t)p : 0;
    return mf_offload(&c, rc);
}

/* sendcount and sendtype are ignored with MPI_IN_PLACE (MPI-4.0 sec. 6.7). */
int mf_allgather(const void *sbuf, int64_t scount, MPI_Datatype stype, void *rbuf,
                 int64_t rcount, MPI_Datatype rtype, MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_ALLGATHER, .opc = MF_OPC_ALLGATHER, .comm = comm};
    int in_place = sbuf == MPI_IN_PLACE, p = comm_size(comm);
    if (rcount < 0 || (!in_place && scount < 0))
        return 0;
    if (!in_place)
        mover(&c, stype, (uint64_t)scount);
    mover(&c, rtype, (uint64_t)rcount);
    if (in_place)
        send_from(&c, element_at(rbuf, (uint64_t)comm_rank(comm) * (uint64_t)rcount, rtype),
                  (uint64_t)rcount, rtype);
    else
        send_from(&c, sbuf, (uint64_t)scount, stype);
    c.send_bytes = c.block;
    recv_into(&c, rbuf, (uint64_t)rcount * (uint64_t)p, rtype);
    c.recv_bytes = c.block * (uint64_t)p;
    return mf_offload(&c, rc);
}

static int reduce_scatter(const void *sbuf, void *rbuf, const uint64_t *counts, MPI_Datatype t,
                          MPI_Op op, MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_REDUCE_SCATTER, .opc = MF_OPC_REDUCE_SCATTER, .comm = comm};
    int p = comm_size(comm), me = comm_rank(comm);
    uint64_t *bytes = malloc((size_t)p * sizeof *bytes), total = 0, elems = 0;
    if (!bytes)
        return 0; /* let MPI do it */
    reduction(&c, t, op, 0);
    uint64_t es = c.pair_lanes ? c.esize : type_size(t);
    for (int i = 0; i < p; i++) {
        total += bytes[i] = counts[i] * es;
        elems += counts[i];
    }
    c.block = total;
    c.counts = bytes;
    send_from(&c, sbuf == MPI_IN_PLACE ? rbuf : sbuf, elems, t);
    c.send_bytes = total;
    recv_into(&c, rbuf, counts[me], t);
    c.recv_bytes = bytes[me];
    int handled = mf_offload(&c, rc);
    free(bytes);
    return handled;
}

int mf_reduce_scatter(const void *sbuf, void *rbuf, const int *icounts, const MPI_Count *ccounts,
                      MPI_Datatype t, MPI_Op op, MPI_Comm comm, int *rc)
{
    int p = 0, ok = icounts || ccounts;
    uint64_t *counts = NULL;
    PMPI_Comm_size(comm, &p);
    if (ok && p > 0 && (counts = malloc((size_t)p * sizeof *counts)))
        for (int i = 0; i < p; i++) {
            MPI_Count n = icounts ? icounts[i] : ccounts[i];
            ok &= n >= 0;
            counts[i] = n < 0 ? 0 : (uint64_t)n;
        }
    int handled = counts && ok && reduce_scatter(sbuf, rbuf, counts, t, op, comm, rc);
    free(counts);
    return handled; /* 0 also when the counts are bad: MPICH reports that */
}

int mf_reduce_scatter_block(const void *sbuf, void *rbuf, uint64_t count, MPI_Datatype t,
                            MPI_Op op, MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_REDUCE_SCATTER_BLOCK, .opc = MF_OPC_REDUCE_SCATTER, .comm = comm};
    int p = comm_size(comm);
    reduction(&c, t, op, count);
    send_from(&c, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count * (uint64_t)p, t);
    c.send_bytes = c.block * (uint64_t)p;
    recv_into(&c, rbuf, count, t);
    c.recv_bytes = c.block;
    return mf_offload(&c, rc);
}

/* Alltoall: every rank sends block j to rank j.  The signature of one
 * block (recvcount x recvtype) decides; MPI_IN_PLACE takes the blocks
 * from recvbuf. */
int mf_alltoall(const void *sbuf, int64_t scount, MPI_Datatype stype, void *rbuf, int64_t rcount,
                MPI_Datatype rtype, MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_ALLTOALL, .opc = MF_OPC_ALLTOALL, .comm = comm};
    int in_place = sbuf == MPI_IN_PLACE;
    if (rcount < 0 || (!in_place && scount < 0))
        return 0; /* MPICH reports the count */
    uint64_t P = (uint64_t)comm_size(comm);
    mover(&c, rtype, (uint64_t)rcount);
    if (!in_place && mf_offload_wanted(c.id)) {
        int es = 0;
        mf_fb_reason_t r = mf_select_move_type(stype, &es);
        if (r && !c.vote)
            c.vote = r;
    }
    if (in_place)
        send_from(&c, rbuf, (uint64_t)rcount * P, rtype);
    else
        send_from(&c, sbuf, (uint64_t)scount * P, stype);
    recv_into(&c, rbuf, (uint64_t)rcount * P, rtype);
    c.send_bytes = c.recv_bytes = c.block * P;
    return mf_offload(&c, rc);
}

/* Scan: rank i gets the reduction of ranks 0..i; Exscan of ranks 0..i-1,
 * and rank 0's receive buffer is undefined (MPI-4.0 sec. 6.11): it gets
 * nothing.  MPI_IN_PLACE takes the input from recvbuf (both). */
int mf_scan(const void *sbuf, void *rbuf, uint64_t count, MPI_Datatype t, MPI_Op op,
            int exclusive, MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = exclusive ? MF_C_EXSCAN : MF_C_SCAN,
                   .opc = exclusive ? MF_OPC_EXSCAN : MF_OPC_SCAN, .comm = comm};
    int gets = !exclusive || comm_rank(comm) != 0;
    reduction(&c, t, op, count);
    send_from(&c, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, t);
    c.send_bytes = c.block;
    recv_into(&c, gets ? rbuf : NULL, count, t);
    c.recv_bytes = gets ? c.block : 0;
    return mf_offload(&c, rc);
}

int mf_barrier(MPI_Comm comm, int *rc)
{
    mf_call_t c = {.id = MF_C_BARRIER, .opc = MF_OPC_BARRIER, .comm = comm,
                   .dt = MF_DT_UINT8, .esize = 1};
    return mf_offload(&c, rc);
}

/* ---- the MPI interface ---------------------------------------------------- */

MF_PUBLIC int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_ALLTOALL, __builtin_return_address(0), recvtype, MPI_OP_NULL,
                  comm);
    if (!mf_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc))
        rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_SCAN, __builtin_return_address(0), datatype, op, comm);
    if (!(count >= 0 && mf_scan(sendbuf, recvbuf, (uint64_t)count, datatype, op, 0, comm, &rc)))
        rc = PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_EXSCAN, __builtin_return_address(0), datatype, op, comm);
    if (!(count >= 0 && mf_scan(sendbuf, recvbuf, (uint64_t)count, datatype, op, 1, comm, &rc)))
        rc = PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_ALLREDUCE, __builtin_return_address(0), datatype, op, comm);
    if (!(count >= 0 && mf_allreduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, comm, &rc)))
        rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_REDUCE, __builtin_return_address(0), datatype, op, comm);
    if (!(count >= 0 &&
          mf_reduce(sendbuf, recvbuf, (uint64_t)count, datatype, op, root, comm, &rc)))
        rc = PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_BCAST, __builtin_return_address(0), datatype, MPI_OP_NULL, comm);
    if (!(count >= 0 && mf_bcast(buffer, (uint64_t)count, datatype, root, comm, &rc)))
        rc = PMPI_Bcast(buffer, count, datatype, root, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_SCATTER, __builtin_return_address(0),
                  recvbuf == MPI_IN_PLACE ? sendtype : recvtype, MPI_OP_NULL, comm);
    if (!mf_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &rc))
        rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_GATHER, __builtin_return_address(0),
                  sendbuf == MPI_IN_PLACE ? recvtype : sendtype, MPI_OP_NULL, comm);
    if (!mf_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &rc))
        rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_ALLGATHER, __builtin_return_address(0), recvtype, MPI_OP_NULL, comm);
    if (!mf_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc))
        rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_REDUCE_SCATTER, __builtin_return_address(0), datatype, op, comm);
    if (!(mf_reduce_scatter(sendbuf, recvbuf, recvcounts, NULL, datatype, op, comm, &rc)))
        rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_REDUCE_SCATTER_BLOCK, __builtin_return_address(0),
                  datatype, op, comm);
    if (!(recvcount >= 0 &&
          mf_reduce_scatter_block(sendbuf, recvbuf, (uint64_t)recvcount, datatype, op, comm, &rc)))
        rc = PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    return mf_site_end(&site, rc);
}

MF_PUBLIC int MPI_Barrier(MPI_Comm comm)
{
    int rc;
    mf_site_call_t site;
    mf_site_begin(&site, MF_C_BARRIER, __builtin_return_address(0),
                  MPI_DATATYPE_NULL, MPI_OP_NULL, comm);
    if (!(mf_barrier(comm, &rc)))
        rc = PMPI_Barrier(comm);
    return mf_site_end(&site, rc);
}
