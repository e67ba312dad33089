// make rtl-check: the RTL (test/rtl/lockstep_top.sv: mf_aglu, mf_cgr,
// mf_ct and mf_collector under Verilator) in lockstep with the C model's
// AgLU (fpga_model/hw/aglu.c) and communicator table (ct.c), linked in,
// and a mirror of its collector (lockstep_coll_ref.h).  Shared
// by the lockstep_*.cpp files.
#ifndef MF_LOCKSTEP_H
#define MF_LOCKSTEP_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "Vlockstep_top.h"
#include "verilated.h"

extern "C" {
#include "hw/aglu.h"
#include "mpifpga/wire.h"
}

namespace ls {

constexpr int kBytes = 64;       // DATA_BYTES of lockstep_top
constexpr int kCgrInputs = 4;    // K of lockstep_top's CGR
constexpr int kMaxBeats = 5;     // longest message, in beats
constexpr uint64_t kCycleLimit = 1u << 22;

extern std::mt19937_64 rng;

// One reduction: the bytes of every input and the result the C model gives
// (all zero if the RTL must flag the pair instead: err).
struct Message {
    int op, dt;
    size_t n;
    std::vector<std::vector<uint8_t>> in;
    std::vector<uint8_t> want;
    bool err;
    int both_nan; // lanes whose NaN C leaves to the compiler (lockstep_data.cpp)
    int nan_bad;  // ... where C gave no candidate NaN, or CPROD lanes off SSE's
};

// One output beat as it must come out.
struct OutBeat {
    uint8_t y[kBytes];
    uint64_t keep;
    bool last, err;
};

// (op, dtype) pairs the RTL computes (all that are valid for MPI).
bool rtl_builds(int op, int dt);
Message make_message(int op, int dt, int inputs);
// The output beats of m, appended to out.
void expected_beats(const Message &m, std::vector<OutBeat> &out);
// Beat j of input k of m: its bytes into p (zero-padded), keep, last.
void input_beat(const Message &m, int k, size_t j, uint8_t *p, uint64_t *keep, bool *last);
size_t message_beats(const Message &m);

// Little-endian bytes <-> Verilator's 32-bit words of a wide port.
template <std::size_t N> void set_bytes(VlWide<N> &w, int byte_off, const uint8_t *p, int n)
{
    for (int i = 0; i < n; i += 4) {
        uint32_t v;
        std::memcpy(&v, p + i, 4);
        w[(byte_off + i) / 4] = v;
    }
}
template <std::size_t N> void get_bytes(const VlWide<N> &w, uint8_t *p, int n)
{
    for (int i = 0; i < n; i += 4) {
        uint32_t v = w[i / 4];
        std::memcpy(p + i, &v, 4);
    }
}

struct Sim {
    Vlockstep_top top;
    uint64_t cycles = 0;
    void tick()
    {
        top.clk = 1;
        top.eval();
        top.clk = 0;
        top.eval();
        cycles++;
    }
};

// Compares one output beat; prints the first difference of a group.
bool beat_matches(const OutBeat &want, const uint8_t *got, uint64_t keep, bool last, bool err,
                  bool report);

// Stream messages through the AgLU (two inputs) / the CGR (kCgrInputs);
// return the number of output beats that differ or never came.
int run_aglu(Sim &s, const std::vector<Message> &msgs);
int run_cgr(Sim &s, const std::vector<Message> &msgs, bool skew_keep);

// TAP lines printed so far, and how they ended.
struct TapCount {
    int pass = 0, fail = 0, n = 0;
};
// The communicator-table groups (lockstep_ct.cpp): how many, then run them,
// `count` scaling their packets.
int ct_group_count();
void run_ct(Sim &s, int count, TapCount &tap);
// The collector groups (lockstep_coll.cpp), likewise.
int coll_group_count();
void run_coll(Sim &s, int count, TapCount &tap);
// The collective engine (lockstep_engine.cpp): TAP lines, then run them.
int engine_group_count(int count);
void run_engine(Sim &s, int count, TapCount &tap);

} // namespace ls

#endif
