// The collective engine (rtl/mf_engine.sv) side of make rtl-check: each
// group's script (lockstep_engine_ref.cpp: random communicators on the
// engine's kEngHosts host ports, CT config / free, calls of all eight
// collectives with random sizes, ops, dtypes and roots, each run through
// the C model) goes in as board-stream H2C packets on every port at once,
// with random tvalid gaps, and random tready back-pressure on the C2H
// streams.  Every C2H packet is unpacked (mf_board_c2h_unpack) and
// compared with what the call must give: status, the echoed header, every
// result byte against the C model's.  One TAP line per call, one per
// group for the CT packets and one for packets missing or left over; the
// RTL's and the model's cycles per collective are printed as information.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lockstep.h"
#include "lockstep_engine.h"

namespace ls {

namespace {

const EngGroup kEngGroups[] = {
    {"streams never wait", 0, 100},
    {"tvalid gaps, back-pressure", 30, 60},
    {"heavy back-pressure", 10, 15},
    {"sparse input", 70, 90},
};
constexpr int kEngGroupCount = sizeof kEngGroups / sizeof kEngGroups[0];

// Drives the script's H2C packets into the RTL and collects every port's C2H
// packets; returns the cycles it took (kCycleLimit: stopped there).
uint64_t drive(Sim &s, const EngGroup &g, const EngScript &sc,
               std::vector<std::vector<uint8_t>> (&got)[kEngHosts])
{
    auto &t = s.top;
    size_t pkt[kEngHosts] = {0}, beat[kEngHosts] = {0}, want_pkts = 0, got_pkts = 0;
    bool holding[kEngHosts] = {false};
    std::vector<uint8_t> cur[kEngHosts];
    for (int h = 0; h < kEngHosts; h++)
        want_pkts += sc.port[h].size();
    uint64_t start = s.cycles;
    while (got_pkts < want_pkts && s.cycles - start < kCycleLimit) {
        t.engine_s_h2c_tvalid = 0;
        t.engine_s_h2c_tlast = 0;
        t.engine_s_h2c_tkeep = 0;
        for (int h = 0; h < kEngHosts; h++) {
            if (!holding[h] && pkt[h] < sc.port[h].size() && (int)(rng() % 100) >= g.gap_pct)
                holding[h] = true;
            uint8_t b[8] = {0};
            unsigned keep = 0;
            bool last = false;
            if (holding[h]) {
                const std::vector<uint8_t> &p = sc.port[h][pkt[h]].h2c;
                size_t off = 8 * beat[h], n = std::min<size_t>(8, p.size() - off);
                memcpy(b, p.data() + off, n);
                for (size_t i = 0; i < 8; i++) // bytes past the data: junk the engine ignores
                    if (i >= n)
                        b[i] = (uint8_t)rng();
                keep = (1u << n) - 1;
                last = off + 8 >= p.size();
                t.engine_s_h2c_tvalid |= 1u << h;
                t.engine_s_h2c_tlast |= (uint32_t)last << h;
                t.engine_s_h2c_tkeep |= keep << (8 * h);
            }
            set_bytes(t.engine_s_h2c_tdata, 8 * h, b, 8);
        }
        t.engine_m_c2h_tready = 0;
        for (int h = 0; h < kEngHosts; h++)
            if ((int)(rng() % 100) < g.ready_pct)
                t.engine_m_c2h_tready |= 1u << h;
        t.eval();
        unsigned ready = t.engine_s_h2c_tready;
        for (int h = 0; h < kEngHosts; h++) {
            if (!(t.engine_m_c2h_tvalid >> h & 1u) || !(t.engine_m_c2h_tready >> h & 1u))
                continue;
            uint8_t b[8];
            uint8_t all[8 * kEngHosts];
            get_bytes(t.engine_m_c2h_tdata, all, 8 * kEngHosts);
            memcpy(b, all + 8 * h, 8);
            cur[h].insert(cur[h].end(), b, b + 8);
            if (t.engine_m_c2h_tlast >> h & 1u) {
                got[h].push_back(cur[h]);
                cur[h].clear();
                got_pkts++;
            }
        }
        s.tick();
        for (int h = 0; h < kEngHosts; h++) {
            if (!holding[h] || !(ready >> h & 1u))
                continue;
            holding[h] = false;
            if (8 * ++beat[h] >= sc.port[h][pkt[h]].h2c.size()) {
                beat[h] = 0;
                pkt[h]++;
            }
        }
    }
    t.engine_s_h2c_tvalid = 0;
    return s.cycles - start;
}

// Checks one member's C2H packet against its call; why: the first difference.
bool member_ok(const EngCall &c, int rank, const std::vector<uint8_t> &pkt, std::string &why,
               uint64_t &cycles)
{
    mf_proc_hdr_t h;
    mf_board_cpl_t cpl;
    const uint8_t *res;
    size_t n;
    char b[200];
    if (mf_board_c2h_unpack(pkt.data(), pkt.size(), &h, &cpl, &res, &n)) {
        snprintf(b, sizeof b, "comm rank %d: C2H packet of %zu bytes does not unpack", rank,
                 pkt.size());
        return why = b, false;
    }
    cycles = std::max<uint64_t>(cycles, cpl.cycles);
    const std::vector<uint8_t> &want = c.want[rank];
    if (cpl.status != c.status || h.opcode != c.opc || h.ctx != c.ctx || n != want.size() ||
        (n && memcmp(res, want.data(), n))) {
        size_t at = 0;
        while (at < std::min(n, want.size()) && res[at] == want[at])
            at++;
        if (getenv("ENGINE_DEBUG")) { // both results, in hex, on stderr
            for (size_t i = 0; i < n; i++) fprintf(stderr, "%02x", res[i]);
            fprintf(stderr, " got\n");
            for (size_t i = 0; i < want.size(); i++) fprintf(stderr, "%02x", want[i]);
            fprintf(stderr, " want\n");
        }
        snprintf(b, sizeof b,
                 "comm rank %d: status %d (want %d), opcode %d ctx %d, %zu result bytes "
                 "(want %zu), first difference at byte %zu",
                 rank, cpl.status, c.status, h.opcode, h.ctx, n, want.size(), at);
        return why = b, false;
    }
    return true;
}

struct CycleSum {
    uint64_t calls = 0, rtl = 0, model = 0;
};

void report_call(TapCount &tap, const EngCall &c, bool good, const std::string &why)
{
    char what[160];
    if (c.status == MF_BOARD_OK)
        snprintf(what, sizeof what, "%s %s/%s P=%zu root %d, %u B", mf_opcode_name((mf_opcode_t)c.opc),
                 mf_op_name((mf_op_t)c.op), mf_dtype_name((mf_dtype_t)c.dt), c.members.size(),
                 c.root, c.size);
    else
        snprintf(what, sizeof what, "%s P=%zu: status %d", mf_opcode_name((mf_opcode_t)c.opc),
                 c.members.size(), c.status);
    printf("%s %d - engine %s: RTL %llu cycles, model %llu%s%s\n", good ? "ok" : "not ok", ++tap.n,
           what, (unsigned long long)c.rtl_cycles, (unsigned long long)c.model_cycles,
           good ? "" : ": ", why.c_str());
    good ? tap.pass++ : tap.fail++;
}

// Compares a group's C2H packets with the script: TAP lines.
void check_group(TapCount &tap, const EngGroup &g, EngScript &sc,
                 const std::vector<std::vector<uint8_t>> (&got)[kEngHosts], CycleSum *sum)
{
    std::vector<std::string> why(sc.calls.size());
    std::vector<bool> good(sc.calls.size(), true);
    int ct_pkts = 0, ct_bad = 0, missing = 0;
    std::string ct_why;
    for (int h = 0; h < kEngHosts; h++) {
        missing += (int)sc.port[h].size() - (int)std::min(got[h].size(), sc.port[h].size());
        missing += (int)got[h].size() > (int)sc.port[h].size();
        for (size_t k = 0; k < sc.port[h].size(); k++) {
            const EngPkt &e = sc.port[h][k];
            if (e.call < 0) {
                ct_pkts++;
                mf_proc_hdr_t hd;
                mf_board_cpl_t cpl;
                const uint8_t *res;
                size_t n;
                bool ok = k < got[h].size() &&
                          !mf_board_c2h_unpack(got[h][k].data(), got[h][k].size(), &hd, &cpl, &res, &n) &&
                          cpl.status == e.status && cpl.reason == e.reason && n == 0;
                if (!ok && !ct_bad++)
                    ct_why = "port " + std::to_string(h) + " packet " + std::to_string(k);
                continue;
            }
            EngCall &c = sc.calls[(size_t)e.call];
            int rank = (int)(std::find(c.members.begin(), c.members.end(), h) - c.members.begin());
            if (k >= got[h].size()) {
                if (good[(size_t)e.call])
                    why[(size_t)e.call] = "no C2H packet for comm rank " + std::to_string(rank);
                good[(size_t)e.call] = false;
                continue;
            }
            std::string w;
            if (!member_ok(c, rank, got[h][k], w, c.rtl_cycles) && good[(size_t)e.call]) {
                good[(size_t)e.call] = false;
                why[(size_t)e.call] = w;
            }
        }
    }
    for (size_t i = 0; i < sc.calls.size(); i++) {
        const EngCall &c = sc.calls[i];
        report_call(tap, c, good[i], why[i]);
        if (good[i] && c.status == MF_BOARD_OK) {
            sum[c.opc].calls++;
            sum[c.opc].rtl += c.rtl_cycles;
            sum[c.opc].model += c.model_cycles;
        }
    }
    printf("%s %d - engine %s: %d CT-config/free completions right%s%s\n",
           ct_bad ? "not ok" : "ok", ++tap.n, g.name, ct_pkts - ct_bad, ct_bad ? ", wrong: " : "",
           ct_why.c_str());
    ct_bad ? tap.fail++ : tap.pass++;
    printf("%s %d - engine %s: every H2C packet answered by one C2H packet (%d missing or extra)\n",
           missing ? "not ok" : "ok", ++tap.n, g.name, missing);
    missing ? tap.fail++ : tap.pass++;
}

} // namespace

// Calls per group: the eight collectives in turn (one of them replaced by
// the unsupported call), then the malformed call.
int engine_calls_per_group(int count) { return 2 * count + 1; }

int engine_group_count(int count)
{
    return kEngGroupCount * (engine_calls_per_group(count) + 1 + 2);
}

void run_engine(Sim &s, int count, TapCount &tap)
{
    CycleSum sum[MF_OPC_COUNT];
    for (const EngGroup &g : kEngGroups) {
        EngScript sc;
        std::string err;
        engine_script(engine_calls_per_group(count), sc, err);
        if (!err.empty()) {
            printf("not ok %d - engine %s: script: %s\n", ++tap.n, g.name, err.c_str());
            tap.fail++;
            continue;
        }
        std::vector<std::vector<uint8_t>> got[kEngHosts];
        uint64_t cycles = drive(s, g, sc, got);
        printf("# engine %s: %zu calls in %llu cycles\n", g.name, sc.calls.size(),
               (unsigned long long)cycles);
        check_group(tap, g, sc, got, sum);
    }
    engine_model_done();
    printf("# engine cycles per call, RTL (call start to its completion beat) vs "
           "C model (slowest member's latency, one switch, %d ranks):\n", kEngHosts);
    for (int o = MF_OPC_BARRIER; o <= MF_OPC_REDUCE_SCATTER; o++)
        if (sum[o].calls)
            printf("#   %-15s %3llu calls: RTL %6.1f, model %8.1f\n", mf_opcode_name((mf_opcode_t)o),
                   (unsigned long long)sum[o].calls, (double)sum[o].rtl / (double)sum[o].calls,
                   (double)sum[o].model / (double)sum[o].calls);
}

} // namespace ls
