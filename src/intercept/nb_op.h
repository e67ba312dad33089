/*
 * Offloaded calls that complete later: nonblocking collectives (MPI_I*)
 * and starts of persistent ones (MPI_*_init + MPI_Start).
 *
 * A start runs the call's builder (coll.c) with mf_offload_deferred set:
 * mf_offload (offload.c) makes the same decision as for the blocking twin,
 * posts the call's pieces to the device and returns at once -- a start
 * never waits for another member.  The op then lives here until the
 * program completes its request:
 *   - MPI_I*: the request is a generalized request (MPI_Grequest_start),
 *     completed (MPI_Grequest_complete) as soon as the device has every
 *     piece's verdict; MPICH frees the op with the request (nb_free);
 *   - persistent: the request is the persistent stand-in of
 *     coll_persist.c; the op is released when the program's completion
 *     call reports the stand-in complete.
 * Completion calls (wait.c) drive the device and MPICH's progress while
 * they wait, so a rank waiting for a collective still serves the
 * point-to-point traffic other members may need before they start it.
 *
 * Modeled time (doc/architecture.md, "Nonblocking collectives"): the op
 * enters the model at the rank's virtual time at the start; the rank's v
 * runs on with its computation; completion sets v = max(v, done), where
 * done is the later of entry + the modeled time of its pieces and the
 * time the rank's processor DMA has moved the bytes of every call it
 * posted so far, per direction (outstanding calls share one DMA).
 */
#ifndef MF_NB_OP_H
#define MF_NB_OP_H

#include <mpi.h>
#include <stdint.h>

#include "intercept/host.h"
#include "intercept/offload.h"
#include "profile/callsite.h"

enum { MF_NB_POSTED, MF_NB_DONE };

typedef struct mf_nb_op {
    MPI_Request req;          /* the program's handle */
    int persistent;           /* req is a persistent stand-in (outlives the op) */
    int cls;                  /* report class (offload.c) */
    int state;                /* MF_NB_POSTED until every piece's verdict is in */
    int rc;                   /* MPI_SUCCESS, or the error the completion returns */
    MPI_Request inner;        /* a persistent start that fell back: MPICH's request */
    uint32_t *tickets;        /* device calls (0: verdict taken) */
    int nt, cap, left;
    mf_call_t c;              /* the call, for unpacking the result */
    void *trecv;              /* packed result, unpacked into c.recv_map at the end */
    double entry;             /* v at the start, s */
    uint64_t entry_ns;        /* the same on the wire */
    double dma_end;           /* v when the rank's DMA has moved this call's bytes */
    double rank_us, net_us;   /* sums over the pieces */
    int shm;                  /* pieces whose payload went through the shared buffer */
    double done;              /* modeled completion, s */
    char err[320];            /* rc != MPI_SUCCESS: what went wrong */
    struct mf_nb_op *next;
} mf_nb_op_t;

/* A new op (entry = v now, the clock paused by the caller); NULL if out of
 * memory. */
mf_nb_op_t *mf_nb_new(int persistent);
/* Free an op that was never registered (its start fell back). */
void mf_nb_discard(mf_nb_op_t *op);
/* A device call of the op was posted. 0, or -1 out of memory. */
int mf_nb_add_ticket(mf_nb_op_t *op, uint32_t ticket);
/* The op's start is done: MPI_I* -- give it a generalized request in *req;
 * persistent -- it completes with stand-in *req.  MPI_SUCCESS or an error. */
int mf_nb_register(mf_nb_op_t *op, MPI_Request *req);

/* The op whose request is req, or NULL (fast when none is outstanding). */
mf_nb_op_t *mf_nb_find(MPI_Request req);
int mf_nb_outstanding(void);
/* Take what the device has for outstanding ops, waiting up to timeout_ms
 * for the first message; finishes ops whose pieces are all in. */
void mf_nb_progress(int timeout_ms);
/* Until every op of ops[0..n) is done, serving MPICH's progress meanwhile. */
void mf_nb_wait(mf_nb_op_t *const *ops, int n);
/* A persistent op whose stand-in completed: v = max(v, done), free it. */
void mf_nb_release(mf_nb_op_t *op);
/* Before comm is freed (NULL: every op, at MPI_Finalize): wait for its ops. */
void mf_nb_drain(MPI_Comm comm);

/* The body of an MPI_I* wrapper (coll_nb.c, coll_nb_c.c):
 *   NB_BEGIN(); if (nbop) handled = <builder>; NB_END(<PMPI_I* call>); */
/* Pause v and make the op the builder posts the call into (if (nbop)
 * handled = builder: 1 handled). */
#define NB_BEGIN()                                                                              \
    int rc = MPI_SUCCESS, handled = 0;                                                          \
    mf_vclock_pause();                                                                          \
    mf_nb_op_t *nbop = NULL;                                                                    \
    if (mf_host.initialized && !(nbop = mf_nb_new(0))) /* the others go on: fail */           \
        handled = 1, rc = mf_raise(MPI_COMM_WORLD, "mpifpga: out of memory for a nonblocking " \
                                                   "collective");                              \
    mf_offload_form = 1;                                                                        \
    mf_offload_deferred = nbop;

/* Handled: the op's generalized request goes back; else MPICH's own
 * nonblocking call (FALLBACK).  The start's own work is not computation. */
#define NB_END(FALLBACK)                                                                        \
    mf_offload_deferred = NULL;                                                                 \
    mf_offload_form = 0;                                                                        \
    if (handled && rc == MPI_SUCCESS) {                                                         \
        rc = mf_nb_register(nbop, request);                                                     \
        mf_vtime_hold(mf_vtime_now());                                                          \
    } else {                                                                                    \
        mf_nb_discard(nbop);                                                                    \
        if (!handled)                                                                           \
            rc = FALLBACK;                                                                      \
    }                                                                                           \
    mf_vclock_resume();                                                                         \
    return rc;

/* offload.c: unpack the result, count the call; sets op->rc. */
void mf_offload_finish(mf_nb_op_t *op);

#endif
