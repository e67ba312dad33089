/*
 * One intercepted collective call, resolved to bytes (MPI_IN_PLACE already
 * turned into the buffer it stands for), and the decision to offload it.
 *
 * Reasons decided alike on every member (communicator, configuration, the
 * op itself, sizes) fall back at once.  A reason that depends on this
 * rank's datatypes (`vote`) may differ between members -- one may pass a
 * derived type with the same signature as another's MPI_INT -- so it is
 * sent to the engine as a vote, and every member falls back together.
 */
#ifndef MF_OFFLOAD_H
#define MF_OFFLOAD_H

#include <mpi.h>
#include <stdint.h>

#include "config/config.h"
#include "select/dtpack.h"
#include "mpifpga/engine_msg.h"

typedef struct {
    mf_coll_id_t id;
    mf_opcode_t opc;
    MPI_Comm comm;
    int root;                 /* rooted collectives: comm rank */
    mf_dtype_t dt;            /* reductions: lane type; else MF_DT_UINT8 (bytes) */
    mf_op_t op;
    size_t esize;             /* element size (1 for byte-moving collectives) */
    uint64_t block;           /* per-rank block / vector bytes (report, thresholds) */
    const void *send;
    uint64_t send_bytes;
    void *recv;               /* NULL: result not wanted (discarded) */
    uint64_t recv_bytes;
    const uint64_t *counts;   /* reduce_scatter: bytes per comm rank, else NULL */
    const uint32_t *sizes;    /* alltoallv: this rank's bytes to / from each rank (2P) */
    mf_fb_reason_t local;     /* reason every member shares (op alone) */
    mf_fb_reason_t vote;      /* reason from this rank's datatypes */
    /* Types that are not contiguous (dtpack.h): send is packed from
     * send_map and recv unpacked into recv_map around the device call. */
    int pack_send, unpack_recv;
    mf_typed_buf_t send_map, recv_map;
    /* MINLOC/MAXLOC pairs: the buffers are the AgLU's lanes as they are
     * (the C struct, wire.h); the result is copied back value and index
     * only, so the user's pad bytes are never written. */
    int pair_lanes;
} mf_call_t;

/* Which form of a collective the builders (coll.c) are running, for the
 * report's class: 0 blocking, 1 nonblocking MPI_I* (coll_nb.c), 2 a start
 * of a persistent MPI_*_init request (coll_persist.c). */
extern int mf_offload_form;

/* Set (by coll_nb.c / coll_persist.c, around a builder) to the op a
 * nonblocking or persistent start fills: mf_offload then posts the call
 * and returns without waiting (nb_op.h). */
struct mf_nb_op;
extern struct mf_nb_op *mf_offload_deferred;

/* A persistent collective's call and decision, made once at MPI_*_init
 * (coll_persist.c): the builder runs with mf_offload_capture set and
 * mf_offload keeps the call -- its lane type and op, sizes, packing, CT
 * row, and the decision every member makes alike -- instead of running
 * it.  Each MPI_Start then only packs and posts (mf_offload_planned). */
typedef struct {
    int decided;              /* the builder reached mf_offload */
    mf_call_t c;              /* the call (counts point to the copy below) */
    uint64_t *counts;
    const void *cs;           /* the communicator's state (const mf_comm_t *) */
    mf_fb_reason_t reason;    /* MF_FB_NONE: offload every start */
    int empty;                /* nothing moves: MPICH's call */
    int dup_send, dup_recv;   /* send_map / recv_map types are our duplicates */
} mf_offload_plan_t;
extern mf_offload_plan_t *mf_offload_capture;

/* A start of a planned call: counted, then posted (1, *rc) or 0 for
 * MPICH's call, as mf_offload. */
int mf_offload_planned(const mf_offload_plan_t *p, int *rc);
void mf_offload_plan_free(mf_offload_plan_t *p);

/* 0 if this collective cannot be offloaded at all in this job (not
 * initialized, offload off, excluded by MPIFPGA_COLLS): the caller can
 * skip datatype selection. */
int mf_offload_wanted(mf_coll_id_t id);

/* 1: the call was handled (offloaded, or an offload error raised): return
 * *rc.  0: the caller runs the PMPI_ function. */
int mf_offload(mf_call_t *c, int *rc);

#endif
