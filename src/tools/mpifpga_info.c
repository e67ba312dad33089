/*
 * mpifpga-info: what libmpifpga would do here, like ucc_info / fi_info.
 *
 *   mpifpga-info [-n N] [-q]
 *
 * Prints the MPIFPGA_* settings with their effective values, the engine's
 * parameter set (MPIFPGA_PARAMS), the network auto mode would model for
 * N ranks, the libfabric providers the transport can use, and the cores
 * and MPI-FPGA boards hwloc finds.  Exit 2 on a bad setting or option.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "mpifpga/model.h"
#include "net/topo.h"
#include "params/params.h"
#include "topo/host_topo.h"
#include "transport/fabric.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: mpifpga-info [-n N] [-q] [-h]\n"
                 "Prints the libmpifpga settings (every MPIFPGA_* variable: its effective\n"
                 "value, default and meaning), the boards and host found, the engine a job\n"
                 "would reach and the network auto mode would model.\n"
                 "  -n N        show the network auto mode models for N ranks (default 8)\n"
                 "  -q          settings only\n"
                 "  -h, --help  this text\n");
}

static int show_params(const mf_config_t *cfg)
{
    char err[256];
    mf_params_t p;
    if (mf_params_load(cfg->params, &p, err, sizeof err)) {
        fprintf(stderr, "mpifpga-info: MPIFPGA_PARAMS: %s\n", err);
        return -1;
    }
    printf("\n# Engine parameter set (MPIFPGA_PARAMS=%s)\n", cfg->params);
    mf_params_print(&p, stdout);
    return 0;
}

static int show_network(const mf_config_t *cfg, int nranks)
{
    char err[256], desc[128];
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    mf_topo_t t;
    int nodes = (nranks + cfg->ppn - 1) / cfg->ppn;
    if (strcmp(cfg->topology, "auto") && mf_topo_parse(cfg->topology, &spec, err, sizeof err)) {
        fprintf(stderr, "mpifpga-info: MPIFPGA_TOPOLOGY: %s\n", err);
        return -1;
    }
    if (!spec.oversub)
        spec.oversub = 3;
    if (mf_topo_build(&spec, nodes, cfg->ppn, &t, err, sizeof err)) {
        fprintf(stderr, "mpifpga-info: topology for %d ranks: %s\n", nranks, err);
        return -1;
    }
    mf_topo_describe(&t, desc, sizeof desc);
    printf("\n# Modeled network for %d ranks (auto mode, MPIFPGA_PPN=%d)\n%s, %d nodes\n", nranks,
           cfg->ppn, desc, t.nnodes);
    mf_topo_free(&t);
    return 0;
}

static void show_fabric(void)
{
    const char *provs[] = {"shm", "tcp;ofi_rxm"};
    printf("\n# Transport (libfabric)\n");
    for (size_t i = 0; i < sizeof provs / sizeof provs[0]; i++) {
        char err[256];
        mf_fab_t *f;
        if (mf_fab_open(provs[i], 1, &f, err, sizeof err)) {
            printf("%-12s unavailable: %s\n", provs[i], err);
            continue;
        }
        printf("%-12s available (%s)\n", mf_fab_provider(f),
               mf_fab_blocking(f) ? "waits block on the completion queue's fd"
                                  : "no wait object: waits poll with growing sleeps");
        mf_fab_close(f);
    }
}

static void show_host(void)
{
    char err[256];
    mf_host_hw_t hw;
    printf("\n# Host (hwloc)\n");
    if (mf_host_hw_discover(&hw, err, sizeof err)) {
        printf("%s\n", err);
        return;
    }
    printf("cores %d, hardware threads %d\n", hw.cores, hw.pus);
    printf("MPI-FPGA boards (Xilinx PCI vendor 0x%04x): %d\n", MF_XILINX_VENDOR, hw.nboards);
    for (int i = 0; i < hw.nboards; i++)
        printf("  %s  %04x:%04x  %s\n", hw.boards[i].busid, hw.boards[i].vendor,
               hw.boards[i].device, hw.boards[i].name);
    if (hw.nboards == 0)
        printf("  none: MPIFPGA_DEVICE=model (the default) runs the modeled network\n");
}

int main(int argc, char **argv)
{
    int nranks = 8, quiet = 0, c;
    char err[512];
    mf_config_t cfg;
    static const struct option lo[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    while ((c = getopt_long(argc, argv, "n:qh", lo, NULL)) != -1) {
        if (c == 'n') {
            nranks = atoi(optarg);
            if (nranks < 1 || nranks >= 65535) {
                fprintf(stderr, "mpifpga-info: -n: '%s' is not a rank count in 1..65534\n",
                        optarg);
                return 2;
            }
        } else if (c == 'q') {
            quiet = 1;
        } else {
            usage(c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 2;
        }
    }
    int bad = mf_config_load(&cfg, err, sizeof err);
    printf("# mpifpga %s: settings (MPIFPGA_* environment; effective value, default)\n",
           PACKAGE_VERSION);
    mf_config_print(&cfg, stdout);
    if (bad) {
        fprintf(stderr, "mpifpga-info: %s\n", err);
        return 2;
    }
    if (quiet)
        return 0;
    if (show_params(&cfg) || show_network(&cfg, nranks))
        return 2;
    show_fabric();
    show_host();
    return 0;
}
