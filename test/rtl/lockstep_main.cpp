// make rtl-check (doc/rtl.md): the AgLU and CGR RTL under Verilator in
// lockstep with the C model's AgLU, every (op, dtype) pair a case group of
// random messages, every output beat compared bit for bit (tdata, tkeep,
// tlast, terror).  Pairs the RTL does not compute must come out flagged
// (m_terror) with zero data.  Then the communicator table against ct.c
// (lockstep_ct.cpp), the collector against collector.c's mirror
// (lockstep_coll.cpp) and the collective engine against the C model's
// network (lockstep_engine.cpp).
//   rtl_lockstep [--seed N] [--messages N]
// Prints one TAP line per group and "# N PASS, M FAIL"; exit 1 on a FAIL.
#include <cstdio>
#include <cstdlib>

#include "lockstep.h"

using namespace ls;

namespace {

using Tally = TapCount;

const char *what(int op, int dt)
{
    if (rtl_builds(op, dt))
        return "computed";
    return mf_op_valid_for((mf_op_t)op, (mf_dtype_t)dt) ? "flagged (not built)" : "flagged (invalid)";
}

void verdict(Tally &t, const char *unit, int op, int dt, const std::vector<Message> &msgs, int bad,
             const char *note)
{
    size_t beats = 0;
    int both_nan = 0, nan_bad = 0;
    for (const Message &m : msgs) {
        beats += message_beats(m);
        both_nan += m.both_nan;
        nan_bad += m.nan_bad;
    }
    bad += nan_bad;
    char op_code[16], dt_code[16]; // names, or the code if it has none
    snprintf(op_code, sizeof op_code, "op-code-%d", op);
    snprintf(dt_code, sizeof dt_code, "dtype-code-%d", dt);
    printf("%s %d - %s %s %s: %zu beats %s%s", bad ? "not ok" : "ok", ++t.n, unit,
           op < MF_OP_COUNT ? mf_op_name((mf_op_t)op) : op_code,
           dt < MF_DT_COUNT ? mf_dtype_name((mf_dtype_t)dt) : dt_code, beats, what(op, dt), note);
    if (both_nan)
        printf(", %d lanes with a compiler-chosen NaN", both_nan);
    if (nan_bad)
        printf(", %d lanes of C off the rules", nan_bad);
    if (bad)
        printf(", %d differ", bad);
    printf("\n");
    bad ? t.fail++ : t.pass++;
}

std::vector<Message> messages_of(int op, int dt, int inputs, int count)
{
    std::vector<Message> msgs;
    for (int i = 0; i < count; i++)
        msgs.push_back(make_message(op, dt, inputs));
    return msgs;
}

} // namespace

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int count = 24;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], nullptr, 0);
        else if (!strcmp(argv[i], "--messages") && i + 1 < argc)
            count = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: rtl_lockstep [--seed N] [--messages N]\n");
            return 2;
        }
    }
    if (count < 1) {
        fprintf(stderr, "rtl_lockstep: --messages must be at least 1\n");
        return 2;
    }
    rng.seed(seed);
    Sim s;
    s.top.rst_n = 0;
    for (int i = 0; i < 3; i++)
        s.tick();
    s.top.rst_n = 1;

    const int groups = MF_OP_COUNT * MF_DT_COUNT;
    Tally t;
    // the 4-bit fields' codes that name no op / dtype must be flagged too
    const int undefined = (16 - MF_OP_COUNT) + (16 - MF_DT_COUNT);
    printf("1..%d\n# seed %llu, %d messages per group, %d-byte beats, CGR of %d inputs, "
           "%d CT packets per group\n",
           2 * groups + 1 + undefined + ct_group_count() + coll_group_count() +
               engine_group_count(count),
           (unsigned long long)seed, count, kBytes,
           kCgrInputs, 4 * count);
    for (int op = 0; op < MF_OP_COUNT; op++)
        for (int dt = 0; dt < MF_DT_COUNT; dt++) {
            std::vector<Message> msgs = messages_of(op, dt, 2, count);
            verdict(t, "aglu", op, dt, msgs, run_aglu(s, msgs), "");
        }
    for (int op = MF_OP_COUNT; op < 16; op++) {
        std::vector<Message> msgs = messages_of(op, MF_DT_INT32, 2, count);
        verdict(t, "aglu", op, MF_DT_INT32, msgs, run_aglu(s, msgs), "");
    }
    for (int dt = MF_DT_COUNT; dt < 16; dt++) {
        std::vector<Message> msgs = messages_of(MF_OP_SUM, dt, 2, count);
        verdict(t, "aglu", MF_OP_SUM, dt, msgs, run_aglu(s, msgs), "");
    }
    // the CGR: fewer messages per group, each is kCgrInputs streams
    int cgr_count = count / 2 > 0 ? count / 2 : 1;
    for (int op = 0; op < MF_OP_COUNT; op++)
        for (int dt = 0; dt < MF_DT_COUNT; dt++) {
            std::vector<Message> msgs = messages_of(op, dt, kCgrInputs, cgr_count);
            verdict(t, "cgr", op, dt, msgs, run_cgr(s, msgs, false), "");
        }
    std::vector<Message> msgs = messages_of(MF_OP_SUM, MF_DT_INT32, kCgrInputs, cgr_count);
    verdict(t, "cgr", MF_OP_SUM, MF_DT_INT32, msgs, run_cgr(s, msgs, true),
            ", one input's tkeep skewed on one beat of each message: flagged");
    run_ct(s, count, t);
    run_coll(s, count, t);
    run_engine(s, count, t);
    printf("# %llu cycles\n# %d PASS, %d FAIL\n", (unsigned long long)s.cycles, t.pass, t.fail);
    return t.fail ? 1 : 0;
}
