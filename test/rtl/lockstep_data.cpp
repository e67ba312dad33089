// Random reductions and the C model's results for make rtl-check: edge
// values (0, 1, -1, INT_MIN, INT_MAX, +-0, +-inf, quiet and signalling
// NaNs, subnormals, the largest finite values), ties (equal values, equal
// MINLOC/MAXLOC indices) and near values (cancellation, rounding) mixed
// with random bits.
#include <cstdio>

#include "lockstep.h"

namespace ls {

std::mt19937_64 rng;

bool rtl_builds(int op, int dt) { return mf_op_valid_for((mf_op_t)op, (mf_dtype_t)dt); }

static uint64_t pick(std::initializer_list<uint64_t> v) { return v.begin()[rng() % v.size()]; }

// An integer of n bytes: edge values, small values (ties), random bits.
static uint64_t int_value(unsigned n)
{
    uint64_t mask = n == 8 ? ~0ull : (1ull << (8 * n)) - 1;
    uint64_t min = 1ull << (8 * n - 1);
    switch (rng() % 4) {
    case 0: return pick({0, 1, mask, min, min - 1, 2}) & mask; // 0 1 -1 MIN MAX 2
    case 1: return (uint64_t)((int64_t)(rng() % 7) - 3) & mask;
    default: return rng() & mask;
    }
}

// IEEE bits (f32: n=4, f64: n=8): specials, subnormals, random bits.
static uint64_t flt_value(unsigned n)
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

// A value near v: the same, its negation, or a small step in the exponent
// or the low mantissa bits.
static uint64_t flt_near(uint64_t v, unsigned n)
{
    uint64_t sign = 1ull << (8 * n - 1), mask = n == 8 ? ~0ull : 0xffffffffull;
    unsigned mw = n == 4 ? 23 : 52;
    switch (rng() % 4) {
    case 0: return v;
    case 1: return (v ^ sign ^ (rng() % 16)) & mask;
    case 2: return ((v + ((uint64_t)(rng() % 7) - 3) * (1ull << mw)) ^ (rng() % 1024)) & mask;
    default: return (v ^ (rng() & ((1ull << mw) - 1)) ^ (rng() % 2 ? sign : 0)) & mask;
    }
}

static void put(uint8_t *p, uint64_t v, unsigned n) { std::memcpy(p, &v, n); } // little-endian

// Element k of every input: pad bytes random, the value of input 0 random,
// the others' random or near it.
static void fill_elem(int dt, std::vector<std::vector<uint8_t>> &in, size_t k, unsigned esize)
{
    bool flt = dt == MF_DT_FLOAT || dt == MF_DT_DOUBLE || dt == MF_DT_FLOAT_INT ||
               dt == MF_DT_DOUBLE_INT;
    unsigned vbytes = esize, ioff = 0;
    if (mf_dtype_is_pair((mf_dtype_t)dt))
        mf_pair_layout((mf_dtype_t)dt, &vbytes, &ioff);
    uint64_t v0 = flt ? flt_value(vbytes) : int_value(vbytes);
    for (size_t i = 0; i < in.size(); i++) {
        for (unsigned j = 0; j < esize; j++)
            in[i][k + j] = (uint8_t)rng();
        uint64_t v = i == 0 ? v0
                     : flt  ? (rng() % 2 ? flt_near(v0, vbytes) : flt_value(vbytes))
                            : (rng() % 4 == 0 ? v0 : int_value(vbytes));
        put(&in[i][k], v, vbytes);
        if (ioff)
            put(&in[i][k + ioff], rng() % 2 ? rng() % 4 : rng(), 4);
    }
}

// x86 returns the first source operand's NaN (quieted) when both operands
// of a float add/mul are NaN, and which operand GCC makes the first is its
// choice: in aglu.c's vectorised block loop it differs between the two
// halves of one 256-bit block.  There the C model fixes no bits: a quiet
// copy of either operand is accepted from it, and the RTL must give the
// accumulator's (C's source order, acc + src).  res: C's result of
// acc OP src, settled in place.
static void settle_both_nan(Message &m, const uint8_t *acc, const uint8_t *src, uint8_t *res)
{
    if ((m.op != MF_OP_SUM && m.op != MF_OP_PROD) || (m.dt != MF_DT_FLOAT && m.dt != MF_DT_DOUBLE))
        return;
    unsigned w = m.dt == MF_DT_FLOAT ? 4 : 8, mw = m.dt == MF_DT_FLOAT ? 23 : 52;
    uint64_t exp = (w == 4 ? 0xffull : 0x7ffull) << mw, man = (1ull << mw) - 1;
    uint64_t quiet = 1ull << (mw - 1);
    for (size_t k = 0; k + w <= m.n; k += w) {
        uint64_t va = 0, vb = 0, vy = 0;
        std::memcpy(&va, acc + k, w);
        std::memcpy(&vb, src + k, w);
        std::memcpy(&vy, res + k, w);
        bool a_nan = (va & exp) == exp && (va & man), b_nan = (vb & exp) == exp && (vb & man);
        if (!a_nan || !b_nan)
            continue;
        m.both_nan++;
        if (vy != (va | quiet) && vy != (vb | quiet))
            m.nan_bad++;
        va |= quiet;
        std::memcpy(res + k, &va, w);
    }
}

template <typename U> static bool is_nan(U v, int mw)
{
    U exp = (U)((sizeof(U) == 4 ? 0xffu : 0x7ffu)) << mw, man = ((U)1 << mw) - 1;
    return (v & exp) == exp && (v & man);
}

// x OP y on x86 SSE, with the RTL's choice where SSE's depends on operand
// order: x's NaN if both are NaN.  T: float or double, U: its bits.
template <typename T, typename U> static U sse(char op, U x, U y)
{
    const int mw = sizeof(T) == 4 ? 23 : 52;
    const U quiet = (U)1 << (mw - 1);
    if (is_nan(x, mw))
        return x | quiet;
    if (is_nan(y, mw))
        return y | quiet;
    T a, b;
    std::memcpy(&a, &x, sizeof a);
    std::memcpy(&b, &y, sizeof b);
    volatile T r = op == '*' ? a * b : op == '-' ? a - b : a + b; // one rounding each
    T out = r;
    U bits;
    std::memcpy(&bits, &out, sizeof bits);
    return bits;
}

// The complex product's lanes where C's NaN is the compiler's choice (a
// product or sum with two NaN operands, in whichever order GCC put them):
// C's NaN must be a quiet input or the default NaN, and the RTL must give
// sse()'s.  Any other difference from sse() is counted in nan_bad (C
// computed something else: a fused multiply-add, say).
template <typename T, typename U>
static void settle_cprod_t(Message &m, const uint8_t *acc, const uint8_t *src, uint8_t *res)
{
    const int mw = sizeof(T) == 4 ? 23 : 52;
    const U quiet = (U)1 << (mw - 1);
    const U dflt = ((U)1 << (8 * sizeof(U) - 1)) | ((U)(sizeof(U) == 4 ? 0xffu : 0x7ffu) << mw) | quiet;
    for (size_t k = 0; k + 2 * sizeof(U) <= m.n; k += 2 * sizeof(U)) {
        U a[2], b[2], c[2];
        std::memcpy(a, acc + k, sizeof a);
        std::memcpy(b, src + k, sizeof b);
        std::memcpy(c, res + k, sizeof c);
        U want[2] = {sse<T, U>('-', sse<T, U>('*', a[0], b[0]), sse<T, U>('*', a[1], b[1])),
                     sse<T, U>('+', sse<T, U>('*', a[0], b[1]), sse<T, U>('*', a[1], b[0]))};
        for (int j = 0; j < 2; j++) {
            if (c[j] == want[j])
                continue;
            bool candidate = c[j] == dflt;
            for (U v : {a[0], a[1], b[0], b[1]})
                candidate |= is_nan(v, mw) && c[j] == (v | quiet);
            if (is_nan(c[j], mw) && is_nan(want[j], mw) && candidate) {
                m.both_nan++;
                c[j] = want[j];
            } else {
                m.nan_bad++;
            }
        }
        std::memcpy(res + k, c, sizeof c);
    }
}

static void settle_cprod(Message &m, const uint8_t *acc, const uint8_t *src, uint8_t *res)
{
    if (m.op != MF_OP_CPROD)
        return;
    if (m.dt == MF_DT_FLOAT)
        settle_cprod_t<float, uint32_t>(m, acc, src, res);
    else if (m.dt == MF_DT_DOUBLE)
        settle_cprod_t<double, uint64_t>(m, acc, src, res);
}

Message make_message(int op, int dt, int inputs)
{
    Message m{};
    m.op = op;
    m.dt = dt;
    m.err = !rtl_builds(op, dt);
    bool valid = mf_op_valid_for((mf_op_t)op, (mf_dtype_t)dt);
    unsigned esize = (unsigned)(valid ? mf_elem_bytes((mf_op_t)op, (mf_dtype_t)dt)
                                      : mf_dtype_size((mf_dtype_t)dt));
    if (esize == 0)
        esize = 1;
    m.n = esize * (1 + rng() % (kMaxBeats * kBytes / esize));
    m.in.assign((size_t)inputs, std::vector<uint8_t>(m.n));
    for (size_t k = 0; k < m.n; k += esize)
        fill_elem(dt, m.in, k, esize);
    m.want.assign(m.n, 0);
    if (m.err)
        return m;
    // mf_cgr_reduce's order: out = in0, then out = out OP in_k
    m.want = m.in[0];
    std::vector<uint8_t> before;
    for (int k = 1; k < inputs; k++) {
        before = m.want;
        mf_aglu_combine((mf_op_t)op, (mf_dtype_t)dt, m.want.data(), m.in[k].data(), m.n);
        settle_both_nan(m, before.data(), m.in[k].data(), m.want.data());
        settle_cprod(m, before.data(), m.in[k].data(), m.want.data());
    }
    return m;
}

size_t message_beats(const Message &m) { return (m.n + kBytes - 1) / kBytes; }

static uint64_t keep_of(size_t len) { return len >= 64 ? ~0ull : (1ull << len) - 1; }

void input_beat(const Message &m, int k, size_t j, uint8_t *p, uint64_t *keep, bool *last)
{
    size_t off = j * kBytes, len = m.n - off < (size_t)kBytes ? m.n - off : kBytes;
    std::memset(p, 0, kBytes);
    std::memcpy(p, &m.in[(size_t)k][off], len);
    *keep = keep_of(len);
    *last = off + len == m.n;
}

void expected_beats(const Message &m, std::vector<OutBeat> &out)
{
    for (size_t off = 0; off < m.n; off += kBytes) {
        OutBeat b{};
        size_t len = m.n - off < (size_t)kBytes ? m.n - off : kBytes;
        std::memcpy(b.y, &m.want[off], len);
        b.keep = keep_of(len);
        b.last = off + len == m.n;
        b.err = m.err;
        out.push_back(b);
    }
}

bool beat_matches(const OutBeat &want, const uint8_t *got, uint64_t keep, bool last, bool err,
                  bool report)
{
    if (!std::memcmp(got, want.y, kBytes) && keep == want.keep && last == want.last &&
        err == want.err)
        return true;
    if (!report)
        return false;
    printf("#   beat mismatch: keep %016llx/%016llx last %d/%d terror %d/%d (want/got)\n",
           (unsigned long long)want.keep, (unsigned long long)keep, want.last, last, want.err, err);
    for (int i = 0; i < kBytes; i++)
        if (got[i] != want.y[i]) {
            int e = i & ~7;
            printf("#   first differing byte %d; bytes %d..%d, little-endian: want ", i, e, e + 7);
            for (int k = e + 7; k >= e; k--)
                printf("%02x", want.y[k]);
            printf(" got ");
            for (int k = e + 7; k >= e; k--)
                printf("%02x", got[k]);
            printf("\n");
            break;
        }
    return false;
}

} // namespace ls
