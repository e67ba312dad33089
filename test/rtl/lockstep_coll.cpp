// The collector (rtl/mf_collector.sv) side of make rtl-check: streams of
// network packets over several contexts and tags, the CCM's openings of
// their streams before, between or after their packets, in lockstep with
// the mirror of collector.c (lockstep_coll_ref.h).  Packets and openings go
// in one at a time in the order of the script, with random gaps on
// s_tvalid / cfg_valid (held once raised) and random back-pressure on
// m_tready.  Every output beat (data, tkeep, tlast) is compared with the
// beat the mirror expects next on its slot (m_tslot); the number of parked
// packets is compared whenever the collector takes a new packet or opening,
// and at the end of the group.
#include <algorithm>
#include <cstdio>
#include <string>

#include "lockstep.h"
#include "lockstep_coll_ref.h"

namespace ls {

namespace {

// One step of a group's script: a packet, or the CCM opening a stream.
struct Action {
    bool open;
    unsigned ctx, tag;
    CollPkt pkt;
};

struct CollGroup {
    const char *name;
    int open_at;       // 0 before the stream's packets, 1 after them, 2 anywhere
    int ready_pct;     // m_tready high this often
    int empty_pct;     // packets with no payload
    int orphan_pct;    // streams whose opening waits for the end of the group
};

const CollGroup kGroups[] = {
    {"opened first", 0, 90, 10, 0},
    {"packets first (parked, replayed)", 1, 90, 10, 0},
    {"openings anywhere, streams re-used", 2, 70, 10, 0},
    {"late openings of parked streams", 2, 70, 10, 40},
    {"back-pressure", 2, 20, 10, 20},
    {"header-only packets", 2, 60, 60, 20},
};

std::vector<uint8_t> random_payload(int empty_pct)
{
    size_t n = (int)(rng() % 100) < empty_pct ? 0 : 1 + rng() % 24;
    std::vector<uint8_t> p(n);
    for (auto &b : p)
        b = (uint8_t)rng();
    return p;
}

// The packets and openings of one stream, in the order they go in.
std::vector<Action> stream_actions(const CollGroup &g, unsigned ctx, unsigned tag, int pkts,
                                   bool orphan)
{
    std::vector<Action> a;
    for (int i = 0; i < pkts; i++)
        a.push_back(Action{false, ctx, tag, CollPkt{ctx, tag, i + 1 == pkts,
                                                    random_payload(g.empty_pct)}});
    if (!orphan) {
        size_t at = g.open_at == 0 ? 0 : g.open_at == 1 ? a.size() : rng() % (a.size() + 1);
        a.insert(a.begin() + (long)at, Action{true, ctx, tag, {}});
    }
    return a;
}

// Up to kCollSlots keys (ctx, tag), a chain of streams each; the chains
// interleaved at random.  Contexts and tags from small sets, so that keys
// share a context or a tag.  Openings of orphan streams come at the end.
std::vector<Action> make_script(const CollGroup &g, int packets)
{
    std::vector<std::pair<unsigned, unsigned>> keys;
    unsigned ctx0 = (unsigned)(rng() % (MF_MAX_CTX - 3)), tag0 = (unsigned)(rng() % 28);
    while (keys.size() < kCollSlots) {
        auto k = std::make_pair(ctx0 + (unsigned)(rng() % 3), tag0 + (unsigned)(rng() % 4));
        if (std::find(keys.begin(), keys.end(), k) == keys.end())
            keys.push_back(k);
    }
    std::vector<std::vector<Action>> chains(keys.size());
    std::vector<Action> late;
    for (int made = 0; made < packets && late.size() < keys.size();) {
        size_t i = rng() % keys.size();
        if (!late.empty() && std::any_of(late.begin(), late.end(), [&](const Action &o) {
                return o.ctx == keys[i].first && o.tag == keys[i].second;
            }))
            continue; // an orphan's key takes no stream after it
        int n = 1 + (int)(rng() % 6);
        bool orphan = (int)(rng() % 100) < g.orphan_pct;
        auto s = stream_actions(g, keys[i].first, keys[i].second, n, orphan);
        chains[i].insert(chains[i].end(), s.begin(), s.end());
        if (orphan)
            late.push_back(Action{true, keys[i].first, keys[i].second, {}});
        made += n;
    }
    std::vector<Action> script;
    for (;;) {
        std::vector<size_t> left;
        for (size_t i = 0; i < chains.size(); i++)
            if (!chains[i].empty())
                left.push_back(i);
        if (left.empty())
            break;
        auto &c = chains[left[rng() % left.size()]];
        script.push_back(c.front());
        c.erase(c.begin());
    }
    std::shuffle(late.begin(), late.end(), rng);
    script.insert(script.end(), late.begin(), late.end());
    return script;
}

struct CollCounts {
    int pkts = 0, opens = 0, ever_parked = 0, kept = 0, beats = 0, bad = 0;
};

class CollRun {
  public:
    CollRun(Sim &s, const CollGroup &g) : s_(s), g_(g) {}
    CollCounts run(const std::vector<Action> &script);

  private:
    void drive(const Action &a);
    bool taken(const Action &a); // the current beat / opening went in this cycle
    void check_output();
    void check_parked(const char *when);
    void fail(const std::string &what)
    {
        if (c_.bad++ == 0)
            printf("# cycle %llu: %s\n", (unsigned long long)s_.cycles, what.c_str());
    }
    size_t beats_of(const Action &a) const { return 1 + (a.pkt.payload.size() + 7) / 8; }

    Sim &s_;
    const CollGroup &g_;
    CollRef ref_;
    CollCounts c_;
    size_t beat_ = 0;
    bool holding_ = false;
    unsigned slot_ = 0; // the slot of the opening being driven
};

void CollRun::drive(const Action &a)
{
    auto &t = s_.top;
    if (!holding_ && rng() % 3)
        holding_ = true;
    t.coll_s_tvalid = !a.open && holding_;
    t.coll_cfg_valid = a.open && holding_;
    t.coll_s_tdata = rng(); // nothing may be taken from an idle bus
    t.coll_s_tkeep = (CData)rng();
    t.coll_s_tlast = rng() & 1;
    t.coll_cfg_slot = slot_;
    t.coll_cfg_ctx = (CData)a.ctx;
    t.coll_cfg_tag = (CData)a.tag;
    if (a.open || !holding_)
        return;
    if (beat_ == 0) {
        mf_net_hdr_t h = {};
        h.dest = (uint16_t)rng();
        h.ctx = (uint8_t)a.ctx;
        h.opcode = MF_OPC_ALLREDUCE;
        h.op = (uint8_t)(rng() % MF_OP_COUNT);
        h.dtype = (uint8_t)(rng() % MF_DT_COUNT);
        h.tag = (uint8_t)a.tag;
        h.psize = (uint8_t)(rng() % 8);
        h.last = a.pkt.last;
        h.vc = rng() & 1;
        h.pad = (uint8_t)(rng() % 32);
        uint8_t b[8] = {0};
        mf_net_hdr_pack(&h, b);
        t.coll_s_tdata = mf_get_le(b, 8);
        t.coll_s_tkeep = 0x3f;
    } else {
        size_t at = 8 * (beat_ - 1), n = a.pkt.payload.size() - at;
        n = n < 8 ? n : 8;
        uint8_t b[8] = {0};
        std::memcpy(b, &a.pkt.payload[at], n);
        t.coll_s_tdata = mf_get_le(b, 8);
        t.coll_s_tkeep = (CData)((1u << n) - 1);
    }
    t.coll_s_tlast = beat_ + 1 == beats_of(a);
}

void CollRun::check_parked(const char *when)
{
    if (s_.top.coll_park_pkts != ref_.parked())
        fail(std::string(when) + ": " + std::to_string(s_.top.coll_park_pkts) +
             " packets parked in the RTL, C model " + std::to_string(ref_.parked()));
}

bool CollRun::taken(const Action &a)
{
    auto &t = s_.top;
    if (a.open ? !(t.coll_cfg_valid && t.coll_cfg_ready) : !(t.coll_s_tvalid && t.coll_s_tready))
        return false;
    holding_ = false;
    if (a.open || beat_ == 0)
        check_parked(a.open ? "at an opening" : "at a packet");
    if (a.open) {
        ref_.open(slot_, a.ctx, a.tag);
        c_.opens++;
        return true;
    }
    if (beat_ == 0) { // the header decides; the payload cuts through behind it
        ref_.accept(a.pkt);
        c_.pkts++;
    }
    if (++beat_ < beats_of(a))
        return false;
    beat_ = 0;
    return true;
}

void CollRun::check_output()
{
    auto &t = s_.top;
    if (!(t.coll_m_tvalid && t.coll_m_tready))
        return;
    c_.beats++;
    auto &q = ref_.want[t.coll_m_tslot];
    if (q.empty()) {
        fail("a beat on slot " + std::to_string(t.coll_m_tslot) + " that expects none");
        return;
    }
    CollBeat w = q.front();
    q.pop_front();
    uint8_t got[8];
    uint64_t d = t.coll_m_tdata;
    std::memcpy(got, &d, 8);
    bool same = t.coll_m_tkeep == w.keep && t.coll_m_tlast == w.last;
    for (int i = 0; i < 8; i++)
        same = same && (!(w.keep >> i & 1) || got[i] == w.data[i]);
    if (!same) {
        char b[200];
        snprintf(b, sizeof b, "slot %u: RTL beat %016llx keep %02x last %u, C %016llx keep %02x "
                 "last %u", t.coll_m_tslot, (unsigned long long)d, t.coll_m_tkeep,
                 t.coll_m_tlast, (unsigned long long)mf_get_le(w.data, 8), w.keep, w.last);
        fail(b);
    }
}

CollCounts CollRun::run(const std::vector<Action> &script)
{
    auto &t = s_.top;
    size_t next = 0;
    uint64_t idle = 0, start = s_.cycles;
    while (idle < 64 && s_.cycles - start < kCycleLimit / 16) {
        if (next < script.size() && script[next].open && beat_ == 0 && !holding_) {
            std::vector<unsigned> free_slots; // a slot with no open stream, as the CCM picks
            for (unsigned i = 0; i < kCollSlots; i++)
                if (!ref_.slot_open(i))
                    free_slots.push_back(i);
            slot_ = free_slots.empty() ? 0 : free_slots[rng() % free_slots.size()];
        }
        if (next < script.size())
            drive(script[next]);
        else
            t.coll_s_tvalid = t.coll_cfg_valid = 0;
        t.coll_m_tready = (int)(rng() % 100) < g_.ready_pct;
        t.eval();
        check_output();
        bool busy = next < script.size() || t.coll_m_tvalid || t.coll_replaying;
        if (next < script.size() && taken(script[next]))
            next++;
        s_.tick();
        idle = busy ? 0 : idle + 1;
    }
    if (next < script.size())
        fail("stuck at step " + std::to_string(next) + " of " + std::to_string(script.size()));
    check_parked("at the end");
    c_.ever_parked = ref_.ever_parked;
    c_.kept = ref_.kept_at_opening;
    for (unsigned i = 0; i < kCollSlots; i++)
        if (!ref_.want[i].empty())
            fail("slot " + std::to_string(i) + ": " + std::to_string(ref_.want[i].size()) +
                 " beats never came");
    return c_;
}

} // namespace

int coll_group_count() { return (int)(sizeof kGroups / sizeof kGroups[0]); }

void run_coll(Sim &s, int count, TapCount &tap)
{
    for (const CollGroup &g : kGroups) {
        std::vector<Action> script = make_script(g, 4 * count);
        CollRun r(s, g);
        CollCounts c = r.run(script);
        // a group must have reached what it is there for: parking (unless
        // every stream is opened before its packets); with orphan streams,
        // parked packets an opening of their context leaves parked
        const char *unreached = g.open_at != 0 && c.ever_parked == 0 ? ", no packet parked"
                                : g.orphan_pct && c.kept == 0 ? ", no packet left parked"
                                                              : "";
        if (*unreached)
            c.bad++;
        printf("%s %d - collector %s: %d packets (%d parked, %d left parked by an opening), "
               "%d openings, %d beats out%s%s\n",
               c.bad ? "not ok" : "ok", ++tap.n, g.name, c.pkts, c.ever_parked, c.kept, c.opens,
               c.beats, unreached, c.bad ? ", differs" : "");
        c.bad ? tap.fail++ : tap.pass++;
    }
}

} // namespace ls
