/* --report FILE.json: what this process did with each of its items, for whoever
 * schedules the batch (a Slurm array, an MPI job) to read, retry and merge.
 *
 * One object per process: who ran (host, pid, shard and where it came from), with
 * what (device, workers, threads), the counts, the stage times summed, then every item
 * of the shard: done (with its sizes and stage times), failed or refused (with the
 * message), or existing (--skip-existing left it). Items of other shards are in their
 * own shard's report. The file is written through a temporary file and renamed, so a
 * report that exists is whole; "{shard}" in its name becomes the shard's K, so one command
 * line run by N processes writes N reports. docs/CLUSTER.md shows how to merge them.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Room for the host name (POSIX HOST_NAME_MAX is 255 on Linux). */
#define HOST_TEXT_MAX 256

static const char *status_of(const fxcli_item *item, const fxcli_item_record *record)
{
    switch (item->reason) {
    case FXCLI_SKIP_REFUSED: return "refused";
    case FXCLI_SKIP_EXISTING: return "existing";
    case FXCLI_SKIP_ELSEWHERE: return NULL;
    case FXCLI_SKIP_NONE: break;
    }
    if (!record) return "not run";
    switch (record->outcome) {
    case FXCLI_DONE: return "done";
    case FXCLI_FAILED: return "failed";
    case FXCLI_NOT_RUN: break;
    }
    return "not run";
}

static void stage(FILE *out, const char *name, double ms, bool last)
{
    fprintf(out, "\"%s\": ", name);
    fxcli_json_number(out, ms);
    fputs(last ? "" : ", ", out);
}

static void stages(FILE *out, const fx_timings *t)
{
    stage(out, "decode_ms", t->decode_ms, false);
    stage(out, "upload_ms", t->upload_ms, false);
    stage(out, "compute_ms", t->compute_ms, false);
    stage(out, "download_ms", t->download_ms, false);
    stage(out, "encode_ms", t->encode_ms, true);
}

static void write_item(FILE *out, const fxcli_item *item, const fxcli_item_record *record,
                       const char *status, bool first)
{
    fprintf(out, "%s\n    {\"input\": ", first ? "" : ",");
    fxcli_json_string(out, item->input);
    fputs(", \"output\": ", out);
    fxcli_json_string(out, item->output);
    fputs(", \"status\": ", out);
    fxcli_json_string(out, status);
    if (item->reason == FXCLI_SKIP_REFUSED) {
        fputs(", \"error\": ", out);
        fxcli_json_string(out, item->note ? item->note : "refused");
    } else if (record && record->outcome != FXCLI_NOT_RUN) {
        fputs(", \"device\": ", out);
        fxcli_json_string(out, record->device);
        if (record->outcome == FXCLI_FAILED) {
            fputs(", \"error\": ", out);
            fxcli_json_string(out, record->error ? record->error : "failed");
        } else {
            fprintf(out, ", \"width\": %lld, \"height\": %lld, \"channels\": %d, ",
                    (long long)record->width, (long long)record->height, record->channels);
            stages(out, &record->timings);
        }
        fputs(", \"total_ms\": ", out);
        fxcli_json_number(out, record->total_ms);
    }
    fputc('}', out);
}

static void add_timings(fx_timings *sum, const fx_timings *t)
{
    sum->decode_ms += t->decode_ms;
    sum->upload_ms += t->upload_ms;
    sum->compute_ms += t->compute_ms;
    sum->download_ms += t->download_ms;
    sum->encode_ms += t->encode_ms;
}

static void write_report(FILE *out, const fxcli_run *run, const fxcli_worklist *list,
                         const fxcli_item_record *records, const fxcli_run_summary *summary)
{
    size_t done = 0, failed = 0;
    fx_timings sum = {0};
    for (size_t i = 0; records && i < list->count; i++) {
        if (list->items[i].skip) continue;
        if (records[i].outcome == FXCLI_DONE) {
            done++;
            add_timings(&sum, &records[i].timings);
        } else if (records[i].outcome == FXCLI_FAILED) {
            failed++;
        }
    }
    char host[HOST_TEXT_MAX] = "";
    if (gethostname(host, sizeof host) != 0) host[0] = '\0';
    host[sizeof host - 1] = '\0';
    const fxcli_shard *shard = &run->shard;

    fputs("{\n  \"fxkit\": ", out);
    fxcli_json_string(out, fx_version());
    fputs(",\n  \"job\": ", out);
    fxcli_json_string(out, run->job->name);
    fputs(",\n  \"host\": ", out);
    fxcli_json_string(out, host);
    fprintf(out, ",\n  \"pid\": %ld,\n  \"started_unix_ms\": %lld,\n  \"wall_ms\": ",
            (long)getpid(), (long long)summary->started_unix_ms);
    fxcli_json_number(out, summary->wall_ms);
    fprintf(out, ",\n  \"shard\": {\"index\": %llu, \"count\": %llu, \"source\": ",
            (unsigned long long)shard->index, (unsigned long long)shard->count);
    fxcli_json_string(out, shard->source);
    fputs("},\n  \"device\": ", out);
    fxcli_json_string(out, run->common.device);
    fprintf(out, ",\n  \"workers\": %d,\n  \"threads_per_worker\": %d,\n  \"threads\": %d,\n",
            summary->workers, summary->threads_per_worker, summary->total_threads);
    fprintf(out,
            "  \"counts\": {\"items\": %zu, \"done\": %zu, \"failed\": %zu, \"refused\": %zu, "
            "\"existing\": %zu, \"not_run\": %zu},\n",
            fxcli_worklist_owned(list), done, failed, list->refused, list->existing,
            fxcli_worklist_runnable(list) - done - failed);
    fputs("  \"stage_ms\": {", out);
    stages(out, &sum);
    fputs("},\n  \"items\": [", out);
    bool first = true;
    for (size_t i = 0; i < list->count; i++) {
        const fxcli_item *item = &list->items[i];
        const fxcli_item_record *record = records && !item->skip ? &records[i] : NULL;
        const char *status = status_of(item, record);
        if (!status) continue;
        write_item(out, item, record, status, first);
        first = false;
    }
    fputs(first ? "]\n}\n" : "\n  ]\n}\n", out);
}

/* The path with every "{shard}" replaced by this process's K, so that the N processes
 * of one command line write N reports. False when it does not fit. */
static bool expand_path(const char *template, const fxcli_shard *shard, char *out, size_t size)
{
    static const char placeholder[] = "{shard}";
    size_t used = 0;
    for (const char *p = template; *p;) {
        int n;
        if (!strncmp(p, placeholder, sizeof placeholder - 1)) {
            n = snprintf(out + used, size - used, "%llu", (unsigned long long)shard->index);
            p += sizeof placeholder - 1;
        } else {
            n = snprintf(out + used, size - used, "%c", *p++);
        }
        if (n < 0 || (size_t)n >= size - used) return false;
        used += (size_t)n;
    }
    return true;
}

int fxcli_report_write(const char *template, const fxcli_run *run, const fxcli_worklist *list,
                       const fxcli_item_record *records, const fxcli_run_summary *summary)
{
    char path[sizeof((fxcli_temp *)0)->path];
    if (!expand_path(template, &run->shard, path, sizeof path)) return ENAMETOOLONG;
    fxcli_temp temp;
    /* Slot 0 of the temp-file registry: the workers that used it have finished. */
    int err = fxcli_temp_create(&temp, path, 0);
    if (err) return err;
    FILE *out = fopen(temp.path, "w");
    if (!out) {
        err = errno;
        fxcli_temp_discard(&temp);
        return err;
    }
    write_report(out, run, list, records, summary);
    bool bad = ferror(out) != 0;
    if (fclose(out) != 0 || bad) {
        err = errno ? errno : EIO;
        fxcli_temp_discard(&temp);
        return err;
    }
    return fxcli_temp_commit(&temp, path, -1);
}
