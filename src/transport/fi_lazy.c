/*
 * libfabric, loaded when the first endpoint is opened rather than when the
 * program starts.  Debian's libfabric links the PSM libraries, whose
 * constructors calibrate a timer for about 0.1 s each: every process that
 * merely links libfabric pays 0.2 s at start-up, even one that never opens
 * an endpoint (mpifpga-switchd --check, a rank with offload off, the
 * launcher's checks).  fabric.c calls the five entry points below; they
 * dlopen libfabric.so.1 once and forward.  The rest of the API is inline
 * in the headers (ops tables), so nothing else needs the library.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#define FI_LIB "libfabric.so.1"

static struct {
    pthread_once_t once;
    void *h;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    char why[120];
} lib = {.once = PTHREAD_ONCE_INIT};

static void load(void)
{
    lib.h = dlopen(FI_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib.h) {
        const char *e = dlerror();
        snprintf(lib.why, sizeof lib.why, "%s", e ? e : "not found");
        return;
    }
    *(void **)&lib.getinfo = dlsym(lib.h, "fi_getinfo");
    *(void **)&lib.freeinfo = dlsym(lib.h, "fi_freeinfo");
    *(void **)&lib.dupinfo = dlsym(lib.h, "fi_dupinfo");
    *(void **)&lib.fabric = dlsym(lib.h, "fi_fabric");
    *(void **)&lib.strerror = dlsym(lib.h, "fi_strerror");
    if (!lib.getinfo || !lib.freeinfo || !lib.dupinfo || !lib.fabric || !lib.strerror) {
        snprintf(lib.why, sizeof lib.why, "an fi_ entry point is missing");
        dlclose(lib.h);
        lib.h = NULL;
    }
}

static int loaded(void)
{
    pthread_once(&lib.once, load);
    return lib.h != NULL;
}

int mf_fab_preload(void) { return loaded() ? 0 : -1; }

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
               const struct fi_info *hints, struct fi_info **info)
{
    if (!loaded())
        return -FI_ENOSYS; /* fi_strerror says which library is missing */
    return lib.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
    if (info && loaded())
        lib.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    return loaded() ? lib.dupinfo(info) : NULL;
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    return loaded() ? lib.fabric(attr, fabric, context) : -FI_ENOSYS;
}

const char *fi_strerror(int errnum)
{
    static char buf[200];
    if (loaded())
        return lib.strerror(errnum);
    snprintf(buf, sizeof buf, "cannot load " FI_LIB ": %s (install Debian's libfabric1)",
             lib.why);
    return buf;
}
