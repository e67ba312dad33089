/*
 * Host-side construction of communicator-table entries and MPICH-style
 * algorithm selection.  Shared by libmpifpga (src/) and mpifpga-sim, so the
 * model and the host always agree on the schedule a collective uses.
 */
#ifndef MPIFPGA_CT_H
#define MPIFPGA_CT_H

#include "mpifpga/wire.h"

/*
 * Build the CT entry of comm rank `rank` in a communicator of `size` members;
 * global_of[i] is the global rank of comm rank i.  Returns 0, or -1 with a
 * message in err when size/rank are out of range (size > 65535, rank >= size,
 * a global rank > 65534).
 */
int mf_ct_entry_build(int size, int rank, const int *global_of, mf_ct_entry_t *out,
                      char *err, size_t errlen);

/* floor(log2(n)) and the largest power of two <= n (n >= 1). */
int mf_log2_floor(unsigned n);
unsigned mf_pof2_floor(unsigned n);

/*
 * Algorithm MPICH 4.0 would pick (its default CVAR thresholds, see
 * doc/model.md), restricted to the algorithms of 001 Table 1.
 *   size_bytes: the processor-header size (see mf_proc_hdr_t / doc/protocol.md)
 *   elems:      element count of the reduction vector (reduce/allreduce)
 */
mf_alg_t mf_coll_alg(mf_opcode_t opc, unsigned comm_size, uint64_t size_bytes, uint64_t elems);

/* Which algorithms the switches run (mpifpga-sim --algorithm,
 * MPIFPGA_ALGORITHM): the paper's (001 Table 1, MPICH's selection), the
 * streaming trees (mf_alg_tree: Bcast, Reduce, Allreduce; Allgather's and
 * Reduce_scatter's rings in every dimension, fpga_model/hw/ccm_dring.c)
 * wherever the opcode has one, or auto -- the trees, except for an
 * Allreduce of at most
 * MPICH's short-message size (2 KiB), where recursive doubling's fewer
 * steps win (doc/model.md, "Streaming trees").  A switch runs the paper's
 * algorithm where the communicator does not fit a tree
 * (fpga_model/hw/ccm_stree.c). */
typedef enum { MF_ALGO_PAPER = 0, MF_ALGO_TREE, MF_ALGO_AUTO } mf_algo_mode_t;
mf_alg_t mf_coll_alg_mode(mf_algo_mode_t mode, mf_opcode_t opc, unsigned comm_size,
                          uint64_t size_bytes, uint64_t elems);
/* "paper" / "tree" / "auto": 0, or -1 if s is none of them. */
int mf_algo_mode_parse(const char *s, mf_algo_mode_t *mode);

#endif
