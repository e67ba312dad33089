/* hwloc discovery of cores and MPI-FPGA boards (host_topo.h). */
#include "topo/host_topo.h"

#include <hwloc.h>
#include <stdio.h>
#include <string.h>

static void add_board(mf_host_hw_t *hw, hwloc_obj_t o)
{
    if (hw->nboards == MF_MAX_BOARDS)
        return;
    mf_board_t *b = &hw->boards[hw->nboards++];
    snprintf(b->busid, sizeof b->busid, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain,
             o->attr->pcidev.bus, o->attr->pcidev.dev, o->attr->pcidev.func);
    b->vendor = o->attr->pcidev.vendor_id;
    b->device = o->attr->pcidev.device_id;
    const char *name = hwloc_obj_get_info_by_name(o, "PCIDevice");
    snprintf(b->name, sizeof b->name, "%s", name ? name : "Xilinx device");
}

int mf_host_hw_discover(mf_host_hw_t *hw, char *err, size_t errlen)
{
    hwloc_topology_t t;
    memset(hw, 0, sizeof *hw);
    if (hwloc_topology_init(&t)) {
        snprintf(err, errlen, "hwloc_topology_init failed");
        return -1;
    }
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(t)) {
        snprintf(err, errlen, "hwloc could not read this machine's topology");
        hwloc_topology_destroy(t);
        return -1;
    }
    hw->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    hw->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(t, o));)
        if (o->attr->pcidev.vendor_id == MF_XILINX_VENDOR)
            add_board(hw, o);
    hwloc_topology_destroy(t);
    return 0;
}
