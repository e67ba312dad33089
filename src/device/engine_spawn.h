/*
 * Auto mode (MPIFPGA_ENGINE=auto, a plain `mpiexec -genv LD_PRELOAD=...`):
 * rank 0 starts mpifpga-switchd for the job with posix_spawn and waits for
 * the address it writes.  mpifpga-run starts the engine itself instead.
 */
#ifndef MF_ENGINE_SPAWN_H
#define MF_ENGINE_SPAWN_H

#include <stddef.h>

#include "config/config.h"
#include "device/device.h"

/* Start the engine for `nranks` ranks over provider `prov`; on success
 * fills loc (address, pid, host). */
int mf_engine_spawn(const mf_config_t *cfg, int nranks, const char *prov, mf_engine_loc_t *loc,
                    char *err, size_t errlen);

/* Wait up to timeout_s for the engine to exit (it does once every rank
 * said goodbye), then terminate it. */
void mf_engine_reap(int pid, int timeout_s);

#endif
