/* The switch engine's calls: records, the model run, results; see
 * session_int.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/topo.h"
#include "params/params.h"
#include "server/movers.h"
#include "server/session_int.h"

void ses_member_release(member_t *m)
{
    free(m->counts);
    if (!m->in_shm) {
        free(m->send);
        free(m->recv);
    }
    m->counts = NULL;
    m->send = m->recv = NULL;
}


/* Unlink the record's members from their ranks' call lists, free it. */
void ses_record_free(mf_session_t *s, record_t *rec)
{
    for (record_t **p = &s->recs; *p; p = &(*p)->next)
        if (*p == rec) {
            *p = rec->next;
            break;
        }
    for (int i = 0; i < rec->size; i++) {
        member_t *m = &rec->m[i];
        if (!m->present)
            continue;
        rank_t *r = s->ranks[m->grank];
        for (member_t **q = r ? &r->calls : NULL; q && *q; q = &(*q)->rank_next)
            if (*q == m) {
                *q = m->rank_next;
                break;
            }
        ses_member_release(m);
    }
    free(rec->m);
    free(rec);
}

/* ---- completing a call -------------------------------------------------- */

double ses_cycle_ns(const mf_session_t *s)
{
    return mf_params_cycle_ns(mf_net_params(s->net));
}

/* The same RESULT (no DATA) to every member. */
static int result_all(mf_session_t *s, const record_t *rec, int status, int reason,
                      const char *text)
{
    int rc = 0;
    mf_em_result_t r = {.status = status, .reason = (uint8_t)reason, .cycle_ns = ses_cycle_ns(s)};
    ses_textf(r.text, sizeof r.text, "%s", text);
    if (status < 0)
        ses_log("call on context %u (comm rank 0 = global %u) failed: %s", rec->ctx,
               rec->global0, text);
    for (int i = 0; i < rec->size; i++)
        if (ses_send_result(s, rec->m[i].grank, rec->m[i].seq, &r))
            rc = -1;
    return rc;
}

/* Comm rank of the first member that voted for fallback, or -1. */
static int first_vote(const record_t *rec)
{
    for (int i = 0; i < rec->size; i++)
        if (rec->m[i].c.vote != MF_FB_NONE)
            return i;
    return -1;
}

/* Why member m cannot run its call (its own failure, its CT row), into
 * text; 0 if it can. */
static int member_error(mf_session_t *s, const record_t *rec, int i, char *text, size_t len)
{
    const member_t *m = &rec->m[i];
    const char *coll = ses_mpi_name(m->c.hdr.opcode);
    rank_t *r = s->ranks[m->grank];
    const ct_row_t *row = &r->ct[rec->ctx];
    if (m->err[0])
        return ses_textf(text, len, "%s: rank %d: %s", coll, m->grank, m->err), 1;
    if (r->ct_err[rec->ctx]) {
        ses_textf(text, len, "%s: rank %d: %s", coll, m->grank, r->ct_err[rec->ctx]);
        free(r->ct_err[rec->ctx]); /* told once */
        r->ct_err[rec->ctx] = NULL;
        return 1;
    }
    if (!row->valid)
        return ses_textf(text, len,
                        "%s: rank %d has no communicator-table row for context %u (never "
                        "configured, or freed): send CT_CONFIG before the call",
                        coll, m->grank, rec->ctx), 1;
    if (row->size != m->c.comm_size || row->rank != m->c.comm_rank ||
        row->global0 != rec->global0)
        return ses_textf(text, len,
                        "%s: rank %d: its CT row %u is for comm rank %u of %u (comm rank 0 = "
                        "global %u), the call is for comm rank %u of %u (global %u)",
                        coll, m->grank, rec->ctx, row->rank, row->size, row->global0,
                        m->c.comm_rank, m->c.comm_size, rec->global0), 1;
    return 0;
}

static void member_done(void *user, const mf_completion_t *c)
{
    member_t *m = user;
    m->complete = c->complete;
    m->status = c->status;
    if (c->status) /* formatting costs on every call otherwise */
        ses_textf(m->merr, sizeof m->merr, "%s", c->err);
}

/* Post member m at cycle `at`; -1 with err on failure.  timing_only: the
 * model carries zeros of the same sizes (movers.h places the bytes). */
static int post_one(mf_session_t *s, member_t *m, uint64_t at, int timing_only, char *err,
                    size_t len)
{
    /* A receive buffer even for timing-only calls (the result is placed
     * there); the model gets NULL bases only then: with a NULL base it
     * carries zeros silently, with a real one it checks the lengths. */
    if (!m->in_shm)
        m->recv = malloc(m->c.recv_bytes ? (size_t)m->c.recv_bytes : 1);
    if (!m->recv)
        return ses_textf(err, len, "engine cannot allocate the %llu-byte receive buffer",
                        (unsigned long long)m->c.recv_bytes), -1;
    mf_coll_req_t req = {
        .hdr = m->c.hdr, .at = at, .done = member_done, .user = m,
        .counts = mf_opcode_has_counts(m->c.hdr.opcode) ? m->counts : NULL,
        .send = {.base = timing_only ? NULL : m->send, .len = (size_t)m->c.send_bytes},
        .recv = {.base = timing_only ? NULL : m->recv, .len = (size_t)m->c.recv_bytes}};
    return s->ops.post(s->ops.ctx, m->grank, &req, (int)m->c.comm_size, err, len);
}

/* Entry cycles: with modeled time (every member sent its virtual entry
 * time) members enter as far apart as their entry times, the earliest at
 * the model's current cycle -- process skew is modeled, not assumed away;
 * else all enter now. */
static void entry_cycles(mf_session_t *s, record_t *rec, uint64_t now)
{
    uint64_t vmin = UINT64_MAX;
    int timed = 1;
    for (int i = 0; i < rec->size; i++) {
        timed &= rec->m[i].c.entry_ns != 0;
        if (rec->m[i].c.entry_ns < vmin)
            vmin = rec->m[i].c.entry_ns;
    }
    for (int i = 0; i < rec->size; i++) {
        member_t *m = &rec->m[i];
        m->at = now;
        if (timed)
            m->at += (uint64_t)((double)(m->c.entry_ns - vmin) / ses_cycle_ns(s) + 0.5);
    }
}

/* Post every member at its entry cycle; on failure the text says why.
 * The members' calls were checked to agree, so a post that fails fails on
 * the first member, leaving the model untouched. */
static int post_all(mf_session_t *s, record_t *rec, int timing_only, char *text, size_t len)
{
    char err[200];
    for (int i = 0; i < rec->size; i++) {
        member_t *m = &rec->m[i];
        if (post_one(s, m, m->at, timing_only, err, sizeof err) == 0)
            continue;
        ses_textf(text, len, "%s: rank %d: %s", ses_mpi_name(m->c.hdr.opcode), m->grank, err);
        if (i > 0) /* members 0..i-1 wait in the model for ever */
            ses_textf(s->broken, sizeof s->broken, "%s", text);
        return -1;
    }
    return 0;
}

/* The members' baseline latencies (comm rank order) if any member asked
 * for them (MF_EM_F_BASELINE), else NULL; the caller frees.  Where the
 * baseline cannot be had the latencies are 0 (baseline_calls.c logs why). */
static uint64_t *baseline_lat(mf_session_t *s, const record_t *rec)
{
    int want = 0;
    for (int i = 0; i < rec->size; i++)
        want |= rec->m[i].want_baseline;
    if (!want)
        return NULL;
    uint64_t *lat = calloc((size_t)rec->size, sizeof *lat);
    int *members = malloc((size_t)rec->size * sizeof *members);
    if (!lat || !members) {
        ses_log("out of memory for the baseline of a %d-member call: RESULTs carry "
               "baseline_cycles 0", rec->size);
        free(members);
        free(lat);
        return NULL;
    }
    for (int i = 0; i < rec->size; i++)
        members[i] = rec->m[i].grank;
    /* the members agree on the call (args_differ), member 0 speaks for all */
    const member_t *m0 = &rec->m[0];
    mf_blc_call_t call = {.hdr = m0->c.hdr, .size = rec->size, .members = members,
                          .counts = m0->c.ncounts ? m0->counts : NULL};
    mf_blc_latency(s->blc, &call, lat); /* -1: lat stays 0 */
    free(members);
    return lat;
}

/* The member's result DATA: now, or on FETCH for a deferred call (the
 * buffer moves to the held list).  0, or -1 if it cannot be sent / kept. */
static int deliver(mf_session_t *s, member_t *m)
{
    if (!m->defer || !m->c.recv_bytes)
        return ses_send_data(s, m->grank, m->seq, m->recv, m->c.recv_bytes);
    held_t *h = malloc(sizeof *h);
    if (!h)
        return -1;
    *h = (held_t){.grank = m->grank, .seq = m->seq, .buf = m->recv, .len = m->c.recv_bytes,
                  .next = s->held};
    m->recv = NULL;
    s->held = h;
    return 0;
}

/* DATA of the receive buffer, then RESULT, to each member: its own time
 * (completion - its entry), the call's (last completion - first entry)
 * and, if asked for, its baseline time. */
static int send_results(mf_session_t *s, record_t *rec, uint64_t at)
{
    uint64_t end = at, *bl = baseline_lat(s, rec);
    int rc = 0;
    for (int i = 0; i < rec->size; i++)
        if (rec->m[i].complete > end)
            end = rec->m[i].complete;
    for (int i = 0; i < rec->size; i++) {
        member_t *m = &rec->m[i];
        mf_em_result_t r = {.status = m->status ? -1 : 0, .cycle_ns = ses_cycle_ns(s),
                            .net_cycles = end - at, .rank_cycles = m->complete - m->at};
        if (m->status) {
            ses_textf(r.text, sizeof r.text, "%s: rank %d: %s", ses_mpi_name(m->c.hdr.opcode),
                     m->grank, m->merr);
            ses_log("%s", r.text);
        } else {
            r.recv_bytes = m->c.recv_bytes;
            r.baseline_cycles = bl ? bl[i] : 0;
            if (!m->in_shm && deliver(s, m))
                rc = -1;
        }
        if (ses_send_result(s, m->grank, m->seq, &r))
            rc = -1;
    }
    free(bl);
    return rc;
}

/* The members' buffers as movers.h sees them, if the call is a data
 * movement it can place (else NULL); the caller frees. */
static mf_mover_member_t *movers_of(const record_t *rec)
{
    const mf_proc_hdr_t *h = &rec->m[0].c.hdr;
    if (!mf_mover_opcode(h->opcode)) /* reductions, barrier: nothing to allocate */
        return NULL;
    mf_mover_member_t *mv = malloc((size_t)rec->size * sizeof *mv);
    for (int i = 0; mv && i < rec->size; i++)
        mv[i] = (mf_mover_member_t){rec->m[i].send, rec->m[i].c.send_bytes, NULL,
                                    rec->m[i].c.recv_bytes};
    if (mv && mf_mover_applies(h->opcode, h->root, h->size, mv, rec->size))
        return mv;
    free(mv);
    return NULL;
}

/* Data movements run timing-only and get their bytes placed (movers.h);
 * other calls carry their bytes through the model. */
static void place_results(const record_t *rec, mf_mover_member_t *mv)
{
    const mf_proc_hdr_t *h = &rec->m[0].c.hdr;
    for (int i = 0; i < rec->size; i++)
        mv[i].recv = rec->m[i].recv;
    mf_mover_place(h->opcode, h->root, h->size, mv, rec->size);
}

static int run_model(mf_session_t *s, record_t *rec)
{
    char text[MF_EM_TEXT_MAX], err[200];
    uint64_t at = mf_net_now(s->net);
    mf_mover_member_t *mv = movers_of(rec);
    entry_cycles(s, rec, at);
    if (post_all(s, rec, mv != NULL, text, sizeof text)) {
        free(mv);
        return result_all(s, rec, -1, 0, text), -1;
    }
    if (s->ops.run(s->ops.ctx, err, sizeof err)) {
        ses_textf(text, sizeof text, "%s: the model failed: %s", ses_mpi_name(rec->m[0].c.hdr.opcode),
                 err);
        ses_textf(s->broken, sizeof s->broken, "%s", text);
        free(mv);
        return result_all(s, rec, -1, 0, text), -1;
    }
    if (mv)
        place_results(rec, mv);
    free(mv);
    return send_results(s, rec, at);
}

/* Every member arrived: fall back, refuse or run, then forget the call. */
static int record_complete(mf_session_t *s, record_t *rec)
{
    char text[MF_EM_TEXT_MAX];
    int rc = 0, v = first_vote(rec), d;
    if (v >= 0) {
        const member_t *m = &rec->m[v];
        ses_textf(text, sizeof text, "comm rank %d (global rank %d) falls back to MPI: %s", v,
                 m->grank, mf_fb_name((mf_fb_reason_t)m->c.vote));
        rc = result_all(s, rec, 1, m->c.vote, text);
        goto out;
    }
    for (int i = 0; i < rec->size; i++)
        if (member_error(s, rec, i, text, sizeof text)) {
            rc = result_all(s, rec, -1, 0, text);
            goto out;
        }
    d = ses_args_differ(rec, text, sizeof text);
    if (d) {
        if (d < 0)
            ses_textf(text, sizeof text, "engine out of memory comparing the members' calls");
        rc = result_all(s, rec, -1, 0, text);
        goto out;
    }
    if (s->broken[0]) {
        ses_textf(text, sizeof text, "the model failed in an earlier call (%s): restart the "
                 "job and mpifpga-switchd", s->broken);
        rc = result_all(s, rec, -1, 0, text);
        goto out;
    }
    rc = run_model(s, rec);
out:
    ses_record_free(s, rec);
    return rc;
}

static int member_arrive(mf_session_t *s, member_t *m)
{
    if (m->arrived)
        return 0;
    m->arrived = 1;
    record_t *rec = m->rec;
    if (++rec->narrived < rec->size)
        return 0;
    return record_complete(s, rec);
}

/* ---- COLL / DATA -------------------------------------------------------- */

/* The record this member's call belongs to: the oldest of its communicator
 * whose slot for it is free (a rank's calls on one communicator arrive in
 * its program order, so its k-th outstanding call meets the others' k-th),
 * else a new one at the end. */
static record_t *record_get(mf_session_t *s, const mf_em_coll_t *c)
{
    record_t **tail = &s->recs;
    for (record_t *r = s->recs; r; r = r->next) {
        if (r->ctx == c->hdr.ctx && r->global0 == c->global0 &&
            (c->comm_rank >= r->size || !r->m[c->comm_rank].present))
            return r;
        tail = &r->next;
    }
    record_t *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->m = calloc(c->comm_size, sizeof *r->m);
    if (!r->m) {
        free(r);
        return NULL;
    }
    r->ctx = c->hdr.ctx;
    r->global0 = c->global0;
    r->size = c->comm_size;
    *tail = r;
    return r;
}

/* The call's payload is in rank r's buffer: send and recv point into it. */
static void member_in_shm(member_t *m, const rank_t *r)
{
    uint64_t off = mf_em_shmbuf_recv_off(m->c.send_bytes);
    m->in_shm = 1;
    if (!r->shm.base || off < m->c.send_bytes || off + m->c.recv_bytes < off ||
        off + m->c.recv_bytes > r->shm.size) {
        ses_textf(m->err, sizeof m->err,
                 "the call's %llu + %llu payload bytes do not fit the rank's %llu-byte "
                 "payload buffer (SHMBUF)",
                 (unsigned long long)m->c.send_bytes, (unsigned long long)m->c.recv_bytes,
                 (unsigned long long)r->shm.size);
        return;
    }
    m->send = r->shm.base;
    m->recv = r->shm.base + off;
}

/* Take the call into slot m; its buffers; m->err if they cannot be had. */
static void member_fill(member_t *m, record_t *rec, const rank_t *r, int g,
                        const mf_em_hdr_t *h, const mf_em_coll_t *c)
{
    *m = (member_t){.present = 1, .grank = g, .seq = h->seq, .c = *c, .rec = rec,
                    .want_baseline = (h->flags & MF_EM_F_BASELINE) != 0,
                    .defer = (h->flags & MF_EM_F_DEFER) != 0};
    m->c.counts = NULL;
    if (c->vote != MF_FB_NONE)
        return; /* no DATA follows a vote */
    if (c->ncounts) {
        m->counts = malloc(c->ncounts * sizeof *m->counts);
        if (!m->counts)
            goto oom;
        memcpy(m->counts, c->counts, c->ncounts * sizeof *m->counts);
        m->c.counts = m->counts;
    }
    if (h->flags & MF_EM_F_SHMBUF)
        return member_in_shm(m, r);
    if (c->send_bytes > SIZE_MAX / 2)
        goto oom;
    m->send = malloc(c->send_bytes ? (size_t)c->send_bytes : 1);
    if (!m->send)
        goto oom;
    return;
oom:
    ses_textf(m->err, sizeof m->err, "engine cannot allocate %llu bytes for the call",
             (unsigned long long)c->send_bytes);
}

int ses_on_coll(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len)
{
    rank_t *r = ses_live_rank(s, h);
    int g = (int)h->grank;
    mf_em_coll_t c;
    char text[MF_EM_TEXT_MAX];
    if (!r)
        return -1;
    if (mf_em_unpack_coll(msg, len, &c)) {
        ses_textf(text, sizeof text, "malformed COLL message (%zu bytes): build libmpifpga and "
                 "mpifpga-switchd from the same mpifpga", len);
        ses_send_error(s, g, h->seq, text);
        return -1;
    }
    record_t *rec = record_get(s, &c);
    if (!rec)
        return ses_send_error(s, g, h->seq, "engine out of memory"), -1;
    if (c.comm_rank >= rec->size) {
        ses_textf(text, sizeof text,
                 "%s: comm rank %u of a %u-member communicator, but members that called "
                 "earlier on context %u (comm rank 0 = global %u) say it has %d members",
                 ses_mpi_name(c.hdr.opcode), c.comm_rank, c.comm_size, c.hdr.ctx, c.global0,
                 rec->size);
        return ses_send_error(s, g, h->seq, text), -1;
    }
    member_t *m = &rec->m[c.comm_rank];
    member_fill(m, rec, r, g, h, &c);
    m->rank_next = r->calls;
    r->calls = m;
    if (m->err[0] || c.vote != MF_FB_NONE || c.send_bytes == 0 || m->in_shm)
        return member_arrive(s, m);
    return 0;
}

static member_t *find_call(rank_t *r, uint32_t seq)
{
    for (member_t *m = r->calls; m; m = m->rank_next)
        if (m->seq == seq)
            return m;
    return NULL;
}

int ses_on_data(mf_session_t *s, const mf_em_hdr_t *h, const uint8_t *msg, size_t len)
{
    rank_t *r = ses_live_rank(s, h);
    const uint8_t *data;
    size_t n;
    if (!r)
        return -1;
    member_t *m = find_call(r, h->seq);
    if (mf_em_unpack_data(msg, len, &data, &n) || !m) {
        ses_log("DATA from rank %u for call %u, which is not waiting for data: ignored", h->grank,
               h->seq);
        return -1;
    }
    if (m->err[0] || m->c.vote != MF_FB_NONE)
        return 0; /* the call fails / falls back anyway */
    uint64_t off = mf_em_chunk_off(h->off);
    if (m->arrived || off + n > m->c.send_bytes) {
        ses_textf(m->err, sizeof m->err,
                 "DATA chunk %u (bytes %llu..%llu) lies beyond the %llu bytes announced in "
                 "COLL",
                 h->off, (unsigned long long)off, (unsigned long long)(off + n),
                 (unsigned long long)m->c.send_bytes);
        return member_arrive(s, m) ? -1 : 0;
    }
    memcpy(m->send + off, data, n);
    m->got += n;
    if (m->got >= m->c.send_bytes)
        return member_arrive(s, m);
    return 0;
}

/* ---- FETCH ------------------------------------------------------------- */

int ses_on_fetch(mf_session_t *s, const mf_em_hdr_t *h)
{
    if (!ses_live_rank(s, h))
        return -1;
    for (held_t **p = &s->held; *p; p = &(*p)->next) {
        held_t *x = *p;
        if (x->grank != (int)h->grank || x->seq != h->seq)
            continue;
        *p = x->next;
        int rc = ses_send_data(s, x->grank, x->seq, x->buf, x->len);
        free(x->buf);
        free(x);
        return rc;
    }
    ses_log("FETCH from rank %u for call %u, which has no result held: ignored", h->grank, h->seq);
    return -1;
}
