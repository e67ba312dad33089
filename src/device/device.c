/* Device lookup (device.h). */
#include <string.h>

#include "device/device.h"

const mf_device_ops_t *mf_device_lookup(const char *name)
{
    if (!strcmp(name, "model"))
        return &mf_device_model_ops;
    if (!strcmp(name, "fpga"))
        return &mf_device_fpga_ops;
    return NULL;
}
