/*
 * Fuzz target: host <-> engine messages (src/proto/engine_msg.c,
 * doc/protocol.md "Engine messages") -- every type the engine and the
 * ranks decode.  The input is one transport message; every decoder is
 * tried on it (each must refuse other types).
 *
 * Invariants: a decoded message has its fields in range and its strings
 * NUL-terminated; it packs back to the bytes it came from (reserved bytes
 * and string padding aside), and decode(encode(decoded)) == decoded.
 */
#include <string.h>

#include "fuzz.h"
#include "mpifpga/engine_msg.h"

static uint8_t out[MF_EM_MAX];

static int same_hdr(const mf_em_hdr_t *a, const mf_em_hdr_t *b)
{
    return a->type == b->type && a->flags == b->flags && a->pad == b->pad &&
           a->grank == b->grank && a->seq == b->seq && a->off == b->off;
}

static int terminated(const char *s, size_t cap) { return strnlen(s, cap) < cap; }

/* The packed copy equals the input but for the bytes in skip[0..nskip). */
static int same_bytes(const uint8_t *a, const uint8_t *b, size_t n, const size_t *skip,
                      size_t nskip)
{
    for (size_t i = 0; i < n; i++) {
        int skipped = 0;
        for (size_t k = 0; k < nskip; k++)
            skipped |= skip[k] == i;
        if (!skipped && a[i] != b[i])
            return 0;
    }
    return 1;
}

static void hello(const uint8_t *in, size_t n, const mf_em_hdr_t *h)
{
    mf_em_hello_t b, b2;
    if (mf_em_unpack_hello(in, n, &b))
        return;
    FUZZ_CHECK(b.addrlen <= MF_EM_ADDR_MAX && n == 36u + b.addrlen, "HELLO length");
    FUZZ_CHECK(b.fwd.rank != MF_RANK_NONE, "HELLO forwarding entry names a rank");
    size_t len = mf_em_pack_hello(h, &b, out, sizeof out);
    const size_t reserved[] = {33};
    FUZZ_CHECK(len == n && same_bytes(out, in, n, reserved, 1), "HELLO packs back to its bytes");
    FUZZ_CHECK(mf_em_unpack_hello(out, len, &b2) == 0 && b2.version == b.version &&
                   b2.nranks == b.nranks && b2.pid == b.pid && b2.fwd.rank == b.fwd.rank &&
                   b2.fwd.node == b.fwd.node && b2.fwd.port == b.fwd.port &&
                   b2.addrlen == b.addrlen && memcmp(b2.addr, b.addr, sizeof b.addr) == 0,
               "HELLO round trip");
}

static void welcome(const uint8_t *in, size_t n, const mf_em_hdr_t *h)
{
    mf_em_welcome_t b, b2;
    if (mf_em_unpack_welcome(in, n, &b))
        return;
    FUZZ_CHECK(terminated(b.params, sizeof b.params) && terminated(b.topo, sizeof b.topo) &&
                   terminated(b.text, sizeof b.text),
               "WELCOME strings terminated");
    size_t len = mf_em_pack_welcome(h, &b, out, sizeof out);
    FUZZ_CHECK(len == n && mf_em_unpack_welcome(out, len, &b2) == 0, "WELCOME repacks");
    FUZZ_CHECK(b2.status == b.status && b2.nranks == b.nranks && b2.nnodes == b.nnodes &&
                   b2.ppn == b.ppn && b2.pid == b.pid &&
                   memcmp(&b2.cycle_ns, &b.cycle_ns, sizeof b.cycle_ns) == 0 &&
                   !strcmp(b2.params, b.params) && !strcmp(b2.topo, b.topo) &&
                   !strcmp(b2.text, b.text),
               "WELCOME round trip");
}

static void ct(const uint8_t *in, size_t n, const mf_em_hdr_t *h, int with_entry)
{
    mf_em_ct_t b, b2;
    if (mf_em_unpack_ct(in, n, &b, with_entry))
        return;
    FUZZ_CHECK(b.ctx < MF_MAX_CTX, "CT message context in range");
    if (with_entry)
        FUZZ_CHECK(b.entry.rank < b.entry.size && b.entry.levels <= MF_MAX_LEVELS,
                   "CT_CONFIG entry consistent");
    size_t len = mf_em_pack_ct(h, &b, out, sizeof out);
    const size_t reserved[] = {17};
    FUZZ_CHECK(len == n && same_bytes(out, in, n, reserved, 1), "CT message packs back");
    FUZZ_CHECK(mf_em_unpack_ct(out, len, &b2, with_entry) == 0 && b2.ctx == b.ctx &&
                   (!with_entry || memcmp(&b2.entry, &b.entry, sizeof b.entry) == 0),
               "CT message round trip");
}

static void coll(const uint8_t *in, size_t n, const mf_em_hdr_t *h)
{
    mf_em_coll_t b, b2;
    if (mf_em_unpack_coll(in, n, &b))
        return;
    FUZZ_CHECK(b.vote < MF_FB_COUNT && b.comm_size > 0 && b.comm_rank < b.comm_size,
               "COLL fields in range");
    FUZZ_CHECK(b.ncounts == 0 || (b.ncounts == b.comm_size && b.counts), "COLL counts");
    FUZZ_CHECK(b.hdr.opcode < MF_OPC_COUNT && b.hdr.op < MF_OP_COUNT &&
                   b.hdr.dtype < MF_DT_COUNT,
               "COLL processor header in range");
    for (uint32_t i = 0; i < b.ncounts; i++) /* readable: ASan checks the bounds */
        FUZZ_CHECK(b.counts[i] == (uint32_t)mf_get_le(in + 60 + 4 * (size_t)i, 4),
                   "COLL counts read in place");
    size_t len = mf_em_pack_coll(h, &b, out, sizeof out);
    const size_t reserved[] = {25};
    FUZZ_CHECK(len == n && same_bytes(out, in, n, reserved, 1), "COLL packs back to its bytes");
    FUZZ_CHECK(mf_em_unpack_coll(out, len, &b2) == 0 && b2.vote == b.vote &&
                   b2.comm_size == b.comm_size && b2.comm_rank == b.comm_rank &&
                   b2.global0 == b.global0 && b2.send_bytes == b.send_bytes &&
                   b2.recv_bytes == b.recv_bytes && b2.entry_ns == b.entry_ns &&
                   b2.ncounts == b.ncounts && b2.hdr.size == b.hdr.size &&
                   b2.hdr.root == b.hdr.root && b2.hdr.ctx == b.hdr.ctx,
               "COLL round trip");
}

static void result(const uint8_t *in, size_t n, const mf_em_hdr_t *h)
{
    mf_em_result_t b, b2;
    if (mf_em_unpack_result(in, n, &b))
        return;
    FUZZ_CHECK(b.reason < MF_FB_COUNT && terminated(b.text, sizeof b.text), "RESULT fields");
    size_t len = mf_em_pack_result(h, &b, out, sizeof out);
    FUZZ_CHECK(len == n && mf_em_unpack_result(out, len, &b2) == 0, "RESULT repacks");
    FUZZ_CHECK(b2.status == b.status && b2.reason == b.reason && b2.recv_bytes == b.recv_bytes &&
                   b2.net_cycles == b.net_cycles && b2.rank_cycles == b.rank_cycles &&
                   memcmp(&b2.cycle_ns, &b.cycle_ns, sizeof b.cycle_ns) == 0 &&
                   !strcmp(b2.text, b.text) && b2.baseline_cycles == b.baseline_cycles,
               "RESULT round trip");
}

static void shmbuf(const uint8_t *in, size_t n, const mf_em_hdr_t *h)
{
    mf_em_shmbuf_t b, b2;
    if (mf_em_unpack_shmbuf(in, n, &b))
        return;
    FUZZ_CHECK(terminated(b.text, sizeof b.text), "SHMBUF text terminated");
    size_t len = mf_em_pack_shmbuf(h, &b, out, sizeof out);
    FUZZ_CHECK(len == n && mf_em_unpack_shmbuf(out, len, &b2) == 0, "SHMBUF repacks");
    FUZZ_CHECK(b2.status == b.status && b2.fd == b.fd && b2.size == b.size &&
                   !strcmp(b2.text, b.text),
               "SHMBUF round trip");
}

static void data_msg(const uint8_t *in, size_t n, const mf_em_hdr_t *h)
{
    const uint8_t *d;
    size_t dn;
    if (mf_em_unpack_data(in, n, &d, &dn))
        return;
    FUZZ_CHECK(d == in + MF_EM_HDR_BYTES && dn + MF_EM_HDR_BYTES == n, "DATA payload bounds");
    size_t len = mf_em_pack_data(h, d, dn, out, sizeof out);
    FUZZ_CHECK(len == n && memcmp(out, in, n) == 0, "DATA packs back to its bytes");
}

static void all_decoders(const uint8_t *in, size_t n)
{
    mf_em_hdr_t h, h2;
    if (mf_em_unpack_hdr(in, n, &h)) {
        h.type = MF_EM_HELLO; /* still try each decoder: each must refuse */
        h.flags = 0, h.pad = 0, h.grank = h.seq = h.off = 0;
    } else {
        FUZZ_CHECK(h.type >= MF_EM_HELLO && h.type < MF_EM_TYPE_COUNT, "header type in range");
        FUZZ_CHECK(mf_em_pack_hdr(&h, out) == MF_EM_HDR_BYTES &&
                       memcmp(out, in, MF_EM_HDR_BYTES) == 0,
                   "header packs back to its bytes");
        FUZZ_CHECK(mf_em_unpack_hdr(out, n < MF_EM_MAX ? n : MF_EM_MAX, &h2) == 0 &&
                       same_hdr(&h, &h2),
                   "header round trip");
    }
    hello(in, n, &h);
    welcome(in, n, &h);
    ct(in, n, &h, 1);
    ct(in, n, &h, 0);
    coll(in, n, &h);
    result(in, n, &h);
    shmbuf(in, n, &h);
    data_msg(in, n, &h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size heap copy: malloc's alignment (as a receive buffer
     * has) and a sanitizer sees any read past the message. */
    uint8_t *msg = malloc(size ? size : 1);
    if (!msg)
        return 0;
    if (size)
        memcpy(msg, data, size);
    all_decoders(msg, size);
    free(msg);
    return 0;
}
