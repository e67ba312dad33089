/*
 * MPI-FPGA wire format: the one definition shared by the host side (src/)
 * and the switch model (fpga_model/).  Bit layouts are documented in
 * doc/protocol.md; field widths follow 001 sec. 3.2 and fig. 4.
 *
 *   processor packet  = 8-byte header + payload      (host <-> switch, DMA)
 *   network packet    = 6-byte header + <= 2 KiB     (switch <-> switch)
 *   CT-config packet  = processor packet, opcode MF_OPC_CT_CONFIG
 *   forwarding table  = processor packet, opcode MF_OPC_FWD_TABLE
 */
#ifndef MPIFPGA_WIRE_H
#define MPIFPGA_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define MF_PROC_HDR_BYTES 8 /* 001 sec. 3.2: processor packet header, 8 bytes */
#define MF_NET_HDR_BYTES 6  /* 001 sec. 3.2: network packet header, 6 bytes */
#define MF_MAX_CTX 32       /* 001 sec. 3.2: 5-bit context ID, 32 CT rows */
#define MF_RANK_BITS 16     /* 001 sec. 3.2: Dest / rank fields are 16 bits */
#define MF_MAX_RANKS (1u << MF_RANK_BITS) /* MAX_R = 64K (001 sec. 3.2) */
#define MF_MAX_LEVELS MF_RANK_BITS        /* log2(MAX_R) partners per set */
#define MF_PROC_MAX_SIZE ((1u << 29) - 1) /* 29-bit message-size field */

/* Opcode: which collective (or control message) a packet belongs to. */
typedef enum {
    MF_OPC_UNICAST = 0, /* point-to-point / synthetic traffic */
    MF_OPC_BARRIER = 1,
    MF_OPC_BCAST = 2,
    MF_OPC_REDUCE = 3,
    MF_OPC_ALLREDUCE = 4,
    MF_OPC_SCATTER = 5,
    MF_OPC_GATHER = 6,
    MF_OPC_ALLGATHER = 7,
    MF_OPC_REDUCE_SCATTER = 8,
    MF_OPC_CT_CONFIG = 9,  /* CT entry for (ctx) in the payload */
    MF_OPC_CT_FREE = 10,   /* release CT row (ctx) */
    MF_OPC_FWD_TABLE = 11, /* forwarding table entries in the payload */
    MF_OPC_SCAN = 12,      /* inclusive prefix reduction in rank order */
    MF_OPC_EXSCAN = 13,    /* exclusive prefix reduction (rank 0 gets nothing) */
    MF_OPC_ALLTOALL = 14,  /* personalized exchange; counts = members' global ranks */
    MF_OPC_ALLTOALLV = 15, /* with per-pair sizes: counts = ranks, send and recv bytes */
    MF_OPC_COUNT
} mf_opcode_t;

/* Alltoall: rank r's data from comm rank s arrives on tag (r - s) mod P,
 * so the 5-bit tag field bounds the communicator. */
#define MF_ALLTOALL_MAX_MEMBERS 32

/* 1 for the opcodes of collectives (not control messages or unicast). */
static inline int mf_opcode_is_coll(unsigned opc)
{
    return (opc >= MF_OPC_BARRIER && opc <= MF_OPC_REDUCE_SCATTER) ||
           (opc >= MF_OPC_SCAN && opc <= MF_OPC_ALLTOALLV);
}
/* 1 for the collectives whose COLL carries counts: reduce_scatter (bytes
 * per rank) and alltoall (the members' global ranks); alltoallv carries
 * 3 x comm_size (mf_opcode_ncounts): the ranks, then this member's send
 * bytes per destination and receive bytes per source. */
static inline int mf_opcode_has_counts(unsigned opc)
{
    return opc == MF_OPC_REDUCE_SCATTER || opc == MF_OPC_ALLTOALL || opc == MF_OPC_ALLTOALLV;
}
static inline unsigned mf_opcode_ncounts(unsigned opc, unsigned comm_size)
{
    return !mf_opcode_has_counts(opc) ? 0 : opc == MF_OPC_ALLTOALLV ? 3 * comm_size : comm_size;
}
/* Counts every member of a call must agree on (alltoallv: the ranks only). */
static inline unsigned mf_opcode_shared_counts(unsigned opc, unsigned comm_size)
{
    return mf_opcode_has_counts(opc) ? comm_size : 0;
}
/* 1 for the collectives that reduce (the AgLU's op and dtype apply). */
static inline int mf_opcode_reduces(unsigned opc)
{
    return opc == MF_OPC_REDUCE || opc == MF_OPC_ALLREDUCE || opc == MF_OPC_REDUCE_SCATTER ||
           opc == MF_OPC_SCAN || opc == MF_OPC_EXSCAN;
}

/* 2-bit algorithm field (001 sec. 3.2, 4.2): meaning depends on opcode. */
typedef enum {
    MF_ALG_BINOMIAL = 0,       /* bcast, reduce, scatter, gather */
    MF_ALG_RECURSIVE_DBL = 1,  /* allreduce (short), allgather (pof2), barrier */
    MF_ALG_RABENSEIFNER = 2,   /* reduce / allreduce: rec. halving + doubling */
    MF_ALG_RING = 3,           /* bcast (scatter + ring), allgather (ring) */
} mf_alg_t;
/* reduce_scatter always uses recursive halving; it is coded MF_ALG_RABENSEIFNER */

/* Streaming trees (beyond 001 Table 1, fpga_model/hw/ccm_stree.c): one
 * pipelined tree over the torus links for Bcast, Reduce and Allreduce;
 * for Allgather and Reduce_scatter, pipelined rings in every dimension at
 * once (ccm_dring.c).  Coded with a value the opcode leaves unused -- 2 for
 * Bcast and Allgather, 3 for Reduce, Allreduce and Reduce_scatter.  -1:
 * the opcode has none. */
static inline int mf_alg_tree(unsigned opc)
{
    if (opc == MF_OPC_BCAST || opc == MF_OPC_ALLGATHER)
        return MF_ALG_RABENSEIFNER;
    if (opc == MF_OPC_REDUCE || opc == MF_OPC_ALLREDUCE || opc == MF_OPC_REDUCE_SCATTER)
        return MF_ALG_RING;
    return -1;
}

/* 4-bit operation field (001 sec. 3.2). */
typedef enum {
    MF_OP_SUM = 0, MF_OP_PROD, MF_OP_MIN, MF_OP_MAX,
    MF_OP_LAND, MF_OP_LOR, MF_OP_LXOR,
    MF_OP_BAND, MF_OP_BOR, MF_OP_BXOR,
    MF_OP_MINLOC, MF_OP_MAXLOC, /* on the pair types only: (value, index) */
    MF_OP_CPROD, /* complex product on (re, im) lane pairs of FLOAT or DOUBLE:
                  * MPI_PROD on the complex types (their MPI_SUM is SUM on
                  * the lanes), so the 4-bit dtype field needs no new codes */
    MF_OP_COUNT
} mf_op_t;

/* 4-bit datatype field (model extension of fig. 4: the AgLU lanes need it). */
typedef enum {
    MF_DT_INT8 = 0, MF_DT_INT16, MF_DT_INT32, MF_DT_INT64,
    MF_DT_UINT8, MF_DT_UINT16, MF_DT_UINT32, MF_DT_UINT64,
    MF_DT_FLOAT, MF_DT_DOUBLE,
    /* MINLOC/MAXLOC pairs (value, int index), one lane each laid out as the
     * C struct MPI_FLOAT_INT etc. name on LP64: value at 0, index after it
     * at the next 4-byte boundary, padded to 8 or 16 bytes (pad bytes are
     * carried, never interpreted) */
    MF_DT_FLOAT_INT, MF_DT_DOUBLE_INT, MF_DT_LONG_INT, MF_DT_2INT, MF_DT_SHORT_INT,
    MF_DT_COUNT
} mf_dtype_t;

/* 1 for the (value, index) pair types of MINLOC/MAXLOC. */
static inline int mf_dtype_is_pair(mf_dtype_t t) { return t >= MF_DT_FLOAT_INT && t < MF_DT_COUNT; }
/* A pair lane: value bytes at 0, the int32 index at *index_off. */
static inline void mf_pair_layout(mf_dtype_t t, unsigned *value_bytes, unsigned *index_off)
{
    *value_bytes = t == MF_DT_DOUBLE_INT || t == MF_DT_LONG_INT ? 8 : t == MF_DT_SHORT_INT ? 2 : 4;
    *index_off = t == MF_DT_DOUBLE_INT || t == MF_DT_LONG_INT ? 8 : 4;
}

/* Processor packet header (8 bytes), host <-> own switch. */
typedef struct {
    uint8_t opcode; /* mf_opcode_t, 4 bits */
    uint8_t ctx;    /* context ID = CT row, 5 bits */
    uint8_t alg;    /* mf_alg_t, 2 bits */
    uint8_t op;     /* mf_op_t, 4 bits */
    uint8_t dtype;  /* mf_dtype_t, 4 bits */
    uint16_t root;  /* root's rank in the communicator, 16 bits */
    uint32_t size;  /* message size in bytes, 29 bits (see doc/protocol.md) */
} mf_proc_hdr_t;

/* Network packet header (6 bytes), switch <-> switch. */
typedef struct {
    uint16_t dest;  /* destination global rank, 16 bits */
    uint8_t ctx;    /* 5 bits */
    uint8_t opcode; /* 4 bits */
    uint8_t op;     /* 4 bits */
    uint8_t dtype;  /* 4 bits */
    uint8_t tag;    /* 5 bits: which edge of the collective's schedule */
    uint8_t psize;  /* 3 bits: payload = 0 phits (0) or 2^(psize-1) phits */
    uint8_t last;   /* 1 bit: last packet of this stream */
    uint8_t vc;     /* 1 bit: dateline VC class (000 sec. 4.2.2) */
    uint8_t pad;    /* 5 bits: bytes of the last phit that carry no data */
} mf_net_hdr_t;
/* The algorithm is not carried: each switch's CCM derives it from its own
 * processor header, which all members fill alike (doc/protocol.md). */

#define MF_NET_MAX_PSIZE 7 /* 2^(7-1) = 64 phits */

void mf_proc_hdr_pack(const mf_proc_hdr_t *h, uint8_t out[MF_PROC_HDR_BYTES]);
int mf_proc_hdr_unpack(const uint8_t in[MF_PROC_HDR_BYTES], mf_proc_hdr_t *h);
void mf_net_hdr_pack(const mf_net_hdr_t *h, uint8_t out[MF_NET_HDR_BYTES]);
int mf_net_hdr_unpack(const uint8_t in[MF_NET_HDR_BYTES], mf_net_hdr_t *h);
/* Phits carried by a network packet with this psize code. */
static inline unsigned mf_psize_phits(unsigned psize) { return psize ? 1u << (psize - 1) : 0u; }

/*
 * Communicator-table entry (001 sec. 3.1, fig. 4A), as sent in a CT-config
 * packet.  All partners are GLOBAL ranks (001 sec. 3.3).  The model keeps
 * the partner sets each offloaded algorithm needs (doc/model.md):
 *   hc[k]    recursive doubling / halving partner at step k (MPICH's pof2
 *            folding applied: partner of newrank ^ 2^k), valid if rank
 *            takes part in the pof2 phase
 *   up[k]    global rank of comm rank (rank + 2^k) mod size   binomial tree
 *   down[k]  global rank of comm rank (rank - 2^k) mod size   children/parent
 *   fold     non-pof2 folding partner (MPICH: even r < 2*rem -> r+1), or NONE
 * Ring neighbours are up[0] and down[0].
 */
#define MF_RANK_NONE 0xffffu
typedef struct {
    uint16_t size;   /* communicator size (1 .. 65535) */
    uint16_t rank;   /* this member's rank in the communicator */
    uint8_t levels;  /* ceil(log2(size)) */
    uint8_t pof2_levels; /* floor(log2(size)) */
    uint16_t fold;   /* non-pof2 folding partner, global rank, or MF_RANK_NONE */
    uint16_t hc[MF_MAX_LEVELS];
    uint16_t up[MF_MAX_LEVELS];
    uint16_t down[MF_MAX_LEVELS];
    uint16_t global0; /* global rank of comm rank 0 */
    uint8_t ident;   /* comm rank i is global rank i for every member (streaming trees
                        need it; carried in the top bit of pof2_levels' byte) */
} mf_ct_entry_t;

/* CT-config payload bytes for an entry (variable: 3 sets of `levels` partners). */
size_t mf_ct_entry_wire_bytes(const mf_ct_entry_t *e);
size_t mf_ct_entry_pack(const mf_ct_entry_t *e, uint8_t *out, size_t cap);
int mf_ct_entry_unpack(const uint8_t *in, size_t len, mf_ct_entry_t *e);

/* Forwarding-table entry (001 sec. 3.3): global rank -> node / switch port. */
typedef struct {
    uint16_t rank;
    uint16_t node;
    uint8_t port; /* host port on that node's switch */
} mf_fwd_entry_t;
#define MF_FWD_ENTRY_BYTES 5
size_t mf_fwd_pack(const mf_fwd_entry_t *e, size_t n, uint8_t *out, size_t cap);
int mf_fwd_unpack(const uint8_t *in, size_t len, mf_fwd_entry_t *e, size_t cap, size_t *n);

/* Little-endian integers of nbytes (<= 8) bytes, as every wire field is. */
void mf_put_le(uint8_t *out, uint64_t v, unsigned nbytes);
uint64_t mf_get_le(const uint8_t *in, unsigned nbytes);

/* Sizes / names shared by host and model. */
size_t mf_dtype_size(mf_dtype_t t);
const char *mf_dtype_name(mf_dtype_t t);
const char *mf_op_name(mf_op_t op);
const char *mf_opcode_name(mf_opcode_t opc);
int mf_dtype_parse(const char *s, mf_dtype_t *t);
int mf_op_parse(const char *s, mf_op_t *op);
int mf_coll_parse(const char *s, mf_opcode_t *opc);
/* True if op may be applied to dtype by the AgLUs (bitwise ops: integers only). */
int mf_op_valid_for(mf_op_t op, mf_dtype_t t);
/* Bytes of one element the AgLU combines as a unit: the lane, or for
 * MF_OP_CPROD a (re, im) pair of lanes.  Reductions never split one. */
size_t mf_elem_bytes(mf_op_t op, mf_dtype_t t);

/*
 * Board streams (doc/protocol.md, "Board streams"): the packets a host and
 * its card exchange on the card's AXI4-Stream queues, 64-bit beats, tlast
 * on a packet's last beat, tkeep marking the valid bytes of that beat.
 *   H2C (host -> card): the 8-byte processor header; for opcodes with counts
 *     (mf_opcode_ncounts) the counts as u32 LE, padded to 8 bytes; then the
 *     payload (mf_board_bytes: send).  CT-config / CT-free are H2C packets
 *     too (payload = mf_ct_entry_pack's bytes, size = its length).
 *   C2H (card -> host): the header echoed with size = result bytes this
 *     host gets; the result bytes, padded with zeros to whole beats
 *     (mf_board_pad8); then the completion word (below) as the last beat:
 *     a streaming engine knows how long a call took only at its end.
 */
#define MF_BOARD_BEAT_BYTES 8
#define MF_BOARD_CPL_BYTES 8
#define MF_BOARD_CYCLES_MAX ((UINT64_C(1) << 48) - 1)
typedef enum {
    MF_BOARD_OK = 0,
    MF_BOARD_UNSUPPORTED = 1, /* opcode the engine does not run: the host falls back */
    MF_BOARD_CT_REFUSED = 2,  /* CT-config / CT-free refused, reason = mf_ct.sv st_code */
    MF_BOARD_MALFORMED = 3,   /* header not decodable, no CT row, lengths disagree */
} mf_board_status_t;
/* Completion word: bits 0-7 status, 8-15 reason (CT refused), 16-63 engine
 * cycles the call took (from its start, every member's header taken, to
 * this host's completion beat; saturates at MF_BOARD_CYCLES_MAX). */
typedef struct {
    uint8_t status; /* mf_board_status_t */
    uint8_t reason;
    uint64_t cycles;
} mf_board_cpl_t;
void mf_board_cpl_pack(const mf_board_cpl_t *c, uint8_t out[MF_BOARD_CPL_BYTES]);
void mf_board_cpl_unpack(const uint8_t in[MF_BOARD_CPL_BYTES], mf_board_cpl_t *c);

/* 1 for the opcodes the board engine computes (barrier .. reduce_scatter,
 * ct_config, ct_free); any other gets MF_BOARD_UNSUPPORTED. */
int mf_board_runs(unsigned opc);
/* Bytes a member sends (H2C payload) and gets (C2H result) in a call with
 * header h in a communicator of comm_size, as this member comm_rank;
 * counts: reduce_scatter's bytes per comm rank (else unused).  -1 for an
 * opcode the board does not run or a root/rank out of range. */
int mf_board_bytes(const mf_proc_hdr_t *h, unsigned comm_size, unsigned comm_rank,
                   const uint32_t *counts, uint64_t *send, uint64_t *recv);
/* Bytes of the counts field: ncounts x 4 rounded up to 8. */
size_t mf_board_counts_bytes(unsigned ncounts);
/* n rounded up to whole beats (8 bytes): a C2H result's bytes on the wire. */
static inline size_t mf_board_pad8(size_t n) { return (n + 7) / 8 * 8; }
/* Whole packets.  Pack returns the bytes written, 0 if cap is too small or
 * a size does not fit the 29-bit field.  Unpack returns 0, or -1 for a
 * packet shorter than its header (and counts) or whose header does not
 * decode; H2C: ncounts as mf_opcode_ncounts(opc, comm size), the counts
 * copied to counts[0..ncounts) (cap entries), the payload pointed into `in`;
 * C2H: -1 also when the packet is not header + pad8(echoed size) +
 * completion. */
size_t mf_board_h2c_pack(const mf_proc_hdr_t *h, const uint32_t *counts, unsigned ncounts,
                         const void *payload, size_t n, uint8_t *out, size_t cap);
int mf_board_h2c_unpack(const uint8_t *in, size_t len, unsigned ncounts, mf_proc_hdr_t *h,
                        uint32_t *counts, const uint8_t **payload, size_t *n);
size_t mf_board_c2h_pack(const mf_proc_hdr_t *h, const mf_board_cpl_t *c, const void *result,
                         size_t n, uint8_t *out, size_t cap);
int mf_board_c2h_unpack(const uint8_t *in, size_t len, mf_proc_hdr_t *h, mf_board_cpl_t *c,
                        const uint8_t **result, size_t *n);

#endif
