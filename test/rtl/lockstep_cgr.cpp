// The CGR (rtl/mf_cgr.sv) side of make rtl-check: each message's
// kCgrInputs inputs on the CGR's input streams, each with its own random
// gaps on s_tvalid (held once raised), random back-pressure on m_tready.
// skew_keep: on one beat of every message one input (not input 0) carries
// a different tkeep; that output beat must be flagged with zero data.
#include "lockstep.h"

namespace ls {

int run_cgr(Sim &s, const std::vector<Message> &msgs, bool skew_keep)
{
    std::vector<OutBeat> want;
    std::vector<size_t> skew_beat, first_beat; // per message
    for (const Message &m : msgs) {
        first_beat.push_back(want.size());
        expected_beats(m, want);
        skew_beat.push_back(skew_keep ? rng() % message_beats(m) : SIZE_MAX);
        if (skew_keep) {
            OutBeat &b = want[first_beat.back() + skew_beat.back()];
            std::memset(b.y, 0, kBytes);
            b.err = true;
        }
    }
    int skew_input = 1 + (int)(rng() % (kCgrInputs - 1));
    // each input's position: message, beat, and whether tvalid is up
    size_t msg[kCgrInputs] = {0}, beat[kCgrInputs] = {0}, got_n = 0;
    bool holding[kCgrInputs] = {false};
    int bad = 0;
    uint64_t start = s.cycles;
    auto &t = s.top;
    while (got_n < want.size() && s.cycles - start < kCycleLimit) {
        uint64_t keeps[kCgrInputs] = {0};
        t.cgr_s_tvalid = 0;
        t.cgr_s_tlast = 0;
        for (int k = 0; k < kCgrInputs; k++) {
            if (!holding[k] && msg[k] < msgs.size() && rng() % 3)
                holding[k] = true;
            if (!holding[k])
                continue;
            const Message &m = msgs[msg[k]];
            uint8_t p[kBytes];
            bool last;
            input_beat(m, k, beat[k], p, &keeps[k], &last);
            if (k == skew_input && beat[k] == skew_beat[msg[k]])
                keeps[k] ^= 1ull << 63;
            set_bytes(t.cgr_s_tdata, k * kBytes, p, kBytes);
            t.cgr_s_tvalid |= 1u << k;
            t.cgr_s_tlast |= (uint32_t)last << k;
            if (k == 0) {
                t.cgr_op = (uint8_t)m.op;
                t.cgr_dtype = (uint8_t)m.dt;
            }
        }
        for (int k = 0; k < kCgrInputs; k++) { // kCgrInputs x 64 bits of tkeep
            t.cgr_s_tkeep[2 * k] = (uint32_t)keeps[k];
            t.cgr_s_tkeep[2 * k + 1] = (uint32_t)(keeps[k] >> 32);
        }
        t.cgr_m_tready = rng() % 3 != 0;
        t.eval();
        unsigned ready = t.cgr_s_tready;
        if (t.cgr_m_tvalid && t.cgr_m_tready) {
            uint8_t got[kBytes];
            get_bytes(t.cgr_m_tdata, got, kBytes);
            if (!beat_matches(want[got_n], got, t.cgr_m_tkeep, t.cgr_m_tlast, t.cgr_m_terror,
                              bad == 0))
                bad++;
            got_n++;
        }
        s.tick();
        for (int k = 0; k < kCgrInputs; k++) {
            if (!holding[k] || !(ready >> k & 1u))
                continue;
            holding[k] = false;
            if (++beat[k] == message_beats(msgs[msg[k]])) {
                beat[k] = 0;
                msg[k]++;
            }
        }
    }
    t.cgr_s_tvalid = 0;
    return bad + (int)(want.size() - got_n);
}

} // namespace ls
