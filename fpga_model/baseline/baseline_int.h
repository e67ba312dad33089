/*
 * The baseline runner's private state (baseline.h is the interface):
 *   baseline_run.c  the ranks' CPUs and NICs (LogGP), channels, events,
 *                   and packets arriving from the modeled network
 *   baseline.c      the engine module, one call's set-up and the API
 */
#ifndef MF_BL_BASELINE_INT_H
#define MF_BL_BASELINE_INT_H

#include <math.h>

#include "baseline/baseline.h"
#include "net/network.h"

/* Packet kinds, in the (model-only) tag of a unicast packet. */
enum { PK_DATA = 0, PK_RTS = 1, PK_CTS = 2 };

/* A message queued at a NIC for injection. */
typedef struct txmsg {
    struct txmsg *next;
    int dst;            /* comm rank */
    int kind;
    uint64_t bytes;
    double start;       /* cycle its first byte leaves host memory */
} txmsg_t;

/* What rank r has received from rank s (one receiver-sender channel). */
typedef struct {
    uint64_t key;       /* (r << 32 | s) + 1, 0 = empty slot */
    double *done;       /* completion times of messages not yet matched */
    int head, n, cap;
    double rts_at;      /* an RTS waiting for its receive, or -1 */
} chan_t;

typedef struct {
    int grank;
    mf_bl_prog_t prog;
    int pc;             /* current step */
    int in_step;
    double cpu;         /* CPU free at (cycles) */
    int send_wait;      /* 1: rendezvous send waiting for the CTS */
    double send_done;   /* local completion of the step's send, -1 unknown */
    double recv_done;   /* the step's message is in host memory, -1 unknown */
    int need_rts;       /* rendezvous receive posted, RTS not yet here */
    /* NIC */
    txmsg_t *txq, *txq_tail;
    uint64_t tx_off;    /* bytes of txq's head already injected */
    double nic_free;    /* the NIC's host-memory side is busy until (send and receive) */
    double gap_free;    /* next message may start (g) */
    int finished;
    double end;
    uint64_t sched;     /* cycle the rank is scheduled for, MF_NEVER if none */
} rank_t;

typedef struct {
    uint64_t at;
    int rank;
} event_t;

typedef struct {
    mf_module_t mod;
    mf_net_t *net;
    const mf_host_params_t *h;
    /* host costs in cycles */
    double os, orr, gap, G, red, nic, copy;
    uint64_t mtu;
    /* current collective */
    int size;
    rank_t *rk;
    int *of_grank;      /* comm rank by global rank, -1 if not a member */
    uint64_t *complete; /* cycle each rank's call returned */
    chan_t *ch;
    size_t chcap, chn;
    event_t *ev;
    size_t nev, capev;
    int left;           /* ranks not finished */
    int failed;
    char err[200];
} bl_t;

/* The first whole cycle at or after fractional cycle t. */
static inline uint64_t ceil_cycle(double t) { return t <= 0 ? 0 : (uint64_t)ceil(t - 1e-9); }

/* baseline_run.c */
double bl_cyc(const bl_t *b, double ns);
void bl_ev_push(bl_t *b, uint64_t at, int rank);
event_t bl_ev_pop(bl_t *b);
void bl_nic_progress(bl_t *b, int r, uint64_t now);
void bl_cpu_progress(bl_t *b, int r, uint64_t now);
void bl_on_eject(mf_net_t *n, mf_engine_t *e, mf_pkt_t *p);

#endif
