// The communicator table (rtl/mf_ct.sv) side of make rtl-check: two
// tables (lockstep_top's CT a: 32 rows, MAX_R 64K; CT b: 20 rows, MAX_R
// 300) each in lockstep with the C model's (ct_ref.c over ct.c).  Packets
// go in with random gaps on s_tvalid (held once raised); rows are marked
// busy at random; a random lookup goes in on about every other cycle.
// Every packet's verdict (st_code, st_ctx, st_opcode) is compared with the
// C model's, and every lookup's result, field by field, with mf_ct_lookup's
// entry as it was when the lookup was sampled.
#include <cstdio>
#include <deque>
#include <string>

#include "lockstep.h"
#include "lockstep_ct.h"

namespace ls {

namespace {

constexpr int kLookupLatency = 2; // cycles from lk_req to lk_valid (mf_ct.sv)
constexpr CtBounds kBoundsA = {32, 65536};
constexpr CtBounds kBoundsB = {20, 300};

// One mf_ct's ports in Vlockstep_top (ct<x>_*).
struct Ports {
    CData &s_tvalid, &s_tready;
    QData &s_tdata;
    CData &s_tkeep, &s_tlast;
    IData &row_busy;
    CData &st_valid, &st_code, &st_ctx, &st_opcode;
    CData &lk_req, &lk_ctx, &lk_set, &lk_level, &lk_valid, &lk_hit;
    SData &lk_size, &lk_rank;
    CData &lk_levels, &lk_pof2_levels, &lk_ident;
    SData &lk_fold, &lk_global0, &lk_partner;
};
#define MF_CT_PORTS(t, x)                                                                   \
    Ports{t.ct##x##_s_tvalid, t.ct##x##_s_tready, t.ct##x##_s_tdata, t.ct##x##_s_tkeep,     \
          t.ct##x##_s_tlast, t.ct##x##_row_busy, t.ct##x##_st_valid, t.ct##x##_st_code,     \
          t.ct##x##_st_ctx, t.ct##x##_st_opcode, t.ct##x##_lk_req, t.ct##x##_lk_ctx,        \
          t.ct##x##_lk_set, t.ct##x##_lk_level, t.ct##x##_lk_valid, t.ct##x##_lk_hit,       \
          t.ct##x##_lk_size, t.ct##x##_lk_rank, t.ct##x##_lk_levels,                        \
          t.ct##x##_lk_pof2_levels, t.ct##x##_lk_ident, t.ct##x##_lk_fold,                  \
          t.ct##x##_lk_global0, t.ct##x##_lk_partner}

// A lookup's result: lk_hit and the fields, in port order.
struct Lookup {
    unsigned hit, size, rank, levels, pof2_levels, ident, fold, global0, partner;
    bool operator==(const Lookup &o) const { return !memcmp(this, &o, sizeof o); }
};

Lookup expected_lookup(const mf_ct_ref_t *ref, unsigned ctx, unsigned set, unsigned level)
{
    const mf_ct_entry_t *e = mf_ct_ref_lookup(ref, (int)ctx);
    if (!e)
        return Lookup{};
    const uint16_t *sets[3] = {e->hc, e->up, e->down};
    return Lookup{1, e->size, e->rank, e->levels, e->pof2_levels, e->ident, e->fold,
                  e->global0, set < 3 ? sets[set][level] : (unsigned)MF_RANK_NONE};
}

Lookup got_lookup(const Ports &p)
{
    return Lookup{p.lk_hit, p.lk_size, p.lk_rank, p.lk_levels, p.lk_pof2_levels, p.lk_ident,
                  p.lk_fold, p.lk_global0, p.lk_partner};
}

std::string show(const Lookup &l)
{
    char b[160];
    snprintf(b, sizeof b, "hit %u size %u rank %u levels %u pof2 %u ident %u fold %u g0 %u part %u",
             l.hit, l.size, l.rank, l.levels, l.pof2_levels, l.ident, l.fold, l.global0,
             l.partner);
    return b;
}

struct Counts {
    int packets = 0, verdicts = 0, lookups = 0, hits = 0, bad = 0;
    int codes[CT_CODES] = {0};
};

struct PendingLookup {
    uint64_t due;
    unsigned ctx, set, level;
    Lookup want;
};

// Drives one table with the packets; compares as it goes.
class CtRun {
  public:
    CtRun(Sim &s, const Ports &p, mf_ct_ref_t *ref, unsigned busy_pct)
        : s_(s), p_(p), ref_(ref), busy_pct_(busy_pct)
    {
    }
    Counts run(const std::vector<CtPacket> &pkts);

  private:
    void drive_stream(const std::vector<CtPacket> &pkts);
    void drive_lookup();
    void check_verdict(const std::vector<CtPacket> &pkts, uint32_t busy);
    void check_lookups();
    void fail(const std::string &what)
    {
        if (c_.bad++ == 0)
            printf("# cycle %llu: %s\n", (unsigned long long)s_.cycles, what.c_str());
    }

    Sim &s_;
    const Ports &p_;
    mf_ct_ref_t *ref_;
    unsigned busy_pct_;
    Counts c_;
    size_t pkt_ = 0, beat_ = 0;
    bool holding_ = false;
    std::deque<size_t> sent_; // packets fully sent, verdict not yet out
    std::deque<PendingLookup> lookups_;
    std::vector<unsigned> recent_; // rows configured lately: lookups favour them
};

void CtRun::drive_stream(const std::vector<CtPacket> &pkts)
{
    if (!holding_ && pkt_ < pkts.size() && rng() % 3)
        holding_ = true;
    p_.s_tvalid = holding_;
    if (!holding_) {
        p_.s_tdata = rng(); // nothing may be taken from an idle bus
        return;
    }
    const CtPacket &k = pkts[pkt_];
    p_.s_tdata = mf_get_le(&k.bytes[8 * beat_], 8);
    p_.s_tkeep = k.keep[beat_];
    p_.s_tlast = beat_ + 1 == k.keep.size();
}

void CtRun::drive_lookup()
{
    p_.lk_req = rng() % 2;
    if (!p_.lk_req)
        return;
    unsigned ctx = !recent_.empty() && rng() % 10 < 7 ? recent_[rng() % recent_.size()]
                                                       : (unsigned)(rng() % MF_MAX_CTX);
    unsigned set = (unsigned)(rng() % 4), level = (unsigned)(rng() % MF_MAX_LEVELS);
    p_.lk_ctx = (CData)ctx;
    p_.lk_set = (CData)set;
    p_.lk_level = (CData)level;
    lookups_.push_back({s_.cycles + kLookupLatency, ctx, set, level,
                        expected_lookup(ref_, ctx, set, level)});
}

void CtRun::check_verdict(const std::vector<CtPacket> &pkts, uint32_t busy)
{
    if (!p_.st_valid)
        return;
    if (sent_.empty()) {
        fail("a verdict with no packet sent");
        return;
    }
    const CtPacket &k = pkts[sent_.front()];
    sent_.pop_front();
    CtCode want = ct_reference(ref_, k, busy);
    c_.verdicts++;
    c_.codes[want]++;
    unsigned ctx = k.bytes[0] >> 4 | (k.bytes[1] & 1u) << 4, opcode = k.bytes[0] & 15u;
    if (p_.st_code != want || p_.st_ctx != ctx || p_.st_opcode != opcode) {
        char b[200];
        snprintf(b, sizeof b, "packet %zu (%zu beats): RTL says %s (ctx %u, opcode %u), C %s "
                 "(ctx %u, opcode %u)", (size_t)(&k - pkts.data()), k.keep.size(),
                 p_.st_code < CT_CODES ? ct_code_names[p_.st_code] : "?", p_.st_ctx,
                 p_.st_opcode, ct_code_names[want], ctx, opcode);
        fail(b);
    }
    if (want == CT_OK && opcode == MF_OPC_CT_CONFIG) {
        recent_.push_back(ctx);
        if (recent_.size() > 4)
            recent_.erase(recent_.begin());
    }
}

void CtRun::check_lookups()
{
    if (!lookups_.empty() && lookups_.front().due == s_.cycles) {
        PendingLookup l = lookups_.front();
        lookups_.pop_front();
        Lookup got = got_lookup(p_);
        c_.lookups++;
        c_.hits += l.want.hit;
        if (!p_.lk_valid)
            fail("lk_valid missing " + std::to_string(kLookupLatency) + " cycles after lk_req");
        else if (!(got == l.want))
            fail("lookup ctx " + std::to_string(l.ctx) + " set " + std::to_string(l.set) +
                 " level " + std::to_string(l.level) + ": RTL " + show(got) + "; C " +
                 show(l.want));
    } else if (p_.lk_valid) {
        fail("lk_valid without a lookup due");
    }
}

Counts CtRun::run(const std::vector<CtPacket> &pkts)
{
    c_.packets = (int)pkts.size();
    uint32_t busy = 0;
    uint64_t start = s_.cycles;
    while ((pkt_ < pkts.size() || !sent_.empty() || !lookups_.empty()) &&
           s_.cycles - start < kCycleLimit) {
        drive_stream(pkts);
        if (rng() % 16 == 0) { // rows with a collective running change now and then
            busy = 0;
            for (int c = 0; c < MF_MAX_CTX; c++)
                busy |= (uint32_t)(rng() % 100 < busy_pct_) << c;
        }
        p_.row_busy = busy;
        if (pkt_ < pkts.size() || !sent_.empty())
            drive_lookup();
        else
            p_.lk_req = 0;
        s_.top.eval();
        bool taken = holding_ && p_.s_tready;
        s_.tick();
        if (taken) {
            holding_ = false;
            if (++beat_ == pkts[pkt_].keep.size()) {
                sent_.push_back(pkt_++);
                beat_ = 0;
            }
        }
        check_verdict(pkts, busy);
        check_lookups();
    }
    p_.s_tvalid = 0;
    p_.lk_req = 0;
    if (pkt_ < pkts.size() || !sent_.empty())
        fail("stream stalled: " + std::to_string(pkts.size() - c_.verdicts) + " verdicts missing");
    return c_;
}

struct Group {
    const char *name;
    CtMix mix;
    unsigned busy_pct;
    std::vector<CtCode> must_see; // verdicts the group is there to reach
};

std::vector<Group> groups_of(const CtBounds &b)
{
    std::vector<Group> g = {
        {"configs and lookups", MIX_CONFIGS, 5, {CT_OK}},
        {"frees and re-configs of 4 rows", MIX_REUSE, 5, {CT_OK, CT_E_UNSET}},
        {"malformed packets", MIX_MALFORMED, 5,
         {CT_OK, CT_E_FRAME, CT_E_HEADER, CT_E_OPCODE, CT_E_LENGTH, CT_E_ENTRY}},
        {"rows busy with a collective", MIX_CONFIGS, 50, {CT_OK, CT_E_BUSY}},
        {"bounds of size, rank and ctx", MIX_BOUNDS, 5, {CT_OK}},
    };
    if (b.rows < MF_MAX_CTX)
        g.back().must_see.push_back(CT_E_RANGE);
    if (b.max_ranks < 65535)
        g.back().must_see.push_back(CT_E_LIMIT);
    return g;
}

void report(const char *unit, const Group &g, const Counts &c, TapCount &tap)
{
    std::string missing;
    for (CtCode code : g.must_see)
        if (!c.codes[code])
            missing += std::string(missing.empty() ? "" : ", ") + ct_code_names[code];
    bool ok = c.bad == 0 && c.verdicts == c.packets && c.hits > 0 && missing.empty();
    printf("%s %d - %s %s: %d packets (", ok ? "ok" : "not ok", ++tap.n, unit, g.name,
           c.packets);
    const char *sep = "";
    for (int k = 0; k < CT_CODES; k++)
        if (c.codes[k]) {
            printf("%s%d %s", sep, c.codes[k], ct_code_names[k]);
            sep = ", ";
        }
    printf("), %d lookups (%d hits)", c.lookups, c.hits);
    if (c.bad)
        printf(", %d differ", c.bad);
    if (!missing.empty())
        printf(", never reached: %s", missing.c_str());
    printf("\n");
    ok ? tap.pass++ : tap.fail++;
}

} // namespace

int ct_group_count()
{
    return (int)(groups_of(kBoundsA).size() + groups_of(kBoundsB).size());
}

void run_ct(Sim &s, int count, TapCount &tap)
{
    const struct {
        const char *unit;
        CtBounds b;
        Ports p;
    } tables[] = {{"ct a", kBoundsA, MF_CT_PORTS(s.top, a)}, {"ct b", kBoundsB, MF_CT_PORTS(s.top, b)}};
    for (const auto &t : tables) {
        mf_ct_ref_t *ref = mf_ct_ref_new(t.b.rows, t.b.max_ranks);
        if (!ref) {
            fprintf(stderr, "rtl_lockstep: out of memory\n");
            exit(2);
        }
        for (const Group &g : groups_of(t.b)) {
            std::vector<CtPacket> pkts;
            for (int i = 0; i < 4 * count; i++)
                pkts.push_back(ct_make_packet(g.mix, t.b));
            CtRun run(s, t.p, ref, g.busy_pct);
            report(t.unit, g, run.run(pkts), tap);
        }
        mf_ct_ref_delete(ref);
    }
}

} // namespace ls
