/*
 * The "fpga" device: a board of the streaming-queue kind (XDMA / QDMA
 * character devices), one H2C and one C2H queue per rank, queue q = the
 * rank's host port on the board's switch (board_queue.h).  Each call goes
 * to H2C as one packet in the board stream format (include/mpifpga/wire.h,
 * doc/protocol.md "Board streams"): processor header, counts, payload.
 * The board answers every packet on C2H, in the order they were written:
 * the header echoed, the result, then a completion word (status, engine
 * cycles) on the last beat.  Times come from the engine's cycles and the
 * board clock (MPIFPGA_FPGA_MHZ), plus the PCIe latency in and out
 * (MPIFPGA_FPGA_PCIE_NS), never from the host.  The same driver runs against
 * mpifpga-fpga-emu, which presents the queues as FIFOs backed by the
 * Verilated RTL (doc/board.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "device/board_queue.h"
#include "device/device.h"
#include "topo/host_topo.h"

enum { KIND_CALL, KIND_CT };

/* A posted packet waiting for its completion, or a verdict decided here. */
typedef struct {
    uint32_t ticket;
    int kind;
    uint8_t opcode, ctx;
    int local;               /* decided without the board (a vote, an opcode it lacks) */
    int done;
    void *recv;              /* room for the result (NULL: not wanted) */
    uint64_t expect;         /* result bytes the board sends for this member */
    mf_dev_result_t r;
} bpend_t;

/* The C2H packet being read: its header, its result bytes (padded to
 * whole beats), its completion word. */
enum { IN_HEAD, IN_BODY, IN_CPL };
typedef struct {
    int state;
    uint8_t word[8];         /* header or completion being gathered */
    size_t word_got;
    uint64_t n;              /* result bytes the header announced */
    uint64_t body_left, body_off; /* of pad8(n) */
} c2h_state_t;

typedef struct {
    mf_bq_t q;
    int queue;
    double mhz;
    double pcie_ns;     /* one-way host-board latency (MPIFPGA_FPGA_PCIE_NS) */
    uint32_t next_ticket;
    bpend_t *pend;           /* in post order; npend used of cap */
    int npend, cap;
    c2h_state_t in;
    int broken;              /* a protocol or I/O error: the device is unusable */
    char broken_text[MF_EM_TEXT_MAX + 80];
    char desc[512];
} fpga_t;

static fpga_t *F(mf_device_t *d) { return d->priv; }

/* ---- posted packets ------------------------------------------------------ */

static bpend_t *pend_add(fpga_t *f)
{
    if (f->npend == f->cap) {
        int cap = f->cap ? 2 * f->cap : 16;
        bpend_t *p = realloc(f->pend, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        f->pend = p;
        f->cap = cap;
    }
    bpend_t *p = &f->pend[f->npend++];
    *p = (bpend_t){.ticket = ++f->next_ticket};
    return p;
}

static bpend_t *pend_find(fpga_t *f, uint32_t ticket)
{
    for (int i = 0; i < f->npend; i++)
        if (f->pend[i].ticket == ticket)
            return &f->pend[i];
    return NULL;
}

static void pend_forget(fpga_t *f, bpend_t *p)
{
    int i = (int)(p - f->pend);
    memmove(p, p + 1, (size_t)(f->npend - i - 1) * sizeof *p);
    f->npend--;
}

/* The oldest packet the board has still to answer. */
static bpend_t *next_waiting(fpga_t *f)
{
    for (int i = 0; i < f->npend; i++)
        if (!f->pend[i].done && !f->pend[i].local)
            return &f->pend[i];
    return NULL;
}

/* ---- C2H: completions ---------------------------------------------------- */

__attribute__((format(printf, 4, 5)))
static int protocol_error(fpga_t *f, char *err, size_t len, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, len, "board queue %d: %s", f->queue, what);
    return -1;
}

static void verdict(fpga_t *f, bpend_t *p, const mf_board_cpl_t *cpl)
{
    mf_dev_result_t *r = &p->r;
    /* the engine's cycles run from the last member's header to this host's
     * last result beat; the header's way in and the result's way out over
     * PCIe come on top (the data streams through at the engine's 8 bytes a
     * cycle, slower than the PCIe link, so only the latencies add) */
    double net = (double)cpl->cycles / f->mhz;
    double us = net + 2 * f->pcie_ns / 1000;
    *r = (mf_dev_result_t){.status = MF_DEV_ERROR};
    switch (cpl->status) {
    case MF_BOARD_OK:
        r->status = MF_DEV_DONE;
        r->net_us = net;
        r->rank_us = us;
        break;
    case MF_BOARD_UNSUPPORTED:
        r->status = MF_DEV_FALLBACK;
        r->reason = MF_FB_UNSUPPORTED;
        break;
    case MF_BOARD_CT_REFUSED:
        snprintf(r->text, sizeof r->text, "the board refused communicator-table row %u "
                 "(reason code %u)", p->ctx, cpl->reason);
        break;
    case MF_BOARD_MALFORMED:
        snprintf(r->text, sizeof r->text, "the board found %s malformed (no CT row %u, or the "
                 "members' headers or lengths disagree)", mf_opcode_name(p->opcode), p->ctx);
        break;
    default:
        snprintf(r->text, sizeof r->text, "the board answered %s with unknown status %u",
                 mf_opcode_name(p->opcode), cpl->status);
    }
}

/* A C2H header is in: it must echo the oldest packet posted. */
static int take_head(fpga_t *f, char *err, size_t len)
{
    mf_proc_hdr_t h;
    bpend_t *p = next_waiting(f);
    if (!p)
        return protocol_error(f, err, len, "a completion came for no posted packet");
    if (mf_proc_hdr_unpack(f->in.word, &h) || h.opcode != p->opcode || h.ctx != p->ctx)
        return protocol_error(f, err, len, "a completion does not echo the header posted "
                              "(opcode %u, ctx %u)", p->opcode, p->ctx);
    if (h.size != p->expect && h.size != 0)
        return protocol_error(f, err, len, "the board sends %u result bytes, %llu expected",
                              h.size, (unsigned long long)p->expect);
    f->in.n = h.size;
    f->in.body_left = mf_board_pad8(h.size);
    f->in.body_off = 0;
    f->in.state = f->in.body_left ? IN_BODY : IN_CPL;
    return 0;
}

/* The completion word is in: the packet's verdict. */
static int take_cpl(fpga_t *f, char *err, size_t len)
{
    mf_board_cpl_t cpl;
    bpend_t *p = next_waiting(f);
    mf_board_cpl_unpack(f->in.word, &cpl);
    if (cpl.status == MF_BOARD_OK && f->in.n != p->expect)
        return protocol_error(f, err, len, "the board sent %llu result bytes, %llu expected",
                              (unsigned long long)f->in.n, (unsigned long long)p->expect);
    verdict(f, p, &cpl);
    p->done = 1;
    f->in.state = IN_HEAD;
    return 0;
}

/* Result bytes into the oldest posted packet's buffer (beyond its n: the
 * beat padding, dropped). */
static void take_body(fpga_t *f, const unsigned char *buf, size_t k)
{
    c2h_state_t *s = &f->in;
    bpend_t *p = next_waiting(f);
    if (p->recv && s->body_off < s->n) {
        size_t keep = s->n - s->body_off < k ? (size_t)(s->n - s->body_off) : k;
        memcpy((uint8_t *)p->recv + s->body_off, buf, keep);
    }
    s->body_off += k, s->body_left -= k;
    if (s->body_left == 0)
        s->state = IN_CPL;
}

/* C2H bytes, in any pieces, into the posted packets' results. */
static int c2h_feed(void *ctx, const unsigned char *buf, size_t n, char *err, size_t len)
{
    fpga_t *f = ctx;
    c2h_state_t *s = &f->in;
    while (n > 0) {
        if (s->state == IN_BODY) {
            size_t k = s->body_left < n ? (size_t)s->body_left : n;
            take_body(f, buf, k);
            buf += k, n -= k;
            continue;
        }
        size_t k = sizeof s->word - s->word_got < n ? sizeof s->word - s->word_got : n;
        memcpy(s->word + s->word_got, buf, k);
        s->word_got += k, buf += k, n -= k;
        if (s->word_got < sizeof s->word)
            continue;
        s->word_got = 0;
        if ((s->state == IN_HEAD ? take_head : take_cpl)(f, err, len))
            return -1;
    }
    return 0;
}

static int mark_broken(fpga_t *f, const char *text)
{
    f->broken = 1;
    snprintf(f->broken_text, sizeof f->broken_text, "%s", text);
    return -1;
}

/* Read C2H until packet p is answered or timeout_ms passes (< 0: until
 * answered).  0, or -1 with err. */
static int wait_for(fpga_t *f, bpend_t *p, int timeout_ms, char *err, size_t len)
{
    static unsigned char buf[65536];
    uint32_t ticket = p->ticket;
    for (int first = 1; !pend_find(f, ticket)->done; first = 0) {
        if (!first && timeout_ms >= 0)
            return 0;
        ssize_t n = mf_bq_read(&f->q, buf, sizeof buf, timeout_ms, err, len);
        if (n < 0 || (n > 0 && c2h_feed(f, buf, (size_t)n, err, len)))
            return mark_broken(f, err);
        for (;;) { /* whatever else already came, without waiting */
            n = mf_bq_read(&f->q, buf, sizeof buf, 0, err, len);
            if (n < 0 || (n > 0 && c2h_feed(f, buf, (size_t)n, err, len)))
                return mark_broken(f, err);
            if (n == 0)
                break;
        }
    }
    return 0;
}

/* ---- H2C: packets -------------------------------------------------------- */

/* Header, counts and payload as one H2C packet, in one write(2): an
 * XDMA-style stream queue ends a packet (tlast) where a write ends.  A
 * FIFO may take it in pieces (mf_bq_write goes on). */
static int send_packet(fpga_t *f, const mf_proc_hdr_t *h, const uint32_t *counts,
                       unsigned ncounts, const void *payload, uint64_t n, char *err, size_t len)
{
    size_t cap = MF_PROC_HDR_BYTES + mf_board_counts_bytes(ncounts) + (size_t)n;
    uint8_t *pkt = malloc(cap);
    if (!pkt)
        return snprintf(err, len, "out of memory for a board packet of %zu bytes", cap), -1;
    size_t w = mf_board_h2c_pack(h, counts, ncounts, payload, (size_t)n, pkt, cap);
    int rc = w ? mf_bq_write(&f->q, pkt, w, c2h_feed, f, err, len)
               : (snprintf(err, len, "internal error: a %s packet does not pack",
                           mf_opcode_name(h->opcode)), -1);
    free(pkt);
    return rc ? mark_broken(f, err) : 0;
}

/* A verdict decided without the board: every member decides it alike. */
static int post_local(fpga_t *f, mf_fb_reason_t reason, uint32_t *ticket, char *err,
                      size_t len)
{
    bpend_t *p = pend_add(f);
    if (!p)
        return snprintf(err, len, "out of memory for a posted call"), -1;
    p->local = p->done = 1;
    p->r = (mf_dev_result_t){.status = MF_DEV_FALLBACK, .reason = reason};
    *ticket = p->ticket;
    return 0;
}

/* The counts of the board format: reduce_scatter's bytes per comm rank
 * (MPI_Reduce_scatter_block passes none: every block is the header size). */
static uint32_t *call_counts(const mf_dev_call_t *c, unsigned *ncounts)
{
    *ncounts = mf_opcode_ncounts(c->hdr.opcode, (unsigned)c->comm_size);
    uint32_t *k = calloc(*ncounts ? *ncounts : 1, sizeof *k);
    for (unsigned i = 0; k && i < *ncounts; i++)
        k[i] = c->counts ? c->counts[i] : c->hdr.size;
    return k;
}

/* Every member's result fits the C2H header's 29-bit size (alike on every
 * member: it depends on the shared size, counts and comm size only). */
static int results_fit(const mf_dev_call_t *c, const uint32_t *counts, unsigned ncounts)
{
    unsigned opc = c->hdr.opcode;
    if (opc == MF_OPC_SCATTER || opc == MF_OPC_GATHER || opc == MF_OPC_ALLGATHER)
        return (uint64_t)c->hdr.size * (uint64_t)c->comm_size <= MF_PROC_MAX_SIZE;
    for (unsigned i = 0; i < ncounts; i++)
        if (counts[i] > MF_PROC_MAX_SIZE)
            return 0;
    return 1;
}

static int fpga_post(mf_device_t *d, const mf_dev_call_t *c, uint32_t *ticket, char *err,
                     size_t len)
{
    fpga_t *f = F(d);
    uint64_t send = 0, recv = 0;
    unsigned ncounts;
    if (f->broken)
        return snprintf(err, len, "%s", f->broken_text), -1;
    /* a vote comes from the datatypes, alike on every member (offload.c); the
     * board has no vote channel (doc/board.md) */
    if (c->vote)
        return post_local(f, c->vote, ticket, err, len);
    if (!mf_board_runs(c->hdr.opcode)) /* scan, exscan, alltoall(v): not in the RTL */
        return post_local(f, MF_FB_UNSUPPORTED, ticket, err, len);
    uint32_t *counts = call_counts(c, &ncounts);
    if (!counts)
        return snprintf(err, len, "out of memory for a call's counts"), -1;
    if (!results_fit(c, counts, ncounts)) {
        free(counts);
        return post_local(f, MF_FB_SIZE, ticket, err, len);
    }
    if (mf_board_bytes(&c->hdr, (unsigned)c->comm_size, (unsigned)c->comm_rank, counts, &send,
                       &recv) || send != c->send_bytes || recv > c->recv_bytes) {
        snprintf(err, len, "internal error: %s sends %llu and gets %llu bytes on the board, the "
                 "call has %llu and room for %llu", c->mpi_name ? c->mpi_name : "a call",
                 (unsigned long long)send, (unsigned long long)recv,
                 (unsigned long long)c->send_bytes, (unsigned long long)c->recv_bytes);
        free(counts);
        return -1;
    }
    bpend_t *p = pend_add(f);
    if (!p) {
        free(counts);
        return snprintf(err, len, "out of memory for a posted call"), -1;
    }
    p->kind = KIND_CALL;
    p->opcode = c->hdr.opcode, p->ctx = c->hdr.ctx;
    p->recv = recv ? c->recv : NULL;
    p->expect = recv;
    uint32_t t = p->ticket;
    int rc = send_packet(f, &c->hdr, counts, ncounts, c->send, send, err, len);
    free(counts);
    if (rc)
        return -1;
    *ticket = t;
    return 0;
}

static int fpga_poll(mf_device_t *d, uint32_t ticket, int timeout_ms, mf_dev_result_t *r)
{
    fpga_t *f = F(d);
    bpend_t *p = pend_find(f, ticket);
    *r = (mf_dev_result_t){.status = MF_DEV_ERROR};
    if (!p)
        return snprintf(r->text, sizeof r->text, "call %u is not outstanding", ticket), -1;
    if (!p->done && wait_for(f, p, timeout_ms, r->text, sizeof r->text))
        return -1;
    p = pend_find(f, ticket);
    if (!p->done)
        return 0;
    *r = p->r;
    pend_forget(f, p);
    return 1;
}

/* ---- communicator table -------------------------------------------------- */

/* CT-config / CT-free go as H2C packets; the board's answer is awaited so
 * that a refused row is known while the members still agree on it. */
static int ct_packet(fpga_t *f, const mf_proc_hdr_t *h, const uint8_t *entry, size_t n,
                     char *err, size_t len)
{
    if (f->broken)
        return snprintf(err, len, "%s", f->broken_text), -1;
    bpend_t *p = pend_add(f);
    if (!p)
        return snprintf(err, len, "out of memory for a posted packet"), -1;
    p->kind = KIND_CT;
    p->opcode = h->opcode, p->ctx = h->ctx;
    uint32_t t = p->ticket;
    if (send_packet(f, h, NULL, 0, entry, n, err, len) || wait_for(f, p, -1, err, len))
        return -1;
    p = pend_find(f, t);
    int ok = p->r.status == MF_DEV_DONE;
    if (!ok)
        snprintf(err, len, "%s", p->r.text);
    pend_forget(f, p);
    return ok ? 0 : -1;
}

static int fpga_ct_config(mf_device_t *d, int ctx, const mf_ct_entry_t *e, char *err,
                          size_t len)
{
    uint8_t entry[16 + 6 * MF_MAX_LEVELS];
    size_t n = mf_ct_entry_pack(e, entry, sizeof entry);
    if (!n)
        return snprintf(err, len, "internal error: the CT entry does not pack"), -1;
    mf_proc_hdr_t h = {.opcode = MF_OPC_CT_CONFIG, .ctx = (uint8_t)ctx, .size = (uint32_t)n};
    return ct_packet(F(d), &h, entry, n, err, len);
}

static int fpga_ct_free(mf_device_t *d, int ctx, char *err, size_t len)
{
    mf_proc_hdr_t h = {.opcode = MF_OPC_CT_FREE, .ctx = (uint8_t)ctx};
    return ct_packet(F(d), &h, NULL, 0, err, len);
}

/* ---- open / close -------------------------------------------------------- */

/* What the queues are: the emulator's FIFOs, or a board hwloc finds. */
static void describe_board(fpga_t *f, const char *prefix)
{
    struct stat st;
    mf_host_hw_t hw;
    char why[200];
    if (stat(f->q.h2c_path, &st) == 0 && S_ISFIFO(st.st_mode)) {
        snprintf(f->desc, sizeof f->desc, "fpga board emulated by mpifpga-fpga-emu (Verilated "
                 "RTL) at %s, queue %d, %.0f MHz", prefix, f->queue, f->mhz);
        return;
    }
    if (mf_host_hw_discover(&hw, why, sizeof why) == 0 && hw.nboards > 0)
        snprintf(f->desc, sizeof f->desc, "fpga board %s (%d found by hwloc) at %s, queue %d, "
                 "%.0f MHz", hw.boards[0].busid, hw.nboards, prefix, f->queue, f->mhz);
    else
        snprintf(f->desc, sizeof f->desc, "fpga board at %s (not seen by hwloc), queue %d, "
                 "%.0f MHz", prefix, f->queue, f->mhz);
}

static int fpga_open(mf_device_t *d, const mf_engine_loc_t *loc, int grank, int nranks,
                     int node, int port, const mf_config_t *cfg, char *err, size_t len)
{
    (void)loc, (void)grank;
    if (node != 0) {
        snprintf(err, len, "MPIFPGA_DEVICE=fpga: the board's engine is one switch whose host "
                 "port h is global rank h, so all %d ranks must be on its node "
                 "(MPIFPGA_PPN=%d; mpifpga-run --device fpga sets it)", nranks, cfg->ppn);
        return -1;
    }
    fpga_t *f = calloc(1, sizeof *f);
    if (!f)
        return snprintf(err, len, "out of memory"), -1;
    d->priv = f;
    f->queue = port;
    f->mhz = cfg->fpga_mhz;
    f->pcie_ns = cfg->fpga_pcie_ns;
    if (mf_bq_open(&f->q, cfg->fpga_dev, port, err, len))
        return -1;
    describe_board(f, cfg->fpga_dev);
    d->blocking_only = 1; /* the engine serves each queue in order: see doc/board.md */
    return 0;
}

static void fpga_close(mf_device_t *d)
{
    fpga_t *f = F(d);
    if (!f)
        return;
    mf_bq_close(&f->q); /* the emulator sees the end of this host's stream */
    free(f->pend);
    free(f);
    d->priv = NULL;
}

static const char *fpga_describe(mf_device_t *d) { return F(d) ? F(d)->desc : "fpga (closed)"; }

const mf_device_ops_t mf_device_fpga_ops = {
    .name = "fpga",
    .open = fpga_open,
    .ct_config = fpga_ct_config,
    .ct_free = fpga_ct_free,
    .post = fpga_post,
    .poll = fpga_poll,
    .close = fpga_close,
    .describe = fpga_describe,
};
