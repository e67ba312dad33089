/*
 * Host <-> switch-engine messages (include/mpifpga/engine_msg.h).  Byte
 * layouts: doc/protocol.md, "Engine messages".  Every integer is written
 * byte by byte, little-endian, so the code does not depend on the host's
 * byte order or struct layout.
 */
#include "mpifpga/engine_msg.h"

#include <string.h>

/* Body offsets (from the start of the message); doc/protocol.md. */
enum {
    HELLO_VERSION = 16, HELLO_NRANKS = 20, HELLO_PID = 24, HELLO_FWD = 28,
    HELLO_ADDRLEN = 34, HELLO_SECRET = 36, HELLO_ADDR = 52,

    WELCOME_STATUS = 16, WELCOME_NRANKS = 20, WELCOME_NNODES = 24, WELCOME_PPN = 28,
    WELCOME_PID = 32, WELCOME_DMA = 36, WELCOME_CYCLE_NS = 40, WELCOME_PARAMS = 48, WELCOME_TOPO = 80,
    WELCOME_TEXT = 144, WELCOME_SA = WELCOME_TEXT + MF_EM_TEXT_MAX, WELCOME_BYTES = WELCOME_SA + 4,

    CT_CTX = 16, CT_ENTRY_LEN = 18, CT_ENTRY = 20,

    COLL_PROC = 16, COLL_VOTE = 24, COLL_SIZE = 26, COLL_RANK = 28, COLL_GLOBAL0 = 30,
    COLL_SEND = 32, COLL_RECV = 40, COLL_ENTRY = 48, COLL_NCOUNTS = 56, COLL_COUNTS = 60,

    RESULT_STATUS = 16, RESULT_REASON = 20, RESULT_RECV = 24, RESULT_NET = 32,
    RESULT_RANK = 40, RESULT_CYCLE_NS = 48, RESULT_TEXT = 56,
    RESULT_BASELINE = RESULT_TEXT + MF_EM_TEXT_MAX, /* appended after the text */
    RESULT_BYTES = RESULT_BASELINE + 8,

    SHMBUF_STATUS = 16, SHMBUF_FD = 20, SHMBUF_SIZE = 24, SHMBUF_TEXT = 32,
    SHMBUF_BYTES = SHMBUF_TEXT + MF_EM_TEXT_MAX,
};

static const char *const fb_names[MF_FB_COUNT] = {
    "none", "disabled", "engine_unavailable", "intercomm", "comm_size", "ct_full",
    "datatype", "derived_datatype", "op", "size", "threads", "unsupported",
};

const char *mf_fb_name(mf_fb_reason_t r)
{
    return (unsigned)r < MF_FB_COUNT ? fb_names[r] : "?";
}

/* ---- little-endian helpers (mf_put_le / mf_get_le: wire.c) -------------- */

/* IEEE-754 binary64, carried as its bit pattern. */
static void put_f64(uint8_t *out, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    mf_put_le(out, v, 8);
}

static double get_f64(const uint8_t *in)
{
    uint64_t v = mf_get_le(in, 8);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

/* Fixed-size string field: up to n-1 bytes, NUL-padded. */
static void put_str(uint8_t *out, const char *s, size_t n)
{
    size_t l = strnlen(s, n - 1);
    memcpy(out, s, l);
    memset(out + l, 0, n - l);
}

/* Always NUL-terminated, whatever the sender put in the field. */
static void get_str(const uint8_t *in, char *s, size_t n)
{
    memcpy(s, in, n - 1);
    s[n - 1] = '\0';
}

/* ---- header ------------------------------------------------------------- */

size_t mf_em_pack_hdr(const mf_em_hdr_t *h, uint8_t *out)
{
    out[0] = h->type;
    out[1] = h->flags;
    mf_put_le(out + 2, h->pad, 2);
    mf_put_le(out + 4, h->grank, 4);
    mf_put_le(out + 8, h->seq, 4);
    mf_put_le(out + 12, h->off, 4);
    return MF_EM_HDR_BYTES;
}

int mf_em_unpack_hdr(const uint8_t *in, size_t len, mf_em_hdr_t *h)
{
    if (!in || len < MF_EM_HDR_BYTES || len > MF_EM_MAX)
        return -1;
    if (in[0] == 0 || in[0] >= MF_EM_TYPE_COUNT)
        return -1;
    h->type = in[0];
    h->flags = in[1];
    h->pad = (uint16_t)mf_get_le(in + 2, 2);
    h->grank = (uint32_t)mf_get_le(in + 4, 4);
    h->seq = (uint32_t)mf_get_le(in + 8, 4);
    h->off = (uint32_t)mf_get_le(in + 12, 4);
    return 0;
}

/* Header of a message that must be of `type`, at least `min` bytes long. */
static int check_msg(const uint8_t *in, size_t len, unsigned type, size_t min)
{
    mf_em_hdr_t h;
    if (mf_em_unpack_hdr(in, len, &h) || h.type != type || len < min)
        return -1;
    return 0;
}

/* Pack the header with its type forced to `type`. */
static void pack_typed_hdr(const mf_em_hdr_t *h, unsigned type, uint8_t *out)
{
    mf_em_hdr_t t = *h;
    t.type = (uint8_t)type;
    mf_em_pack_hdr(&t, out);
}

/* ---- HELLO -------------------------------------------------------------- */

size_t mf_em_pack_hello(const mf_em_hdr_t *h, const mf_em_hello_t *b, uint8_t *out, size_t cap)
{
    size_t n = HELLO_ADDR + (size_t)b->addrlen;
    if (b->addrlen > MF_EM_ADDR_MAX || cap < n)
        return 0;
    pack_typed_hdr(h, MF_EM_HELLO, out);
    mf_put_le(out + HELLO_VERSION, b->version, 4);
    mf_put_le(out + HELLO_NRANKS, b->nranks, 4);
    mf_put_le(out + HELLO_PID, b->pid, 4);
    if (mf_fwd_pack(&b->fwd, 1, out + HELLO_FWD, MF_FWD_ENTRY_BYTES) != MF_FWD_ENTRY_BYTES)
        return 0;
    out[HELLO_FWD + MF_FWD_ENTRY_BYTES] = 0; /* reserved */
    mf_put_le(out + HELLO_ADDRLEN, b->addrlen, 2);
    memcpy(out + HELLO_SECRET, b->secret, MF_EM_SECRET_BYTES);
    memcpy(out + HELLO_ADDR, b->addr, b->addrlen);
    return n;
}

int mf_em_secret_parse(const char *text, uint8_t out[MF_EM_SECRET_BYTES])
{
    memset(out, 0, MF_EM_SECRET_BYTES);
    if (!text || strlen(text) != 2 * MF_EM_SECRET_BYTES)
        return -1;
    uint8_t v[MF_EM_SECRET_BYTES];
    for (int i = 0; i < 2 * MF_EM_SECRET_BYTES; i++) {
        char ch = text[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v[i / 2] = (uint8_t)(i % 2 ? v[i / 2] | d : d << 4);
    }
    memcpy(out, v, MF_EM_SECRET_BYTES);
    return 0;
}

int mf_em_unpack_hello(const uint8_t *in, size_t len, mf_em_hello_t *b)
{
    if (check_msg(in, len, MF_EM_HELLO, HELLO_ADDR))
        return -1;
    mf_em_hello_t t;
    size_t nfwd = 0;
    t.version = (uint32_t)mf_get_le(in + HELLO_VERSION, 4);
    t.nranks = (uint32_t)mf_get_le(in + HELLO_NRANKS, 4);
    t.pid = (uint32_t)mf_get_le(in + HELLO_PID, 4);
    if (mf_fwd_unpack(in + HELLO_FWD, MF_FWD_ENTRY_BYTES, &t.fwd, 1, &nfwd) || nfwd != 1)
        return -1;
    t.addrlen = (uint16_t)mf_get_le(in + HELLO_ADDRLEN, 2);
    if (t.addrlen > MF_EM_ADDR_MAX || len != HELLO_ADDR + (size_t)t.addrlen)
        return -1;
    memcpy(t.secret, in + HELLO_SECRET, MF_EM_SECRET_BYTES);
    memcpy(t.addr, in + HELLO_ADDR, t.addrlen);
    memset(t.addr + t.addrlen, 0, MF_EM_ADDR_MAX - t.addrlen);
    *b = t;
    return 0;
}

/* ---- WELCOME ------------------------------------------------------------ */

size_t mf_em_pack_welcome(const mf_em_hdr_t *h, const mf_em_welcome_t *b, uint8_t *out,
                          size_t cap)
{
    if (cap < WELCOME_BYTES)
        return 0;
    pack_typed_hdr(h, MF_EM_WELCOME, out);
    mf_put_le(out + WELCOME_STATUS, (uint32_t)b->status, 4);
    mf_put_le(out + WELCOME_NRANKS, b->nranks, 4);
    mf_put_le(out + WELCOME_NNODES, b->nnodes, 4);
    mf_put_le(out + WELCOME_PPN, b->ppn, 4);
    mf_put_le(out + WELCOME_PID, b->pid, 4);
    mf_put_le(out + WELCOME_DMA, b->dma_bytes_per_cycle, 4);
    put_f64(out + WELCOME_CYCLE_NS, b->cycle_ns);
    put_str(out + WELCOME_PARAMS, b->params, sizeof b->params);
    put_str(out + WELCOME_TOPO, b->topo, sizeof b->topo);
    put_str(out + WELCOME_TEXT, b->text, sizeof b->text);
    mf_put_le(out + WELCOME_SA, b->sa, 4);
    return WELCOME_BYTES;
}

int mf_em_unpack_welcome(const uint8_t *in, size_t len, mf_em_welcome_t *b)
{
    if (check_msg(in, len, MF_EM_WELCOME, WELCOME_BYTES) || len != WELCOME_BYTES)
        return -1;
    b->status = (int32_t)(uint32_t)mf_get_le(in + WELCOME_STATUS, 4);
    b->nranks = (uint32_t)mf_get_le(in + WELCOME_NRANKS, 4);
    b->nnodes = (uint32_t)mf_get_le(in + WELCOME_NNODES, 4);
    b->ppn = (uint32_t)mf_get_le(in + WELCOME_PPN, 4);
    b->pid = (uint32_t)mf_get_le(in + WELCOME_PID, 4);
    b->dma_bytes_per_cycle = (uint32_t)mf_get_le(in + WELCOME_DMA, 4);
    b->cycle_ns = get_f64(in + WELCOME_CYCLE_NS);
    get_str(in + WELCOME_PARAMS, b->params, sizeof b->params);
    get_str(in + WELCOME_TOPO, b->topo, sizeof b->topo);
    get_str(in + WELCOME_TEXT, b->text, sizeof b->text);
    b->sa = (uint32_t)mf_get_le(in + WELCOME_SA, 4);
    return 0;
}

/* ---- CT_CONFIG / CT_FREE ------------------------------------------------ */

/* The header's type says which: CT_CONFIG carries the entry, CT_FREE not. */
size_t mf_em_pack_ct(const mf_em_hdr_t *h, const mf_em_ct_t *b, uint8_t *out, size_t cap)
{
    if (cap < CT_ENTRY || b->ctx >= MF_MAX_CTX)
        return 0;
    if (h->type != MF_EM_CT_CONFIG && h->type != MF_EM_CT_FREE)
        return 0;
    size_t elen = 0;
    if (h->type == MF_EM_CT_CONFIG) {
        elen = mf_ct_entry_pack(&b->entry, out + CT_ENTRY, cap - CT_ENTRY);
        if (elen == 0)
            return 0;
    }
    mf_em_pack_hdr(h, out);
    out[CT_CTX] = b->ctx;
    out[CT_CTX + 1] = 0; /* reserved */
    mf_put_le(out + CT_ENTRY_LEN, elen, 2);
    return CT_ENTRY + elen;
}

int mf_em_unpack_ct(const uint8_t *in, size_t len, mf_em_ct_t *b, int with_entry)
{
    mf_em_hdr_t h;
    if (mf_em_unpack_hdr(in, len, &h) || len < CT_ENTRY)
        return -1;
    if (h.type != (with_entry ? MF_EM_CT_CONFIG : MF_EM_CT_FREE))
        return -1;
    size_t elen = (size_t)mf_get_le(in + CT_ENTRY_LEN, 2);
    if (in[CT_CTX] >= MF_MAX_CTX || len != CT_ENTRY + elen)
        return -1;
    mf_em_ct_t t = {.ctx = in[CT_CTX]};
    /* the entry fills its declared length exactly: no trailing bytes */
    if (with_entry && (mf_ct_entry_unpack(in + CT_ENTRY, elen, &t.entry) ||
                       elen != mf_ct_entry_wire_bytes(&t.entry)))
        return -1;
    if (!with_entry && elen != 0)
        return -1;
    *b = t;
    return 0;
}

/* ---- COLL --------------------------------------------------------------- */

size_t mf_em_pack_coll(const mf_em_hdr_t *h, const mf_em_coll_t *b, uint8_t *out, size_t cap)
{
    size_t n = COLL_COUNTS + 4 * (size_t)b->ncounts;
    if (b->ncounts && ((b->ncounts != b->comm_size && b->ncounts != 3u * b->comm_size) ||
                       !b->counts))
        return 0;
    if (n > MF_EM_MAX || cap < n)
        return 0;
    pack_typed_hdr(h, MF_EM_COLL, out);
    mf_proc_hdr_pack(&b->hdr, out + COLL_PROC);
    out[COLL_VOTE] = b->vote;
    out[COLL_VOTE + 1] = 0; /* reserved */
    mf_put_le(out + COLL_SIZE, b->comm_size, 2);
    mf_put_le(out + COLL_RANK, b->comm_rank, 2);
    mf_put_le(out + COLL_GLOBAL0, b->global0, 2);
    mf_put_le(out + COLL_SEND, b->send_bytes, 8);
    mf_put_le(out + COLL_RECV, b->recv_bytes, 8);
    mf_put_le(out + COLL_ENTRY, b->entry_ns, 8);
    mf_put_le(out + COLL_NCOUNTS, b->ncounts, 4);
    for (uint32_t i = 0; i < b->ncounts; i++)
        mf_put_le(out + COLL_COUNTS + 4 * (size_t)i, b->counts[i], 4);
    return n;
}

/* counts points into the message, so it must be read in place as native
 * uint32_t: true on little-endian hosts when the message is 4-aligned (a
 * malloc'd or libfabric receive buffer). */
static int counts_readable(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return ((uintptr_t)p & 3u) == 0;
#else
    (void)p;
    return 0;
#endif
}

int mf_em_unpack_coll(const uint8_t *in, size_t len, mf_em_coll_t *b)
{
    if (check_msg(in, len, MF_EM_COLL, COLL_COUNTS))
        return -1;
    mf_em_coll_t t = {0};
    if (mf_proc_hdr_unpack(in + COLL_PROC, &t.hdr))
        return -1;
    t.vote = in[COLL_VOTE];
    t.comm_size = (uint16_t)mf_get_le(in + COLL_SIZE, 2);
    t.comm_rank = (uint16_t)mf_get_le(in + COLL_RANK, 2);
    t.global0 = (uint16_t)mf_get_le(in + COLL_GLOBAL0, 2);
    t.send_bytes = mf_get_le(in + COLL_SEND, 8);
    t.recv_bytes = mf_get_le(in + COLL_RECV, 8);
    t.entry_ns = mf_get_le(in + COLL_ENTRY, 8);
    t.ncounts = (uint32_t)mf_get_le(in + COLL_NCOUNTS, 4);
    if (t.vote >= MF_FB_COUNT || t.comm_size == 0 || t.comm_rank >= t.comm_size)
        return -1;
    if (t.ncounts != 0 && t.ncounts != t.comm_size && t.ncounts != 3u * t.comm_size)
        return -1;
    if (len != COLL_COUNTS + 4 * (size_t)t.ncounts)
        return -1;
    if (t.ncounts) {
        if (!counts_readable(in + COLL_COUNTS))
            return -1;
        t.counts = (const uint32_t *)(const void *)(in + COLL_COUNTS);
    }
    *b = t;
    return 0;
}

/* ---- RESULT ------------------------------------------------------------- */

size_t mf_em_pack_result(const mf_em_hdr_t *h, const mf_em_result_t *b, uint8_t *out,
                         size_t cap)
{
    if (cap < RESULT_BYTES)
        return 0;
    pack_typed_hdr(h, MF_EM_RESULT, out);
    mf_put_le(out + RESULT_STATUS, (uint32_t)b->status, 4);
    out[RESULT_REASON] = b->reason;
    memset(out + RESULT_REASON + 1, 0, 3); /* reserved */
    mf_put_le(out + RESULT_RECV, b->recv_bytes, 8);
    mf_put_le(out + RESULT_NET, b->net_cycles, 8);
    mf_put_le(out + RESULT_RANK, b->rank_cycles, 8);
    put_f64(out + RESULT_CYCLE_NS, b->cycle_ns);
    put_str(out + RESULT_TEXT, b->text, sizeof b->text);
    mf_put_le(out + RESULT_BASELINE, b->baseline_cycles, 8);
    return RESULT_BYTES;
}

int mf_em_unpack_result(const uint8_t *in, size_t len, mf_em_result_t *b)
{
    if (check_msg(in, len, MF_EM_RESULT, RESULT_BYTES) || len != RESULT_BYTES)
        return -1;
    mf_em_result_t t;
    t.status = (int32_t)(uint32_t)mf_get_le(in + RESULT_STATUS, 4);
    t.reason = in[RESULT_REASON];
    if (t.reason >= MF_FB_COUNT)
        return -1;
    t.recv_bytes = mf_get_le(in + RESULT_RECV, 8);
    t.net_cycles = mf_get_le(in + RESULT_NET, 8);
    t.rank_cycles = mf_get_le(in + RESULT_RANK, 8);
    t.cycle_ns = get_f64(in + RESULT_CYCLE_NS);
    get_str(in + RESULT_TEXT, t.text, sizeof t.text);
    t.baseline_cycles = mf_get_le(in + RESULT_BASELINE, 8);
    *b = t;
    return 0;
}

/* ---- SHMBUF ------------------------------------------------------------- */

size_t mf_em_pack_shmbuf(const mf_em_hdr_t *h, const mf_em_shmbuf_t *b, uint8_t *out,
                         size_t cap)
{
    if (cap < SHMBUF_BYTES)
        return 0;
    pack_typed_hdr(h, MF_EM_SHMBUF, out);
    mf_put_le(out + SHMBUF_STATUS, (uint32_t)b->status, 4);
    mf_put_le(out + SHMBUF_FD, b->fd, 4);
    mf_put_le(out + SHMBUF_SIZE, b->size, 8);
    put_str(out + SHMBUF_TEXT, b->text, sizeof b->text);
    return SHMBUF_BYTES;
}

int mf_em_unpack_shmbuf(const uint8_t *in, size_t len, mf_em_shmbuf_t *b)
{
    if (check_msg(in, len, MF_EM_SHMBUF, SHMBUF_BYTES) || len != SHMBUF_BYTES)
        return -1;
    b->status = (int32_t)(uint32_t)mf_get_le(in + SHMBUF_STATUS, 4);
    b->fd = (uint32_t)mf_get_le(in + SHMBUF_FD, 4);
    b->size = mf_get_le(in + SHMBUF_SIZE, 8);
    get_str(in + SHMBUF_TEXT, b->text, sizeof b->text);
    return 0;
}

/* ---- DATA --------------------------------------------------------------- */

size_t mf_em_pack_data(const mf_em_hdr_t *h, const void *src, size_t len, uint8_t *out,
                       size_t cap)
{
    if (len > MF_EM_DATA_MAX || cap < MF_EM_HDR_BYTES + len)
        return 0;
    pack_typed_hdr(h, MF_EM_DATA, out);
    if (len)
        memcpy(out + MF_EM_HDR_BYTES, src, len);
    return MF_EM_HDR_BYTES + len;
}

int mf_em_unpack_data(const uint8_t *in, size_t len, const uint8_t **data, size_t *n)
{
    if (check_msg(in, len, MF_EM_DATA, MF_EM_HDR_BYTES))
        return -1;
    *data = in + MF_EM_HDR_BYTES;
    *n = len - MF_EM_HDR_BYTES;
    return 0;
}
