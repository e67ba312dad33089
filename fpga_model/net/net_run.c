/*
 * Running the network (include/mpifpga/model.h mf_net_run): the cycle
 * engine stepped until nothing is scheduled or `until`, with the watchdog
 * that stops a run whose flows move nothing (naming the stuck call) and the
 * progress hook a front end may watch.  The split run, whose switches other
 * processes share, is net/domain_coll.c's mf_dom_run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "net/network.h"
#include "net/domain.h"
#include "mpifpga/model.h"

/* The first call that has not finished, for the watchdog's message. */
static void stuck_call(const mf_net_t *n, char *buf, size_t len)
{
    for (int r = 0; r < n->nranks; r++)
        for (int x = 0; x < MF_MAX_CTX; x++) {
            const mf_coll_t *c = n->eng[r].cur[x];
            if (!c)
                continue;
            snprintf(buf, len, "%s on context %d at rank %d (switch %d), %d of %d flows unfinished",
                     mf_opcode_name((mf_opcode_t)c->req.hdr.opcode), x, r, mf_rank_switch(n, r),
                     c->flows_left, c->nfl);
            return;
        }
    snprintf(buf, len, "no call has started (posted calls wait)");
}

/* A run whose flows poll cycle after cycle without moving a byte is in a
 * circular wait the stall check (nothing scheduled) cannot see.  Members
 * that enter later (modeled time: ranks skewed by their virtual clocks) are
 * waited for: the early ones' polling is no circular wait, and a call's
 * start counts as progress (ccm.c). */
void mf_net_watchdog_msg(const mf_net_t *n, char *err, size_t errlen)
{
    char what[160];
    stuck_call(n, what, sizeof what);
    snprintf(err, errlen,
             "watchdog: no data moved for %llu active cycles (cycle %llu): %s; the model is in "
             "a circular wait -- please report it (MPIFPGA_DEBUG=1 prints every call's state; "
             "MPIFPGA_WATCHDOG_CYCLES sets the limit, 0 = off)",
             (unsigned long long)n->watchdog, (unsigned long long)n->sim.now, what);
}

int mf_net_stall_msg(const mf_net_t *n, size_t pending, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "stall at cycle %llu: %zu collective call(s) cannot complete: a member of "
             "the communicator did not take part, or arguments differ across ranks "
             "(MPIFPGA_DEBUG=1 prints what each call waits for)",
             (unsigned long long)n->sim.now, pending);
    return -1;
}

static int watchdog_fired(mf_net_t *n, char *err, size_t errlen)
{
    if (!n->watchdog || !n->pending || n->sim.now < n->last_entry ||
        n->sim.active_cycles - n->progress_at <= n->watchdog)
        return 0;
    mf_net_watchdog_msg(n, err, errlen);
    return 1;
}

int mf_net_run(mf_net_t *n, uint64_t until, char *err, size_t errlen)
{
    if (n->dom)
        return mf_dom_run(n, until, err, errlen);
    n->progress_at = n->sim.active_cycles;
    for (;;) {
        uint64_t next = mf_sim_next(&n->sim);
        if (n->failed) {
            snprintf(err, errlen, "%s", n->err);
            return -1;
        }
        if (next == MF_NEVER)
            break;
        if (next > until) {
            n->sim.now = until;
            return 1;
        }
        if (mf_sim_step(&n->sim) < 0) {
            snprintf(err, errlen, "out of memory in the cycle engine");
            return -1;
        }
        if (watchdog_fired(n, err, errlen)) {
            if (getenv("MPIFPGA_DEBUG"))
                mf_net_dump(n, stderr);
            return -1;
        }
        if (n->on_progress && n->sim.active_cycles % MF_PROGRESS_CYCLES == 0)
            n->on_progress(n->progress_ctx, n->sim.now);
    }
    return n->pending ? mf_net_stall_msg(n, n->pending, err, errlen) : 0;
}

void mf_net_set_watchdog(mf_net_t *n, uint64_t cycles) { n->watchdog = cycles; }

void mf_net_set_progress(mf_net_t *n, void (*fn)(void *ctx, uint64_t cycle), void *ctx)
{
    n->on_progress = fn;
    n->progress_ctx = ctx;
}
