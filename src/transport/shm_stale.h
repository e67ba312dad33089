/*
 * libfabric's shm provider names its region /dev/shm/<pid>:<n>:<n>.  A
 * process that was killed leaves its region behind, and a later process
 * that gets the same pid then cannot open its own (fi_enable: EBUSY, or
 * SIGBUS on a truncated file).
 */
#ifndef MF_SHM_STALE_H
#define MF_SHM_STALE_H

/* Delete the regions named after this process's pid that it has not
 * mapped (call before opening an shm endpoint). */
void mf_shm_clear_stale(void);

#endif
