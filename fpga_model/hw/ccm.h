/*
 * Collective control module (001 sec. 4.2, fig. 6): ccm.c, its algorithm
 * blocks (ccm_algo.c, ccm_build.h) and the dataflow it drives (flow.c).
 * One mf_engine_t per rank (and per fat-tree aggregation engine) holds the
 * calls of its contexts; one mf_ccm_t per switch holds the ports its
 * engines use.  Everything outside the CCM is reached through those ports
 * (hw/ports.h), wired in switch.c and net/network.c.
 */
#ifndef MF_HW_CCM_H
#define MF_HW_CCM_H

#include "hw/ports.h"
#include "net/topo.h"

struct mf_switch;

/* What a cycle of the CCM leaves for the next (the `busy` bit its steps
 * set): something can move next cycle, so the switch must run then.  What
 * waits for room or input sets nothing: an event wakes it (ccm_wait.c). */
#define MF_BUSY_RUN 1

/* The bit of ccm.credit_wait that stands for the NET stream on (receiving
 * engine, context, tag) -- one stream of one call.  Streams may share a
 * bit: a take on one then wakes a sender waiting on the other for nothing,
 * which is harmless; a missed wake would not be. */
static inline unsigned mf_credit_bit(unsigned dest, unsigned ctx, unsigned tag)
{
    return (unsigned)((((uint64_t)dest << 13 | ctx << 8 | tag) * 0x9E3779B97F4A7C15ull) >> 58);
}

/* A flow parked until its L2 output queue has room (ccm_wait.c). */
typedef struct {
    mf_coll_t *c;
    int flow, queue;
} mf_l2_waiter_t;

/* A flow parked until credits for the NET stream of its blocking sink
 * come back (ccm_wait.c). */
typedef struct {
    mf_coll_t *c;
    int flow;
} mf_credit_waiter_t;

/* The CCM of one switch: its ports. */
typedef struct mf_ccm {
    /* what every flow step reads, together at the start */
    int nl2_wait, capl2_wait;    /* of l2_wait (below) */
    int ncr_wait, capcr_wait;    /* of cr_wait (below) */
    int nactive;                 /* calls running on this switch */
    int nparked;                 /* flows parked waiting for room (ccm_wait.c) */
    const mf_partner_port_t *partners; /* the other engines, by global rank: partners'
                                  * credits, parent aggregation engines (one port
                                  * for the network) */
    mf_stream_pool_t *streams;
    mf_grant_port_t *grant;      /* the CGR units */
    mf_combine_fn reduce;        /* the CGR's reduction */
    mf_combine_fn serialise;     /* the L2 switch's serialisation */
    mf_emit_port_t emit;         /* the L2 switch's output side */
    const mf_hw_cfg_t *cfg;
    mf_progress_port_t progress;
    mf_wake_port_t wake;
    mf_call_port_t read;         /* the DMA's reads of a send buffer */
    mf_pool_t *pkts;
    mf_fault_port_t fault;
    const mf_topo_t *topo;       /* the schedule builders' topology (trees) */
    size_t *pending;             /* calls posted whose host has not been signalled */
    uint64_t credit_wait;        /* the NET streams its last produce left a flow waiting
                                  * on unparked (an open packet full behind a full L2
                                  * queue, or full wakes), as bits (mf_credit_bit) */
    uint64_t credit_parked;      /* the same for the flows parked on credits (cr_wait),
                                  * kept until they are woken: only a take from one of
                                  * these streams wakes the switch (ccm_partner.c
                                  * mf_engines_returned, after the phase) */
    mf_l2_waiter_t *l2_wait;     /* those waiting for an L2 output queue */
    mf_credit_waiter_t *cr_wait; /* those waiting for a partner's credits */
    uint64_t flow_steps;         /* flows stepped (mf_flow_step past its sleep checks) */
    uint64_t idle_steps;         /* of them, steps that moved no byte (mf_net_stats) */
    uint64_t grant_waits;        /* of those, steps that found every CGR unit busy */
    uint64_t credit_checks;      /* looks at a flow waiting on a NET sink that found it
                                  * still without room (not counted as steps) */
    /* the switch's produces that moved a packet (its L1 sent one on or
     * ejected one), and those that moved bytes of flows alone (switch.c;
     * in the line of mf_switch_t.agg, which every produce reads) */
    uint64_t packet_steps;
    uint64_t flow_only_steps;
} mf_ccm_t;

typedef struct mf_engine {
    /* what every cycle looks at first, together at the start */
    mf_ccm_t *ccm;
    mf_host_port_t *dma;           /* its node's host port; NULL: aggregation engine */
    int grank;
    int slot;                      /* host slot on the switch */
    uint32_t running, waiting;     /* contexts with a current / a queued call */
    uint32_t changed;              /* contexts whose cur or seq changed since a split
                                    * network last looked (net/domain_coll.c) */
    mf_pq_t tx;                    /* unicast packets the converter injects */
    mf_coll_t *cur[MF_MAX_CTX];    /* collective running per context */
    uint32_t seq[MF_MAX_CTX];      /* collectives started per context */
    mf_coll_t *wait_head[MF_MAX_CTX], *wait_tail[MF_MAX_CTX]; /* posted, queued */
    mf_ct_port_t ct;               /* its communicator table */
    mf_call_port_t adopt;          /* its collector: a call starts */
    uint32_t posted[MF_MAX_CTX];   /* aggregation engine: last sequence configured */
    /* cur and seq as they were when cycle chg_at began: what partners
     * reading them that cycle see (flow.c), as they may read while this
     * engine's switch changes them on another thread (ccm.c note_change) */
    uint64_t chg_at[MF_MAX_CTX];
    mf_coll_t *prev_cur[MF_MAX_CTX];
    uint32_t prev_seq[MF_MAX_CTX];
    struct mf_switch *sw;          /* its switch (for the wiring and generators only) */
} mf_engine_t;

/* ccm.c */
void mf_ccm_post(mf_engine_t *e, mf_coll_t *c);
/* Configure aggregation engine e for the collective `from` (a child's)
 * runs, starting at cycle `at`, unless a child already did; -1 if out of
 * memory. */
int mf_ccm_post_agg(mf_engine_t *e, const mf_coll_t *from, uint64_t at);
/* The same from its parts: the child engine (whose CT row the parent
 * takes), its call's header and sequence number. */
int mf_ccm_post_agg_as(mf_engine_t *e, const mf_engine_t *child, const mf_proc_hdr_t *hdr,
                       uint32_t seq, uint64_t at);
/* The same, from a running switch: the parent is another switch's engine,
 * so it is configured after the switches' phase (sim/engine.h); -1 if out
 * of memory. */
int mf_ccm_post_agg_later(mf_engine_t *e, const mf_coll_t *from, uint64_t at);
void mf_ccm_start_ready(mf_engine_t *e, uint64_t now);
void mf_ccm_progress(mf_engine_t *e, uint64_t now, int *busy);
void mf_ccm_finish(mf_ccm_t *m, mf_coll_t *c, uint64_t now);
/* ccm_partner.c: the partner port's implementation over the engines of one
 * network (ctx: the engine array, by global rank) */
uint64_t mf_engines_taken(void *engines, int rank, unsigned ctx, uint32_t seq, unsigned tag,
                          uint64_t now);
void mf_engines_returned(void *engines, int rank, uint32_t stream, uint64_t now);
int mf_engines_credits(void *engines, int sender, int receiver, unsigned cctx, uint32_t seq,
                       unsigned tag, uint64_t taken, uint64_t at);
void mf_engines_wake(void *engines, int rank, uint64_t at);
int mf_engines_post_agg(void *engines, int rank, const mf_coll_t *from, uint64_t at);
/* A child engine's post applied at once (a split network's posts cross as
 * messages, applied between cycles in the order the deferred ones run). */
int mf_engines_post_agg_as(void *engines, int rank, int child, const mf_proc_hdr_t *hdr,
                           uint32_t seq, uint64_t at);

/* ccm_algo.c */
int mf_ccm_build(mf_coll_t *c, const mf_ct_entry_t *ct);
/* ccm_build.c: free what mf_ccm_build allocated (built or not) */
void mf_ccm_free_schedule(mf_coll_t *c);
/* flow.c; mf_flow_step returns MF_BUSY_RUN or 0 */
int mf_flow_prepare(mf_ccm_t *m, mf_coll_t *c);
int mf_flow_step(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t now);
/* ccm_wait.c: flows parked until their sink has room; the cycle a flow
 * that can do nothing until input comes looks again (MF_NEVER: a push) */
int mf_flow_wait(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t now);
uint64_t mf_flow_input_wait(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f, uint64_t now);
/* Mark every input of f idle (its pushes wake nobody unless they complete
 * the stream: ports.c mf_stream_push) or not. */
static inline void mf_flow_inputs_idle(mf_coll_t *c, const mf_flow_t *f, int idle)
{
    for (int i = 0; i < f->nin; i++)
        c->st[f->in[i]].idle_input = (uint8_t)idle;
}
void mf_flow_unpark(mf_ccm_t *m, mf_coll_t *c, mf_flow_t *f);
void mf_flow_room_taken(mf_ccm_t *m, mf_coll_t *c, const mf_flow_t *taker, mf_stream_t *st,
                        uint64_t now);
/* ccm_credits.c: a NET sink's credits as far as they have come back by
 * cycle now (flow.c reads them when the count last seen does not leave
 * room); after this engine took bytes of NET stream st in cycle now, send
 * its credits back to the sender */
uint64_t mf_ccm_credits_seen(const mf_ccm_t *m, const mf_coll_t *c, mf_sink_t *k, uint64_t now);
void mf_ccm_credits_back(mf_ccm_t *m, const mf_coll_t *c, mf_stream_t *st, uint64_t now);
mf_credit_line_t *mf_ccm_credit_line(mf_coll_t *c, int dest, unsigned tag);
/* After switch allocation: wake the flows whose L2 queue has room now. */
void mf_ccm_l2_room(mf_ccm_t *m, uint64_t now, int *busy);
/* c ends: forget its parked flows. */
void mf_ccm_forget_waits(mf_ccm_t *m, mf_coll_t *c);
/* The NET stream credits came for: its receiver's rank, context, tag. */
typedef struct {
    unsigned dest, ctx, tag;
} mf_credit_stream_t;
/* Credits of stream s (of every stream: s NULL) reach m from cycle `at`:
 * the flows parked on them look again then, and only those -- a flow woken
 * by another stream's credits (whose bit is the same) could miss its own,
 * which may come sooner.  Called between phases (ccm_partner.c defers it
 * when it is not). */
void mf_ccm_credits_came(mf_ccm_t *m, const mf_credit_stream_t *s, uint64_t at);

#endif
