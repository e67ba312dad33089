/*
 * Corpus replay for `make check` (gcc, no libFuzzer): runs a fuzz
 * harness's LLVMFuzzerTestOneInput on every file of its corpus,
 * $top_srcdir/test/fuzz/corpus/FUZZ_TARGET/ (or the files / directories
 * named on the command line), and on simple variants of each: every
 * prefix, and every byte inverted.  A harness aborts on a broken
 * invariant, which fails the test; one TAP line per corpus file.
 */
#include <dirent.h>
#include <string.h>

#include "fuzz.h"
#include "tap.h"

#define VARIANT_MAX_BYTES 4096 /* larger files: the file only */

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long len = ftell(f);
        if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) &&
            fread(buf, 1, (size_t)len, f) != (size_t)len) {
            free(buf);
            buf = NULL;
        }
        *n = len >= 0 ? (size_t)len : 0;
    }
    fclose(f);
    return buf;
}

/* The input, its prefixes and its one-byte inversions; returns how many ran. */
static unsigned run_variants(const uint8_t *buf, size_t n)
{
    unsigned runs = 1;
    LLVMFuzzerTestOneInput(buf, n);
    if (n > VARIANT_MAX_BYTES)
        return runs;
    for (size_t len = 0; len < n; len++, runs++) {
        uint8_t *prefix = malloc(len ? len : 1); /* exact size: overreads show */
        if (!prefix)
            return runs;
        memcpy(prefix, buf, len);
        LLVMFuzzerTestOneInput(prefix, len);
        free(prefix);
    }
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        return runs;
    for (size_t i = 0; i < n; i++, runs++) {
        memcpy(copy, buf, n);
        copy[i] ^= 0xff;
        LLVMFuzzerTestOneInput(copy, n);
    }
    free(copy);
    return runs;
}

static int replay_file(const char *path)
{
    size_t n = 0;
    uint8_t *buf = read_file(path, &n);
    if (!ok(buf != NULL, "read %s", path))
        return 0;
    unsigned runs = run_variants(buf, n);
    ok(1, "%s: %zu bytes, %u inputs, invariants held", path, n, runs);
    free(buf);
    return 1;
}

/* Every regular file of dir (sorted: the output is stable). */
static int replay_dir(const char *dir)
{
    struct dirent **names;
    int count = scandir(dir, &names, NULL, alphasort), files = 0;
    if (count < 0)
        return 0;
    for (int i = 0; i < count; i++) {
        char path[4096];
        if (names[i]->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
            files += replay_file(path);
        }
        free(names[i]);
    }
    free(names);
    return files;
}

int main(int argc, char **argv)
{
    int files = 0;
    if (argc > 1) {
        for (int i = 1; i < argc; i++) {
            DIR *d = opendir(argv[i]);
            if (d)
                closedir(d);
            files += d ? replay_dir(argv[i]) : replay_file(argv[i]);
        }
    } else {
        const char *top = getenv("top_srcdir");
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/test/fuzz/corpus/%s", top ? top : ".", FUZZ_TARGET);
        files = replay_dir(dir);
        ok(files > 0, "corpus %s has inputs", dir);
    }
    return tap_done();
}
