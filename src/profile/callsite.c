/* Collective instances: naming call sites and summing per site (callsite.h). */
#define _GNU_SOURCE
#include "profile/callsite.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAMES 16
#define SKIP (-2)      /* address inside MPI or this library */
#define UNNAMED (-1)   /* no module could be found for the address */

typedef struct {
    mf_site_rec_t r;
    MPI_Datatype type; /* of the first call: later calls with others are "mixed" */
    MPI_Op op;
} instance_t;

/* Address -> instance index (or SKIP / UNNAMED), open addressing. */
typedef struct {
    uintptr_t key; /* return address << 4 | collective (user addresses < 2^47), 0 empty */
    int val;
} slot_t;

int mf_sites_on;
static instance_t *insts;
static int ninsts, cap_insts;
static slot_t *slots;
static size_t nslots, used_slots;
static __thread mf_site_call_t *cur; /* this thread's call in progress */
/* MPI_THREAD_MULTIPLE: threads may record at once (offload is off then, but
 * their calls are still measured); uncontended, a lock costs ~20 ns. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char exe_path[256];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void mf_sites_init(const mf_config_t *cfg)
{
    void *probe[1];
    mf_sites_on = cfg->instances || cfg->profile;
    if (!mf_sites_on)
        return;
    backtrace(probe, 1); /* loads the unwinder now, not inside the first timed call */
    ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    exe_path[n > 0 ? n : 0] = '\0';
}

/* libmpifpga itself, MPICH and its Fortran / C++ bindings. */
static int is_mpi_module(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return !strncmp(base, "libmpi", 6) || !strncmp(base, "libpmpi", 7) ||
           !strncmp(base, "libfmpich", 9);
}

static slot_t *slot_find(uintptr_t key)
{
    size_t mask = nslots - 1, i = (key * 0x9e3779b97f4a7c15ull >> 20) & mask;
    while (slots[i].key && slots[i].key != key)
        i = (i + 1) & mask;
    return &slots[i];
}

static int slots_grow(void)
{
    slot_t *old = slots;
    size_t oldn = nslots;
    nslots = oldn ? oldn * 2 : 256;
    slots = calloc(nslots, sizeof *slots);
    if (!slots) {
        slots = old, nslots = oldn;
        return -1;
    }
    for (size_t i = 0; i < oldn; i++)
        if (old[i].key)
            *slot_find(old[i].key) = old[i];
    free(old);
    return 0;
}

static void name_type(MPI_Datatype t, char *out, size_t len)
{
    char name[MPI_MAX_OBJECT_NAME] = "";
    int n = 0;
    if (t == MPI_DATATYPE_NULL) {
        snprintf(out, len, "-");
        return;
    }
    PMPI_Type_get_name(t, name, &n);
    snprintf(out, len, "%s", name[0] ? name : "derived");
}

static void name_op(MPI_Op op, char *out, size_t len)
{
    static const struct { MPI_Op op; const char *name; } ops[] = {
        {MPI_SUM, "MPI_SUM"},   {MPI_PROD, "MPI_PROD"}, {MPI_MIN, "MPI_MIN"},
        {MPI_MAX, "MPI_MAX"},   {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"},
        {MPI_LXOR, "MPI_LXOR"}, {MPI_BAND, "MPI_BAND"}, {MPI_BOR, "MPI_BOR"},
        {MPI_BXOR, "MPI_BXOR"}, {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
        {MPI_REPLACE, "MPI_REPLACE"}};
    const char *name = op == MPI_OP_NULL ? "-" : "user";
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].op == op)
            name = ops[i].name;
    snprintf(out, len, "%s", name);
}

/* A new instance for the call at `ret` (outside MPI), or SKIP / UNNAMED. */
static int instance_new(void *ret, mf_coll_id_t id, MPI_Datatype type, MPI_Op op, int size)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1((char *)ret - 1, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return UNNAMED;
    const char *path = lm->l_name && lm->l_name[0] ? lm->l_name : exe_path;
    if (is_mpi_module(path))
        return SKIP;
    if (ninsts == cap_insts) {
        int cap = cap_insts ? cap_insts * 2 : 16;
        instance_t *p = realloc(insts, (size_t)cap * sizeof *p);
        if (!p)
            return UNNAMED;
        insts = p, cap_insts = cap;
    }
    instance_t *in = &insts[ninsts];
    memset(in, 0, sizeof *in);
    snprintf(in->r.module, sizeof in->r.module, "%s", path);
    snprintf(in->r.func, sizeof in->r.func, "%s", info.dli_sname ? info.dli_sname : "");
    in->r.offset = (uint64_t)((uintptr_t)ret - 1 - lm->l_addr);
    in->r.coll = (int32_t)id;
    in->r.comm_size = size;
    in->type = type, in->op = op;
    name_type(type, in->r.dtype, sizeof in->r.dtype);
    name_op(op, in->r.op, sizeof in->r.op);
    return ninsts++;
}

/* Instance of the call whose return address is `ret` (cached). */
static int lookup(void *ret, mf_coll_id_t id, MPI_Datatype type, MPI_Op op, int size)
{
    _Static_assert(MF_C_COUNT <= 16, "the collective must fit the key's low 4 bits");
    uintptr_t key = (uintptr_t)ret << 4 | (uintptr_t)id;
    if (!key || (2 * (used_slots + 1) > nslots && slots_grow()))
        return UNNAMED;
    slot_t *s = slot_find(key);
    if (!s->key) {
        s->key = key;
        s->val = instance_new(ret, id, type, op, size);
        used_slots++;
    }
    return s->val;
}

/* The caller is in MPI (a Fortran binding): the first frame outside it. */
static int lookup_unwound(mf_coll_id_t id, MPI_Datatype type, MPI_Op op, int size)
{
    void *frames[MAX_FRAMES];
    int n = backtrace(frames, MAX_FRAMES);
    for (int i = 1; i < n; i++) {
        int v = lookup(frames[i], id, type, op, size);
        if (v != SKIP)
            return v;
    }
    return UNNAMED;
}

void mf_site_begin_slow(mf_site_call_t *s, mf_coll_id_t id, void *ret, MPI_Datatype type,
                        MPI_Op op, MPI_Comm comm)
{
    int size = 0;
    if (cur)
        return; /* a collective inside a collective (an MPI_Op callback): the outer one counts */
    PMPI_Comm_size(comm, &size);
    *s = (mf_site_call_t){.on = 1};
    pthread_mutex_lock(&lock);
    s->inst = lookup(ret, id, type, op, size);
    if (s->inst == SKIP)
        s->inst = lookup_unwound(id, type, op, size);
    if (s->inst >= 0) {
        instance_t *in = &insts[s->inst];
        if (in->r.comm_size != size)
            in->r.comm_size = -1;
        if (in->type != type && strcmp(in->r.dtype, "mixed"))
            snprintf(in->r.dtype, sizeof in->r.dtype, "mixed");
        if (in->op != op && strcmp(in->r.op, "mixed"))
            snprintf(in->r.op, sizeof in->r.op, "mixed");
    }
    pthread_mutex_unlock(&lock);
    cur = s;
    s->t0 = now_s(); /* last: naming the site is not the call's time */
}

static void add_call(mf_site_rec_t *r, const mf_site_call_t *s, double host_us)
{
    r->calls++;
    r->bytes += s->bytes;
    r->host_us += host_us;
    if (!s->offloaded) {
        r->offload_us += host_us; /* it ran in MPI: that is its time with offload too */
        return;
    }
    r->offloaded++;
    r->offload_us += s->offload_us;
    if (s->baseline_us > 0) {
        r->baseline_calls++;
        r->baseline_us += s->baseline_us;
    }
}

void mf_site_end_slow(mf_site_call_t *s)
{
    double host_us = (now_s() - s->t0) * 1e6;
    cur = NULL;
    if (s->inst < 0)
        return;
    pthread_mutex_lock(&lock);
    add_call(&insts[s->inst].r, s, host_us);
    pthread_mutex_unlock(&lock);
}

mf_site_call_t *mf_site_current(void) { return cur; }

int mf_sites_count(void) { return ninsts; }

void mf_sites_copy(mf_site_rec_t *out)
{
    for (int i = 0; i < ninsts; i++)
        out[i] = insts[i].r;
}

void mf_sites_fini(void)
{
    free(insts);
    free(slots);
    insts = NULL, slots = NULL;
    ninsts = cap_insts = 0;
    nslots = used_slots = 0;
    mf_sites_on = 0;
}
