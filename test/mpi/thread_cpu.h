/*
 * This thread's CPU clock, for the MPI test programs that charge host work
 * to modeled time (modeled_time.c, nb_coll.c, vclock_app.c): modeled time
 * runs on the thread's CPU time outside offloaded calls (src/intercept/
 * wtime.c), so host work is measured and spent on the same clock.
 */
#ifndef MF_TEST_THREAD_CPU_H
#define MF_TEST_THREAD_CPU_H

#include <time.h>

/* This thread's CPU time in seconds; -1 if the clock cannot be read. */
static inline double thread_cpu_s(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
        return -1;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Independent host work: spend `s` seconds of this thread's CPU time in
 * arithmetic (nothing, not even a clock read, when s <= 0). */
static inline void burn_cpu_s(double s)
{
    if (s <= 0)
        return; /* no clock read either: a caller may time this call */
    double start = thread_cpu_s();
    if (start < 0)
        return; /* an unreadable clock would never reach the end */
    volatile double x = 1;
    double end = start + s;
    while (thread_cpu_s() < end)
        for (int i = 0; i < 200; i++)
            x = x * 1.0000001 + 1e-9;
}

/* qsort order for doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
