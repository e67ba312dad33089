/* Host parameter sets of the baseline (host.h), read through conf.h. */
#include "host.h"
#include "conf.h"

#include "skx-opa.conf.h" /* static const char skx_opa_conf[] */

#define ROW(k, t, lo, hi, fl, h) { #k, t, offsetof(mf_host_params_t, k), lo, hi, fl, h }

static const mf_pdef_t host_pdefs[] = {
    ROW(name, MF_T_STR, 0, 0, 0, "host parameter set name"),
    ROW(o_send_ns, MF_T_DBL, 0, 1e7, 0, "o_s: CPU time to start a send [ns]"),
    ROW(o_recv_ns, MF_T_DBL, 0, 1e7, 0, "o_r: CPU time to complete a receive [ns]"),
    ROW(gap_ns, MF_T_DBL, 0, 1e7, 0, "g: min interval between messages at the NIC [ns]"),
    ROW(G_ps_per_byte, MF_T_DBL, 0, 1e6, 0, "G: NIC time per byte, each direction [ps/B]"),
    ROW(reduce_ps_per_byte, MF_T_DBL, 0, 1e6, 0, "host reduction time per operand byte [ps/B]"),
    ROW(eager_copy_ps_per_byte, MF_T_DBL, 0, 1e6, 0, "CPU copy of an eager message, each side [ps/B]"),
    ROW(nic_latency_ns, MF_T_DBL, 0, 1e7, 0, "host memory <-> network port, each side [ns]"),
    ROW(eager_max_bytes, MF_T_UINT, 0, 1u << 30, 0, "larger messages use a rendezvous [B]"),
    ROW(mtu_bytes, MF_T_UINT, 32, 1u << 20, MF_F_POW2, "payload of one network packet [B], power of two"),
};

static const mf_builtin_t host_builtins[] = {
    { "skx-opa", skx_opa_conf },
};

static const mf_conf_schema_t schema = {
    "host parameter set", host_pdefs, sizeof host_pdefs / sizeof host_pdefs[0],
    host_builtins, sizeof host_builtins / sizeof host_builtins[0], sizeof(mf_host_params_t),
    NULL,
};

int mf_host_params_load(const char *name, mf_host_params_t *h, char *err, size_t errlen)
{
    return mf_conf_load(&schema, name, h, err, errlen);
}

int mf_host_params_set(mf_host_params_t *h, const char *key, const char *value, char *err,
                       size_t errlen)
{
    return mf_conf_set(&schema, h, key, value, err, errlen);
}

int mf_host_params_check(const mf_host_params_t *h, char *err, size_t errlen)
{
    return mf_conf_check(&schema, h, err, errlen);
}

void mf_host_params_print(const mf_host_params_t *h, FILE *out)
{
    fprintf(out, "# MPI-FPGA baseline host parameters '%s' (load with mf_host_params_load)\n",
            h->name);
    mf_conf_print(&schema, h, out);
}
