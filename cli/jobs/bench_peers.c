/* fxkit bench: the peers, other tools run on the same inputs on the same machine. Every
 * peer goes through one driver, bench/peers.py, which times it in its own process (warm,
 * the case's repeats, median/min/max) and writes its output for this side to compare:
 *   PYTHON peers.py probe                     one line per peer: NAME yes VERSION | NAME no WHY
 *   PYTHON peers.py run PEER JOB --in F --out F --repeat N [case options]
 *                                             RESULT MEDIAN MIN MAX | SKIP WHY (exit 0)
 * The driver is found through FXKIT_BENCH_PEERS, then the installed share/fxkit/peers.py,
 * then the source tree this program was built from. Python peers use the first of
 * FXKIT_PYTHON (alone, when set), python3 on PATH and /usr/bin/python3 that imports the
 * peer's module; the CLI peers (vips, ImageMagick, ffmpeg) any of them with numpy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#ifndef FXKIT_BENCH_SOURCE_PEERS
#define FXKIT_BENCH_SOURCE_PEERS ""
#endif
#ifndef FXKIT_BENCH_INSTALLED_PEERS
#define FXKIT_BENCH_INSTALLED_PEERS ""
#endif

/* What a peer's run or a probe may print that we read. */
#define SPAWN_OUTPUT_MAX 65536
#define MAX_PYTHONS 3
#define MAX_ARGS 32

typedef enum peer_id {
    PEER_OPENCV,
    PEER_SKIMAGE,
    PEER_TORCH,
    PEER_CUPY,
    PEER_VIPS,
    PEER_MAGICK,
    PEER_FFMPEG,
    PEER_COUNT
} peer_id;

static const char *const peer_names[PEER_COUNT] = {"opencv", "scikit-image", "pytorch", "cupy",
                                                   "vips",   "imagemagick",  "ffmpeg"};
/* GPU peers run beside GPU rows only. */
static const bool peer_gpu[PEER_COUNT] = {false, false, true, true, false, false, false};

struct bench_peers {
    char driver[PATH_MAX];
    const char *python[PEER_COUNT]; /* NULL: missing */
    char *pythons[MAX_PYTHONS];
};

int bench_spawn(char *const argv[], char *out, size_t size)
{
    int fd[2];
    if (pipe(fd)) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fd[1], STDOUT_FILENO);
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    size_t used = 0;
    char sink[4096];
    for (;;) {
        char *dst = used + 1 < size ? out + used : sink;
        size_t room = used + 1 < size ? size - 1 - used : sizeof sink;
        ssize_t got = read(fd[0], dst, room);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (dst != sink) used += (size_t)got;
    }
    if (size) out[used] = '\0';
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool readable(const char *path)
{
    return path && *path && access(path, R_OK) == 0;
}

static bool find_driver(char *dst, size_t size)
{
    const char *candidates[] = {getenv("FXKIT_BENCH_PEERS"), FXKIT_BENCH_INSTALLED_PEERS,
                                FXKIT_BENCH_SOURCE_PEERS};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
        if (readable(candidates[i])) {
            snprintf(dst, size, "%s", candidates[i]);
            return true;
        }
    return false;
}

/* Record, for each peer this python has, the python (first one wins). */
static void probe(bench_peers *p, const char *python, char *why[PEER_COUNT])
{
    char *out = malloc(SPAWN_OUTPUT_MAX);
    if (!out) return;
    char *argv[] = {(char *)python, p->driver, "probe", NULL};
    int rc = bench_spawn(argv, out, SPAWN_OUTPUT_MAX);
    if (rc != 0) out[0] = '\0';
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char name[32], answer[8];
        int used = 0;
        if (sscanf(line, "%31s %7s %n", name, answer, &used) < 2) continue;
        for (int i = 0; i < PEER_COUNT; i++) {
            if (strcmp(name, peer_names[i]) || p->python[i]) continue;
            if (!strcmp(answer, "yes")) {
                p->python[i] = python;
            } else if (!why[i]) {
                why[i] = strdup(line + used);
            }
        }
    }
    free(out);
}

bench_peers *bench_peers_open(const char *tmpdir, bool want_gpu)
{
    (void)tmpdir;
    bench_peers *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (!find_driver(p->driver, sizeof p->driver)) {
        fxcli_note("bench: no peers: bench/peers.py not found (set FXKIT_BENCH_PEERS to it)");
        free(p);
        return NULL;
    }
    const char *env = getenv("FXKIT_PYTHON");
    const char *list[MAX_PYTHONS] = {env && *env ? env : "python3", env && *env ? NULL : "/usr/bin/python3"};
    char *why[PEER_COUNT] = {0};
    size_t n = 0;
    for (size_t i = 0; i < MAX_PYTHONS && list[i]; i++) {
        if (!(p->pythons[n] = strdup(list[i]))) break;
        probe(p, p->pythons[n], why);
        n++;
    }
    for (int i = 0; i < PEER_COUNT; i++) {
        if (!p->python[i] && (want_gpu || !peer_gpu[i]))
            fxcli_note("bench: peer %s skipped: %s", peer_names[i],
                       why[i] ? why[i] : "no python3 with numpy found (FXKIT_PYTHON names one)");
        free(why[i]);
    }
    return p;
}

void bench_peers_free(bench_peers *p)
{
    if (!p) return;
    for (int i = 0; i < MAX_PYTHONS; i++)
        free(p->pythons[i]);
    free(p);
}

size_t bench_peers_for(const bench_peers *p, const bench_case *c, bool gpu, const char **names,
                       size_t max)
{
    static const peer_id by_job[BENCH_JOB_COUNT][PEER_COUNT + 1] = {
        [BENCH_FILTER] = {PEER_OPENCV, PEER_SKIMAGE, PEER_VIPS, PEER_MAGICK, PEER_TORCH, PEER_CUPY,
                          PEER_COUNT},
        [BENCH_EQUALIZE] = {PEER_OPENCV, PEER_SKIMAGE, PEER_VIPS, PEER_MAGICK, PEER_TORCH,
                            PEER_CUPY, PEER_COUNT},
        [BENCH_NORMALIZE] = {PEER_FFMPEG, PEER_COUNT},
        [BENCH_IO] = {PEER_OPENCV, PEER_VIPS, PEER_MAGICK, PEER_COUNT},
    };
    size_t n = 0;
    for (const peer_id *id = by_job[c->job]; *id != PEER_COUNT && n < max; id++)
        if (p->python[*id] && peer_gpu[*id] == gpu) names[n++] = peer_names[*id];
    return n;
}

bool bench_peer_exact(const char *peer, const bench_case *c)
{
    switch (c->job) {
    case BENCH_FILTER: return !strcmp(peer, "opencv");
    case BENCH_EQUALIZE:
        /* equalizeHist, the YCrCb pipeline and createCLAHE; OpenCV's HSV round trip is not */
        return !strcmp(peer, "opencv") &&
               (c->adaptive || c->channels == 1 || c->space == FX_EQ_SPACE_LUMA);
    case BENCH_NORMALIZE: return !strcmp(peer, "ffmpeg") && !c->danpi;
    case BENCH_IO: return c->format != FX_IMAGE_JPEG; /* lossless formats: every decoder agrees */
    default: return false;
    }
}

static const char *const space_names[] = {"gray", "hsv", "luma", "rgb", "hsv-float"};

bool bench_peer_run(bench_peers *p, const char *peer, const bench_case *c, int repeat,
                    const char *in_path, const char *out_path, bench_row *row)
{
    int id = 0;
    while (id < PEER_COUNT && strcmp(peer, peer_names[id]))
        id++;
    if (id == PEER_COUNT || !p->python[id]) return false;
    char rep[16], num[3][32];
    snprintf(rep, sizeof rep, "%d", repeat);
    char *argv[MAX_ARGS] = {(char *)p->python[id], p->driver, "run", (char *)peer,
                            (char *)bench_job_name(c->job), "--in", (char *)in_path, "--out",
                            (char *)out_path, "--repeat", rep};
    int n = 11;
    switch (c->job) {
    case BENCH_FILTER:
        argv[n++] = "--kernel";
        argv[n++] = (char *)c->kernel;
        break;
    case BENCH_EQUALIZE:
        argv[n++] = "--space";
        argv[n++] = (char *)space_names[c->space];
        if (c->adaptive) argv[n++] = "--adaptive";
        break;
    case BENCH_NORMALIZE:
        snprintf(num[0], sizeof num[0], "%d", c->rate);
        argv[n++] = "--rate";
        argv[n++] = num[0];
        if (c->danpi) argv[n++] = "--danpi";
        break;
    case BENCH_IO:
        argv[n++] = "--op";
        argv[n++] = c->io_op == BENCH_IO_WRITE ? "write" : "read";
        argv[n++] = "--format";
        argv[n++] = c->format == FX_IMAGE_PNM ? "ppm" : (char *)fx_image_format_name(c->format);
        break;
    default: break;
    }
    argv[n] = NULL;
    char *out = malloc(SPAWN_OUTPUT_MAX);
    if (!out) return false;
    int rc = bench_spawn(argv, out, SPAWN_OUTPUT_MAX);
    const char *result = strstr(out, "RESULT ");
    bench_stats s;
    bool ok = false;
    if (rc == 0 && result && sscanf(result, "RESULT %lf %lf %lf", &s.median, &s.min, &s.max) == 3) {
        snprintf(row->peer, sizeof row->peer, "%s", peer);
        row->peer_t = s;
        row->has_peer = true;
        ok = true;
    } else if (rc != 0 || !strstr(out, "SKIP")) {
        size_t len = strlen(out);
        while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
            out[--len] = '\0';
        const char *last = strrchr(out, '\n');
        fxcli_note("bench: peer %s on %s %s failed: %s", peer, bench_job_name(c->job), c->name,
                   last ? last + 1 : out);
    }
    free(out);
    return ok;
}
