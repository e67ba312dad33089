/*
 * Host <-> engine messages (src/proto/engine_msg.c): every message type
 * round-trips; the header's byte layout is the documented one; truncated,
 * over-long, mistyped and inconsistent messages are rejected.
 */
#include <stdlib.h>
#include <string.h>

#include "mpifpga/ct.h"
#include "mpifpga/engine_msg.h"
#include "tap.h"

/* Aligned like a receive buffer (COLL counts are read in place). */
static _Alignas(8) uint8_t buf[MF_EM_MAX];

/* Every strict prefix of a message must be rejected. */
static int truncations_rejected(size_t n, int (*unpack)(const uint8_t *, size_t))
{
    for (size_t l = 0; l < n; l++)
        if (unpack(buf, l) == 0)
            return diag("accepted a %zu-byte prefix of %zu", l, n), 0;
    return 1;
}

static int un_hello(const uint8_t *in, size_t n)
{
    mf_em_hello_t b;
    return mf_em_unpack_hello(in, n, &b);
}
static int un_welcome(const uint8_t *in, size_t n)
{
    mf_em_welcome_t b;
    return mf_em_unpack_welcome(in, n, &b);
}
static int un_ctc(const uint8_t *in, size_t n)
{
    mf_em_ct_t b;
    return mf_em_unpack_ct(in, n, &b, 1);
}
static int un_ctf(const uint8_t *in, size_t n)
{
    mf_em_ct_t b;
    return mf_em_unpack_ct(in, n, &b, 0);
}
static int un_coll(const uint8_t *in, size_t n)
{
    mf_em_coll_t b;
    return mf_em_unpack_coll(in, n, &b);
}
static int un_result(const uint8_t *in, size_t n)
{
    mf_em_result_t b;
    return mf_em_unpack_result(in, n, &b);
}
static int un_shmbuf(const uint8_t *in, size_t n)
{
    mf_em_shmbuf_t b;
    return mf_em_unpack_shmbuf(in, n, &b);
}
static int un_data(const uint8_t *in, size_t n)
{
    const uint8_t *d;
    size_t l;
    return mf_em_unpack_data(in, n, &d, &l);
}
static int un_hdr(const uint8_t *in, size_t n)
{
    mf_em_hdr_t h;
    return mf_em_unpack_hdr(in, n, &h);
}

static void test_hdr(void)
{
    mf_em_hdr_t h = {.type = MF_EM_DATA, .flags = 0, .grank = 0x01020304, .seq = 0xa0b0c0d0,
                     .off = 7}, g;
    static const uint8_t want[16] = {6, 0, 0, 0, 4, 3, 2, 1, 0xd0, 0xc0, 0xb0, 0xa0, 7, 0, 0, 0};
    ok(mf_em_pack_hdr(&h, buf) == 16 && !memcmp(buf, want, 16), "header: documented bytes");
    ok(mf_em_unpack_hdr(buf, 16, &g) == 0 && g.type == h.type && g.grank == h.grank &&
           g.seq == h.seq && g.off == h.off, "header: round trip");
    ok(truncations_rejected(16, un_hdr), "header: truncated rejected");
    buf[0] = 0;
    ok(mf_em_unpack_hdr(buf, 16, &g) == -1, "header: type 0 rejected");
    buf[0] = MF_EM_TYPE_COUNT;
    ok(mf_em_unpack_hdr(buf, 16, &g) == -1, "header: type %d rejected", MF_EM_TYPE_COUNT);
    buf[0] = MF_EM_BYE;
    ok(mf_em_unpack_hdr(buf, MF_EM_MAX + 1, &g) == -1, "header: message over MF_EM_MAX rejected");
}

static void test_hello(void)
{
    mf_em_hdr_t h = {.type = MF_EM_HELLO, .grank = 5};
    mf_em_hello_t b = {.version = MF_EM_VERSION, .nranks = 12, .pid = 4242,
                       .fwd = {.rank = 5, .node = 2, .port = 1}, .addrlen = 3,
                       .addr = {0xaa, 0xbb, 0xcc}}, g;
    ok(mf_em_secret_parse("00112233445566778899aabbccddeeFF", b.secret) == 0 &&
           b.secret[0] == 0x00 && b.secret[1] == 0x11 && b.secret[15] == 0xff,
       "secret: 32 hex digits parse");
    uint8_t bad[MF_EM_SECRET_BYTES];
    ok(mf_em_secret_parse("0011", bad) == -1 && mf_em_secret_parse("zz112233445566778899aabbccddeeff", bad) == -1 &&
           !bad[0] && !bad[15],
       "secret: short or non-hex text refused (all zero)");
    size_t n = mf_em_pack_hello(&h, &b, buf, sizeof buf);
    ok(n == 52 + 3, "hello: 52 + addrlen bytes (%zu)", n);
    memset(&g, 0x55, sizeof g);
    ok(mf_em_unpack_hello(buf, n, &g) == 0 && g.version == b.version && g.nranks == 12 &&
           g.pid == 4242 && g.fwd.rank == 5 && g.fwd.node == 2 && g.fwd.port == 1 &&
           g.addrlen == 3 && !memcmp(g.addr, b.addr, 3) && !memcmp(g.secret, b.secret, 16),
       "hello: round trip (with the job secret)");
    ok(truncations_rejected(n, un_hello), "hello: truncated rejected");
    ok(mf_em_unpack_hello(buf, n + 1, &g) == -1, "hello: trailing byte rejected");
    buf[34] = (uint8_t)(MF_EM_ADDR_MAX + 1);
    buf[35] = (uint8_t)((MF_EM_ADDR_MAX + 1) >> 8);
    ok(mf_em_unpack_hello(buf, 52 + MF_EM_ADDR_MAX + 1, &g) == -1,
       "hello: addrlen > MF_EM_ADDR_MAX rejected");
    b.addrlen = MF_EM_ADDR_MAX;
    memset(b.addr, 0x77, MF_EM_ADDR_MAX);
    n = mf_em_pack_hello(&h, &b, buf, sizeof buf);
    ok(n == 52 + MF_EM_ADDR_MAX && mf_em_unpack_hello(buf, n, &g) == 0 &&
           g.addrlen == MF_EM_ADDR_MAX && g.addr[MF_EM_ADDR_MAX - 1] == 0x77,
       "hello: longest address round-trips");
    ok(mf_em_pack_hello(&h, &b, buf, n - 1) == 0, "hello: pack refuses a short buffer");
    b.addrlen = MF_EM_ADDR_MAX + 1;
    ok(mf_em_pack_hello(&h, &b, buf, sizeof buf) == 0, "hello: pack refuses a long address");
    b.addrlen = 0;
    n = mf_em_pack_hello(&h, &b, buf, sizeof buf);
    buf[0] = MF_EM_BYE;
    ok(mf_em_unpack_hello(buf, n, &g) == -1, "hello: wrong type byte rejected");
}

static void test_welcome(void)
{
    mf_em_hdr_t h = {.type = MF_EM_WELCOME, .grank = 3};
    mf_em_welcome_t b = {.status = -1, .nranks = 16, .nnodes = 4, .ppn = 4, .pid = 99,
                         .cycle_ns = 3.3333333333333335, .params = "u280",
                         .topo = "torus:2x2x1", .dma_bytes_per_cycle = 64, .sa = 6}, g;
    memset(b.text, 'x', sizeof b.text); /* not terminated: pack cuts it */
    size_t n = mf_em_pack_welcome(&h, &b, buf, sizeof buf);
    ok(n == 388, "welcome: 388 bytes (%zu)", n);
    ok(mf_em_unpack_welcome(buf, n, &g) == 0 && g.status == -1 && g.nranks == 16 &&
           g.nnodes == 4 && g.ppn == 4 && g.pid == 99 && g.cycle_ns == b.cycle_ns &&
           g.dma_bytes_per_cycle == 64 && g.sa == 6 && !strcmp(g.params, "u280") && !strcmp(g.topo, "torus:2x2x1") &&
           strlen(g.text) == MF_EM_TEXT_MAX - 1,
       "welcome: round trip, text cut to %d chars", MF_EM_TEXT_MAX - 1);
    memset(buf + 48, 'y', 32 + 64 + MF_EM_TEXT_MAX); /* strings without NUL */
    ok(mf_em_unpack_welcome(buf, n, &g) == 0 && strlen(g.params) == 31 &&
           strlen(g.topo) == 63 && strlen(g.text) == MF_EM_TEXT_MAX - 1,
       "welcome: unterminated strings come back terminated");
    ok(truncations_rejected(n, un_welcome), "welcome: truncated rejected");
    ok(mf_em_pack_welcome(&h, &b, buf, n - 1) == 0, "welcome: pack refuses a short buffer");
}

static void test_ct(void)
{
    int members[6] = {0, 2, 4, 6, 8, 10};
    char err[128];
    mf_em_hdr_t h = {.type = MF_EM_CT_CONFIG, .grank = 4};
    mf_em_ct_t b = {.ctx = 7}, g;
    ok(mf_ct_entry_build(6, 2, members, &b.entry, err, sizeof err) == 0, "ct: entry built");
    size_t n = mf_em_pack_ct(&h, &b, buf, sizeof buf);
    ok(n == 20 + mf_ct_entry_wire_bytes(&b.entry), "ct_config: 20 + entry bytes (%zu)", n);
    ok(mf_em_unpack_ct(buf, n, &g, 1) == 0 && g.ctx == 7 && g.entry.size == 6 &&
           g.entry.rank == 2 && g.entry.up[0] == 6 && g.entry.down[0] == 2 &&
           g.entry.global0 == 0,
       "ct_config: round trip");
    ok(truncations_rejected(n, un_ctc), "ct_config: truncated rejected");
    ok(mf_em_unpack_ct(buf, n, &g, 0) == -1, "ct_config: not a CT_FREE");
    buf[18]++; /* entry length one more than the entry, and the byte there */
    buf[n] = 0;
    ok(mf_em_unpack_ct(buf, n + 1, &g, 1) == -1, "ct_config: a byte after the entry rejected");
    buf[18]--;
    buf[16] = MF_MAX_CTX;
    ok(mf_em_unpack_ct(buf, n, &g, 1) == -1, "ct_config: ctx >= %d rejected", MF_MAX_CTX);
    h.type = MF_EM_CT_FREE;
    n = mf_em_pack_ct(&h, &b, buf, sizeof buf);
    ok(n == 20 && mf_em_unpack_ct(buf, n, &g, 0) == 0 && g.ctx == 7,
       "ct_free: 20 bytes, round trip");
    ok(truncations_rejected(n, un_ctf), "ct_free: truncated rejected");
    ok(mf_em_unpack_ct(buf, n, &g, 1) == -1, "ct_free: not a CT_CONFIG");
    h.type = MF_EM_COLL;
    ok(mf_em_pack_ct(&h, &b, buf, sizeof buf) == 0, "ct: pack refuses another type");
}

static void test_coll(void)
{
    uint32_t counts[3] = {8, 16, 0xfffffff0u};
    mf_em_hdr_t h = {.type = MF_EM_COLL, .grank = 9, .seq = 17};
    mf_em_coll_t b = {.hdr = {.opcode = MF_OPC_REDUCE_SCATTER, .ctx = 3, .alg = 2,
                              .op = MF_OP_MAX, .dtype = MF_DT_INT32, .root = 0, .size = 8},
                      .vote = MF_FB_NONE, .comm_size = 3, .comm_rank = 1, .global0 = 8,
                      .send_bytes = 0x123456789aull, .recv_bytes = 16,
                      .entry_ns = 0x1122334455667788ull, .ncounts = 3, .counts = counts}, g;
    mf_em_hdr_t gh;
    size_t n = mf_em_pack_coll(&h, &b, buf, sizeof buf);
    ok(n == 60 + 12, "coll: 60 + 4 x ncounts bytes (%zu)", n);
    ok(mf_em_unpack_hdr(buf, n, &gh) == 0 && gh.seq == 17 && gh.grank == 9 && gh.flags == 0,
       "coll: header");
    ok(mf_em_unpack_coll(buf, n, &g) == 0 && g.hdr.opcode == MF_OPC_REDUCE_SCATTER &&
           g.hdr.ctx == 3 && g.hdr.alg == 2 && g.hdr.op == MF_OP_MAX &&
           g.hdr.dtype == MF_DT_INT32 && g.hdr.size == 8 && g.comm_size == 3 &&
           g.comm_rank == 1 && g.global0 == 8 && g.send_bytes == b.send_bytes &&
           g.recv_bytes == 16 && g.entry_ns == b.entry_ns && g.ncounts == 3 && g.counts &&
           g.counts[0] == 8 &&
           g.counts[1] == 16 && g.counts[2] == counts[2],
       "coll: round trip with counts");
    ok(truncations_rejected(n, un_coll), "coll: truncated rejected");
    ok(mf_em_unpack_coll(buf, n + 4, &g) == -1, "coll: trailing bytes rejected");
    buf[56] = 2; /* ncounts 2 with comm_size 3 */
    ok(mf_em_unpack_coll(buf, n - 4, &g) == -1, "coll: ncounts not 0 and not comm_size rejected");
    b.ncounts = 0;
    b.vote = MF_FB_DERIVED;
    n = mf_em_pack_coll(&h, &b, buf, sizeof buf);
    ok(n == 60 && mf_em_unpack_coll(buf, n, &g) == 0 && g.ncounts == 0 && !g.counts &&
           g.vote == MF_FB_DERIVED,
       "coll: no counts, vote round-trips");
    buf[24] = MF_FB_COUNT;
    ok(mf_em_unpack_coll(buf, n, &g) == -1, "coll: unknown vote rejected");
    buf[24] = 0;
    buf[28] = 3; /* comm_rank 3 of 3 */
    ok(mf_em_unpack_coll(buf, n, &g) == -1, "coll: comm_rank >= comm_size rejected");
    b.hdr.dtype = MF_DT_COUNT;
    n = mf_em_pack_coll(&h, &b, buf, sizeof buf);
    ok(mf_em_unpack_coll(buf, n, &g) == -1, "coll: bad processor header rejected");
    b.hdr.dtype = MF_DT_INT32;
    h.flags = MF_EM_F_BASELINE;
    n = mf_em_pack_coll(&h, &b, buf, sizeof buf);
    ok(buf[1] == MF_EM_F_BASELINE && mf_em_unpack_hdr(buf, n, &gh) == 0 &&
           gh.flags == MF_EM_F_BASELINE && mf_em_unpack_coll(buf, n, &g) == 0,
       "coll: flag MF_EM_F_BASELINE in header byte 1, round trip");
    h.flags = 0;
    b.ncounts = 2;
    ok(mf_em_pack_coll(&h, &b, buf, sizeof buf) == 0, "coll: pack refuses ncounts != comm_size");
    uint32_t v[9] = {4, 5, 6, 1, 2, 3, 7, 8, 9}; /* alltoallv: ranks, sent, received */
    b.hdr.opcode = MF_OPC_ALLTOALLV;
    b.hdr.size = 0;
    b.ncounts = 9;
    b.counts = v;
    n = mf_em_pack_coll(&h, &b, buf, sizeof buf);
    ok(n == 60 + 36 && mf_em_unpack_coll(buf, n, &g) == 0 && g.ncounts == 9 &&
           g.counts[8] == 9 && g.hdr.opcode == MF_OPC_ALLTOALLV,
       "coll: alltoallv's 3 x comm_size counts round trip");
    b.ncounts = 6;
    ok(mf_em_pack_coll(&h, &b, buf, sizeof buf) == 0, "coll: 2 x comm_size counts refused");
}

static void test_result(void)
{
    mf_em_hdr_t h = {.type = MF_EM_RESULT, .grank = 2, .seq = 5};
    mf_em_result_t b = {.status = 1, .reason = MF_FB_OP, .recv_bytes = 1ull << 33,
                        .net_cycles = 123456789012ull, .rank_cycles = 42, .cycle_ns = 2.5,
                        .text = "comm rank 1 falls back",
                        .baseline_cycles = 0x0102030405060708ull}, g;
    size_t n = mf_em_pack_result(&h, &b, buf, sizeof buf);
    ok(n == 304, "result: 304 bytes (%zu)", n);
    ok(mf_em_unpack_result(buf, n, &g) == 0 && g.status == 1 && g.reason == MF_FB_OP &&
           g.recv_bytes == b.recv_bytes && g.net_cycles == b.net_cycles &&
           g.rank_cycles == 42 && g.cycle_ns == 2.5 && !strcmp(g.text, b.text) &&
           g.baseline_cycles == b.baseline_cycles,
       "result: round trip");
    ok(buf[296] == 0x08 && buf[303] == 0x01,
       "result: baseline_cycles little-endian at offset 296, after the text");
    ok(mf_em_unpack_result(buf, n - 8, &g) == -1, "result: the 296-byte layout without "
       "baseline_cycles is rejected");
    b.status = -1;
    n = mf_em_pack_result(&h, &b, buf, sizeof buf);
    ok(mf_em_unpack_result(buf, n, &g) == 0 && g.status == -1, "result: negative status");
    ok(truncations_rejected(n, un_result), "result: truncated rejected");
    buf[0] = MF_EM_WELCOME;
    ok(mf_em_unpack_result(buf, n, &g) == -1, "result: wrong type byte rejected");
}

static void test_shmbuf(void)
{
    mf_em_hdr_t h = {.type = MF_EM_SHMBUF, .grank = 3};
    mf_em_shmbuf_t b = {.status = -1, .fd = 0x11223344u, .size = 0x0102030405060708ull,
                        .text = "cannot open /proc/1/fd/7"}, g;
    size_t n = mf_em_pack_shmbuf(&h, &b, buf, sizeof buf);
    ok(n == 272, "shmbuf: 272 bytes (%zu)", n);
    ok(buf[0] == 9 && buf[20] == 0x44 && buf[23] == 0x11 && buf[24] == 0x08 && buf[31] == 0x01,
       "shmbuf: type 9, fd at offset 20, size at 24, little-endian");
    ok(mf_em_unpack_shmbuf(buf, n, &g) == 0 && g.status == -1 && g.fd == b.fd &&
           g.size == b.size && !strcmp(g.text, b.text),
       "shmbuf: round trip");
    ok(truncations_rejected(n, un_shmbuf), "shmbuf: truncated rejected");
    ok(mf_em_pack_shmbuf(&h, &b, buf, n - 1) == 0, "shmbuf: pack refuses a short buffer");
    buf[0] = MF_EM_RESULT;
    ok(mf_em_unpack_shmbuf(buf, n, &g) == -1, "shmbuf: wrong type byte rejected");
    ok(mf_em_shmbuf_recv_off(0) == 0 && mf_em_shmbuf_recv_off(1) == 64 &&
           mf_em_shmbuf_recv_off(64) == 64 && mf_em_shmbuf_recv_off(65) == 128,
       "shmbuf: the result starts after the send bytes, 64-byte aligned");
}

static void test_data(void)
{
    static uint8_t src[MF_EM_DATA_MAX + 1];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 7);
    mf_em_hdr_t h = {.type = MF_EM_DATA, .grank = 1, .seq = 3, .off = 2}, gh;
    size_t n = mf_em_pack_data(&h, src, MF_EM_DATA_MAX, buf, sizeof buf), l;
    const uint8_t *d;
    ok(n == MF_EM_MAX, "data: a full chunk fills MF_EM_MAX");
    ok(mf_em_unpack_data(buf, n, &d, &l) == 0 && l == MF_EM_DATA_MAX && d == buf + 16 &&
           !memcmp(d, src, l) && mf_em_unpack_hdr(buf, n, &gh) == 0 && gh.off == 2,
       "data: round trip");
    ok(mf_em_chunk_off(2) == 2ull * MF_EM_DATA_MAX, "data: chunk 2 starts at 2 x MF_EM_DATA_MAX");
    ok(mf_em_pack_data(&h, src, MF_EM_DATA_MAX + 1, buf, sizeof buf) == 0,
       "data: pack refuses more than MF_EM_DATA_MAX");
    ok(truncations_rejected(16, un_data), "data: shorter than a header rejected");
    n = mf_em_pack_data(&h, src, 0, buf, sizeof buf);
    ok(n == 16 && mf_em_unpack_data(buf, n, &d, &l) == 0 && l == 0, "data: empty chunk");
}

static void test_names(void)
{
    static const char *const want[] = {"none", "disabled", "engine_unavailable", "intercomm",
                                       "comm_size", "ct_full", "datatype", "derived_datatype",
                                       "op", "size", "threads", "unsupported"};
    int good = 1;
    for (int r = 0; r < MF_FB_COUNT; r++)
        good &= !strcmp(mf_fb_name((mf_fb_reason_t)r), want[r]);
    ok(good && !strcmp(mf_fb_name(MF_FB_COUNT), "?"), "mf_fb_name: every reason");
}

int main(void)
{
    test_hdr();
    test_hello();
    test_welcome();
    test_ct();
    test_coll();
    test_result();
    test_shmbuf();
    test_data();
    test_names();
    return tap_done();
}
