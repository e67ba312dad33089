/*
 * 001 sec. 5, Eqs. 3-6: the LogGP closed forms of a binomial-tree Bcast,
 * baseline (software on the hosts) against in-switch, evaluated from the
 * SAME parameters the simulation uses, so they can be printed beside the
 * simulated times (mpifpga-sim --analytic, doc/validation.md).
 *
 *   Eq. 3  T_Bl,P-1 = floor(log P) (O_s + kG + L + O_r)     last rank, baseline
 *   Eq. 4  T_Is,P-1 = O_s + kG + L + O_r                     last rank, in-switch
 *   Eq. 5  T_Bl,0   = O_s + (ceil(log P) - 1) max{g, O_s} + ceil(log P) k G   root
 *   Eq. 6  T_Is,0   = O_s + kG                                                 root
 */
#ifndef MF_LOGGP_H
#define MF_LOGGP_H

#include <stdint.h>
#include "mpifpga/model.h"
#include "params/host.h"

/* LogGP terms in microseconds (G per byte). */
typedef struct {
    double L, os, orr, g, G;
} mf_loggp_t;

typedef struct {
    mf_loggp_t bl, is;     /* the terms used */
    double eq3, eq4, eq5, eq6;
} mf_loggp_bcast_t;

/* Terms for a Bcast of k bytes from comm rank 0 over `members` (global
 * ranks) on network n:
 *   baseline  O_s = o_send, O_r = o_recv, g = gap, G = max(host G, link
 *             time per byte), L = 2 x NIC latency + the zero-load network
 *             latency of a binomial-tree edge (mean over the edges on the
 *             path from rank 0 to rank P-1);
 *   in-switch O_s = host overhead + PCIe (doorbell, header to the CCM), O_r =
 *             PCIe + host overhead (result to memory, completion), g = 0,
 *             G = time per byte of the slowest of DMA, datapath and link,
 *             L = sum of the zero-load latencies of the tree edges on that
 *             path (the switches forward at every level without the hosts). */
void mf_loggp_bcast(const mf_net_t *n, const mf_host_params_t *h, int P, const int *members,
                    uint64_t k, mf_loggp_bcast_t *out);

#endif
