/*
 * MPI_Init / MPI_Init_thread / MPI_Finalize: read the configuration, find
 * or start the switch engine, connect every rank (HELLO with its
 * forwarding-table entry), give MPI_COMM_WORLD its CT row; at the end,
 * the run report and goodbye.  Offload is on only if every rank connected
 * (agreed with an allreduce), so all ranks always take the same path.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/engine_spawn.h"
#include "intercept/host.h"
#include "intercept/nb_op.h"
#include "profile/callsite.h"
#include "transport/fabric.h"

mf_host_t mf_host = {.off_reason = MF_FB_ENGINE};

/* "shm" when every rank shares rank 0's host, else tcp (issue 4, 3.). */
static void pick_provider(char *prov, size_t len)
{
    MPI_Comm node;
    int local = 0;
    if (strcmp(mf_host.cfg.provider, "auto")) {
        snprintf(prov, len, "%s", mf_host.cfg.provider);
        return;
    }
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Comm_size(node, &local);
    PMPI_Comm_free(&node);
    snprintf(prov, len, "%s", local == mf_host.nranks ? "shm" : "tcp;ofi_rxm");
}

/* MPIFPGA_ENGINE=file:PATH (mpifpga-run starts the engine and the job at
 * once): the address once the engine has written it, polled every 5 ms
 * up to MPIFPGA_CONNECT_TIMEOUT; "" if it exits first or never does. */
static void address_from_file(const char *path, int pid, char *addr, size_t len)
{
    addr[0] = 0;
    mf_fab_preload(); /* ~0.2 s (fi_lazy.c), while the engine starts too */
    for (long waited = 0; waited <= mf_host.cfg.connect_timeout * 1000L; waited += 5) {
        FILE *f = fopen(path, "r");
        if (f) {
            int got = fgets(addr, (int)len, f) != NULL;
            fclose(f);
            if (got && strchr(addr, '\n')) { /* written whole (then renamed in place) */
                addr[strcspn(addr, "\n")] = 0;
                return;
            }
        }
        if (mf_engine_pid_gone(pid))
            break;
        usleep(5000);
    }
    addr[0] = 0;
    if (mf_host.grank == 0)
        fprintf(stderr, "mpifpga: the switch engine (pid %d) %s; collectives run in MPI\n", pid,
                mf_engine_pid_gone(pid)
                    ? "exited before publishing its address"
                    : "did not publish its address in time (MPIFPGA_CONNECT_TIMEOUT)");
}

/* The job's secret: mpifpga-run's MPIFPGA_JOB_SECRET, or one rank 0 makes
 * for the engine it starts (its environment passes it on). */
static void job_secret(uint8_t secret[MF_EM_SECRET_BYTES], int make)
{
    const char *t = getenv("MPIFPGA_JOB_SECRET");
    if (t && *t) {
        if (mf_em_secret_parse(t, secret) && mf_host.grank == 0)
            fprintf(stderr, "mpifpga: MPIFPGA_JOB_SECRET is not 32 hex digits; ignored\n");
        return;
    }
    char hex[2 * MF_EM_SECRET_BYTES + 1];
    if (!make || getrandom(secret, MF_EM_SECRET_BYTES, 0) != MF_EM_SECRET_BYTES) {
        memset(secret, 0, MF_EM_SECRET_BYTES);
        return;
    }
    for (int i = 0; i < MF_EM_SECRET_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", secret[i]);
    setenv("MPIFPGA_JOB_SECRET", hex, 1); /* the engine rank 0 spawns inherits it */
}

/* Under mpifpga-run: an empty file named after this process in the job's
 * directory, so that after a failed job (an abort) the launcher can wait
 * for ranks that are still dying before it returns.  Best effort. */
static void note_rank_pid(void)
{
    const char *dir = getenv("MPIFPGA_BELL_DIR");
    char path[PATH_MAX];
    if (!dir || !*dir ||
        snprintf(path, sizeof path, "%s/rank.%ld", dir, (long)getpid()) >= (int)sizeof path)
        return;
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

/* Where the engine is: started by rank 0 (auto) or given (mpifpga-run
 * sets MPIFPGA_ENGINE, and MPIFPGA_ENGINE_PID / _HOST so ranks can tell
 * a dead engine from a slow one).  Empty address: none. */
static void locate_engine(mf_engine_loc_t *loc)
{
    char prov[64], err[512];
    memset(loc, 0, sizeof *loc);
    if (strcmp(mf_host.cfg.engine, "auto")) {
        note_rank_pid();
        job_secret(loc->secret, 0);
        const char *pid = getenv("MPIFPGA_ENGINE_PID"), *host = getenv("MPIFPGA_ENGINE_HOST");
        loc->pid = pid ? atoi(pid) : 0;
        if (!strncmp(mf_host.cfg.engine, "file:", 5))
            address_from_file(mf_host.cfg.engine + 5, loc->pid, loc->addr, sizeof loc->addr);
        else
            snprintf(loc->addr, sizeof loc->addr, "%s", mf_host.cfg.engine);
        snprintf(loc->host, sizeof loc->host, "%s", host ? host : "");
        return;
    }
    pick_provider(prov, sizeof prov);
    uint8_t secret[MF_EM_SECRET_BYTES] = {0};
    if (mf_host.grank == 0)
        job_secret(secret, 1); /* broadcast with the address below */
    if (mf_host.grank == 0 &&
        mf_engine_spawn(&mf_host.cfg, mf_host.nranks, prov, loc, err, sizeof err)) {
        fprintf(stderr, "mpifpga: %s; collectives run in MPI\n", err);
        memset(loc, 0, sizeof *loc);
    }
    memcpy(loc->secret, secret, sizeof secret);
    if (mf_host.grank == 0)
        mf_host.spawned_pid = loc->pid;
    PMPI_Bcast(loc, sizeof *loc, MPI_BYTE, 0, MPI_COMM_WORLD);
}

/* Open the device on this rank; 1 if it worked. */
static int open_device(void)
{
    char err[512];
    const mf_device_ops_t *ops = mf_device_lookup(mf_host.cfg.device);
    int ppn = mf_host.cfg.ppn;
    mf_host.dev = (mf_device_t){.ops = ops};
    if (!mf_host.engine.addr[0] && ops == &mf_device_model_ops)
        return 0;
    if (ops->open(&mf_host.dev, &mf_host.engine, mf_host.grank, mf_host.nranks,
                  mf_host.grank / ppn, mf_host.grank % ppn, &mf_host.cfg, err,
                  sizeof err) == 0)
        return 1;
    /* each failing rank says why; all then agree to run without offload */
    fprintf(stderr, "mpifpga: rank %d: %s; collectives run in MPI\n", mf_host.grank, err);
    ops->close(&mf_host.dev);
    return 0;
}

static void connect_all(void)
{
    int ok, all_ok = 0;
    if (strcmp(mf_host.cfg.device, "fpga"))
        locate_engine(&mf_host.engine);
    else /* boards: the driver opens its queues (MPIFPGA_FPGA_DEV), no engine process */
        memset(&mf_host.engine, 0, sizeof mf_host.engine);
    ok = open_device();
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) {
        mf_host.dev_open = 1;
        mf_host.active = 1;
        mf_host.off_reason = MF_FB_NONE;
        return;
    }
    if (ok)
        mf_host.dev.ops->close(&mf_host.dev);
    mf_host.off_reason = MF_FB_ENGINE;
}

static void setup(int thread_level)
{
    char err[512];
    PMPI_Comm_rank(MPI_COMM_WORLD, &mf_host.grank);
    PMPI_Comm_size(MPI_COMM_WORLD, &mf_host.nranks);
    if (mf_config_load(&mf_host.cfg, err, sizeof err)) {
        if (mf_host.grank == 0)
            fprintf(stderr, "mpifpga: %s; offload disabled (see mpifpga-info)\n", err);
        mf_host.cfg.enable = 0;
    }
    if (!mf_host.cfg.enable || mf_host.cfg.profile)
        mf_host.off_reason = MF_FB_DISABLED;
    else if (thread_level == MPI_THREAD_MULTIPLE)
        mf_host.off_reason = MF_FB_THREADS;
    else if (!strcmp(mf_host.cfg.engine, "none") || mf_host.nranks >= (int)MF_RANK_NONE)
        mf_host.off_reason = MF_FB_ENGINE;
    else
        connect_all();
    PMPI_Add_error_class(&mf_host.err_class);
    mf_sites_init(&mf_host.cfg);
    mf_host.initialized = 1;
    mf_comm_init();
    mf_host.t_init = PMPI_Wtime();
}

MF_PUBLIC int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        setup(MPI_THREAD_SINGLE);
    return rc;
}

MF_PUBLIC int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        setup(*provided);
    return rc;
}

static const char *engine_desc(void)
{
    if (mf_host.dev_open)
        return mf_host.dev.ops->describe(&mf_host.dev);
    if (mf_host.cfg.profile)
        return "profile mode (MPIFPGA_PROFILE): collectives ran in MPI";
    return mf_host.off_reason == MF_FB_DISABLED ? "offload disabled (MPIFPGA_ENABLE)"
           : mf_host.off_reason == MF_FB_THREADS ? "offload off (MPI_THREAD_MULTIPLE)"
                                                 : "no engine (collectives ran in MPI)";
}

MF_PUBLIC int MPI_Finalize(void)
{
    if (mf_host.initialized) {
        double app_s = PMPI_Wtime() - mf_host.t_init;
        mf_nb_drain(MPI_COMM_NULL); /* a program that never completed a request (erroneous) */
        mf_report_finalize(&mf_host.rep, engine_desc(), mf_host.grank, mf_host.nranks,
                           &mf_host.cfg, app_s);
        mf_sites_fini();
        mf_comm_finalize();
        if (mf_host.dev_open)
            mf_host.dev.ops->close(&mf_host.dev);
        mf_host.dev_open = 0;
        mf_host.active = 0;
        mf_host.initialized = 0;
        if (mf_host.spawned_pid > 0)
            mf_engine_reap(mf_host.spawned_pid, 5);
    }
    return PMPI_Finalize();
}

int mf_raise(MPI_Comm comm, const char *text)
{
    int code;
    char msg[MPI_MAX_ERROR_STRING];
    if (PMPI_Add_error_code(mf_host.err_class, &code) != MPI_SUCCESS)
        code = MPI_ERR_OTHER;
    else {
        snprintf(msg, sizeof msg, "mpifpga: %s", text);
        PMPI_Add_error_string(code, msg);
    }
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}
