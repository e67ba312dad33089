/* Minimal TAP producer for the C unit tests (run by automake's tap-driver). */
#ifndef MF_TAP_H
#define MF_TAP_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

static inline int tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    if (!cond)
        tap_failed++;
    return cond;
}
#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)
#define diag(...) (printf("# " __VA_ARGS__), printf("\n"))
static inline int tap_done(void)
{
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}
#endif
