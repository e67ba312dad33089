/*
 * The "fpga" device: MPI-FPGA boards on this host.  Discovery is real
 * (hwloc, Xilinx PCI vendor 0x10ee); this build has no board driver, so
 * open() reports what it found and fails, and every call falls back to MPI
 * with reason engine_unavailable.  A driver would fill in ct_config /
 * ct_free / post / poll with the same engine messages the model device sends.
 */
#include <stdio.h>

#include "device/device.h"
#include "topo/host_topo.h"

static int fpga_open(mf_device_t *d, const mf_engine_loc_t *loc, int grank, int nranks,
                     int node, int port, const mf_config_t *cfg, char *err, size_t len)
{
    mf_host_hw_t hw;
    (void)d, (void)loc, (void)grank, (void)nranks, (void)node, (void)port, (void)cfg;
    if (mf_host_hw_discover(&hw, err, len))
        return -1;
    if (hw.nboards == 0)
        snprintf(err, len, "MPIFPGA_DEVICE=fpga: no MPI-FPGA board (Xilinx PCI device 0x%04x) "
                 "on this host; use MPIFPGA_DEVICE=model", 0x10ee);
    else
        snprintf(err, len, "MPIFPGA_DEVICE=fpga: found %d Xilinx board(s) (first %s) but this "
                 "build has no board driver; use MPIFPGA_DEVICE=model", hw.nboards,
                 hw.boards[0].busid);
    return -1;
}

static int fpga_ct_config(mf_device_t *d, int ctx, const mf_ct_entry_t *e, char *err,
                          size_t len)
{
    (void)d, (void)ctx, (void)e;
    return snprintf(err, len, "fpga device not open"), -1;
}

static int fpga_ct_free(mf_device_t *d, int ctx, char *err, size_t len)
{
    (void)d, (void)ctx;
    return snprintf(err, len, "fpga device not open"), -1;
}

static int fpga_post(mf_device_t *d, const mf_dev_call_t *c, uint32_t *ticket, char *err,
                     size_t len)
{
    (void)d, (void)c, (void)ticket;
    return snprintf(err, len, "fpga device not open"), -1;
}

static int fpga_poll(mf_device_t *d, uint32_t ticket, int timeout_ms, mf_dev_result_t *r)
{
    (void)d, (void)ticket, (void)timeout_ms;
    snprintf(r->text, sizeof r->text, "fpga device not open");
    return -1;
}

static void fpga_close(mf_device_t *d) { (void)d; }
static const char *fpga_describe(mf_device_t *d)
{
    (void)d;
    return "fpga boards (no driver in this build)";
}

const mf_device_ops_t mf_device_fpga_ops = {
    .name = "fpga",
    .open = fpga_open,
    .ct_config = fpga_ct_config,
    .ct_free = fpga_ct_free,
    .post = fpga_post,
    .poll = fpga_poll,
    .close = fpga_close,
    .describe = fpga_describe,
};
