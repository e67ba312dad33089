// The Verilated engine behind the emulated board (emu_rtl.h).
#include "emu_rtl.h"

#include <cstdio>

#include "Vmf_engine.h"
#include "verilated.h"

// Port h's field of a per-host port, whether Verilator made it a packed
// vector (NHOST x width bits) or an unpacked array (NHOST elements).
template <typename T>
static void put(T &v, int h, unsigned width, uint64_t x)
{
    uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
    v = (T)((v & ~(T)(mask << (h * width))) | (T)((x & mask) << (h * width)));
}
template <std::size_t W>
static void put(VlWide<W> &v, int h, unsigned width, uint64_t x)
{
    for (unsigned b = 0; b < width; b++) {
        unsigned bit = h * width + b, w = bit / 32, s = bit % 32;
        v[w] = (v[w] & ~(1u << s)) | ((uint32_t)((x >> b) & 1) << s);
    }
}
template <typename T, std::size_t N>
static void put(VlUnpacked<T, N> &v, int h, unsigned, uint64_t x) { v[h] = (T)x; }

template <typename T>
static uint64_t get(const T &v, int h, unsigned width)
{
    uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
    return ((uint64_t)v >> (h * width)) & mask;
}
template <std::size_t W>
static uint64_t get(const VlWide<W> &v, int h, unsigned width)
{
    uint64_t x = 0;
    for (unsigned b = 0; b < width; b++) {
        unsigned bit = h * width + b;
        x |= (uint64_t)((v[bit / 32] >> (bit % 32)) & 1) << b;
    }
    return x;
}
template <typename T, std::size_t N>
static uint64_t get(const VlUnpacked<T, N> &v, int h, unsigned) { return (uint64_t)v[h]; }

EmuRtl::EmuRtl() : ctx_(new VerilatedContext), top_(new Vmf_engine(ctx_.get())) {}
EmuRtl::~EmuRtl() { top_->final(); }

int EmuRtl::nhost() const { return MF_EMU_NHOST; }

void EmuRtl::reset()
{
    top_->clk = 0;
    top_->rst_n = 0;
    for (int i = 0; i < 8; i++) {
        top_->clk = !top_->clk;
        top_->eval();
    }
    top_->rst_n = 1;
    top_->clk = 0;
    top_->eval();
}

unsigned EmuRtl::cycle(std::vector<EmuHost *> &hosts)
{
    std::vector<bool> offered(hosts.size());
    unsigned moved = 0;
    for (size_t h = 0; h < hosts.size(); h++) {
        EmuBeat b{0, 0, false};
        offered[h] = hosts[h] && hosts[h]->peek_beat(b);
        put(top_->s_h2c_tvalid, (int)h, 1, offered[h]);
        put(top_->s_h2c_tdata, (int)h, 64, b.data);
        put(top_->s_h2c_tkeep, (int)h, 8, b.keep);
        put(top_->s_h2c_tlast, (int)h, 1, b.last);
        put(top_->m_c2h_tready, (int)h, 1, 1); // C2H bytes wait in software
    }
    top_->clk = 0;
    top_->eval(); // outputs settle for this cycle's inputs
    for (size_t h = 0; h < hosts.size(); h++) {
        if (offered[h] && get(top_->s_h2c_tready, (int)h, 1)) {
            if (trace_)
                fprintf(stderr, "emu %llu: h2c %zu %016llx keep %02llx%s\n",
                        (unsigned long long)cycles_, h,
                        (unsigned long long)get(top_->s_h2c_tdata, (int)h, 64),
                        (unsigned long long)get(top_->s_h2c_tkeep, (int)h, 8),
                        get(top_->s_h2c_tlast, (int)h, 1) ? " last" : "");
            hosts[h]->pop_beat();
            moved++;
        }
        if (get(top_->m_c2h_tvalid, (int)h, 1)) {
            EmuBeat b{get(top_->m_c2h_tdata, (int)h, 64),
                      (uint8_t)get(top_->m_c2h_tkeep, (int)h, 8),
                      get(top_->m_c2h_tlast, (int)h, 1) != 0};
            if (trace_)
                fprintf(stderr, "emu %llu: c2h %zu %016llx keep %02x%s\n",
                        (unsigned long long)cycles_, h, (unsigned long long)b.data, b.keep,
                        b.last ? " last" : "");
            if (hosts[h])
                hosts[h]->push_c2h(b);
            moved++;
        }
    }
    top_->clk = 1;
    top_->eval(); // the edge: every handshake above happens
    cycles_++;
    moved_ += moved;
    return moved;
}
