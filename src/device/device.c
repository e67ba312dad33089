/* Device lookup and the engine's liveness (device.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "device/device.h"

int mf_engine_pid_gone(int pid)
{
    char path[64], buf[256];
    if (pid <= 0)
        return 0; /* unknown: assumed alive */
    if (kill(pid, 0) == -1 && errno == ESRCH)
        return 1;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *end = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return end && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
}

int mf_dev_coll(mf_device_t *d, const mf_dev_call_t *c, mf_dev_result_t *r)
{
    uint32_t ticket;
    *r = (mf_dev_result_t){.status = MF_DEV_ERROR};
    if (d->ops->post(d, c, &ticket, r->text, sizeof r->text))
        return -1;
    int rc = d->ops->poll(d, ticket, -1, r);
    return rc == 1 ? 0 : -1;
}

const mf_device_ops_t *mf_device_lookup(const char *name)
{
    if (!strcmp(name, "model"))
        return &mf_device_model_ops;
    if (!strcmp(name, "fpga"))
        return &mf_device_fpga_ops;
    return NULL;
}
