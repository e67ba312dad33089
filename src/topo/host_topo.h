/*
 * The host's hardware as hwloc sees it: cores, and the MPI-FPGA boards
 * (Xilinx PCI devices, vendor 0x10ee) the fpga device would drive.
 */
#ifndef MF_HOST_TOPO_H
#define MF_HOST_TOPO_H

#include <stddef.h>

#define MF_XILINX_VENDOR 0x10ee
#define MF_MAX_BOARDS 16

typedef struct {
    char busid[32];      /* "0000:3b:00.0" */
    unsigned vendor, device;
    char name[96];       /* hwloc's PCI name, if known */
} mf_board_t;

typedef struct {
    int cores, pus;
    int nboards;
    mf_board_t boards[MF_MAX_BOARDS];
} mf_host_hw_t;

/* 0, or -1 with a message when hwloc cannot read the machine. */
int mf_host_hw_discover(mf_host_hw_t *hw, char *err, size_t errlen);

#endif
