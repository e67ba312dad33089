/*
 * What the two halves of a domain (net/domain.h) share: domain.c hands
 * packets and FIFO stops over the links that cross; domain_coll.c hands
 * over what the collective engines show one another through the partner
 * port (hw/ports.h) and runs a collective over the domains.
 */
#ifndef MF_NET_DOMAIN_INT_H
#define MF_NET_DOMAIN_INT_H

#include "hw/ports.h"
#include "net/domain.h"
#include "sim/engine.h"

/* What one thread handed over in the current window. */
typedef struct {
    mf_dom_msg_t *m;
    size_t n, cap;
    int oom;
    char pad[40];
} mf_dom_outbox_t;

/* An engine's state on one context as its partners read it
 * (hw/ccm_partner.c mf_engines_taken): the copy kept here of another
 * domain's engine, or what was last sent of one of this domain's. */
typedef struct {
    uint32_t seq;     /* calls started */
    uint32_t running; /* call seq is running */
    uint64_t out[32]; /* bytes taken of each tag's NET stream (0: none) */
} mf_dom_view_t;

struct mf_dom {
    mf_dom_ops_t ops;
    int *sw_dom;             /* by switch: its domain (this one's are ops.self's) */
    uint64_t known;          /* every transition recorded elsewhere before it is here */
    mf_remote_port_t port;   /* the links' and FIFOs' hand-over */
    struct mf_net *net;
    mf_dom_outbox_t box[MF_SIM_MAX_THREADS]; /* by mf_sim_tid */
    /* the engines (domain_coll.c) */
    int *eng_dom;            /* by engine: its domain */
    int *mine, nmine;        /* this domain's engines */
    uint32_t *sent_running;  /* by engine: contexts last sent as running */
    mf_dom_view_t **view;    /* by engine: one per context, allocated on first use */
    int coll;                /* collectives run (mf_dom_run): publish the engines */
    mf_dom_msg_t *agg;       /* posts to aggregation engines taken in, to apply */
    size_t nagg, cap_agg;
    int32_t *ct_src;         /* by engine x context: the rank whose CT row an
                              * aggregation engine of this domain took (a
                              * child's, or its child's: rows are copied up) */
    int look_all;            /* publish every engine of the domain next time */
    uint64_t looked_at;      /* sim.active_cycles when last published */
};

/* A message slot in the calling thread's outbox (NULL: out of memory,
 * reported at the exchange). */
mf_dom_msg_t *mf_dom_slot(mf_dom_t *d);

/* domain_coll.c: the engines' side, set up by mf_dom_attach (0 or -1: out
 * of memory), freed by mf_dom_free. */
int mf_dom_engines_attach(struct mf_net *n, mf_dom_t *d);
void mf_dom_engines_free(mf_dom_t *d);
/* Before the messages of the window that ends before cycle `end` go: what
 * this domain's engines show their partners, where it changed. */
void mf_dom_publish(struct mf_net *n, uint64_t end);
/* A message of kind MF_DOM_VIEW, MF_DOM_RETURNED, MF_DOM_WAKE or
 * MF_DOM_AGG (kept for mf_dom_apply_aggs).  0, or -1 out of memory. */
int mf_dom_take_engine_msg(struct mf_net *n, const mf_dom_msg_t *m);
/* After an exchange: the posts to aggregation engines taken in, in the
 * order one process runs them. */
void mf_dom_apply_aggs(struct mf_net *n);

/* Lexicographic order of two n-part keys (qsort's -1, 0, 1): the
 * messages' comparators build their keys and call it. */
static inline int mf_dom_key_cmp(const uint64_t *x, const uint64_t *y, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

#endif
