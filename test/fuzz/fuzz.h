/*
 * Shared by the fuzz harnesses (test/fuzz/fuzz_*.c, doc/testing.md).  Each
 * harness defines LLVMFuzzerTestOneInput; it is linked either with
 * libFuzzer (clang -fsanitize=fuzzer: bench/fuzz.sh, `make fuzz`) or with
 * replay.c, which runs the checked-in corpus under `make check` (gcc).
 *
 * FUZZ_CHECK is the harness's invariant check (round trip, range): a
 * violation aborts, so libFuzzer records the input as a crash and the
 * replay's test fails.
 */
#ifndef MF_FUZZ_H
#define MF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, what)                                                         \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: invariant failed: %s (%s)\n", __FILE__, __LINE__,   \
                    what, #cond);                                                      \
            abort();                                                                   \
        }                                                                              \
    } while (0)

#endif
