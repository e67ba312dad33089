/*
 * Host <-> switch-engine messages: what libmpifpga (src/) and
 * mpifpga-switchd (fpga_model/server/) exchange over libfabric
 * (src/transport/fabric.h).  This is the "PCIe + DMA" of the modeled
 * system: a rank hands its switch a processor packet (the 8-byte header of
 * wire.h, built by the host) and the payload; the switch hands back the
 * result and the modeled completion time.  Layouts: doc/protocol.md,
 * "Engine messages".  All integers little-endian.
 *
 * Every transport message is at most MF_EM_MAX bytes and starts with a
 * 16-byte mf_em_hdr_t.  A call's payload travels in MF_EM_DATA messages
 * that carry their byte offset, so arrival order does not matter.
 */
#ifndef MPIFPGA_ENGINE_MSG_H
#define MPIFPGA_ENGINE_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "mpifpga/wire.h"

#define MF_EM_VERSION 5 /* 2: RESULT carries baseline_cycles; 3: SHMBUF; 4: HELLO secret;
                          5: several calls outstanding per rank, WELCOME's DMA rate */
#define MF_EM_SECRET_BYTES 16 /* per-job secret in HELLO (MPIFPGA_JOB_SECRET, 32 hex) */
#define MF_EM_MAX 65536u   /* bytes per transport message, header included */
#define MF_EM_HDR_BYTES 16
#define MF_EM_DATA_MAX (MF_EM_MAX - MF_EM_HDR_BYTES)
#define MF_EM_ADDR_MAX 256 /* largest libfabric endpoint name carried */
#define MF_EM_TEXT_MAX 240 /* error / description strings */

/* mf_em_hdr_t.flags of a COLL: also compute the modeled baseline time (the
 * time MPICH's own algorithm takes on the same modeled fabric) and return
 * it in the RESULT's baseline_cycles. */
#define MF_EM_F_BASELINE 0x01u
/* mf_em_hdr_t.flags of a COLL: the payload is in the rank's shared payload
 * buffer (SHMBUF), not in DATA messages: the send bytes at offset 0, the
 * result written at mf_em_shmbuf_recv_off(send_bytes).  No DATA follows
 * the COLL or precedes the RESULT. */
#define MF_EM_F_SHMBUF 0x02u
/* mf_em_hdr_t.flags of a COLL: a nonblocking or persistent start -- the
 * rank may not read for a long time.  The engine sends the RESULT when the
 * call completes but keeps its result DATA until the rank sends FETCH for
 * it (a message too large for the provider to buffer must not wait at a
 * rank that is not reading: it stalls the engine's other sends). */
#define MF_EM_F_DEFER 0x04u

typedef enum {
    MF_EM_HELLO = 1,  /* rank -> engine: version, nranks, fwd entry, address */
    MF_EM_WELCOME,    /* engine -> rank: accepted (or why not), network shape */
    MF_EM_CT_CONFIG,  /* rank -> engine: CT-config packet for row ctx */
    MF_EM_CT_FREE,    /* rank -> engine: release row ctx */
    MF_EM_COLL,       /* rank -> engine: one collective call */
    MF_EM_DATA,       /* either way: a chunk of a call's payload */
    MF_EM_RESULT,     /* engine -> rank: the call completed / falls back / failed */
    MF_EM_BYE,        /* rank -> engine: this rank finalizes */
    MF_EM_SHMBUF,     /* rank -> engine: map my payload buffer; engine -> rank: done? */
    MF_EM_FETCH,      /* rank -> engine: send the DATA of deferred call seq now (header only) */
    MF_EM_TYPE_COUNT
} mf_em_type_t;

/* Why a call was not offloaded.  Shared so the engine can tell every member
 * of a call the reason one member voted for fallback (mf_em_coll_t.vote). */
typedef enum {
    MF_FB_NONE = 0,
    MF_FB_DISABLED,       /* MPIFPGA_ENABLE=0, MPIFPGA_COLLS, size thresholds */
    MF_FB_ENGINE,         /* no engine reachable */
    MF_FB_INTERCOMM,      /* intercommunicator */
    MF_FB_COMM_SIZE,      /* communicator of one rank, or larger than 64K (alltoall: 32) */
    MF_FB_CT_FULL,        /* no CT row free on every member */
    MF_FB_DATATYPE,       /* predefined type the AgLUs do not implement */
    MF_FB_DERIVED,        /* derived (user-built) datatype */
    MF_FB_OP,             /* op the AgLUs do not implement, or not for this type */
    MF_FB_SIZE,           /* beyond the 29-bit processor-packet size field */
    MF_FB_THREADS,        /* MPI_THREAD_MULTIPLE: calls may interleave */
    MF_FB_UNSUPPORTED,    /* the device does not run this call (fpga: scan, alltoall, ...) */
    MF_FB_COUNT
} mf_fb_reason_t;
const char *mf_fb_name(mf_fb_reason_t r); /* "datatype", "ct_full", ... */

/* Common header (16 bytes). */
typedef struct {
    uint8_t type;   /* mf_em_type_t */
    uint8_t flags;  /* COLL: MF_EM_F_BASELINE, MF_EM_F_SHMBUF, MF_EM_F_DEFER; else 0 */
    uint16_t pad;
    uint32_t grank; /* global rank of the sender (rank -> engine) or addressee */
    uint32_t seq;   /* the rank's call number (COLL / DATA / RESULT) */
    uint32_t off;   /* DATA: byte offset / MF_EM_DATA_MAX (chunk index) */
} mf_em_hdr_t;

typedef struct {
    uint32_t version; /* MF_EM_VERSION */
    uint32_t nranks;  /* MPI_COMM_WORLD size */
    uint32_t pid;
    mf_fwd_entry_t fwd; /* forwarding-table entry of this rank (001 sec. 3.3) */
    uint8_t secret[MF_EM_SECRET_BYTES]; /* the job's secret: an engine accepts only its job */
    uint16_t addrlen;
    uint8_t addr[MF_EM_ADDR_MAX]; /* the rank's libfabric endpoint name */
} mf_em_hello_t;

typedef struct {
    int32_t status;   /* 0 accepted, else refused (text says why) */
    uint32_t nranks, nnodes, ppn;
    uint32_t pid;     /* engine process */
    uint32_t dma_bytes_per_cycle; /* processor DMA rate: a rank's outstanding calls share it */
    double cycle_ns;  /* modeled clock period */
    char params[32];  /* parameter set name */
    char topo[64];    /* mf_topo_describe */
    char text[MF_EM_TEXT_MAX];
    uint32_t sa;      /* simultaneous aggregations per switch (001 Table 3 #SA) */
} mf_em_welcome_t;

typedef struct {
    uint8_t ctx;
    mf_ct_entry_t entry;
} mf_em_ct_t; /* CT_CONFIG (entry) and CT_FREE (ctx only) */

typedef struct {
    mf_proc_hdr_t hdr;   /* processor header as the host built it */
    uint8_t vote;        /* MF_FB_NONE to offload, else this rank's fallback reason */
    uint16_t comm_size, comm_rank;
    uint16_t global0;    /* global rank of comm rank 0: with ctx, names the comm */
    uint64_t send_bytes; /* payload this rank streams (DATA) */
    uint64_t recv_bytes; /* result bytes it expects back */
    uint64_t entry_ns;   /* modeled time: the rank's virtual time at entry, ns; 0 none */
    uint32_t ncounts;    /* comm_size counts: reduce_scatter's bytes per rank, alltoall's
                          * member global ranks; alltoallv 3 x comm_size
                          * (mf_opcode_ncounts, wire.h); else 0 */
    const uint32_t *counts; /* unpack: points into the message */
} mf_em_coll_t;

typedef struct {
    int32_t status;      /* 0 done, 1 fall back to MPI (all members), -1 error */
    uint8_t reason;      /* status 1: mf_fb_reason_t of the member that voted */
    uint64_t recv_bytes; /* result bytes that follow in DATA (or are in the SHMBUF) */
    uint64_t net_cycles; /* modeled: last member's completion - entry */
    uint64_t rank_cycles;/* modeled: this rank's completion - its entry (with entry_ns:
                            members enter at cycles as far apart as their entry times) */
    double cycle_ns;
    char text[MF_EM_TEXT_MAX]; /* status -1: what was wrong */
    uint64_t baseline_cycles; /* modeled baseline (MPICH's algorithm, all members entering
                                 together, idle network): this rank's latency; 0 when not
                                 asked for (MF_EM_F_BASELINE) or not available */
} mf_em_result_t;

/* SHMBUF, either way.  Rank -> engine: the rank's shared payload buffer is
 * its open file descriptor fd (a memfd), `size` bytes, reached by the
 * engine as /proc/<HELLO pid>/fd/<fd>; it replaces the previous one (size
 * 0: none).  Engine -> rank: status 0 mapped, else text says why not. */
typedef struct {
    int32_t status;
    uint32_t fd;
    uint64_t size;
    char text[MF_EM_TEXT_MAX];
} mf_em_shmbuf_t;

/* Where a call's result starts in the payload buffer: after the send
 * bytes, 64-byte aligned.  The buffer must hold that plus recv_bytes. */
static inline uint64_t mf_em_shmbuf_recv_off(uint64_t send_bytes)
{
    return (send_bytes + 63) & ~(uint64_t)63;
}

/* Packing: each returns bytes written (header included) or 0 if `cap` is
 * too small.  out must hold MF_EM_MAX bytes for the bounded messages. */
size_t mf_em_pack_hdr(const mf_em_hdr_t *h, uint8_t *out);
/* MPIFPGA_JOB_SECRET-style text (32 hex digits) into 16 bytes: 0, or -1
 * if it is not exactly that (out then all zero: no secret). */
int mf_em_secret_parse(const char *text, uint8_t out[MF_EM_SECRET_BYTES]);
size_t mf_em_pack_hello(const mf_em_hdr_t *h, const mf_em_hello_t *b, uint8_t *out, size_t cap);
size_t mf_em_pack_welcome(const mf_em_hdr_t *h, const mf_em_welcome_t *b, uint8_t *out,
                          size_t cap);
size_t mf_em_pack_ct(const mf_em_hdr_t *h, const mf_em_ct_t *b, uint8_t *out, size_t cap);
size_t mf_em_pack_coll(const mf_em_hdr_t *h, const mf_em_coll_t *b, uint8_t *out, size_t cap);
size_t mf_em_pack_result(const mf_em_hdr_t *h, const mf_em_result_t *b, uint8_t *out,
                         size_t cap);
size_t mf_em_pack_shmbuf(const mf_em_hdr_t *h, const mf_em_shmbuf_t *b, uint8_t *out,
                         size_t cap);
/* DATA: header + len payload bytes copied from src. */
size_t mf_em_pack_data(const mf_em_hdr_t *h, const void *src, size_t len, uint8_t *out,
                       size_t cap);

/* Unpacking: 0, or -1 if the message is short or malformed.  Body pointers
 * (coll counts, data) point into `in`. */
int mf_em_unpack_hdr(const uint8_t *in, size_t len, mf_em_hdr_t *h);
int mf_em_unpack_hello(const uint8_t *in, size_t len, mf_em_hello_t *b);
int mf_em_unpack_welcome(const uint8_t *in, size_t len, mf_em_welcome_t *b);
int mf_em_unpack_ct(const uint8_t *in, size_t len, mf_em_ct_t *b, int with_entry);
int mf_em_unpack_coll(const uint8_t *in, size_t len, mf_em_coll_t *b);
int mf_em_unpack_result(const uint8_t *in, size_t len, mf_em_result_t *b);
int mf_em_unpack_shmbuf(const uint8_t *in, size_t len, mf_em_shmbuf_t *b);
/* DATA payload: *data / *n point into `in` after the header. */
int mf_em_unpack_data(const uint8_t *in, size_t len, const uint8_t **data, size_t *n);

/* Byte offset of DATA chunk `idx`. */
static inline uint64_t mf_em_chunk_off(uint32_t idx) { return (uint64_t)idx * MF_EM_DATA_MAX; }

#endif
