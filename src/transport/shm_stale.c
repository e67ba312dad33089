/* Regions libfabric's shm provider left in /dev/shm; see shm_stale.h. */
#include "transport/shm_stale.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 1 if this process maps /dev/shm/<name>. */
static int mapped_here(const char *name)
{
    char line[512], want[300];
    int found = 0;
    FILE *m = fopen("/proc/self/maps", "r");
    if (!m)
        return 1; /* cannot tell: keep it */
    snprintf(want, sizeof want, "/dev/shm/%s", name);
    while (!found && fgets(line, sizeof line, m))
        found = strstr(line, want) != NULL;
    fclose(m);
    return found;
}

/* libfabric's shm provider names its region /dev/shm/<pid>:<n>:<n>.  A
 * process that was killed leaves its region behind, and a later process
 * that gets the same pid then cannot open its own (fi_enable: EBUSY, or
 * SIGBUS on a truncated file).  Leftovers are the files named after this
 * pid that this process has not mapped. */
void mf_shm_clear_stale(void)
{
    char prefix[32];
    int n = snprintf(prefix, sizeof prefix, "%d:", (int)getpid());
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        char path[300];
        if (strncmp(e->d_name, prefix, (size_t)n) || mapped_here(e->d_name))
            continue;
        snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
        unlink(path);
    }
    closedir(d);
}
