/* Unit tests of the board-stream codecs in src/proto/wire.c (the rest of
 * wire.c is in test_wire.c): completion word, per-rank byte counts, H2C and
 * C2H packets (doc/protocol.md, "Board streams"). */
#include <string.h>

#include "mpifpga/wire.h"
#include "tap.h"

static void test_cpl(void)
{
    mf_board_cpl_t c = {.status = MF_BOARD_CT_REFUSED, .reason = 8, .cycles = 0x123456789aULL};
    uint8_t b[MF_BOARD_CPL_BYTES];
    mf_board_cpl_pack(&c, b);
    const uint8_t want[MF_BOARD_CPL_BYTES] = {0x02, 0x08, 0x9a, 0x78, 0x56, 0x34, 0x12, 0x00};
    ok(memcmp(b, want, sizeof want) == 0,
       "board cpl: status bits 0-7, reason 8-15, cycles 16-63, byte-exact");
    mf_board_cpl_t back;
    mf_board_cpl_unpack(b, &back);
    ok(back.status == c.status && back.reason == c.reason && back.cycles == c.cycles,
       "board cpl: round trip");
    c.cycles = UINT64_MAX;
    mf_board_cpl_pack(&c, b);
    mf_board_cpl_unpack(b, &back);
    ok(back.cycles == MF_BOARD_CYCLES_MAX && back.status == MF_BOARD_CT_REFUSED,
       "board cpl: cycles saturate at 2^48-1 without touching status");
}

/* send/recv bytes of one (opcode, rank) in a 5-member communicator, root 3. */
static int bytes_are(unsigned opc, unsigned rank, uint64_t want_send, uint64_t want_recv)
{
    const uint32_t counts[5] = {8, 0, 16, 24, 4};
    mf_proc_hdr_t h = {.opcode = (uint8_t)opc, .root = 3, .size = 40};
    uint64_t s = 1, r = 1;
    return mf_board_bytes(&h, 5, rank, counts, &s, &r) == 0 && s == want_send &&
           r == want_recv;
}

static void test_bytes(void)
{
    ok(bytes_are(MF_OPC_BARRIER, 0, 0, 0), "board bytes: barrier sends and gets nothing");
    ok(bytes_are(MF_OPC_BCAST, 3, 40, 0) && bytes_are(MF_OPC_BCAST, 1, 0, 40),
       "board bytes: bcast root sends size, gets 0; others get size");
    ok(bytes_are(MF_OPC_REDUCE, 3, 40, 40) && bytes_are(MF_OPC_REDUCE, 0, 40, 0),
       "board bytes: reduce: all send size, only the root gets it");
    ok(bytes_are(MF_OPC_ALLREDUCE, 4, 40, 40), "board bytes: allreduce size both ways");
    ok(bytes_are(MF_OPC_SCATTER, 3, 200, 40) && bytes_are(MF_OPC_SCATTER, 2, 0, 40),
       "board bytes: scatter root sends size x P, every member gets size");
    ok(bytes_are(MF_OPC_GATHER, 3, 40, 200) && bytes_are(MF_OPC_GATHER, 2, 40, 0),
       "board bytes: gather: all send size, root gets size x P");
    ok(bytes_are(MF_OPC_ALLGATHER, 1, 40, 200), "board bytes: allgather size, size x P");
    ok(bytes_are(MF_OPC_REDUCE_SCATTER, 2, 52, 16) && bytes_are(MF_OPC_REDUCE_SCATTER, 1, 52, 0),
       "board bytes: reduce_scatter sends the counts' sum, gets counts[rank]");
    ok(bytes_are(MF_OPC_CT_CONFIG, 0, 40, 0) && bytes_are(MF_OPC_CT_FREE, 0, 0, 0),
       "board bytes: ct_config sends its entry, ct_free nothing");
    mf_proc_hdr_t h = {.opcode = MF_OPC_SCAN, .size = 8};
    uint64_t s, r;
    int refused = mf_board_bytes(&h, 4, 0, NULL, &s, &r) == -1;
    h.opcode = MF_OPC_ALLTOALL;
    refused &= mf_board_bytes(&h, 4, 0, NULL, &s, &r) == -1;
    h = (mf_proc_hdr_t){.opcode = MF_OPC_BCAST, .root = 4, .size = 8};
    refused &= mf_board_bytes(&h, 4, 0, NULL, &s, &r) == -1;
    h.root = 0;
    refused &= mf_board_bytes(&h, 4, 4, NULL, &s, &r) == -1;
    h.opcode = MF_OPC_REDUCE_SCATTER;
    refused &= mf_board_bytes(&h, 4, 0, NULL, &s, &r) == -1;
    ok(refused, "board bytes: scan / alltoall, root or rank >= size, "
                "reduce_scatter without counts refused");
    int runs = 1;
    for (unsigned o = 0; o < MF_OPC_COUNT; o++)
        runs &= mf_board_runs(o) == ((o >= 1 && o <= 8) || o == 9 || o == 10);
    ok(runs, "board runs opcodes 1-10 only");
}

static void test_h2c(void)
{
    mf_proc_hdr_t h = {.opcode = MF_OPC_REDUCE_SCATTER, .ctx = 7, .op = MF_OP_SUM,
                       .dtype = MF_DT_INT32, .size = 4};
    const uint32_t counts[3] = {4, 8, 0x01020304};
    const uint8_t pay[5] = {1, 2, 3, 4, 5};
    uint8_t buf[64], want_hdr[MF_PROC_HDR_BYTES];
    mf_proc_hdr_pack(&h, want_hdr);
    size_t n = mf_board_h2c_pack(&h, counts, 3, pay, sizeof pay, buf, sizeof buf);
    const uint8_t want_counts[16] = {4, 0, 0, 0, 8, 0, 0, 0, 4, 3, 2, 1, 0, 0, 0, 0};
    ok(n == 8 + 16 + 5 && memcmp(buf, want_hdr, 8) == 0 &&
           memcmp(buf + 8, want_counts, 16) == 0 && memcmp(buf + 24, pay, 5) == 0,
       "board h2c: header, 3 counts padded to 16 bytes, payload (%zu bytes)", n);
    mf_proc_hdr_t back;
    uint32_t cb[3];
    const uint8_t *p;
    size_t pn;
    ok(mf_board_h2c_unpack(buf, n, 3, &back, cb, &p, &pn) == 0 && back.ctx == 7 &&
           back.size == 4 && cb[2] == 0x01020304 && pn == 5 && p == buf + 24,
       "board h2c: unpack finds header, counts, payload in place");
    ok(mf_board_h2c_unpack(buf, 8 + 15, 3, &back, cb, &p, &pn) == -1,
       "board h2c: a packet cut inside its counts is refused");
    ok(mf_board_h2c_pack(&h, counts, 3, pay, 5, buf, n - 1) == 0,
       "board h2c: pack refuses a too-small buffer");
    h = (mf_proc_hdr_t){.opcode = MF_OPC_BARRIER};
    ok(mf_board_h2c_pack(&h, NULL, 0, NULL, 0, buf, sizeof buf) == 8 &&
           mf_board_counts_bytes(0) == 0 && mf_board_counts_bytes(1) == 8 &&
           mf_board_counts_bytes(2) == 8,
       "board h2c: a barrier is one beat; counts pad to whole beats");
    buf[1] |= 0x78; /* op 15 */
    ok(mf_board_h2c_unpack(buf, 8, 0, &back, cb, &p, &pn) == -1,
       "board h2c: an undecodable header is refused");
}

static void test_c2h(void)
{
    mf_proc_hdr_t h = {.opcode = MF_OPC_GATHER, .ctx = 2, .root = 1, .size = 3};
    mf_board_cpl_t c = {.status = MF_BOARD_OK, .cycles = 77};
    const uint8_t res[9] = {9, 8, 7, 6, 5, 4, 3, 2, 1};
    uint8_t buf[64];
    memset(buf, 0xee, sizeof buf);
    size_t n = mf_board_c2h_pack(&h, &c, res, sizeof res, buf, sizeof buf);
    mf_proc_hdr_t back;
    mf_board_cpl_t cb;
    const uint8_t *p;
    size_t pn;
    const uint8_t zeros[7] = {0};
    ok(n == 8 + 16 + 8 && memcmp(buf + 8, res, 9) == 0 && memcmp(buf + 17, zeros, 7) == 0 &&
           buf[24] == MF_BOARD_OK && buf[26] == 77,
       "board c2h: header, result padded with zeros to 16 bytes, completion last");
    ok(mf_board_c2h_unpack(buf, n, &back, &cb, &p, &pn) == 0 && back.size == 9 &&
           back.root == 1 && back.opcode == MF_OPC_GATHER && cb.cycles == 77 && pn == 9 &&
           p == buf + 8,
       "board c2h: unpack: header echoed with size = result bytes, result, completion");
    ok(mf_board_c2h_unpack(buf, n - 8, &back, &cb, &p, &pn) == -1 &&
           mf_board_c2h_unpack(buf, n + 8, &back, &cb, &p, &pn) == -1 &&
           mf_board_c2h_unpack(buf, 15, &back, &cb, &p, &pn) == -1,
       "board c2h: a packet not header + pad8(size) + completion is refused");
    ok(mf_board_c2h_pack(&h, &c, res, 9, buf, n - 1) == 0, "board c2h: pack refuses small buffer");
    mf_board_cpl_t u = {.status = MF_BOARD_UNSUPPORTED, .cycles = 1};
    h.opcode = MF_OPC_SCAN;
    n = mf_board_c2h_pack(&h, &u, NULL, 0, buf, sizeof buf);
    ok(n == 16 && mf_board_c2h_unpack(buf, n, &back, &cb, &p, &pn) == 0 && pn == 0 &&
           cb.status == MF_BOARD_UNSUPPORTED && back.size == 0,
       "board c2h: a result-less packet is header + completion (2 beats)");
}

int main(void)
{
    test_cpl();
    test_bytes();
    test_h2c();
    test_c2h();
    return tap_done();
}
