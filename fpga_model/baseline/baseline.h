/*
 * Baseline MPI on the modeled fabric (001 sec. 5-6): a collective is run
 * the way MPICH 4.0 runs it on CPU nodes -- the point-to-point schedule of
 * MPICH's algorithm (sched.h) -- as messages through the SAME modeled
 * routers and links the offloaded collectives use (no CCM, collectors or
 * CGR in the path), with LogGP host costs (params/host.h):
 *
 *   CPU:  a send costs o_s, a receive o_r after the data is in, a
 *         reduction reduce_ps_per_byte per operand byte, an eager message
 *         eager_copy_ps_per_byte on each side (copied through the eager
 *         buffers; rendezvous data moves zero-copy); MPICH's blocking steps
 *         run one after another.
 *   NIC:  G per byte moved between host memory and the network, sends and
 *         receives sharing it (one DMA path: a step that sends and receives
 *         k bytes costs 2kG); message starts >= g apart; packets of
 *         mtu_bytes enter the switch nic_latency after leaving host memory
 *         and reach host memory nic_latency after ejection.
 *   Protocol: messages up to eager_max_bytes are eager (the send completes
 *         after o_s); larger ones send an RTS, wait for the receiver's CTS
 *         (sent once the receive is posted), then the data.
 *
 * Timing only: no payload moves (results come from the offload model).
 */
#ifndef MF_BASELINE_H
#define MF_BASELINE_H

#include "baseline/sched.h"
#include "coll/run.h"
#include "params/host.h"

/* The MPICH call a spec stands for (OSU sizes, as mf_osu_hdr_size). */
void mf_bl_call_from_spec(const mf_coll_spec_t *c, int size, mf_bl_call_t *call,
                          uint64_t *counts_buf);

/* Run the collective once on every member, all entering at cycle `at`.
 * lat_cycles[i] (optional) gets comm rank i's latency.  The network must be
 * otherwise idle. */
int mf_bl_coll_once(mf_net_t *n, const mf_host_params_t *h, const mf_coll_spec_t *c, int size,
                    const int *members, uint64_t at, uint64_t *lat_cycles, mf_coll_timing_t *t,
                    char *err, size_t len);

/* OSU-style loop, as mf_coll_loop (same fast path, same exactness). */
int mf_bl_coll_loop(mf_net_t *n, const mf_host_params_t *h, const mf_coll_spec_t *c, int size,
                    const int *members, int iters, int fast, mf_coll_timing_t *t, int *simulated,
                    char *err, size_t len);

#endif
