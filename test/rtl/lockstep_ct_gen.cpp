// make rtl-check, communicator table: the packets (CT-config entries built
// by mf_ct_entry_build, CT-free, and malformed ones) and the C model's
// verdict on each (mf_proc_hdr_unpack, mf_ct_entry_unpack, then ct.c's
// mf_ct_config / mf_ct_free on a table of their own).
#include <cstring>

#include "lockstep.h"
#include "lockstep_ct.h"

extern "C" {
#include "mpifpga/ct.h"
}

namespace ls {

const char *const ct_code_names[CT_CODES] = {
    "ok", "frame", "header", "opcode", "length", "entry", "range", "limit", "busy", "unset",
};

namespace {

constexpr unsigned kMaxGlobal = 65534; // 0xffff is MF_RANK_NONE

unsigned pick(std::initializer_list<unsigned> v)
{
    return v.begin()[rng() % v.size()];
}

// Communicator sizes: small ones, powers of two and their neighbours, the
// u16 bound, and b's MAX_R edges.
unsigned random_size(const CtBounds &b, bool bounds)
{
    if (bounds)
        return pick({1, 2, 65535, 65534, 32768, 32769, b.max_ranks - 1, b.max_ranks,
                     b.max_ranks + 1});
    switch (rng() % 6) {
    case 0: return pick({1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33});
    case 1: return 1 + (unsigned)(rng() % 64);
    case 2: return 1 + (unsigned)(rng() % 1024);
    case 3: return 1u << (rng() % 16);
    case 4: return 1 + (unsigned)(rng() % 65535);
    default: return 1 + (unsigned)(rng() % (b.max_ranks < 65535 ? b.max_ranks + 2 : 65535));
    }
}

// An entry of mf_ct_entry_build: comm rank i is global rank i (ident), or
// every member a random global rank.
std::vector<uint8_t> random_entry(const CtBounds &b, bool bounds)
{
    unsigned size = random_size(b, bounds);
    if (size > 65535)
        size = 65535;
    unsigned rank = pick({0u, size - 1, (unsigned)(rng() % size)});
    std::vector<int> global_of(size);
    bool ident = rng() % 2;
    for (unsigned i = 0; i < size; i++)
        global_of[i] = ident ? (int)i : (int)(rng() % (kMaxGlobal + 1));
    mf_ct_entry_t e;
    char err[160];
    if (mf_ct_entry_build((int)size, (int)rank, global_of.data(), &e, err, sizeof err)) {
        fprintf(stderr, "rtl_lockstep: mf_ct_entry_build: %s\n", err);
        exit(2);
    }
    std::vector<uint8_t> out(mf_ct_entry_wire_bytes(&e));
    if (mf_ct_entry_pack(&e, out.data(), out.size()) != out.size()) {
        fprintf(stderr, "rtl_lockstep: mf_ct_entry_pack refused a built entry\n");
        exit(2);
    }
    return out;
}

// The processor packet: header (mf_proc_hdr_pack) as beat 0, the payload
// after it; tkeep full but on the last beat.
CtPacket frame(unsigned opcode, unsigned ctx, uint32_t size_field, const std::vector<uint8_t> &pay)
{
    mf_proc_hdr_t h = {};
    h.opcode = (uint8_t)opcode;
    h.ctx = (uint8_t)ctx;
    h.alg = (uint8_t)(rng() % 4); // fields a CT packet does not use: any valid value
    h.op = (uint8_t)(rng() % MF_OP_COUNT);
    h.dtype = (uint8_t)(rng() % MF_DT_COUNT);
    h.root = (uint16_t)rng();
    h.size = size_field;
    CtPacket p;
    p.bytes.resize(MF_PROC_HDR_BYTES);
    mf_proc_hdr_pack(&h, p.bytes.data());
    p.bytes.insert(p.bytes.end(), pay.begin(), pay.end());
    size_t beats = (p.bytes.size() + 7) / 8;
    unsigned tail = (unsigned)(p.bytes.size() % 8);
    p.keep.assign(beats, 0xff);
    if (tail)
        p.keep.back() = (uint8_t)((1u << tail) - 1);
    p.bytes.resize(beats * 8, 0);
    return p;
}

CtPacket config(unsigned ctx, const std::vector<uint8_t> &pay)
{
    return frame(MF_OPC_CT_CONFIG, ctx, (uint32_t)pay.size(), pay);
}

// A tkeep the stream's framing refuses, on the header, a middle or the
// last beat.
void break_keep(CtPacket &p)
{
    size_t beat = rng() % p.keep.size();
    if (beat + 1 < p.keep.size())
        p.keep[beat] = pick({0x7f, 0xfe, 0x00, 0x0f});
    else
        p.keep[beat] = p.keep.size() == 1 ? 0x3f : pick({0x00, 0x05, 0x80, 0xfe});
}

// A CT packet broken one way; several ways end as the same refusal.
CtPacket malformed(unsigned ctx, const CtBounds &b)
{
    std::vector<uint8_t> pay = random_entry(b, false);
    size_t n = pay.size();
    switch (rng() % 16) {
    case 0: pay.resize(rng() % n); break;               // truncated
    case 1: pay.resize(rng() % 10); break;              // shorter than the fixed part
    case 2: pay.resize(n + 1 + rng() % 9, 0xab); break; // bytes left over
    case 3: pay.resize(n + 150 + rng() % 200); break;   // many left over
    case 4: pay.resize(n - 1); break;                   // odd length
    case 5: pay[4] = (uint8_t)pick({pay[4] + 1u, pay[4] - 1u, 17u, 255u}); break; // levels
    case 6: pay[5] ^= (uint8_t)(1u << (rng() % 7)); break;                    // pof2_levels
    case 7: {                                                                    // rank >= size
        unsigned size = pay[0] | pay[1] << 8, rank = size + (unsigned)(rng() % 3);
        if (rank > 65535)
            rank = 65535;
        pay[2] = (uint8_t)rank;
        pay[3] = (uint8_t)(rank >> 8);
        break;
    }
    case 8: pay[0] = pay[1] = 0; break; // size 0
    case 9: pay[5] ^= 0x80; break;      // ident flipped: still an entry
    case 10: return frame(MF_OPC_CT_CONFIG, ctx, (uint32_t)(n + pick({1u, 2u, 256u, 1u << 28})),
                          pay);
    case 11: return frame(MF_OPC_CT_CONFIG, ctx, (uint32_t)(n - 1 - rng() % n), pay);
    case 12: return frame(MF_OPC_CT_FREE, ctx, (uint32_t)n, pay); // free with a payload
    case 13: {                                                     // not a CT opcode
        unsigned opc = (unsigned)(rng() % MF_OPC_COUNT);
        if (opc == MF_OPC_CT_CONFIG || opc == MF_OPC_CT_FREE)
            opc = MF_OPC_FWD_TABLE;
        return frame(opc, ctx, (uint32_t)n, pay);
    }
    case 14: { // op or dtype code mf_proc_hdr_unpack refuses
        CtPacket p = config(ctx, pay);
        uint64_t v = mf_get_le(p.bytes.data(), 8);
        if (rng() % 2)
            v |= (uint64_t)pick({13, 14, 15}) << 11;
        else
            v |= 15ull << 15;
        mf_put_le(p.bytes.data(), v, 8);
        return p;
    }
    default: {
        CtPacket p = config(ctx, pay);
        break_keep(p);
        return p;
    }
    }
    return config(ctx, pay);
}

unsigned random_ctx(CtMix mix, const CtBounds &b)
{
    if (mix == MIX_REUSE)
        return (unsigned)(rng() % 4);
    if (mix == MIX_BOUNDS)
        return pick({0, b.rows - 1, b.rows < MF_MAX_CTX ? b.rows : 0, MF_MAX_CTX - 1});
    return (unsigned)(rng() % MF_MAX_CTX);
}

bool keep_ok(const CtPacket &p)
{
    size_t last = p.keep.size() - 1;
    for (size_t i = 0; i < last; i++)
        if (p.keep[i] != 0xff)
            return false;
    unsigned k = p.keep[last];
    return k == 0xff || (last > 0 && k != 0 && (k & (k + 1)) == 0);
}

size_t payload_bytes(const CtPacket &p)
{
    size_t n = 0;
    for (size_t i = 1; i < p.keep.size(); i++)
        n += (size_t)__builtin_popcount(p.keep[i]);
    return n;
}

CtCode config_refusal(const char *err)
{
    if (strstr(err, "out of range"))
        return CT_E_RANGE;
    if (strstr(err, "CT entry invalid"))
        return CT_E_LIMIT;
    if (strstr(err, "in use"))
        return CT_E_BUSY;
    fprintf(stderr, "rtl_lockstep: mf_ct_config said something new: %s\n", err);
    exit(2);
}

} // namespace

CtPacket ct_make_packet(CtMix mix, const CtBounds &b)
{
    unsigned ctx = random_ctx(mix, b);
    unsigned r = (unsigned)(rng() % 100);
    if ((mix == MIX_MALFORMED && r < 75) || (mix != MIX_MALFORMED && r < 3))
        return malformed(ctx, b);
    unsigned frees = mix == MIX_REUSE ? 45 : 15;
    if (r >= 100 - frees)
        return frame(MF_OPC_CT_FREE, ctx, 0, {});
    return config(ctx, random_entry(b, mix == MIX_BOUNDS));
}

CtCode ct_reference(mf_ct_ref_t *ref, const CtPacket &pkt, uint32_t busy)
{
    if (!keep_ok(pkt))
        return CT_E_FRAME;
    mf_proc_hdr_t h;
    if (mf_proc_hdr_unpack(pkt.bytes.data(), &h))
        return CT_E_HEADER;
    if (h.opcode != MF_OPC_CT_CONFIG && h.opcode != MF_OPC_CT_FREE)
        return CT_E_OPCODE;
    size_t len = payload_bytes(pkt);
    if (h.size != len || (h.opcode == MF_OPC_CT_FREE && len != 0))
        return CT_E_LENGTH;
    if (h.opcode == MF_OPC_CT_FREE)
        return mf_ct_ref_free(ref, h.ctx) ? CT_E_UNSET : CT_OK;
    mf_ct_entry_t e;
    const uint8_t *pay = pkt.bytes.data() + MF_PROC_HDR_BYTES;
    // as mf_em_unpack_ct: the entry fills the payload exactly
    if (mf_ct_entry_unpack(pay, len, &e) || len != mf_ct_entry_wire_bytes(&e))
        return CT_E_ENTRY;
    for (int c = 0; c < MF_MAX_CTX; c++)
        mf_ct_ref_set_busy(ref, c, (int)(busy >> c & 1u));
    char err[200];
    return mf_ct_ref_config(ref, h.ctx, &e, err, sizeof err) ? config_refusal(err) : CT_OK;
}

} // namespace ls
