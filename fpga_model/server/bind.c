/* Binding mpifpga-switchd to a spare core with hwloc; see bind.h. */
#include "server/bind.h"

#include <hwloc.h>
#include <stdio.h>

/* Bind to core `core` (the last one); 1, or -1 with desc. */
static int bind_core(hwloc_topology_t topo, hwloc_obj_t core, int ncores, char *desc,
                     size_t len)
{
    char pus[128];
    hwloc_bitmap_list_snprintf(pus, sizeof pus, core->cpuset);
    if (hwloc_set_cpubind(topo, core->cpuset, HWLOC_CPUBIND_PROCESS)) {
        snprintf(desc, len, "cannot bind to core %u (PUs %s) of %d: engine not bound",
                 core->logical_index, pus, ncores);
        return -1;
    }
    snprintf(desc, len, "bound to core %u of %d (PUs %s)", core->logical_index, ncores, pus);
    return 1;
}

int mf_bind_engine(int local_ranks, char *desc, size_t len)
{
    hwloc_topology_t topo;
    int rc = -1;
    if (hwloc_topology_init(&topo)) {
        snprintf(desc, len, "hwloc cannot start: engine not bound");
        return -1;
    }
    if (hwloc_topology_load(topo)) {
        snprintf(desc, len, "hwloc cannot read the machine's topology: engine not bound");
        goto out;
    }
    /* Cores, not hardware threads: a rank on the sibling thread would still
     * share the core's pipeline with the engine. */
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    if (ncores <= 0) {
        snprintf(desc, len, "hwloc finds no cores: engine not bound");
        goto out;
    }
    if (ncores <= local_ranks) {
        snprintf(desc, len, "%d core%s for %d rank%s: engine not bound", ncores,
                 ncores == 1 ? "" : "s", local_ranks, local_ranks == 1 ? "" : "s");
        rc = 0;
        goto out;
    }
    rc = bind_core(topo, hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)ncores - 1),
                   ncores, desc, len);
out:
    hwloc_topology_destroy(topo);
    return rc;
}
