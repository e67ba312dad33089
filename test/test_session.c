/*
 * The switch engine's logic (fpga_model/server/session.c), driven with
 * packed messages on a 4-node torus: HELLO checks, an allreduce with
 * correct data on every member, a fallback vote, mismatched arguments
 * (the model is not run), a gather of 1 MiB blocks across DATA chunks,
 * a call on a freed CT row, DATA beyond the announced size, the modeled
 * baseline time (COLL flag MF_EM_F_BASELINE), payloads through shared
 * payload buffers (SHMBUF, COLL flag MF_EM_F_SHMBUF), BYE.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline/baseline.h"
#include "mpifpga/ct.h"
#include "mpifpga/engine_msg.h"
#include "server/session.h"
#include "tap.h"
#include "test_net.h"
#include "transport/shmbuf.h"

/* Every message the session sent, in order. */
typedef struct {
    int grank;
    size_t len;
    uint8_t *msg;
} sent_t;

static sent_t *sent;
static size_t nsent, capsent;
static _Alignas(8) uint8_t buf[MF_EM_MAX];

static int capture(void *user, int grank, const uint8_t *msg, size_t len)
{
    (void)user;
    if (nsent == capsent) {
        capsent = capsent ? 2 * capsent : 64;
        sent = realloc(sent, capsent * sizeof *sent);
        if (!sent)
            abort();
    }
    sent[nsent].msg = malloc(len);
    if (!sent[nsent].msg)
        abort();
    memcpy(sent[nsent].msg, msg, len);
    sent[nsent].grank = grank;
    sent[nsent++].len = len;
    return 0;
}

static void forget_sent(void)
{
    for (size_t i = 0; i < nsent; i++)
        free(sent[i].msg);
    nsent = 0;
}

/* ---- what ranks send -------------------------------------------------- */

static int hello(mf_session_t *s, int g, uint32_t nranks, int node, int port)
{
    mf_em_hdr_t h = {.type = MF_EM_HELLO, .grank = (uint32_t)g};
    mf_em_hello_t b = {.version = MF_EM_VERSION, .nranks = nranks, .pid = (uint32_t)getpid(),
                       .fwd = {.rank = (uint16_t)g, .node = (uint16_t)node, .port = (uint8_t)port},
                       .addrlen = 4, .addr = {'r', 'k', (uint8_t)('0' + g), 0}};
    size_t n = mf_em_pack_hello(&h, &b, buf, sizeof buf);
    return mf_session_handle(s, buf, n);
}

/* CT rows of context ctx on every member (members[i] = global of comm rank i). */
static int ct_setup(mf_session_t *s, int ctx, int size, const int *members)
{
    char err[128];
    for (int i = 0; i < size; i++) {
        mf_em_hdr_t h = {.type = MF_EM_CT_CONFIG, .grank = (uint32_t)members[i]};
        mf_em_ct_t b = {.ctx = (uint8_t)ctx};
        if (mf_ct_entry_build(size, i, members, &b.entry, err, sizeof err))
            return diag("ct: %s", err), -1;
        size_t n = mf_em_pack_ct(&h, &b, buf, sizeof buf);
        if (!n || mf_session_handle(s, buf, n))
            return -1;
    }
    return 0;
}

static int ct_free(mf_session_t *s, int g, int ctx)
{
    mf_em_hdr_t h = {.type = MF_EM_CT_FREE, .grank = (uint32_t)g};
    mf_em_ct_t b = {.ctx = (uint8_t)ctx};
    size_t n = mf_em_pack_ct(&h, &b, buf, sizeof buf);
    return mf_session_handle(s, buf, n);
}

/* One member's call. */
typedef struct {
    mf_opcode_t opc;
    mf_op_t op;
    mf_dtype_t dtype;
    int root, ctx;
    uint32_t size;     /* processor header size */
    int vote;
    uint8_t flags;     /* COLL header flags (MF_EM_F_BASELINE) */
} call_t;

static int coll(mf_session_t *s, const call_t *c, int g, uint32_t seq, int csize, int crank,
                int global0, uint64_t send_bytes, uint64_t recv_bytes)
{
    mf_em_hdr_t h = {.type = MF_EM_COLL, .grank = (uint32_t)g, .seq = seq, .flags = c->flags};
    size_t es = mf_dtype_size(c->dtype);
    mf_em_coll_t b = {
        .hdr = {.opcode = (uint8_t)c->opc, .ctx = (uint8_t)c->ctx, .op = (uint8_t)c->op,
                .dtype = (uint8_t)c->dtype, .root = (uint16_t)c->root, .size = c->size,
                .alg = (uint8_t)mf_coll_alg(c->opc, (unsigned)csize, c->size, c->size / es)},
        .vote = (uint8_t)c->vote, .comm_size = (uint16_t)csize, .comm_rank = (uint16_t)crank,
        .global0 = (uint16_t)global0, .send_bytes = send_bytes, .recv_bytes = recv_bytes};
    size_t n = mf_em_pack_coll(&h, &b, buf, sizeof buf);
    return mf_session_handle(s, buf, n);
}

static int data(mf_session_t *s, int g, uint32_t seq, const uint8_t *src, uint64_t len)
{
    int rc = 0;
    for (uint32_t i = 0; mf_em_chunk_off(i) < len; i++) {
        uint64_t off = mf_em_chunk_off(i), n = len - off;
        if (n > MF_EM_DATA_MAX)
            n = MF_EM_DATA_MAX;
        mf_em_hdr_t h = {.type = MF_EM_DATA, .grank = (uint32_t)g, .seq = seq, .off = i};
        size_t m = mf_em_pack_data(&h, src + off, (size_t)n, buf, sizeof buf);
        rc |= mf_session_handle(s, buf, m);
    }
    return rc;
}

/* SHMBUF from rank g naming descriptor fd of `size` bytes; the answer. */
static int shmbuf(mf_session_t *s, int g, int fd, uint64_t size, mf_em_shmbuf_t *reply)
{
    mf_em_hdr_t h = {.type = MF_EM_SHMBUF, .grank = (uint32_t)g};
    mf_em_shmbuf_t b = {.fd = (uint32_t)fd, .size = size};
    forget_sent();
    size_t n = mf_em_pack_shmbuf(&h, &b, buf, sizeof buf);
    mf_session_handle(s, buf, n);
    if (nsent != 1 || sent[0].grank != g)
        return diag("%zu answers to SHMBUF", nsent), -1;
    return mf_em_unpack_shmbuf(sent[0].msg, sent[0].len, reply);
}

static int bye(mf_session_t *s, int g)
{
    mf_em_hdr_t h = {.type = MF_EM_BYE, .grank = (uint32_t)g};
    size_t n = mf_em_pack_hdr(&h, buf);
    return mf_session_handle(s, buf, n);
}

/* ---- what the session sent ---------------------------------------------- */

static int welcome_of(int g, mf_em_welcome_t *w)
{
    for (size_t i = nsent; i-- > 0;)
        if (sent[i].grank == g && sent[i].msg[0] == MF_EM_WELCOME)
            return mf_em_unpack_welcome(sent[i].msg, sent[i].len, w);
    return -1;
}

/* RESULT for (g, seq), and its DATA reassembled into out (cap bytes);
 * *got = DATA bytes.  -1 if none, or if DATA follows the RESULT. */
static int result_of(int g, uint32_t seq, mf_em_result_t *r, uint8_t *out, size_t cap,
                     uint64_t *got)
{
    int have = 0;
    *got = 0;
    for (size_t i = 0; i < nsent; i++) {
        mf_em_hdr_t h;
        if (sent[i].grank != g || mf_em_unpack_hdr(sent[i].msg, sent[i].len, &h) || h.seq != seq)
            continue;
        if (h.grank != (uint32_t)g)
            return diag("message for rank %d addressed to %u", g, h.grank), -1;
        if (h.type == MF_EM_RESULT) {
            if (have || mf_em_unpack_result(sent[i].msg, sent[i].len, r))
                return -1;
            have = 1;
        } else if (h.type == MF_EM_DATA) {
            const uint8_t *d;
            size_t n;
            uint64_t off = mf_em_chunk_off(h.off);
            if (have || mf_em_unpack_data(sent[i].msg, sent[i].len, &d, &n) || off + n > cap)
                return diag("bad DATA for rank %d", g), -1;
            memcpy(out + off, d, n);
            *got += n;
        }
    }
    return have ? 0 : -1;
}

/* ---- tests -------------------------------------------------------------- */

static const int world3[3] = {0, 1, 2};

static void test_hello(mf_session_t *s)
{
    mf_em_welcome_t w;
    const uint8_t *addr;
    size_t alen;
    hello(s, 3, 8, 3, 0);
    ok(welcome_of(3, &w) == 0 && w.status != 0 && strstr(w.text, "job of 8 ranks") &&
           strstr(w.text, "--nranks 8") && w.nranks == 4,
       "hello: refused for nranks 8 on a 4-rank engine (%s)", w.text);
    hello(s, 2, 4, 0, 2);
    ok(welcome_of(2, &w) == 0 && w.status != 0 && strstr(w.text, "--ppn"),
       "hello: refused for a placement that is not node r/ppn (%s)", w.text);
    ok(mf_session_peer_name(s, 2, &addr, &alen) == -1, "hello: refused rank has no address");
    hello(s, 7, 4, 7, 0);
    ok(welcome_of(7, &w) == 0 && w.status != 0, "hello: rank 7 out of range refused");
    for (int g = 0; g < 3; g++)
        hello(s, g, 4, g, 0);
    ok(welcome_of(1, &w) == 0 && w.status == 0 && w.nranks == 4 && w.nnodes == 4 &&
           w.ppn == 1 && w.cycle_ns > 0 && !strcmp(w.params, "u280") &&
           !strncmp(w.topo, "torus", 5),
       "hello: accepted: 4 ranks, 4 nodes, ppn 1, u280, %s", w.topo);
    ok(mf_session_peer_name(s, 1, &addr, &alen) == 0 && alen == 4 && !memcmp(addr, "rk1", 4),
       "hello: the rank's address is kept");
    ok(!mf_session_done(s), "not done before BYE");
}

static void test_allreduce(mf_session_t *s, mf_net_t *net)
{
    call_t c = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .size = 32};
    int32_t in[3][8], out[8];
    mf_em_result_t r;
    uint64_t got, before = mf_net_now(net);
    forget_sent();
    for (int g = 0; g < 3; g++)
        for (int k = 0; k < 8; k++)
            in[g][k] = (g + 1) * 100 + k - 250;
    for (int g = 0; g < 3; g++) {
        coll(s, &c, g, 1, 3, g, 0, 32, 32);
        ok(g == 2 || nsent == 0, "allreduce: nothing sent before the last member (rank %d)", g);
        data(s, g, 1, (const uint8_t *)in[g], 32);
    }
    for (int g = 0; g < 3; g++) {
        int good = result_of(g, 1, &r, (uint8_t *)out, sizeof out, &got) == 0 &&
                   r.status == 0 && got == 32 && r.recv_bytes == 32;
        for (int k = 0; good && k < 8; k++)
            good = out[k] == in[0][k] + in[1][k] + in[2][k];
        ok(good && r.net_cycles > 0 && r.rank_cycles <= r.net_cycles && r.cycle_ns > 0 &&
               r.baseline_cycles == 0,
           "allreduce: rank %d gets the sums (status %d, %llu of %llu cycles) %s", g, r.status,
           (unsigned long long)r.rank_cycles, (unsigned long long)r.net_cycles, r.text);
    }
    ok(mf_net_now(net) > before, "allreduce: the model ran");
}

static void test_vote(mf_session_t *s, mf_net_t *net)
{
    call_t c = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .size = 32};
    uint8_t zero[32] = {0}, out[32];
    mf_em_result_t r;
    uint64_t got, before = mf_net_now(net);
    forget_sent();
    for (int g = 0; g < 3; g++) {
        c.vote = g == 1 ? MF_FB_DATATYPE : MF_FB_NONE;
        coll(s, &c, g, 2, 3, g, 0, g == 1 ? 0 : 32, 32);
        if (g != 1)
            data(s, g, 2, zero, 32);
    }
    for (int g = 0; g < 3; g++)
        ok(result_of(g, 2, &r, out, sizeof out, &got) == 0 && r.status == 1 &&
               r.reason == MF_FB_DATATYPE && got == 0 && strstr(r.text, "datatype"),
           "vote: rank %d falls back, reason datatype (%s)", g, r.text);
    ok(mf_net_now(net) == before, "vote: the model did not run");
}

static void test_mismatch(mf_session_t *s, mf_net_t *net)
{
    call_t c = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32};
    uint8_t zero[16] = {0}, out[16];
    mf_em_result_t r;
    uint64_t got, before = mf_net_now(net);
    forget_sent();
    for (int g = 0; g < 3; g++) {
        c.size = g == 2 ? 16 : 8;
        coll(s, &c, g, 3, 3, g, 0, c.size, c.size);
        data(s, g, 3, zero, c.size);
    }
    for (int g = 0; g < 3; g++)
        ok(result_of(g, 3, &r, out, sizeof out, &got) == 0 && r.status == -1 && got == 0 &&
               strstr(r.text, "MPI_Allreduce") && strstr(r.text, "comm ranks 0,1 pass 8 bytes") &&
               strstr(r.text, "comm rank 2 passes 16 bytes"),
           "mismatch: rank %d gets an error naming both ranks (%s)", g, r.text);
    ok(mf_net_now(net) == before, "mismatch: the model did not run");
}

static void test_gather(mf_session_t *s)
{
    const uint32_t blk = 1u << 20;
    call_t c = {.opc = MF_OPC_GATHER, .dtype = MF_DT_UINT8, .root = 1, .size = blk};
    uint8_t *in = malloc(3 * (size_t)blk), *out = calloc(1, 3 * (size_t)blk);
    mf_em_result_t r;
    uint64_t got;
    if (!in || !out)
        abort();
    for (size_t i = 0; i < 3 * (size_t)blk; i++)
        in[i] = (uint8_t)(i * 2654435761u >> 13);
    forget_sent();
    for (int g = 0; g < 3; g++) {
        coll(s, &c, g, 4, 3, g, 0, blk, g == 1 ? 3 * (uint64_t)blk : 0);
        data(s, g, 4, in + (size_t)g * blk, blk);
    }
    ok(result_of(1, 4, &r, out, 3 * (size_t)blk, &got) == 0 && r.status == 0 &&
           got == 3 * (uint64_t)blk && !memcmp(in, out, 3 * (size_t)blk),
       "gather: root gets 3 blocks of 1 MiB over %llu DATA chunks (%s)",
       (unsigned long long)((3 * (uint64_t)blk + MF_EM_DATA_MAX - 1) / MF_EM_DATA_MAX), r.text);
    ok(result_of(0, 4, &r, out, 3 * (size_t)blk, &got) == 0 && r.status == 0 && got == 0,
       "gather: a non-root gets status 0 and no data");
    free(in);
    free(out);
}

static void test_bad_data(mf_session_t *s)
{
    call_t c = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .size = 8};
    uint8_t zero[16] = {0}, out[16];
    mf_em_result_t r;
    uint64_t got;
    forget_sent();
    for (int g = 0; g < 3; g++) {
        coll(s, &c, g, 5, 3, g, 0, 8, 8);
        data(s, g, 5, zero, g == 0 ? 16 : 8); /* rank 0 streams more than it announced */
    }
    for (int g = 0; g < 3; g++)
        ok(result_of(g, 5, &r, out, sizeof out, &got) == 0 && r.status == -1 &&
               strstr(r.text, "rank 0") && strstr(r.text, "beyond"),
           "bad data: rank %d gets an error (%s)", g, r.text);
}

static void test_ct_free(mf_session_t *s, mf_net_t *net)
{
    call_t c = {.opc = MF_OPC_BARRIER, .dtype = MF_DT_UINT8};
    mf_em_result_t r;
    uint8_t out[1];
    uint64_t got, before;
    ok(ct_free(s, 1, 0) == 0, "ct_free: accepted");
    forget_sent();
    before = mf_net_now(net);
    for (int g = 0; g < 3; g++)
        coll(s, &c, g, 6, 3, g, 0, 0, 0);
    for (int g = 0; g < 3; g++)
        ok(result_of(g, 6, &r, out, sizeof out, &got) == 0 && r.status == -1 &&
               strstr(r.text, "rank 1") && strstr(r.text, "context 0"),
           "ct_free: call on the freed row fails for rank %d (%s)", g, r.text);
    ok(mf_net_now(net) == before, "ct_free: the model did not run");
    ok(ct_setup(s, 0, 3, world3) == 0, "ct_free: row configured again");
    forget_sent();
    for (int g = 0; g < 3; g++)
        coll(s, &c, g, 7, 3, g, 0, 0, 0);
    ok(result_of(2, 7, &r, out, sizeof out, &got) == 0 && r.status == 0,
       "ct_free: barrier runs after CT_CONFIG (%s)", r.text);
}

/* Comm rank i's baseline latency for an int32 allreduce of `bytes` on
 * world3, by mf_bl_coll_once on a fresh network like the session's. */
static int bl_reference(const mf_params_t *p, uint64_t bytes, uint64_t *lat)
{
    mf_topo_t t;
    mf_coll_timing_t tm;
    mf_host_params_t h;
    char err[256];
    mf_coll_spec_t spec = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32,
                           .bytes = bytes};
    mf_net_t *n = test_make_net(p, "torus", 4, 1, &t);
    int rc = -1;
    if (!n)
        return -1;
    if (mf_host_params_load("skx-opa", &h, err, sizeof err) ||
        mf_bl_coll_once(n, &h, &spec, 3, world3, mf_net_now(n), lat, &tm, err, sizeof err))
        diag("baseline reference: %s", err);
    else
        rc = 0;
    mf_net_destroy(n);
    mf_topo_free(&t);
    return rc;
}

/* An allreduce of `bytes` on world3, call `seq`; member g sets flags[g].
 * Each member's RESULT (status 0 asked) into r[g]. */
static int run_flagged(mf_session_t *s, uint32_t seq, uint32_t bytes, const uint8_t *flags,
                       mf_em_result_t *r)
{
    call_t c = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .size = bytes};
    uint8_t zero[64] = {0}, out[64];
    uint64_t got;
    forget_sent();
    for (int g = 0; g < 3; g++) {
        c.flags = flags[g];
        coll(s, &c, g, seq, 3, g, 0, bytes, bytes);
        data(s, g, seq, zero, bytes);
    }
    for (int g = 0; g < 3; g++)
        if (result_of(g, seq, &r[g], out, sizeof out, &got) || r[g].status != 0)
            return diag("rank %d: no RESULT of status 0 (%s)", g, r[g].text), -1;
    return 0;
}

static void test_baseline(mf_session_t *s, const mf_params_t *p)
{
    static const uint8_t all[3] = {MF_EM_F_BASELINE, MF_EM_F_BASELINE, MF_EM_F_BASELINE},
                         one[3] = {0, MF_EM_F_BASELINE, 0}, none[3] = {0, 0, 0};
    mf_em_result_t r[3], again[3];
    uint64_t ref[3];
    unsigned long n0 = mf_session_baseline_simulated(s);
    int good = run_flagged(s, 8, 32, all, r) == 0 && bl_reference(p, 32, ref) == 0;
    for (int g = 0; good && g < 3; g++)
        good = r[g].baseline_cycles > 0 && r[g].baseline_cycles == ref[g];
    ok(good, "baseline: each member's baseline_cycles equals mf_bl_coll_once's "
       "(%llu %llu %llu cycles; offload rank 0: %llu)", (unsigned long long)r[0].baseline_cycles,
       (unsigned long long)r[1].baseline_cycles, (unsigned long long)r[2].baseline_cycles,
       (unsigned long long)r[0].rank_cycles);
    ok(mf_session_baseline_simulated(s) == n0 + 1, "baseline: simulated once");
    good = run_flagged(s, 9, 32, all, again) == 0;
    for (int g = 0; good && g < 3; g++)
        good = again[g].baseline_cycles == r[g].baseline_cycles;
    ok(good && mf_session_baseline_simulated(s) == n0 + 1,
       "baseline: the repeated call comes from the cache, same figures");
    good = run_flagged(s, 10, 64, one, r) == 0 && bl_reference(p, 64, ref) == 0;
    for (int g = 0; good && g < 3; g++)
        good = r[g].baseline_cycles == ref[g];
    ok(good && mf_session_baseline_simulated(s) == n0 + 2,
       "baseline: one member's flag gives every member its figure (new size: simulated)");
    good = run_flagged(s, 11, 64, none, r) == 0;
    for (int g = 0; good && g < 3; g++)
        good = r[g].baseline_cycles == 0;
    ok(good, "baseline: without the flag baseline_cycles is 0");
}

/* No DATA message in what the session sent. */
static int no_data_sent(void)
{
    for (size_t i = 0; i < nsent; i++)
        if (sent[i].msg[0] == MF_EM_DATA)
            return 0;
    return 1;
}

static void shm_gather(mf_session_t *s, mf_shmbuf_t *b)
{
    const uint32_t blk = 100000;
    call_t c = {.opc = MF_OPC_GATHER, .dtype = MF_DT_UINT8, .root = 2, .size = blk,
                .flags = MF_EM_F_SHMBUF};
    mf_em_result_t r;
    uint64_t got, off = mf_em_shmbuf_recv_off(blk);
    forget_sent();
    for (int g = 0; g < 3; g++) {
        for (uint32_t i = 0; i < blk; i++)
            b[g].base[i] = (uint8_t)(i * 31 + g * 7);
        coll(s, &c, g, 20, 3, g, 0, blk, g == 2 ? 3 * (uint64_t)blk : 0);
    }
    int good = result_of(2, 20, &r, NULL, 0, &got) == 0 && r.status == 0 &&
               r.recv_bytes == 3 * (uint64_t)blk && got == 0 && no_data_sent();
    for (int g = 0; good && g < 3; g++)
        for (uint32_t i = 0; good && i < blk; i++)
            good = b[2].base[off + (uint64_t)g * blk + i] == (uint8_t)(i * 31 + g * 7);
    ok(good, "shmbuf: a gather of 3 x 100000 bytes lands in the root's buffer after its "
       "send bytes, no DATA sent (%s)", r.text);
}

static void shm_allreduce(mf_session_t *s, mf_shmbuf_t *b)
{
    call_t c = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .size = 40,
                .flags = MF_EM_F_SHMBUF};
    mf_em_result_t r;
    mf_em_shmbuf_t reply;
    uint64_t got;
    int good = 1;
    for (int g = 0; g < 3; g++) {
        int32_t *in = (int32_t *)b[g].base;
        for (int k = 0; k < 10; k++)
            in[k] = g * 1000 - k;
        if (g == 1)
            ok(shmbuf(s, 0, b[0].fd, b[0].size, &reply) == 0 && reply.status == -1 &&
                   strstr(reply.text, "outstanding"),
               "shmbuf: refused while the rank's call is outstanding (%s)", reply.text);
        if (g == 0)
            forget_sent();
        coll(s, &c, g, 21, 3, g, 0, 40, 40);
    }
    for (int g = 0; g < 3; g++) {
        const int32_t *out = (const int32_t *)(b[g].base + mf_em_shmbuf_recv_off(40));
        good &= result_of(g, 21, &r, NULL, 0, &got) == 0 && r.status == 0 &&
                r.recv_bytes == 40 && got == 0;
        for (int k = 0; k < 10; k++)
            good &= out[k] == 3000 - 3 * k;
    }
    ok(good && no_data_sent(), "shmbuf: an allreduce's sums in every member's buffer");
}

static void test_shmbuf(mf_session_t *s)
{
    mf_shmbuf_t b[3];
    mf_em_shmbuf_t reply;
    char err[200];
    int made = 1, mapped = 1;
    for (int g = 0; g < 3; g++)
        made &= mf_shmbuf_create(&b[g], 1u << 20, err, sizeof err) == 0;
    if (!ok(made, "shmbuf: three 1 MiB buffers created (%s)", made ? "" : err))
        return;
    for (int g = 0; g < 3; g++)
        mapped &= shmbuf(s, g, b[g].fd, b[g].size, &reply) == 0 && reply.status == 0;
    ok(mapped, "shmbuf: the engine maps each rank's buffer (%s)", reply.text);
    shm_gather(s, b);
    shm_allreduce(s, b);

    call_t c = {.opc = MF_OPC_ALLGATHER, .dtype = MF_DT_UINT8, .size = 400000,
                .flags = MF_EM_F_SHMBUF};
    mf_em_result_t r;
    uint64_t got;
    forget_sent();
    for (int g = 0; g < 3; g++)
        coll(s, &c, g, 22, 3, g, 0, 400000, 1200000);
    ok(result_of(0, 22, &r, NULL, 0, &got) == 0 && r.status == -1 &&
           strstr(r.text, "do not fit") && strstr(r.text, "1048576-byte"),
       "shmbuf: a call larger than the buffer fails, naming the sizes (%s)", r.text);

    ok(shmbuf(s, 0, 9999, 4096, &reply) == 0 && reply.status == -1 &&
           strstr(reply.text, "/fd/9999"),
       "shmbuf: a descriptor the engine cannot open is refused, naming it (%s)", reply.text);
    ok(shmbuf(s, 1, b[1].fd, 1u << 30, &reply) == 0 && reply.status == -1,
       "shmbuf: a buffer smaller than announced is refused (%s)", reply.text);
    ok(shmbuf(s, 2, -1, 0, &reply) == 0 && reply.status == 0,
       "shmbuf: size 0 drops the buffer");
    call_t a = {.opc = MF_OPC_ALLREDUCE, .op = MF_OP_SUM, .dtype = MF_DT_INT32, .size = 4};
    forget_sent();
    coll(s, &a, 0, 23, 3, 0, 0, 4, 4);
    data(s, 0, 23, (const uint8_t *)"\1\0\0\0", 4);
    coll(s, &a, 1, 23, 3, 1, 0, 4, 4);
    data(s, 1, 23, (const uint8_t *)"\2\0\0\0", 4);
    a.flags = MF_EM_F_SHMBUF;
    coll(s, &a, 2, 23, 3, 2, 0, 4, 4);
    ok(result_of(2, 23, &r, NULL, 0, &got) == 0 && r.status == -1 &&
           strstr(r.text, "0-byte payload buffer"),
       "shmbuf: a shared-buffer call from a rank without one fails (%s)", r.text);
    for (int g = 0; g < 3; g++)
        mf_shmbuf_release(&b[g]);
}

static void test_bye(mf_session_t *s)
{
    bye(s, 0);
    bye(s, 1);
    ok(!mf_session_done(s), "bye: not done while rank 2 has not said BYE");
    bye(s, 2);
    ok(mf_session_done(s), "bye: done once every accepted rank said BYE");
}

int main(void)
{
    mf_params_t p;
    mf_topo_t t;
    char err[256];
    if (mf_params_load("u280", &p, err, sizeof err)) {
        diag("params: %s", err);
        return 1;
    }
    mf_net_t *net = test_make_net(&p, "torus", 4, 1, &t);
    if (!ok(net != NULL, "network: 4-node torus, u280"))
        return tap_done();
    mf_session_t *s = mf_session_create(net, 4, capture, NULL);
    ok(s != NULL, "session created");
    ok(mf_session_create(net, 5, capture, NULL) == NULL, "session refused for 5 ranks on 4 slots");
    if (s) {
        test_hello(s);
        ok(ct_setup(s, 0, 3, world3) == 0, "CT rows of a 3-rank communicator configured");
        test_allreduce(s, net);
        test_vote(s, net);
        test_mismatch(s, net);
        test_gather(s);
        test_bad_data(s);
        test_ct_free(s, net);
        test_baseline(s, &p);
        test_shmbuf(s);
        test_bye(s);
    }
    forget_sent();
    free(sent);
    mf_session_destroy(s);
    mf_net_destroy(net);
    mf_topo_free(&t);
    return tap_done();
}
