// The AgLU (rtl/mf_aglu.sv) side of make rtl-check: each message's two
// inputs are the beat's a (accumulator) and b operands; s_tvalid has random
// gaps (once raised it is held until taken, as AXI4-Stream requires) and
// m_tready random back-pressure.
#include "lockstep.h"

namespace ls {

int run_aglu(Sim &s, const std::vector<Message> &msgs)
{
    std::vector<OutBeat> want;
    for (const Message &m : msgs)
        expected_beats(m, want);
    size_t msg = 0, beat = 0, got_n = 0;
    int bad = 0;
    bool holding = false;
    uint64_t start = s.cycles;
    auto &t = s.top;
    while (got_n < want.size() && s.cycles - start < kCycleLimit) {
        if (!holding && msg < msgs.size() && rng() % 4)
            holding = true;
        t.aglu_s_tvalid = holding;
        if (holding) {
            const Message &m = msgs[msg];
            uint8_t a[kBytes], b[kBytes];
            uint64_t keep;
            bool last;
            input_beat(m, 0, beat, a, &keep, &last);
            input_beat(m, 1, beat, b, &keep, &last);
            set_bytes(t.aglu_s_tdata_a, 0, a, kBytes);
            set_bytes(t.aglu_s_tdata_b, 0, b, kBytes);
            t.aglu_s_tkeep = keep;
            t.aglu_s_tlast = last;
            t.aglu_s_op = (uint8_t)m.op;
            t.aglu_s_dtype = (uint8_t)m.dt;
        }
        t.aglu_m_tready = rng() % 3 != 0;
        t.eval();
        bool in_fire = holding && t.aglu_s_tready;
        if (t.aglu_m_tvalid && t.aglu_m_tready) {
            uint8_t got[kBytes];
            get_bytes(t.aglu_m_tdata, got, kBytes);
            if (!beat_matches(want[got_n], got, t.aglu_m_tkeep, t.aglu_m_tlast,
                              t.aglu_m_terror, bad == 0))
                bad++;
            got_n++;
        }
        s.tick();
        if (in_fire) {
            holding = false;
            if (++beat == message_beats(msgs[msg])) {
                beat = 0;
                msg++;
            }
        }
    }
    t.aglu_s_tvalid = 0;
    return bad + (int)(want.size() - got_n);
}

} // namespace ls
