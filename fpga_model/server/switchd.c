/*
 * mpifpga-switchd: the modeled FPGA switch network as a process.  Ranks
 * running libmpifpga connect over libfabric (src/transport/fabric.h), hand
 * it their collectives (include/mpifpga/engine_msg.h) and get back the
 * results the modeled hardware computed and its completion times.  The
 * message handling is session.c; this file is options, network set-up and
 * the receive loop.
 *
 *   mpifpga-switchd --nranks N [--ppn K] [--topology T] [--params P]
 *                   [--provider PROV] [--addr-file FILE] [--watch-pid PID]
 *                   [--no-bind] [--quiet]
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "mpifpga/engine_msg.h"
#include "mpifpga/model.h"
#include "net/domain.h"
#include "net/topo.h"
#include "params/params.h"
#include "server/bind.h"
#include "server/outbox.h"
#include "server/session.h"
#include "transport/fabric.h"
#ifdef MF_SWITCHD_MPI /* mpifpga-switchd-mpi: the engine split (split.h) */
#include "cli/sim_mpi.h"
#include "server/split.h"
#endif

#define PROG "mpifpga-switchd"
#define RECV_TIMEOUT_MS 1000
#define NRX 256
#define OUTBOX_RETRY_MS 1

typedef struct {
    int nranks, ppn, ppn_given;
    const char *topo, *params, *provider, *addr_file;
    pid_t watch_pid;
    int bind, quiet, check;
} opts_t;

typedef struct {
    mf_fab_peer_t peer;
    int valid;
} peer_t;

/* What the session's output callback needs. */
typedef struct {
    mf_fab_t *fab;
    peer_t *peers; /* [MF_MAX_RANKS], by global rank */
    mf_outbox_t *out; /* what a rank that is not reading has yet to get */
} engine_t;

static volatile sig_atomic_t stop_signal;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void usage(FILE *out)
{
    fprintf(out,
            "usage: " PROG " --nranks N [--ppn K] [--topology T] [--params P]\n"
            "                       [--provider PROV] [--addr-file FILE] [--watch-pid PID]\n"
            "                       [--no-bind] [--quiet] [--check]\n"
            "  --nranks N        ranks of the job (MPI_COMM_WORLD size), required\n"
            "  --ppn K           ranks per node (default 1): rank r is on node r/K\n"
            "  --topology T      torus, torus:XxYxZ, fattree:R[:O] (default: torus fitted\n"
            "                    to ceil(N/K) nodes)\n"
            "  --params P        parameter set name or file (default u280)\n"
            "  --provider PROV   libfabric provider (default " MF_FAB_DEFAULT_PROV
            "; FI_PROVIDER wins)\n"
            "  --addr-file FILE  write the engine's address there (else: print it)\n"
            "  --watch-pid PID   exit when process PID is gone (e.g. mpiexec)\n"
            "  --check           only check the options (build the network, read\n"
            "                    MPIFPGA_PARTITION), start nothing\n"
            "  --no-bind         do not bind to a spare core\n"
            "  --quiet           print errors only\n"
            "Split among K processes (mpifpga-run --engine-procs K runs\n"
            "`mpiexec -n K mpifpga-switchd-mpi` with the same options, from libexec/mpifpga):\n"
            "process 0 talks to the ranks, every process simulates a share of the\n"
            "switches (MPIFPGA_PARTITION: range, cyclic or random[:SEED]).\n");
}

/* One line on stderr: "mpifpga-switchd: <message>". */
static void vsay(const char *fmt, va_list ap)
{
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

/* Whether this process reports errors every process meets alike (the
 * options): under mpiexec only the first does, so a bad option is one
 * message, not one per engine process. */
static int reports_shared_errors(void)
{
#ifdef MF_SWITCHD_MPI
    return sim_mpi_env_rank() == 0;
#else
    return 1;
#endif
}

/* Bad command line: message, usage, exit 2. */
static void die(const char *fmt, ...)
{
    if (!reports_shared_errors())
        exit(2);
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    usage(stderr);
    exit(2);
}

static void note(const opts_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const opts_t *o, const char *fmt, ...)
{
    if (o->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

static long parse_long(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        die("%s: '%s' is not an integer in %ld..%ld", opt, s, lo, hi);
    return v;
}

static void parse_opts(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"nranks", required_argument, 0, 'n'},   {"ppn", required_argument, 0, 'k'},
        {"topology", required_argument, 0, 't'}, {"params", required_argument, 0, 'p'},
        {"provider", required_argument, 0, 'P'}, {"addr-file", required_argument, 0, 'a'},
        {"watch-pid", required_argument, 0, 'w'}, {"no-bind", no_argument, 0, 'B'},
        {"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
        {"check", no_argument, 0, 'c'},          {0, 0, 0, 0}};
    *o = (opts_t){.ppn = 1, .params = "u280", .bind = 1};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'n': o->nranks = (int)parse_long("--nranks", optarg, 1, MF_MAX_RANKS - 1); break;
        case 'k':
            o->ppn = (int)parse_long("--ppn", optarg, 1, 1024);
            o->ppn_given = 1;
            break;
        case 't': o->topo = optarg; break;
        case 'p': o->params = optarg; break;
        case 'P': o->provider = optarg; break;
        case 'a': o->addr_file = optarg; break;
        case 'w': o->watch_pid = (pid_t)parse_long("--watch-pid", optarg, 1, INT_MAX); break;
        case 'B': o->bind = 0; break;
        case 'q': o->quiet = 1; break;
        case 'c': o->check = 1; break;
        case 'h': usage(stdout); exit(0);
        default:
            die("%s: unknown option or missing argument", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die("%s: unexpected argument", argv[optind]);
    if (o->nranks == 0)
        die("--nranks N is required: the number of ranks of the job (mpiexec -n N)");
}

/* Params, topology and network as mpifpga-sim builds them, for
 * ceil(nranks / ppn) nodes.  NULL with a message in err. */
static mf_net_t *build_net(const opts_t *o, mf_params_t *p, mf_topo_t *t, char *err,
                           size_t len)
{
    char e[256];
    mf_topo_spec_t spec = {.kind = MF_TOPO_TORUS};
    int nodes = (o->nranks + o->ppn - 1) / o->ppn;
    if (mf_params_load(o->params, p, e, sizeof e))
        return snprintf(err, len, "--params: %s", e), NULL;
    if (o->topo && mf_topo_parse(o->topo, &spec, e, sizeof e))
        return snprintf(err, len, "--topology: %s", e), NULL;
    spec.oversub = spec.oversub ? spec.oversub : (int)p->oversub;
    if (mf_topo_build(&spec, nodes, o->ppn, t, e, sizeof e))
        return snprintf(err, len, "--topology/--nranks/--ppn: %s", e), NULL;
    mf_net_t *n = mf_net_create(p, t, e, sizeof e);
    if (!n) {
        snprintf(err, len, "%s", e);
        mf_topo_free(t);
    }
    return n;
}

/* Write the address to path through a temporary file and rename, so a
 * reader never sees a partial address. */
static int write_addr_file(const char *path, const char *addr, char *err, size_t len)
{
    char tmp[PATH_MAX];
    FILE *f = NULL;
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return snprintf(err, len, "--addr-file: path too long"), -1;
    f = fopen(tmp, "w");
    if (!f)
        goto fail;
    if (fprintf(f, "%s\n", addr) < 0 || fflush(f) || fsync(fileno(f)))
        goto fail;
    if (fclose(f)) {
        f = NULL;
        goto fail;
    }
    f = NULL;
    if (rename(tmp, path))
        goto fail;
    return 0;
fail:
    snprintf(err, len, "--addr-file %s: %s: check that its directory exists and is writable",
             path, strerror(errno));
    if (f)
        fclose(f);
    unlink(tmp);
    return -1;
}

static int send_out(void *user, int grank, const uint8_t *msg, size_t len)
{
    engine_t *e = user;
    char err[256];
    if (grank < 0 || grank >= (int)MF_MAX_RANKS || !e->peers[grank].valid) {
        fprintf(stderr, PROG ": no address for rank %d: message dropped\n", grank);
        return -1;
    }
    if (mf_outbox_send(e->out, grank, e->peers[grank].peer, msg, len, err, sizeof err)) {
        fprintf(stderr, PROG ": send to rank %d: %s\n", grank, err);
        return -1;
    }
    return 0;
}

/* A HELLO carries the rank's endpoint name: make it a peer before the
 * session replies (a refusal must reach the rank too). */
static void add_peer(engine_t *e, const uint8_t *msg, size_t len)
{
    mf_em_hdr_t h;
    mf_em_hello_t b;
    char err[256];
    if (mf_em_unpack_hdr(msg, len, &h) || h.type != MF_EM_HELLO ||
        mf_em_unpack_hello(msg, len, &b))
        return; /* the session reports it */
    if (h.grank >= MF_MAX_RANKS) {
        fprintf(stderr, PROG ": HELLO from rank %u, beyond the 16-bit rank range: ignored\n",
                h.grank);
        return;
    }
    peer_t *p = &e->peers[h.grank];
    if (mf_fab_peer_from_name(e->fab, b.addr, b.addrlen, &p->peer, err, sizeof err)) {
        fprintf(stderr, PROG ": rank %u's address: %s\n", h.grank, err);
        p->valid = 0;
        return;
    }
    p->valid = 1;
}

static void on_signal(int sig) { stop_signal = sig; }

static int catch_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
        return -1;
    signal(SIGPIPE, SIG_IGN); /* a rank that died must not kill the engine */
    return 0;
}

/* 1 if --watch-pid names a process that no longer exists. */
static int watched_gone(const opts_t *o)
{
    return o->watch_pid > 0 && kill(o->watch_pid, 0) != 0 && errno == ESRCH;
}

/* What waits for ranks at the end goes out within 5 s.  0, or -1 with err. */
static int last_words(engine_t *e, char *err, size_t len)
{
    for (int ms = 0; ms < 5000; ms += OUTBOX_RETRY_MS) {
        long left = mf_outbox_flush(e->out, err, len);
        if (left <= 0)
            return (int)left;
        const uint8_t *msg;
        void *token;
        if (mf_fab_recv(e->fab, OUTBOX_RETRY_MS, &msg, &token, err, len) > 0)
            mf_fab_release(e->fab, token); /* the job is over: nothing more to handle */
    }
    snprintf(err, len, "messages for ranks that stopped reading were dropped");
    return -1;
}

/* Receive and handle messages until every rank said BYE, a signal, or the
 * watched process is gone.  0, or 1 on a transport error. */
static int serve(const opts_t *o, engine_t *e, mf_session_t *s)
{
    char err[256];
    long waiting = 0;
    while (!stop_signal) {
        const uint8_t *msg;
        void *token;
        /* messages waiting for a rank to read: retry them often */
        int timeout = waiting ? OUTBOX_RETRY_MS : RECV_TIMEOUT_MS;
        ssize_t n = mf_fab_recv(e->fab, timeout, &msg, &token, err, sizeof err);
        if (n >= 0 && (waiting = mf_outbox_flush(e->out, err, sizeof err)) < 0) {
            fprintf(stderr, PROG ": send: %s\n", err);
            waiting = 0;
        }
        if (n < 0) {
            if (stop_signal)
                break;
            fprintf(stderr, PROG ": receive: %s\n", err);
            return 1;
        }
        if (n == 0) {
            if (watched_gone(o)) {
                note(o, "process %ld is gone: exiting", (long)o->watch_pid);
                return 0;
            }
            continue;
        }
        if (n >= 1 && msg[0] == MF_EM_HELLO)
            add_peer(e, msg, (size_t)n);
        mf_fab_hold_wakeups(e->fab, 1); /* a call's results: one wake-up per rank */
        mf_session_handle(s, msg, (size_t)n); /* logs its own errors */
        mf_fab_hold_wakeups(e->fab, 0);
        mf_fab_release(e->fab, token);
        waiting = mf_outbox_flush(e->out, err, sizeof err);
        if (mf_session_done(s)) {
            note(o, "every rank said BYE: exiting");
            return 0;
        }
    }
    note(o, "%s: exiting", strsignal(stop_signal));
    return 0;
}

/* main's way out: under MPI (mpifpga-switchd-mpi), every process
 * finalizes it. */
static int leave(int rc)
{
#ifdef MF_SWITCHD_MPI
    sim_mpi_exit(rc);
#endif
    return rc;
}

/* Bind (unless --no-bind) and say so. */
static void bind_engine(const opts_t *o)
{
    char desc[256];
    if (!o->bind)
        return;
    /* Without --ppn assume every rank shares this machine with the engine. */
    int local = o->ppn_given && o->ppn < o->nranks ? o->ppn : o->nranks;
    if (mf_bind_engine(local, desc, sizeof desc) < 0)
        fprintf(stderr, PROG ": %s\n", desc);
    else
        note(o, "%s", desc);
}

/* Open the endpoint, publish its address.  0, or -1 with err. */
static int open_fabric(const opts_t *o, mf_fab_t **fab, char *err, size_t len)
{
    char addr[MF_FAB_ADDRSTR_MAX];
    if (mf_fab_open(o->provider, NRX, fab, err, len))
        return -1;
    if (mf_fab_addr_string(*fab, addr, sizeof addr)) {
        snprintf(err, len, "cannot format the endpoint's address");
        goto fail;
    }
    if (o->addr_file) {
        if (write_addr_file(o->addr_file, addr, err, len))
            goto fail;
    } else if (printf("%s\n", addr) < 0 || fflush(stdout)) {
        snprintf(err, len, "cannot print the address on stdout");
        goto fail;
    }
    return 0;
fail:
    mf_fab_close(*fab);
    *fab = NULL;
    return -1;
}

int main(int argc, char **argv)
{
    opts_t o;
    mf_params_t p;
    mf_topo_t t;
    char err[512], topo[64];
    int rc = 1;
    engine_t e = {0};
    mf_session_t *s = NULL;
    mf_model_prefer_hugepages(); /* before the network's allocations */
    parse_opts(argc, argv, &o);
#ifdef MF_SWITCHD_MPI
    sim_mpi_start(&argc, &argv); /* the cores shared before the network is built */
#endif
    mf_net_t *net = build_net(&o, &p, &t, err, sizeof err);
    if (!net) {
        int bad_option = !strncmp(err, "--", 2);
        if (!bad_option || reports_shared_errors())
            fprintf(stderr, PROG ": %s\n", err);
        return leave(bad_option ? 2 : 1); /* option errors: 2 */
    }
    if (o.check) { /* the options build a network: say nothing, start nothing */
        mf_dom_partition_t part; /* and the split's partition reads (split.h) */
        rc = mf_dom_partition_parse(getenv("MPIFPGA_PARTITION"), &part, err, sizeof err) ? 2 : 0;
        if (rc && reports_shared_errors())
            fprintf(stderr, PROG ": %s\n", err);
        mf_net_destroy(net);
        mf_topo_free(&t);
        return leave(rc);
    }
#ifdef MF_SWITCHD_MPI
    /* every process fails alike on the options (the same network), so a
     * process that stops here stops them all (mpiexec) */
    mf_split_t *split = mf_split_create(net, err, sizeof err);
    if (!split) {
        if (reports_shared_errors()) /* the others fail alike */
            fprintf(stderr, PROG ": %s\n", err);
        mf_net_destroy(net);
        mf_topo_free(&t);
        return leave(2);
    }
    if (!mf_split_front(split)) { /* replay what process 0 does, then go */
        signal(SIGINT, SIG_IGN); /* process 0 says when it is over */
        signal(SIGTERM, SIG_IGN);
        rc = mf_split_serve(split);
        mf_split_destroy(split);
        mf_net_destroy(net);
        mf_topo_free(&t);
        return leave(rc);
    }
#endif
    if (catch_signals()) {
        fprintf(stderr, PROG ": cannot install signal handlers: %s\n", strerror(errno));
        goto out;
    }
    e.peers = calloc(MF_MAX_RANKS, sizeof *e.peers);
    s = mf_session_create(net, o.nranks, send_out, &e);
    if (!e.peers || !s) {
        fprintf(stderr, PROG ": out of memory starting the engine\n");
        goto out;
    }
    const char *sec = getenv("MPIFPGA_JOB_SECRET");
    uint8_t secret[MF_EM_SECRET_BYTES];
    if (sec && *sec && mf_em_secret_parse(sec, secret)) {
        fprintf(stderr, PROG ": MPIFPGA_JOB_SECRET='%s': expected 32 hex digits\n", sec);
        rc = 2;
        goto out;
    }
    if (sec && *sec)
        mf_session_set_secret(s, secret);
    mf_session_set_verbose(s, getenv("MPIFPGA_DEBUG") != NULL);
#ifdef MF_SWITCHD_MPI
    mf_session_net_t split_ops = mf_split_session_net(split);
    mf_session_set_net(s, &split_ops);
    o.bind = 0; /* the processes share the cores (sim_mpi_start) */
#endif
    bind_engine(&o);
    if (open_fabric(&o, &e.fab, err, sizeof err)) {
        fprintf(stderr, PROG ": %s\n", err);
        goto out;
    }
    mf_topo_describe(&t, topo, sizeof topo);
    note(&o, "%d ranks on %s (%d nodes x %d), params %s, provider %s", o.nranks, topo, t.nnodes,
         t.ppn, p.name, mf_fab_provider(e.fab));
#ifdef MF_SWITCHD_MPI
    note(&o, "the network split among %d engine processes", sim_mpi_size());
#endif
    e.out = mf_outbox_create(e.fab, o.nranks);
    if (!e.out) {
        fprintf(stderr, PROG ": out of memory starting the engine\n");
        goto out;
    }
    mf_fab_set_interrupt(e.fab, &stop_signal);
    rc = serve(&o, &e, s);
    /* A stop signal means the job is being killed: its ranks read nothing
     * more, and touching the fabric while they die is what libfabric
     * 1.17's shm provider does not survive (doc/architecture.md, "Errors and faults") */
    if (!stop_signal &&
        (last_words(&e, err, sizeof err) || mf_fab_flush(e.fab, 5000, err, sizeof err)))
        fprintf(stderr, PROG ": last replies may be lost: %s\n", err);
out:
    if (e.fab && o.addr_file)
        unlink(o.addr_file); /* a stale address would mislead the next job */
    if (e.fab)
        mf_fab_close(e.fab);
    mf_session_destroy(s);
    mf_outbox_destroy(e.out);
    free(e.peers);
#ifdef MF_SWITCHD_MPI
    mf_split_end(split); /* the others stop serving */
    mf_split_destroy(split);
#endif
    mf_net_destroy(net);
    mf_topo_free(&t);
    return leave(rc);
}
