// mpifpga-fpga-emu: a streaming-queue FPGA board without the board.  It
// makes the device nodes of an XDMA-style card -- <dir>/<prefix>_h2c_<q>
// and <dir>/<prefix>_c2h_<q>, one pair per host port, as FIFOs -- and
// backs them with the Verilated collective engine (rtl/mf_engine.sv): each
// host's H2C bytes are kept in software and fed to the RTL's s_h2c port as
// beats, the RTL's m_c2h beats are written to the host's C2H FIFO.  The
// host driver (src/device/device_fpga.c) is the one a real card would use.
// It exits on end of stream from every host, or on SIGTERM / SIGINT,
// removing its FIFOs; idle, it sleeps in poll(2).  doc/board.md.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "emu_host.h"
#include "emu_rtl.h"

// No beat moved for IDLE_CYCLES: the engine waits for the hosts (every
// member's header), or works inside (a pipeline).  If it owes a host an
// answer it is clocked IDLE_CYCLES more after naps of 1, 2, 4 ... up to
// MAX_NAP_MS (a few wake-ups a second while members are missing); if it
// owes nothing, the emulator sleeps in poll(2) until a host writes.
// BATCH_CYCLES: how often a busy engine lets it read the FIFOs.
static const unsigned IDLE_CYCLES = 256;
static const int MAX_NAP_MS = 128;
static const unsigned BATCH_CYCLES = 65536;
static int sig_pipe[2] = {-1, -1};

struct Options {
    std::string dir, prefix = "xdma0", ready;
    int hosts = 0;
    int watch_pid = 0;
    bool verbose = false, trace = false;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mpifpga-fpga-emu --dir DIR --hosts N [--prefix NAME] [--ready FILE]\n"
            "                        [--watch-pid PID] [--verbose] [--trace]\n"
            "A board for the fpga device without the board: the FIFOs DIR/NAME_h2c_Q and\n"
            "DIR/NAME_c2h_Q (Q = 0..N-1, NAME default xdma0) backed by the Verilated engine\n"
            "(rtl/mf_engine.sv, %d host ports).  Ranks use it with MPIFPGA_DEVICE=fpga\n"
            "MPIFPGA_FPGA_DEV=DIR/NAME (mpifpga-run --device fpga-emu does this).\n"
            "  --ready FILE     write FILE once the FIFOs are open\n"
            "  --watch-pid PID  exit when process PID is gone\n"
            "  --verbose        the engine cycles clocked, at the end; --trace: every beat\n"
            "Exits when every host closed its queues, or on SIGTERM / SIGINT.\n",
            MF_EMU_NHOST);
}

static int parse(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        bool has = i + 1 < argc;
        if (a == "-h" || a == "--help")
            return usage(stdout), exit(0), 0;
        else if (a == "--verbose")
            o.verbose = true;
        else if (a == "--trace")
            o.trace = true;
        else if (a == "--dir" && has)
            o.dir = argv[++i];
        else if (a == "--prefix" && has)
            o.prefix = argv[++i];
        else if (a == "--ready" && has)
            o.ready = argv[++i];
        else if (a == "--hosts" && has)
            o.hosts = atoi(argv[++i]);
        else if (a == "--watch-pid" && has)
            o.watch_pid = atoi(argv[++i]);
        else {
            fprintf(stderr, "mpifpga-fpga-emu: bad argument '%s'\n", a.c_str());
            return -1;
        }
    }
    if (o.dir.empty() || o.hosts < 1 || o.hosts > MF_EMU_NHOST) {
        fprintf(stderr, "mpifpga-fpga-emu: --dir and --hosts 1..%d are required (the RTL has %d "
                        "host ports)\n", MF_EMU_NHOST, MF_EMU_NHOST);
        return -1;
    }
    return 0;
}

static void on_signal(int) { (void)!write(sig_pipe[1], "x", 1); }

static int setup_signals()
{
    if (pipe2(sig_pipe, O_NONBLOCK | O_CLOEXEC))
        return -1;
    struct sigaction sa = {};
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

// Clock the RTL until no beat moved for IDLE_CYCLES (or a batch is done):
// true if it may still be busy.
static bool run_rtl(EmuRtl &rtl, std::vector<EmuHost *> &ports)
{
    unsigned still = 0;
    for (unsigned c = 0; c < BATCH_CYCLES; c++) {
        still = rtl.cycle(ports) ? 0 : still + 1;
        if (still >= IDLE_CYCLES)
            return false;
    }
    return true;
}

static bool any_owed(const std::vector<EmuHost *> &hosts)
{
    for (const EmuHost *h : hosts)
        if (h->owed())
            return true;
    return false;
}

static bool all_done(const std::vector<EmuHost *> &hosts)
{
    for (const EmuHost *h : hosts)
        if (!h->at_eof())
            return false;
    return true;
}

// poll(2) on the signal pipe, every open H2C, every C2H with bytes to go.
// 1: keep going, 0: stop (signal), -1: error.
static int wait_io(std::vector<EmuHost *> &hosts, int timeout_ms, std::string &err)
{
    std::vector<pollfd> pf{{sig_pipe[0], POLLIN, 0}};
    for (EmuHost *h : hosts) {
        pf.push_back({h->at_eof() ? -1 : h->h2c_fd(), POLLIN, 0});
        pf.push_back({h->has_output() ? h->c2h_fd() : -1, POLLOUT, 0});
    }
    if (poll(pf.data(), pf.size(), timeout_ms) < 0 && errno != EINTR) {
        err = std::string("poll: ") + strerror(errno);
        return -1;
    }
    if (pf[0].revents)
        return 0;
    for (size_t i = 0; i < hosts.size(); i++) {
        if ((pf[1 + 2 * i].revents & (POLLIN | POLLHUP | POLLERR)) && hosts[i]->read_h2c(err))
            return -1;
        if ((pf[2 + 2 * i].revents & POLLOUT) && hosts[i]->write_c2h(err))
            return -1;
    }
    return 1;
}

static int serve(EmuRtl &rtl, std::vector<EmuHost *> &hosts, std::vector<EmuHost *> &ports,
                 const Options &o)
{
    std::string err;
    bool busy = false;
    int nap = 1;
    for (;;) {
        int timeout = busy ? 0 : any_owed(hosts) ? nap : o.watch_pid ? 1000 : -1;
        int rc = wait_io(hosts, timeout, err);
        if (rc <= 0)
            return rc < 0 ? (fprintf(stderr, "mpifpga-fpga-emu: %s\n", err.c_str()), 1) : 0;
        if (o.watch_pid && kill(o.watch_pid, 0) && errno == ESRCH)
            return 0;
        uint64_t before = rtl.moved();
        busy = run_rtl(rtl, ports);
        nap = rtl.moved() != before ? 1 : nap * 2 > MAX_NAP_MS ? MAX_NAP_MS : nap * 2;
        for (EmuHost *h : hosts)
            if (h->has_output() && h->write_c2h(err))
                return fprintf(stderr, "mpifpga-fpga-emu: %s\n", err.c_str()), 1;
        if (all_done(hosts))
            return 0;
    }
}

int main(int argc, char **argv)
{
    Options o;
    if (parse(argc, argv, o)) {
        usage(stderr);
        return 2;
    }
    if (setup_signals())
        return perror("mpifpga-fpga-emu: signals"), 1;
    std::vector<EmuHost *> hosts, ports(MF_EMU_NHOST, nullptr);
    std::string err;
    int status = 0;
    for (int q = 0; q < o.hosts && !status; q++) {
        std::string base = o.dir + "/" + o.prefix;
        hosts.push_back(new EmuHost(q, base + "_h2c_" + std::to_string(q),
                                    base + "_c2h_" + std::to_string(q)));
        ports[q] = hosts.back();
        if (hosts.back()->open_fifos(err))
            status = (fprintf(stderr, "mpifpga-fpga-emu: %s\n", err.c_str()), 1);
    }
    EmuRtl rtl;
    rtl.reset();
    rtl.trace(o.trace);
    FILE *ready = status || o.ready.empty() ? nullptr : fopen(o.ready.c_str(), "w");
    if (ready)
        fclose(ready);
    else if (!status && !o.ready.empty())
        status = (fprintf(stderr, "mpifpga-fpga-emu: cannot write %s\n", o.ready.c_str()), 1);
    if (!status)
        status = serve(rtl, hosts, ports, o);
    if (o.verbose)
        fprintf(stderr, "mpifpga-fpga-emu: %llu engine cycles\n", (unsigned long long)rtl.cycles());
    for (EmuHost *h : hosts) {
        h->remove_fifos();
        delete h;
    }
    if (!o.ready.empty())
        unlink(o.ready.c_str());
    return status;
}
