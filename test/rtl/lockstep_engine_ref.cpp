// The C model's side of the engine lockstep (lockstep_engine.h): random
// communicators on a one-switch network of kEngHosts ranks (torus of one
// node, kEngHosts ranks on it: rank h = host port h), their CT rows set up
// and freed as the RTL's ports get them, and every call run through the
// real fpga_model (mf_coll_once) with the data the RTL gets.  Reduction data
// sums exactly in any order (small integers in float lanes, complex factors
// whose partial products keep both parts nonzero, pair pads zero), so the
// RTL's chain order and the model's schedule give the same bytes.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "lockstep.h"
#include "lockstep_engine.h"

extern "C" {
#include "coll/run.h"
#include "mpifpga/ct.h"
#include "net/topo.h"
#include "params/params.h"
}

namespace ls {

namespace {

mf_net_t *g_net;
mf_topo_t g_topo;
mf_params_t g_params;

bool model_up(std::string &err)
{
    if (g_net)
        return true;
    char e[256];
    mf_topo_spec_t spec;
    if (mf_params_load("u280", &g_params, e, sizeof e) || mf_topo_parse("torus", &spec, e, sizeof e) ||
        mf_topo_build(&spec, 1, kEngHosts, &g_topo, e, sizeof e) ||
        !(g_net = mf_net_create(&g_params, &g_topo, e, sizeof e))) {
        err = e;
        return false;
    }
    return true;
}

// One H2C packet: header, counts (padded), payload.
std::vector<uint8_t> h2c_packet(const mf_proc_hdr_t &h, const std::vector<uint32_t> &counts,
                                const std::vector<uint8_t> &payload)
{
    std::vector<uint8_t> p(MF_PROC_HDR_BYTES + mf_board_counts_bytes((unsigned)counts.size()) +
                           payload.size());
    size_t n = mf_board_h2c_pack(&h, counts.data(), (unsigned)counts.size(), payload.data(),
                                 payload.size(), p.data(), p.size());
    p.resize(n);
    return p;
}

void put_ct(EngScript &sc, int port, int opc, int ctx, const uint8_t *entry, size_t n, int status,
            int reason)
{
    mf_proc_hdr_t h = {};
    h.opcode = (uint8_t)opc;
    h.ctx = (uint8_t)ctx;
    h.size = (uint32_t)n;
    sc.port[port].push_back({h2c_packet(h, {}, std::vector<uint8_t>(entry, entry + n)), -1,
                             status, reason});
}

struct Comm {
    int ctx;
    std::vector<int> members;
};

// Small-integer lanes that every order of combination gives alike.
void fill_elem(int op, int dt, uint8_t *p)
{
    int v = (int)(rng() % 9) - 4;
    switch (dt) {
    case MF_DT_FLOAT:
    case MF_DT_DOUBLE:
        if (op == MF_OP_CPROD) { // (re, im) = (5 or 6, 1 or 2): arguments < 22 degrees
            double re = 5 + (double)(rng() % 2), im = 1 + (double)(rng() % 2);
            if (dt == MF_DT_FLOAT) {
                float f[2] = {(float)re, (float)im};
                memcpy(p, f, 8);
            } else {
                double d[2] = {re, im};
                memcpy(p, d, 16);
            }
        } else if (dt == MF_DT_FLOAT) {
            float f = (float)v;
            memcpy(p, &f, 4);
        } else {
            double d = v;
            memcpy(p, &d, 8);
        }
        return;
    case MF_DT_FLOAT_INT:
    case MF_DT_DOUBLE_INT:
    case MF_DT_LONG_INT:
    case MF_DT_2INT:
    case MF_DT_SHORT_INT: {
        unsigned vb, io;
        mf_pair_layout((mf_dtype_t)dt, &vb, &io);
        memset(p, 0, mf_dtype_size((mf_dtype_t)dt)); // pads zero
        int32_t idx = (int32_t)(rng() % 4);
        if (dt == MF_DT_FLOAT_INT) {
            float f = (float)v;
            memcpy(p, &f, 4);
        } else if (dt == MF_DT_DOUBLE_INT) {
            double d = v;
            memcpy(p, &d, 8);
        } else {
            int64_t x = v; // little-endian: the low vb bytes are the value
            memcpy(p, &x, vb);
        }
        memcpy(p + io, &idx, 4);
        return;
    }
    default: // integers wrap alike in any order
        for (size_t i = 0; i < mf_dtype_size((mf_dtype_t)dt); i++)
            p[i] = (uint8_t)rng();
    }
}

std::vector<uint8_t> fill(const EngCall &c, size_t n)
{
    std::vector<uint8_t> v(n);
    if (!mf_opcode_reduces((unsigned)c.opc)) {
        for (auto &b : v)
            b = (uint8_t)rng();
        return v;
    }
    size_t es = mf_elem_bytes((mf_op_t)c.op, (mf_dtype_t)c.dt);
    for (size_t off = 0; off + es <= n; off += es) // a cprod element is one (re, im) pair
        fill_elem(c.op, c.dt, v.data() + off);
    return v;
}

// A random (op, dtype) pair the AgLU computes.
void pick_op(EngCall &c)
{
    do {
        c.op = (int)(rng() % MF_OP_COUNT);
        c.dt = (int)(rng() % MF_DT_COUNT);
    } while (!mf_op_valid_for((mf_op_t)c.op, (mf_dtype_t)c.dt));
}

// Element counts: none, one, odd, several beats.
size_t pick_elems()
{
    static const size_t kChoices[] = {0, 1, 3, 5, 7, 13, 21, 33};
    return kChoices[rng() % (sizeof kChoices / sizeof kChoices[0])];
}

// Runs c through the C model and fills want; the payloads go out as H2C.
bool run_call(EngScript &sc, EngCall &c, std::string &err)
{
    int P = (int)c.members.size();
    size_t es = mf_opcode_reduces((unsigned)c.opc) ? mf_elem_bytes((mf_op_t)c.op, (mf_dtype_t)c.dt) : 1;
    uint64_t total = 0;
    if (c.opc == MF_OPC_REDUCE_SCATTER) {
        for (int i = 0; i < P; i++)
            total += c.counts[i] = (uint32_t)(pick_elems() * es);
        c.size = (uint32_t)mf_osu_hdr_size(MF_OPC_REDUCE_SCATTER, total, P, es);
    } else if (c.opc != MF_OPC_BARRIER)
        c.size = (uint32_t)(pick_elems() * es);
    std::vector<std::vector<uint8_t>> send(P), recv(P);
    std::vector<mf_buf_t> sb(P), rb(P);
    c.want.assign(P, {});
    mf_proc_hdr_t h = {};
    h.opcode = (uint8_t)c.opc, h.ctx = (uint8_t)c.ctx, h.op = (uint8_t)c.op;
    h.dtype = (uint8_t)c.dt, h.root = (uint16_t)c.root, h.size = c.size;
    for (int i = 0; i < P; i++) {
        uint64_t s, r;
        if (mf_board_bytes(&h, (unsigned)P, (unsigned)i, c.counts.data(), &s, &r)) {
            err = "mf_board_bytes refused a call of the script";
            return false;
        }
        send[i] = fill(c, s);
        recv[i].assign(r + 1, 0xa5);
        sb[i] = {send[i].data(), (size_t)s, nullptr, nullptr, nullptr};
        rb[i] = {recv[i].data(), (size_t)r, nullptr, nullptr, nullptr};
    }
    mf_coll_spec_t spec = {};
    spec.opc = (mf_opcode_t)c.opc, spec.op = (mf_op_t)c.op, spec.dtype = (mf_dtype_t)c.dt;
    spec.root = c.root, spec.ctx = c.ctx;
    spec.bytes = c.opc == MF_OPC_REDUCE_SCATTER ? total : c.size;
    spec.counts = c.opc == MF_OPC_REDUCE_SCATTER ? c.counts.data() : nullptr;
    mf_coll_timing_t t;
    char e[256];
    if (mf_coll_once(g_net, &spec, P, c.members.data(), sb.data(), rb.data(), mf_net_now(g_net),
                     nullptr, &t, e, sizeof e)) {
        err = std::string("C model: ") + e;
        return false;
    }
    c.model_cycles = t.max_cycles;
    for (int i = 0; i < P; i++) {
        c.want[i].assign(recv[i].begin(), recv[i].end() - 1);
        sc.port[c.members[i]].push_back({h2c_packet(h, c.counts, send[i]),
                                         (int)sc.calls.size(), 0, 0});
    }
    return true;
}

// A call every member answers without the model: an opcode the engine does
// not run (scan), all members told MF_BOARD_UNSUPPORTED.
void unsupported_call(EngScript &sc, const Comm &cm)
{
    EngCall c = {};
    c.opc = MF_OPC_SCAN, c.op = MF_OP_SUM, c.dt = MF_DT_INT32, c.ctx = cm.ctx;
    c.members = cm.members;
    c.size = 8;
    c.status = MF_BOARD_UNSUPPORTED;
    c.want.assign(cm.members.size(), {});
    mf_proc_hdr_t h = {};
    h.opcode = MF_OPC_SCAN, h.ctx = (uint8_t)cm.ctx, h.dtype = MF_DT_INT32, h.size = 8;
    for (int p : cm.members)
        sc.port[p].push_back({h2c_packet(h, {}, std::vector<uint8_t>(8, 7)),
                              (int)sc.calls.size(), 0, 0});
    sc.calls.push_back(c);
}

// A call whose members disagree (mf_engine checks the headers but alg, and
// reduce_scatter's counts): every member is told MF_BOARD_MALFORMED.
void disagreeing_call(EngScript &sc, const Comm &cm)
{
    EngCall c = {};
    bool rs = rng() % 2;
    c.opc = rs ? MF_OPC_REDUCE_SCATTER : MF_OPC_ALLREDUCE;
    c.op = MF_OP_SUM, c.dt = MF_DT_INT32, c.ctx = cm.ctx, c.size = 8;
    c.members = cm.members;
    c.status = MF_BOARD_MALFORMED;
    c.want.assign(cm.members.size(), {});
    size_t P = cm.members.size();
    for (size_t i = 0; i < P; i++) {
        bool odd = i == P - 1; // the last member differs: op, or its counts
        mf_proc_hdr_t h = {};
        h.opcode = (uint8_t)c.opc, h.ctx = (uint8_t)cm.ctx, h.dtype = MF_DT_INT32, h.size = 8;
        h.op = odd && !rs ? MF_OP_MAX : MF_OP_SUM;
        std::vector<uint32_t> counts(rs ? P : 0, 8);
        if (rs && odd)
            counts[0] = 16;
        size_t n = 8;
        if (rs)
            n = 8 * P + (odd ? 8 : 0);
        sc.port[cm.members[i]].push_back({h2c_packet(h, counts, std::vector<uint8_t>(n, 3)),
                                          (int)sc.calls.size(), 0, 0});
    }
    sc.calls.push_back(c);
}

bool create_comm(EngScript &sc, std::vector<Comm> &live, bool used[][MF_MAX_CTX],
                 std::string &err, size_t min_size = 1)
{
    Comm cm;
    std::vector<int> hosts;
    for (int h = 0; h < kEngHosts; h++)
        hosts.push_back(h);
    std::shuffle(hosts.begin(), hosts.end(), rng);
    hosts.resize(min_size + rng() % (kEngHosts + 1 - min_size));
    do
        cm.ctx = (int)(rng() % MF_MAX_CTX);
    while (std::any_of(hosts.begin(), hosts.end(), [&](int h) { return used[h][cm.ctx]; }));
    cm.members = hosts;
    char e[256];
    if (mf_comm_setup(g_net, cm.ctx, (int)hosts.size(), hosts.data(), e, sizeof e)) {
        err = std::string("C model CT config: ") + e;
        return false;
    }
    for (size_t i = 0; i < hosts.size(); i++) {
        mf_ct_entry_t ent;
        uint8_t buf[256];
        if (mf_ct_entry_build((int)hosts.size(), (int)i, hosts.data(), &ent, e, sizeof e)) {
            err = e;
            return false;
        }
        size_t n = mf_ct_entry_pack(&ent, buf, sizeof buf);
        put_ct(sc, hosts[i], MF_OPC_CT_CONFIG, cm.ctx, buf, n, MF_BOARD_OK, 0);
        used[hosts[i]][cm.ctx] = true;
    }
    live.push_back(cm);
    return true;
}

void free_comm(EngScript &sc, std::vector<Comm> &live, size_t k, bool used[][MF_MAX_CTX])
{
    for (int h : live[k].members) {
        mf_net_ct_free(g_net, h, live[k].ctx);
        put_ct(sc, h, MF_OPC_CT_FREE, live[k].ctx, nullptr, 0, MF_BOARD_OK, 0);
        used[h][live[k].ctx] = false;
    }
    live.erase(live.begin() + (long)k);
}

} // namespace

void engine_script(int ncalls, EngScript &sc, std::string &err)
{
    if (!model_up(err))
        return;
    std::vector<Comm> live;
    bool used[kEngHosts][MF_MAX_CTX] = {};
    // a CT-free of a row never set is refused (mf_ct: 9, unset) on port 0
    put_ct(sc, 0, MF_OPC_CT_FREE, 31, nullptr, 0, MF_BOARD_CT_REFUSED, 9);
    for (int i = 0; i < ncalls; i++) {
        if ((live.size() < 3 || rng() % 5 == 0) && !create_comm(sc, live, used, err))
            return;
        if (live.size() > 1 && rng() % 6 == 0)
            free_comm(sc, live, rng() % live.size(), used);
        const Comm &cm = live[rng() % live.size()];
        if (i == ncalls - 1) { // one call the engine does not run
            unsupported_call(sc, cm);
            continue;
        }
        if (i == ncalls / 2) { // one whose members disagree, on a new communicator
            if (!create_comm(sc, live, used, err, 2))
                return;
            disagreeing_call(sc, live.back());
            continue;
        }
        EngCall c = {};
        c.opc = MF_OPC_BARRIER + i % 8; // all eight in turn
        c.op = MF_OP_SUM, c.dt = MF_DT_UINT8;
        if (mf_opcode_reduces((unsigned)c.opc))
            pick_op(c);
        c.ctx = cm.ctx;
        c.members = cm.members;
        c.root = (int)(rng() % cm.members.size());
        c.counts.assign(c.opc == MF_OPC_REDUCE_SCATTER ? cm.members.size() : 0, 0);
        c.status = MF_BOARD_OK;
        if (!run_call(sc, c, err))
            return;
        sc.calls.push_back(c);
    }
    while (!live.empty())
        free_comm(sc, live, 0, used);
    // a call on a row never set: malformed, on port 1 alone
    mf_proc_hdr_t h = {};
    h.opcode = MF_OPC_ALLREDUCE, h.ctx = 30, h.dtype = MF_DT_INT32, h.size = 4;
    EngCall bad = {};
    bad.opc = MF_OPC_ALLREDUCE, bad.ctx = 30, bad.members = {1}, bad.size = 4;
    bad.status = MF_BOARD_MALFORMED;
    bad.want.assign(1, {});
    sc.port[1].push_back({h2c_packet(h, {}, std::vector<uint8_t>(4, 1)), (int)sc.calls.size(), 0, 0});
    sc.calls.push_back(bad);
}

void engine_model_done()
{
    if (g_net)
        mf_net_destroy(g_net);
    g_net = nullptr;
}

} // namespace ls
