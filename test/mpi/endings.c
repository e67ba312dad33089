/*
 * A job to end badly (test/mpi_endings.sh):
 *   endings abort R   rank R calls MPI_Abort(MPI_COMM_WORLD, 3) after one
 *                     offloaded allreduce; the others wait in a barrier
 *   endings loop      every rank loops on offloaded allreduces until it is
 *                     killed (the driver kills a rank, the engine or the
 *                     launcher)
 * With ENDINGS_PIDS=DIR every rank records its pid and the engine's
 * (MPIFPGA_ENGINE_PID) there as empty files, so the driver can tell what
 * this job left behind from what concurrent tests did; the aborting rank
 * writes the wall-clock time of its MPI_Abort to DIR/abort.at, so the
 * driver times the ending from the abort, not from a start-up that a
 * loaded machine can stretch.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void note_pid(const char *dir, long pid)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%ld", dir, pid);
    FILE *f = fopen(path, "w");
    if (f)
        fclose(f);
}

/* DIR/abort.at: "SECONDS.NANOSECONDS", as date +%s.%N prints it */
static void note_abort_time(const char *dir)
{
    char path[512];
    struct timespec now;
    snprintf(path, sizeof path, "%s/abort.at", dir);
    clock_gettime(CLOCK_REALTIME, &now);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "%lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
    fclose(f);
}

int main(int argc, char **argv)
{
    int me;
    double x = 1, y = 0;
    const char *dir = getenv("ENDINGS_PIDS"), *engine = getenv("MPIFPGA_ENGINE_PID");
    if (dir) {
        note_pid(dir, (long)getpid());
        if (engine)
            note_pid(dir, atol(engine));
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (argc > 2 && !strcmp(argv[1], "abort") && me == atoi(argv[2])) {
        if (dir)
            note_abort_time(dir);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (argc > 1 && !strcmp(argv[1], "loop")) {
        char up[512];
        snprintf(up, sizeof up, "%s/up.%d", dir ? dir : ".", me);
        FILE *f = dir ? fopen(up, "w") : NULL; /* the job is up: kill it now */
        if (f)
            fclose(f);
        for (;;) {
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            usleep(5000);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
