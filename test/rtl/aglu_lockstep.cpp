// Lockstep check of the AgLU RTL (rtl/mf_aglu.sv, under Verilator) against
// the C model's AgLU (fpga_model/hw/aglu.c, linked in): every (op, dtype)
// pair is one case group of random messages (edge values: INT_MIN, -1, 0,
// NaNs, infinities, subnormals, ties), driven beat by beat with random
// gaps on s_tvalid and random back-pressure on m_tready.  Every output beat
// is compared bit for bit (tdata, tkeep, tlast, terror) with what
// mf_aglu_combine gives for the same bytes.  Pairs the RTL does not compute
// must come out flagged (m_terror) with zero data.
//   aglu_lockstep [--seed N] [--messages N]
// Prints one TAP line per group and "# N PASS, M FAIL"; exit 1 on a FAIL.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "Vmf_aglu.h"
#include "verilated.h"

extern "C" {
#include "hw/aglu.h"
#include "mpifpga/wire.h"
}

namespace {

constexpr int kBytes = 64;            // DATA_BYTES of the RTL build
constexpr int kMaxBeats = 5;          // longest message, in beats
constexpr uint64_t kCycleLimit = 1u << 22;

struct Beat {
    uint8_t a[kBytes], b[kBytes], y[kBytes];
    uint64_t keep;
    bool last, err;
    int op, dt;
};

// Lanes of a float sum/prod whose operands are both NaN, per group.  x86
// returns the first source operand's NaN (quieted), and which operand GCC
// makes the first is its choice: in aglu.c's vectorised block loop it
// differs between the two halves of one 256-bit block.  There the C model
// fixes no bits, so a quiet copy of either operand is accepted from it and
// the RTL must give a's (C's source order, `a + b`).
int g_both_nan, g_nan_bad;

void settle_both_nan(int op, int dt, const uint8_t *a, const uint8_t *b, uint8_t *y, size_t n)
{
    if ((op != MF_OP_SUM && op != MF_OP_PROD) || (dt != MF_DT_FLOAT && dt != MF_DT_DOUBLE))
        return;
    unsigned w = dt == MF_DT_FLOAT ? 4 : 8, mw = dt == MF_DT_FLOAT ? 23 : 52;
    uint64_t exp = ((w == 4 ? 0xffull : 0x7ffull) << mw), man = (1ull << mw) - 1;
    uint64_t quiet = 1ull << (mw - 1);
    for (size_t k = 0; k + w <= n; k += w) {
        uint64_t va = 0, vb = 0, vy = 0;
        memcpy(&va, a + k, w);
        memcpy(&vb, b + k, w);
        memcpy(&vy, y + k, w);
        bool a_nan = (va & exp) == exp && (va & man), b_nan = (vb & exp) == exp && (vb & man);
        if (!a_nan || !b_nan)
            continue;
        g_both_nan++;
        if (vy != (va | quiet) && vy != (vb | quiet))
            g_nan_bad++;
        va |= quiet;
        memcpy(y + k, &va, w);
    }
}

// (op, dtype) pairs valid for MPI that the RTL does not compute yet
// (doc/rtl.md): they must be flagged like the invalid ones.
bool rtl_builds(int op, int dt)
{
    return mf_op_valid_for((mf_op_t)op, (mf_dtype_t)dt) && op != MF_OP_CPROD;
}

std::mt19937_64 rng;

uint64_t pick(std::initializer_list<uint64_t> v)
{
    return v.begin()[rng() % v.size()];
}

// An integer of n bytes: edge values, small values (ties), random bits.
uint64_t int_value(unsigned n)
{
    uint64_t mask = n == 8 ? ~0ull : (1ull << (8 * n)) - 1;
    uint64_t min = 1ull << (8 * n - 1);
    switch (rng() % 4) {
    case 0: return pick({0, 1, mask, min, min - 1, 2}) & mask;  // 0 1 -1 MIN MAX 2
    case 1: return (uint64_t)((int64_t)(rng() % 7) - 3) & mask;
    default: return rng() & mask;
    }
}

// IEEE bits (f32: n=4, f64: n=8): specials, subnormals, random bits.
uint64_t flt_value(unsigned n)
{
    if (n == 4) {
        if (rng() % 3)
            return rng() & 0xffffffffu;
        return pick({0, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x7f800000u, 0xff800000u,
                     0x7fc00000u, 0x7f800001u, 0xffc12345u, 0x00000001u, 0x807fffffu,
                     0x00800000u, 0x7f7fffffu, 0xff7fffffu});
    }
    if (rng() % 3)
        return rng();
    return pick({0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
                 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                 0x7ff0000000000001ull, 0xfff8000000abcdefull, 1, 0x800fffffffffffffull,
                 0x0010000000000000ull, 0x7fefffffffffffffull});
}

// b near a: the same value, its negation, or a small step in the exponent
// or the low mantissa bits (cancellation, rounding, ties for min/max/loc).
uint64_t flt_near(uint64_t a, unsigned n)
{
    uint64_t sign = 1ull << (8 * n - 1);
    unsigned mw = n == 4 ? 23 : 52;
    switch (rng() % 4) {
    case 0: return a;
    case 1: return a ^ sign ^ (rng() % 16);
    case 2: return (a + ((uint64_t)(rng() % 7) - 3) * (1ull << mw)) ^ (rng() % 1024);
    default: return a ^ (rng() & ((1ull << mw) - 1)) ^ (rng() % 2 ? sign : 0);
    }
}

void put(uint8_t *p, uint64_t v, unsigned n) { memcpy(p, &v, n); }  // little-endian host

// One element (or pair lane) of a and b.
void fill_elem(int dt, uint8_t *a, uint8_t *b, unsigned esize)
{
    for (unsigned i = 0; i < esize; i++) { // pad bytes: random
        a[i] = (uint8_t)rng();
        b[i] = (uint8_t)rng();
    }
    bool flt = dt == MF_DT_FLOAT || dt == MF_DT_DOUBLE || dt == MF_DT_FLOAT_INT ||
               dt == MF_DT_DOUBLE_INT;
    unsigned vbytes = esize, ioff = 0;
    if (mf_dtype_is_pair((mf_dtype_t)dt))
        mf_pair_layout((mf_dtype_t)dt, &vbytes, &ioff);
    uint64_t va = flt ? flt_value(vbytes) : int_value(vbytes);
    uint64_t vb = flt ? (rng() % 2 ? flt_near(va, vbytes) : flt_value(vbytes))
                      : (rng() % 4 == 0 ? va : int_value(vbytes));
    put(a, va, vbytes);
    put(b, vb, vbytes);
    if (ioff) {
        put(a + ioff, rng() % 2 ? rng() % 4 : rng(), 4);
        put(b + ioff, rng() % 2 ? rng() % 4 : rng(), 4);
    }
}

// The beats of one random message of group (op, dt), expected results in y.
void make_message(int op, int dt, std::deque<Beat> &out)
{
    bool valid = mf_op_valid_for((mf_op_t)op, (mf_dtype_t)dt);
    unsigned esize = valid ? (unsigned)mf_elem_bytes((mf_op_t)op, (mf_dtype_t)dt)
                           : (unsigned)mf_dtype_size((mf_dtype_t)dt);
    if (esize == 0)
        esize = 1;
    size_t n = esize * (1 + rng() % (kMaxBeats * kBytes / esize));
    std::vector<uint8_t> a(n), b(n), acc(n, 0);
    for (size_t k = 0; k < n; k += esize)
        fill_elem(dt, &a[k], &b[k], esize);
    if (rtl_builds(op, dt)) {
        acc = a;
        mf_aglu_combine((mf_op_t)op, (mf_dtype_t)dt, acc.data(), b.data(), n);
        settle_both_nan(op, dt, a.data(), b.data(), acc.data(), n);
    }
    for (size_t off = 0; off < n; off += kBytes) {
        Beat t{};
        size_t len = n - off < (size_t)kBytes ? n - off : kBytes;
        memcpy(t.a, &a[off], len);
        memcpy(t.b, &b[off], len);
        memcpy(t.y, &acc[off], len);
        t.keep = len == 64 ? ~0ull : (1ull << len) - 1;
        t.last = off + len == n;
        t.err = !rtl_builds(op, dt);
        t.op = op;
        t.dt = dt;
        out.push_back(t);
    }
}

void set_wide(VlWide<kBytes / 4> &w, const uint8_t *p)
{
    for (int i = 0; i < kBytes / 4; i++) {
        uint32_t v;
        memcpy(&v, p + 4 * i, 4);
        w[i] = v;
    }
}

void get_wide(const VlWide<kBytes / 4> &w, uint8_t *p)
{
    for (int i = 0; i < kBytes / 4; i++) {
        uint32_t v = w[i];
        memcpy(p + 4 * i, &v, 4);
    }
}

void report_mismatch(const Beat &want, const uint8_t *got, uint64_t keep, bool last, bool err)
{
    printf("#   beat mismatch: keep %016llx/%016llx last %d/%d terror %d/%d (want/got)\n",
           (unsigned long long)want.keep, (unsigned long long)keep, want.last, last, want.err,
           err);
    for (int i = 0; i < kBytes; i++)
        if (got[i] != want.y[i]) {
            int e = i & ~7;
            printf("#   first differing byte %d; bytes %d..%d (little-endian):\n", i, e, e + 7);
            printf("#     a    ");
            for (int k = e + 7; k >= e; k--) printf("%02x", want.a[k]);
            printf("\n#     b    ");
            for (int k = e + 7; k >= e; k--) printf("%02x", want.b[k]);
            printf("\n#     want ");
            for (int k = e + 7; k >= e; k--) printf("%02x", want.y[k]);
            printf("\n#     got  ");
            for (int k = e + 7; k >= e; k--) printf("%02x", got[k]);
            printf("\n");
            break;
        }
}

struct Sim {
    Vmf_aglu top;
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

// Streams the beats through the RTL; returns the number of beats that
// differ (a missing output beat counts as one).
int run_group(Sim &s, std::deque<Beat> &in)
{
    std::deque<Beat> want(in);
    int bad = 0;
    uint64_t start = s.cycles;
    bool holding = false;
    while (!want.empty() && s.cycles - start < kCycleLimit) {
        if (!holding && !in.empty() && rng() % 4) // random gaps; once valid, held
            holding = true;
        s.top.s_tvalid = holding;
        if (holding) {
            const Beat &t = in.front();
            set_wide(s.top.s_tdata_a, t.a);
            set_wide(s.top.s_tdata_b, t.b);
            s.top.s_tkeep = t.keep;
            s.top.s_tlast = t.last;
            s.top.s_op = (uint8_t)t.op;
            s.top.s_dtype = (uint8_t)t.dt;
        }
        s.top.m_tready = rng() % 3 != 0;
        s.top.eval();
        bool in_fire = holding && s.top.s_tready;
        if (s.top.m_tvalid && s.top.m_tready) {
            uint8_t got[kBytes];
            get_wide(s.top.m_tdata, got);
            const Beat &w = want.front();
            if (memcmp(got, w.y, kBytes) || s.top.m_tkeep != w.keep || s.top.m_tlast != w.last ||
                s.top.m_terror != w.err) {
                if (bad == 0)
                    report_mismatch(w, got, s.top.m_tkeep, s.top.m_tlast, s.top.m_terror);
                bad++;
            }
            want.pop_front();
        }
        s.tick();
        if (in_fire) {
            in.pop_front();
            holding = false;
        }
    }
    return bad + (int)want.size();
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int messages = 24;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], nullptr, 0);
        else if (!strcmp(argv[i], "--messages") && i + 1 < argc)
            messages = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: aglu_lockstep [--seed N] [--messages N]\n");
            return 2;
        }
    }
    if (messages < 1) {
        fprintf(stderr, "aglu_lockstep: --messages must be at least 1\n");
        return 2;
    }
    rng.seed(seed);
    Sim s;
    s.top.rst_n = 0;
    s.top.m_tready = 1;
    s.top.s_tvalid = 0;
    for (int i = 0; i < 3; i++)
        s.tick();
    s.top.rst_n = 1;

    int pass = 0, fail = 0, n = 0;
    printf("1..%d\n# seed %llu, %d messages per group, %d-byte beats\n",
           (int)MF_OP_COUNT * (int)MF_DT_COUNT, (unsigned long long)seed, messages, kBytes);
    for (int op = 0; op < MF_OP_COUNT; op++)
        for (int dt = 0; dt < MF_DT_COUNT; dt++) {
            std::deque<Beat> beats;
            g_both_nan = g_nan_bad = 0;
            for (int m = 0; m < messages; m++)
                make_message(op, dt, beats);
            size_t nbeats = beats.size();
            int bad = run_group(s, beats) + g_nan_bad;
            const char *what = rtl_builds(op, dt) ? "computed"
                               : mf_op_valid_for((mf_op_t)op, (mf_dtype_t)dt) ? "flagged (not built)"
                                                                          : "flagged (invalid)";
            printf("%s %d - %s %s: %zu beats %s", bad ? "not ok" : "ok", ++n,
                   mf_op_name((mf_op_t)op), mf_dtype_name((mf_dtype_t)dt), nbeats, what);
            if (g_both_nan)
                printf(", %d both-NaN lanes", g_both_nan);
            if (g_nan_bad)
                printf(", %d of them not a quiet operand in C", g_nan_bad);
            if (bad)
                printf(", %d differ", bad);
            printf("\n");
            bad ? fail++ : pass++;
        }
    printf("# %llu cycles\n# %d PASS, %d FAIL\n", (unsigned long long)s.cycles, pass, fail);
    return fail ? 1 : 0;
}
