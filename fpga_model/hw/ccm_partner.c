/*
 * The partner port (hw/ports.h) over the engines of one network: what an
 * engine shows the engines it exchanges NET streams with -- how far it has
 * taken each stream (their credits, 001 sec. 4.1's 48 KB window end to
 * end: doc/model.md section 5) -- and how they reach it.  The CCM reaches
 * another engine only through this port (switch.c wires it), so a split of
 * the network into domains can put another implementation behind it.
 */
#include <stdint.h>

#include "hw/ccm.h"

/* The partner engine's running call and sequence number on ctx as they
 * were when cycle now began: its switch may be changing them this cycle on
 * another thread (a seqlock read; ccm.c note_change writes). */
static inline void partner_view(const mf_engine_t *pe, unsigned ctx, uint64_t now,
                                uint32_t *seq, const mf_coll_t **cur)
{
    if (__atomic_load_n(&pe->chg_at[ctx], __ATOMIC_ACQUIRE) != now) {
        *seq = __atomic_load_n(&pe->seq[ctx], __ATOMIC_RELAXED);
        *cur = __atomic_load_n(&pe->cur[ctx], __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&pe->chg_at[ctx], __ATOMIC_ACQUIRE) != now)
            return;
    }
    *seq = __atomic_load_n(&pe->prev_seq[ctx], __ATOMIC_RELAXED);
    *cur = __atomic_load_n(&pe->prev_cur[ctx], __ATOMIC_RELAXED);
}

/* Collectives on one communicator run in the same order everywhere, so
 * the partner's instance is matched by sequence. */
uint64_t mf_engines_taken(void *engines, int rank, unsigned ctx, uint32_t seq, unsigned tag,
                          uint64_t now)
{
    const mf_engine_t *pe = (const mf_engine_t *)engines + rank;
    uint32_t pseq;
    const mf_coll_t *pc;
    partner_view(pe, ctx, now, &pseq, &pc);
    if (pseq > seq || (pseq == seq && !pc))
        return MF_TAKEN_ALL;
    if (pseq < seq || !pc || pc->tag_stream[tag] < 0)
        return 0;
    return mf_stream_out_seen(&pc->st[pc->tag_stream[tag]], now);
}

/* Does a flow of the sender wait for credits on NET stream `bit`
 * (mf_credit_bit), parked or looking whenever its switch runs?  Under
 * MPIFPGA_SIM_FULL_WAKES every credit wakes it. */
static int waits_on(const mf_ccm_t *sender, unsigned bit)
{
    return ((sender->credit_wait | sender->credit_parked) >> bit & 1) ||
           sender->wake.sim->full_wakes;
}

/* After the switches' produce phase of cycle `now`, in which a partner took
 * bytes of the NET stream `bit` (mf_credit_bit) stands for, which engine
 * `rank` sent: wake the sender next cycle if one of its flows waits for
 * credits on that stream.  Its other flows ask for their own cycles, and
 * a flow waiting on another partner finds no more room than before, so a
 * run for nothing else would change nothing; waking it for every take kept
 * a streaming sender awake every cycle, and for every take of any partner
 * ran a tree's switch for its children's takes while it waited for its
 * parent's.  (After the phase, so the sender's credit_wait is its own last
 * produce's, whatever thread ran either: flow.c defers the call.) */
void mf_engines_returned(void *engines, int rank, uint32_t stream, uint64_t now)
{
    mf_ccm_t *sender = ((mf_engine_t *)engines)[rank].ccm;
    mf_credit_stream_t s = {mf_stream_id_dest(stream), mf_stream_id_ctx(stream),
                            mf_stream_id_tag(stream)};
    unsigned bit = mf_credit_bit(s.dest, s.ctx, s.tag);
    if (waits_on(sender, bit)) {
        mf_ccm_credits_came(sender, &s, now + 1);
        mf_wake(&sender->wake, now + 1);
    }
}

/* Credits over the path (credit_hop > 0): the sender's running call's line
 * for that stream (every NET sink that feeds it reads it) gets them, from
 * cycle `at`.  The sender runs then if one of its flows waits for credits
 * on that stream now; one that starts waiting later asks for the cycle the
 * oldest credit on its way arrives (ccm_wait.c mf_flow_wait), and one that
 * is not waiting reads them when it next looks -- as in
 * mf_engines_returned, waking it for every take kept a streaming sender
 * awake every cycle.  The sender is still in that call: the stream has not
 * had all its bytes yet (ccm_credits.c sends credits only then). */
int mf_engines_credits(void *engines, int sender, int receiver, unsigned cctx, uint32_t seq,
                       unsigned tag, uint64_t taken, uint64_t at)
{
    mf_engine_t *e = (mf_engine_t *)engines + sender;
    mf_coll_t *c = e->cur[cctx];
    if (!c || c->seq != seq)
        return 0;
    mf_credit_line_t *l = mf_ccm_credit_line(c, receiver, tag);
    if (!l || mf_credit_send(l, at, taken))
        return -1;
    unsigned bit = mf_credit_bit((unsigned)receiver, cctx, tag);
    if (waits_on(e->ccm, bit)) {
        mf_credit_stream_t st = {(unsigned)receiver, cctx, tag};
        mf_ccm_credits_came(e->ccm, &st, at);
        mf_wake(&e->ccm->wake, at);
    }
    return 0;
}

static void all_credits_came(void *ccm, void *unused, uint64_t at)
{
    (void)unused;
    mf_ccm_credits_came(ccm, NULL, at);
}

/* A partner's call ended (ccm.c mf_ccm_finish): its credits are unlimited
 * from cycle `at`, so the engine's flows parked on credits look again then
 * (all of them: which streams went to that partner is not kept).  In the
 * switches' phase the partner may run on another thread, so that part
 * waits for the phase's end (mf_sim_defer runs it at once outside one). */
void mf_engines_wake(void *engines, int rank, uint64_t at)
{
    mf_ccm_t *m = ((mf_engine_t *)engines)[rank].ccm;
    mf_wake(&m->wake, at);
    if (mf_sim_defer(m->wake.sim, all_credits_came, m, NULL, at))
        mf_fault(&m->fault, "out of memory deferring a partner's end");
}

int mf_engines_post_agg(void *engines, int rank, const mf_coll_t *from, uint64_t at)
{
    return mf_ccm_post_agg_later((mf_engine_t *)engines + rank, from, at);
}

int mf_engines_post_agg_as(void *engines, int rank, int child, const mf_proc_hdr_t *hdr,
                           uint32_t seq, uint64_t at)
{
    mf_engine_t *e = engines;
    return mf_ccm_post_agg_as(e + rank, e + child, hdr, seq, at);
}
