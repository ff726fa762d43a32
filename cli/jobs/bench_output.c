/* fxkit bench: what a run leaves behind. The table (stdout, last), the CSV (the issue's
 * fifteen columns first, then the stage times and checks), and the figure: a gnuplot
 * script with the data inline, run by gnuplot into an SVG or PNG. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* Columns of the table. */
#define COL_JOB 10
#define COL_CASE 34
#define COL_DEVICE 4
#define COL_TIME 26
#define COL_FLOOR 9
#define COL_PEER 13
#define COL_PEER_MS 10
#define COL_RATIO 8
/* Figure: pixels per bar group, and its smallest and largest width. */
#define PLOT_PX_PER_ROW 22
#define PLOT_MIN_WIDTH 800
#define PLOT_MAX_WIDTH 6000
#define PLOT_HEIGHT 600
#define PLOT_PNG_HEIGHT 700

static const char *type_of(const bench_row *row)
{
    return row->c->job == BENCH_NORMALIZE ? "f64" : "u8";
}

static const char *device_of(const bench_row *row)
{
    return row->gpu ? "gpu" : "cpu";
}

void bench_print_table(FILE *out, const bench_rows *rows)
{
    fprintf(out, "%-*s %-*s %-*s %-*s %*s %-*s %*s %*s  %s\n", COL_JOB, "job", COL_CASE, "case",
            COL_DEVICE, "dev", COL_TIME, "fxkit ms (min-max)", COL_FLOOR, "floor ms", COL_PEER,
            "peer", COL_PEER_MS, "peer ms", COL_RATIO, "ratio", "verified");
    for (size_t i = 0; i < rows->count; i++) {
        const bench_row *r = &rows->rows[i];
        char time[64] = "-", floor_ms[32] = "", peer_ms[32] = "", ratio[32] = "";
        if (r->floor_ms > 0) snprintf(floor_ms, sizeof floor_ms, "%.3f", r->floor_ms);
        if (r->ran)
            snprintf(time, sizeof time, "%.3f (%.3f-%.3f)", r->fx.median, r->fx.min, r->fx.max);
        if (r->has_peer) {
            snprintf(peer_ms, sizeof peer_ms, "%.3f", r->peer_t.median);
            if (r->ran && r->fx.median > 0)
                snprintf(ratio, sizeof ratio, "%.2fx", r->peer_t.median / r->fx.median);
        }
        fprintf(out, "%-*s %-*s %-*s %-*s %*s %-*s %*s %*s  %s\n", COL_JOB,
                bench_job_name(r->c->job), COL_CASE, r->c->name, COL_DEVICE, device_of(r), COL_TIME,
                time, COL_FLOOR, floor_ms, COL_PEER, r->has_peer ? r->peer : "", COL_PEER_MS,
                peer_ms, COL_RATIO, ratio, r->verified ? "yes" : "NO");
    }
    fprintf(out, "\nratio = peer ms / fxkit ms (above 1: fxkit is faster). floor = the bytes moved "
                 "at this machine's memory-copy rate (io: page-cache rate; CPU rows). GPU rows: "
                 "fxkit ms is the device-resident kernel; the CSV has the transfers.\n");
}

/* A number column, empty when the value does not apply. */
static void number(FILE *f, double v, bool present)
{
    if (present)
        fprintf(f, ",%.4f", v);
    else
        fputs(",", f);
}

static void csv_row(FILE *f, const bench_row *r)
{
    const bench_case *c = r->c;
    fprintf(f, "%s,", bench_job_name(c->job));
    fxcli_csv_field(f, c->set);
    fputc(',', f);
    fxcli_csv_field(f, c->name);
    fprintf(f, ",%s,%d,%d,%d,%s", device_of(r), c->width, c->height, c->channels, type_of(r));
    number(f, r->fx.median, r->ran);
    number(f, r->fx.min, r->ran);
    number(f, r->fx.max, r->ran);
    fputc(',', f);
    fxcli_csv_field(f, r->has_peer ? r->peer : "");
    number(f, r->peer_t.median, r->has_peer);
    number(f, r->ran && r->fx.median > 0 ? r->peer_t.median / r->fx.median : 0,
           r->has_peer && r->ran && r->fx.median > 0);
    fprintf(f, ",%s,", r->verified ? "yes" : "no");
    /* extra columns */
    fxcli_csv_field(f, r->strategy);
    number(f, r->kernel_ms, r->ran && c->job != BENCH_IO);
    number(f, r->upload_ms, r->ran && r->gpu && c->job != BENCH_NORMALIZE);
    number(f, r->download_ms, r->ran && r->gpu && c->job != BENCH_NORMALIZE);
    number(f, r->decode_ms, r->ran && c->job == BENCH_IO && c->io_op == BENCH_IO_READ);
    number(f, r->encode_ms, r->ran && c->job == BENCH_IO && c->io_op == BENCH_IO_WRITE);
    number(f, r->max_diff, r->max_diff >= 0);
    fputc(',', f);
    fxcli_csv_field(f, r->verify);
    const bool audio = c->job == BENCH_NORMALIZE;
    number(f, c->seconds, audio);
    fputc(',', f);
    if (audio && c->frame_samples) fprintf(f, "%d", c->frame_samples);
    fputc(',', f);
    if (audio && c->window) fprintf(f, "%d", c->window);
    number(f, r->stages.analyze_ms, r->has_stages);
    number(f, r->stages.min_filter_ms, r->has_stages);
    number(f, r->stages.gauss_ms, r->has_stages);
    number(f, r->stages.gain_ms, r->has_stages);
    number(f, r->floor_ms, r->floor_ms > 0);
    fputc(',', f);
    fxcli_csv_field(f, r->note);
    fputc('\n', f);
}

int bench_write_csv(const char *path, const bench_rows *rows)
{
    FILE *f = fopen(path, "w");
    if (!f) return errno;
    fprintf(f, "%s,strategy,kernel_ms,upload_ms,download_ms,decode_ms,encode_ms,max_diff,verify,"
               "seconds,frame_samples,window,analyze_ms,min_filter_ms,gauss_ms,gain_ms,floor_ms,note\n",
            BENCH_CSV_HEADER);
    for (size_t i = 0; i < rows->count; i++)
        csv_row(f, &rows->rows[i]);
    int err = ferror(f) ? EIO : 0;
    if (fclose(f) && !err) err = errno;
    return err;
}

/* The gnuplot program: FXKIT_GNUPLOT, else gnuplot on PATH. NULL when neither is there. */
static const char *find_gnuplot(char *buf, size_t size)
{
    const char *env = getenv("FXKIT_GNUPLOT");
    if (env && *env) return access(env, X_OK) == 0 ? env : NULL;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(buf, size, "%.*s/gnuplot", (int)n, p);
        if (n && access(buf, X_OK) == 0) return buf;
        p += n + (p[n] == ':');
    }
    return NULL;
}

/* Label of a bar group: the case, its device and the peer it is compared with. */
static void label(FILE *f, const bench_row *r)
{
    fprintf(f, "\"%s %s %s%s%s\"", bench_job_name(r->c->job), r->c->name, device_of(r),
            r->has_peer ? " vs " : "", r->has_peer ? r->peer : "");
}

static int write_script(FILE *f, const char *plot_path, const bench_rows *rows)
{
    const bool png = !strcmp(fxcli_path_extension(plot_path), "png");
    size_t n = 0;
    for (size_t i = 0; i < rows->count; i++)
        n += rows->rows[i].ran;
    long width = (long)(n * PLOT_PX_PER_ROW);
    width = width < PLOT_MIN_WIDTH ? PLOT_MIN_WIDTH : width > PLOT_MAX_WIDTH ? PLOT_MAX_WIDTH : width;
    const char *set = rows->count ? rows->rows[0].c->set : "";
    if (png)
        fprintf(f, "set terminal pngcairo size %ld,%d noenhanced font 'sans,9'\n", width,
                PLOT_PNG_HEIGHT);
    else
        fprintf(f, "set terminal svg size %ld,%d noenhanced font 'sans,9' background 'white'\n",
                width, PLOT_HEIGHT);
    fprintf(f, "set output '%s'\n", plot_path);
    fprintf(f, "set title \"fxkit bench, set '%s': median ms (bars), fxkit beside its peer; "
               "lower is faster\"\n",
            set);
    fputs("set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset logscale y\n"
          "set ylabel 'ms (log scale)'\nset xtics rotate by -60 scale 0 font ',7'\n"
          "set key top left\nset grid ytics\nset datafile missing 'NaN'\n"
          "set bmargin 18\n$data << EOD\n",
          f);
    for (size_t i = 0; i < rows->count; i++) {
        const bench_row *r = &rows->rows[i];
        if (!r->ran) continue;
        label(f, r);
        fprintf(f, " %.6f ", r->fx.median);
        if (r->has_peer)
            fprintf(f, "%.6f\n", r->peer_t.median);
        else
            fputs("NaN\n", f);
    }
    fputs("EOD\nplot $data using 2:xtic(1) title 'fxkit' lc rgb '#1f77b4', "
          "'' using 3 title 'peer' lc rgb '#ff7f0e'\n",
          f);
    return ferror(f) ? EIO : 0;
}

int bench_plot(const char *plot_path, const char *csv_path, const bench_rows *rows, char *err,
               size_t size)
{
    (void)csv_path;
    char found[PATH_MAX];
    const char *gnuplot = find_gnuplot(found, sizeof found);
    if (!gnuplot) {
        snprintf(err, size,
                 "--plot needs gnuplot, which is not installed: apt-get install gnuplot-nox "
                 "(or `make deps`, which runs scripts/install-deps.sh)%s",
                 csv_path ? "; the CSV was written" : "");
        return 1;
    }
    const char *base = getenv("TMPDIR");
    char script[PATH_MAX];
    snprintf(script, sizeof script, "%s/fxkit-bench-plot-XXXXXX", base && *base ? base : "/tmp");
    int fd = mkstemp(script);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        snprintf(err, size, "--plot: cannot write a gnuplot script: %s", strerror(errno));
        if (fd >= 0) close(fd), unlink(script);
        return 1;
    }
    int werr = write_script(f, plot_path, rows);
    if (fclose(f) && !werr) werr = errno;
    char output[FXCLI_MESSAGE_MAX] = "";
    char *argv[] = {(char *)gnuplot, script, NULL};
    int rc = werr ? -1 : bench_spawn(argv, output, sizeof output);
    unlink(script);
    if (rc != 0) {
        size_t len = strlen(output);
        while (len && output[len - 1] == '\n')
            output[--len] = '\0';
        snprintf(err, size, "--plot: gnuplot failed (exit %d): %s", rc,
                 werr ? strerror(werr) : output);
        return 1;
    }
    return 0;
}
