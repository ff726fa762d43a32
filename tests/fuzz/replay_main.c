/* Replay main for the fuzz targets: runs every file of a folder (argv[1])
 * through LLVMFuzzerTestOneInput once, so the seed corpus runs as an ordinary
 * test without libFuzzer. A crash or sanitizer report fails the test; otherwise
 * it prints "N passed, 0 failed". Files that cannot be read count as failed. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_PATH_MAX 4096

/* Read a whole file into a malloc'd buffer (never NULL on success, even when empty). */
static int read_file(const char *path, uint8_t **out, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        fclose(f);
        return -1;
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = malloc(n ? n : 1);
    int ok = buf && fread(buf, 1, n, f) == n;
    fclose(f);
    if (!ok) {
        free(buf);
        return -1;
    }
    *out = buf;
    *size = n;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        perror(argv[1]);
        return 1;
    }
    int passed = 0, failed = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char path[REPLAY_PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        uint8_t *data;
        size_t size;
        if (read_file(path, &data, &size) != 0) {
            fprintf(stderr, "cannot read %s\n", path);
            failed++;
            continue;
        }
        /* A copy of exactly `size` bytes, so ASan catches reads past the end. */
        LLVMFuzzerTestOneInput(data, size);
        free(data);
        passed++;
    }
    closedir(dir);
    printf("%d passed, %d failed\n", passed, failed);
    return failed || passed == 0 ? 1 : 0;
}
