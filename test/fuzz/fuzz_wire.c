/*
 * Fuzz target: the wire format (src/proto/wire.c, doc/protocol.md) -- the
 * processor and network packet headers, CT-config entries, forwarding
 * tables and the datatype / op / collective names users type.  The first
 * byte picks the decoder, the rest is its input.
 *
 * Invariants: every header's 64 / 48 bits are fields, so a decoded header
 * packs back to the same bytes; a decoded CT entry or forwarding table
 * packs back to the bytes it came from and decodes again to the same
 * values; decoded fields are within their ranges.
 */
#include <string.h>

#include "fuzz.h"
#include "mpifpga/wire.h"

static void proc_hdr(const uint8_t *in, size_t n)
{
    mf_proc_hdr_t h;
    uint8_t out[MF_PROC_HDR_BYTES];
    if (n < MF_PROC_HDR_BYTES || mf_proc_hdr_unpack(in, &h))
        return;
    FUZZ_CHECK(h.opcode < MF_OPC_COUNT && h.op < MF_OP_COUNT && h.dtype < MF_DT_COUNT,
               "processor header enums in range");
    FUZZ_CHECK(h.ctx < MF_MAX_CTX && h.alg < 4 && h.size <= MF_PROC_MAX_SIZE,
               "processor header fields fit their widths");
    mf_proc_hdr_pack(&h, out);
    FUZZ_CHECK(memcmp(out, in, sizeof out) == 0, "processor header packs back to its bytes");
}

static void net_hdr(const uint8_t *in, size_t n)
{
    mf_net_hdr_t h;
    uint8_t out[MF_NET_HDR_BYTES];
    if (n < MF_NET_HDR_BYTES || mf_net_hdr_unpack(in, &h))
        return;
    FUZZ_CHECK(h.opcode < MF_OPC_COUNT && h.op < MF_OP_COUNT && h.dtype < MF_DT_COUNT,
               "network header enums in range");
    FUZZ_CHECK(h.ctx < MF_MAX_CTX && h.tag < 32 && h.psize <= MF_NET_MAX_PSIZE && h.last < 2 &&
                   h.vc < 2 && h.pad < 32 && (h.psize || !h.pad),
               "network header fields fit their widths");
    mf_net_hdr_pack(&h, out);
    FUZZ_CHECK(memcmp(out, in, sizeof out) == 0, "network header packs back to its bytes");
}

static unsigned ceil_log2(unsigned n)
{
    unsigned k = 0;
    while ((1u << k) < n)
        k++;
    return k;
}

static void ct_entry(const uint8_t *in, size_t n)
{
    mf_ct_entry_t e, again;
    uint8_t out[512];
    if (mf_ct_entry_unpack(in, n, &e))
        return;
    FUZZ_CHECK(e.size >= 1 && e.rank < e.size, "CT entry rank within its communicator");
    FUZZ_CHECK(e.levels <= MF_MAX_LEVELS && e.levels == ceil_log2(e.size) &&
                   e.pof2_levels <= e.levels,
               "CT entry levels match its size");
    size_t len = mf_ct_entry_pack(&e, out, sizeof out);
    FUZZ_CHECK(len == mf_ct_entry_wire_bytes(&e) && len <= n, "CT entry packs to its wire size");
    FUZZ_CHECK(memcmp(out, in, len) == 0, "CT entry packs back to its bytes");
    FUZZ_CHECK(mf_ct_entry_unpack(out, len, &again) == 0 && memcmp(&again, &e, sizeof e) == 0,
               "CT entry decodes again to the same values");
}

/* decode(encode(x)) == x for an entry built from the input (made consistent). */
static void ct_roundtrip(const uint8_t *in, size_t n)
{
    mf_ct_entry_t e, back;
    uint8_t out[512];
    memset(&e, 0xff, sizeof e);
    if (n < 8)
        return;
    e.size = (uint16_t)mf_get_le(in, 2);
    e.size = e.size ? e.size : 1;
    e.rank = (uint16_t)(mf_get_le(in + 2, 2) % e.size);
    e.levels = (uint8_t)ceil_log2(e.size);
    e.pof2_levels = (uint8_t)(e.levels - ((1u << e.levels) != e.size));
    e.fold = (uint16_t)mf_get_le(in + 4, 2);
    e.global0 = (uint16_t)mf_get_le(in + 6, 2);
    e.ident = in[0] & 1; /* one bit on the wire */
    in += 8, n -= 8;
    uint16_t *sets[3] = {e.hc, e.up, e.down};
    for (size_t i = 0; i < 3u * e.levels && 2 * i + 1 < n; i++)
        sets[i / e.levels][i % e.levels] = (uint16_t)mf_get_le(in + 2 * i, 2);
    size_t len = mf_ct_entry_pack(&e, out, sizeof out);
    FUZZ_CHECK(len > 0, "a consistent CT entry packs");
    FUZZ_CHECK(mf_ct_entry_unpack(out, len, &back) == 0, "a packed CT entry decodes");
    FUZZ_CHECK(memcmp(&back, &e, sizeof e) == 0, "decode(encode(CT entry)) is the entry");
}

static void fwd_table(const uint8_t *in, size_t n)
{
    mf_fwd_entry_t e[64];
    size_t cnt = 0;
    uint8_t out[sizeof e / sizeof e[0] * MF_FWD_ENTRY_BYTES];
    if (mf_fwd_unpack(in, n, e, sizeof e / sizeof e[0], &cnt))
        return;
    FUZZ_CHECK(cnt * MF_FWD_ENTRY_BYTES == n, "forwarding table: every byte is an entry");
    for (size_t i = 0; i < cnt; i++)
        FUZZ_CHECK(e[i].rank != MF_RANK_NONE, "forwarding entry names a rank");
    FUZZ_CHECK(mf_fwd_pack(e, cnt, out, sizeof out) == n, "forwarding table packs to its size");
    FUZZ_CHECK(n == 0 || memcmp(out, in, n) == 0, "forwarding table packs back to its bytes");
}

/* Names a user types (MPIFPGA_COLLS, --dtype, --op): parse(name(x)) == x. */
static void names(const uint8_t *in, size_t n)
{
    char s[64];
    size_t len = n < sizeof s - 1 ? n : sizeof s - 1;
    memcpy(s, in, len);
    s[len] = '\0';
    mf_dtype_t t, t2;
    mf_op_t op, op2;
    mf_opcode_t c, c2;
    if (mf_dtype_parse(s, &t) == 0) {
        FUZZ_CHECK((unsigned)t < MF_DT_COUNT, "parsed datatype in range");
        FUZZ_CHECK(mf_dtype_parse(mf_dtype_name(t), &t2) == 0 && t2 == t, "datatype name round trip");
    }
    if (mf_op_parse(s, &op) == 0) {
        FUZZ_CHECK((unsigned)op < MF_OP_COUNT, "parsed op in range");
        FUZZ_CHECK(mf_op_parse(mf_op_name(op), &op2) == 0 && op2 == op, "op name round trip");
    }
    if (mf_coll_parse(s, &c) == 0) {
        FUZZ_CHECK((unsigned)c < MF_OPC_COUNT, "parsed collective in range");
        FUZZ_CHECK(mf_coll_parse(mf_opcode_name(c), &c2) == 0 && c2 == c,
                   "collective name round trip");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static void (*const decoders[])(const uint8_t *, size_t) = {
        proc_hdr, net_hdr, ct_entry, ct_roundtrip, fwd_table, names,
    };
    if (size < 1)
        return 0;
    decoders[data[0] % (sizeof decoders / sizeof decoders[0])](data + 1, size - 1);
    return 0;
}
