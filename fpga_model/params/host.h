/*
 * Host parameter sets of the baseline (fpga_model/baseline): what a CPU
 * node's MPI costs per message and per byte, in LogGP terms (001 sec. 5):
 * o_s, o_r, g, G, plus the host's per-byte reduction cost, the NIC's
 * latency to and from the network, its packet size (MTU) and the eager /
 * rendezvous switch-over.  The network itself is the modeled fabric of the
 * switch parameter set (params.h): baseline messages cross the same routers
 * and links as the offloaded collectives.  Built-in: skx-opa (host.conf
 * files in fpga_model/params, same format as the switch sets).
 */
#ifndef MF_HOST_PARAMS_H
#define MF_HOST_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct mf_host_params {
    char name[64];
    double o_send_ns;           /* o_s: CPU time to start a send */
    double o_recv_ns;           /* o_r: CPU time to complete a receive */
    double gap_ns;              /* g: minimum interval between messages at the NIC */
    double G_ps_per_byte;       /* G: NIC time per byte, each direction */
    double reduce_ps_per_byte;  /* host reduction (MPIR_Reduce_local), per operand byte */
    double eager_copy_ps_per_byte; /* CPU copy of an eager message, each side, per byte */
    double nic_latency_ns;      /* host memory <-> network port, each side */
    unsigned eager_max_bytes;   /* larger messages use a rendezvous (RTS/CTS) */
    unsigned mtu_bytes;         /* payload bytes of one network packet */
} mf_host_params_t;

/* Built-in set ("skx-opa") or a file applied on top of skx-opa; see conf.h. */
int mf_host_params_load(const char *name, mf_host_params_t *h, char *err, size_t errlen);
int mf_host_params_set(mf_host_params_t *h, const char *key, const char *value, char *err,
                       size_t errlen);
int mf_host_params_check(const mf_host_params_t *h, char *err, size_t errlen);
void mf_host_params_print(const mf_host_params_t *h, FILE *out);

#endif
