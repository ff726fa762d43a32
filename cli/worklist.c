/* The list of work: which output each item writes, and the safety checks made
 * before anything runs (missing inputs, outputs that are inputs, two items with
 * one output), and which items are this process's (--shard) and still to do
 * (--skip-existing). Kept apart from the workers (batch.c), which share the list out
 * over threads and GPUs. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* First allocation of the item array; it doubles after that. */
#define INITIAL_CAPACITY 16
/* Digits of the running number in generated names (gen_0001.png); more when needed. */
#define NUMBER_DIGITS 4

fxcli_item *fxcli_worklist_add(fxcli_worklist *list, const char *input, char *output)
{
    if (!output) return NULL;
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? list->capacity * 2 : INITIAL_CAPACITY;
        fxcli_item *items =
            cap > SIZE_MAX / sizeof *items ? NULL : realloc(list->items, cap * sizeof *items);
        if (!items) {
            free(output);
            return NULL;
        }
        list->items = items;
        list->capacity = cap;
    }
    fxcli_item *item = &list->items[list->count];
    item->input = input;
    item->output = output;
    item->index = list->count;
    item->skip = false;
    item->reason = FXCLI_SKIP_NONE;
    item->note = NULL;
    list->count++;
    return item;
}

void fxcli_worklist_free(fxcli_worklist *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].output);
        free(list->items[i].note);
    }
    free(list->items);
    memset(list, 0, sizeof *list);
}

void fxcli_worklist_refuse(fxcli_worklist *list, fxcli_item *item, const char *fmt, ...)
{
    /* Another shard's item: that shard reports it. */
    if (item->reason == FXCLI_SKIP_ELSEWHERE || item->skip) return;
    char message[FXCLI_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    fxcli_error("%s: %s", item->input ? item->input : item->output, message);
    list->refused++;
    item->skip = true;
    item->reason = FXCLI_SKIP_REFUSED;
    item->note = strdup(message); /* NULL on ENOMEM: the report then says "refused" alone */
}

size_t fxcli_worklist_runnable(const fxcli_worklist *list)
{
    return list->count - list->refused - list->elsewhere - list->existing;
}

size_t fxcli_worklist_owned(const fxcli_worklist *list)
{
    return list->count - list->elsewhere;
}

/* ---- planning ---- */

static int out_of_memory(void)
{
    fxcli_error("out of memory while planning the batch");
    return FXCLI_EXIT_FAILED;
}

static int make_output_folder(const char *folder)
{
    int err = fxcli_make_folders(folder);
    if (!err) return FXCLI_EXIT_OK;
    fxcli_error("%s: cannot create the output folder: %s", folder, strerror(err));
    return FXCLI_EXIT_FAILED;
}

int fxcli_plan_inputs(fxcli_run *run, fxcli_worklist *list)
{
    const fxcli_common *c = &run->common;
    if (run->input_count == 0)
        return fxcli_usage(run, "no input files (see '%s %s --help')", FXCLI_PROGRAM,
                           run->job->name);
    fxcli_output_kind kind = fxcli_output_kind_of(c->output);
    const char *ext = run->job->output_extension ? run->job->output_extension(run) : NULL;
    if (kind == FXCLI_OUTPUT_NONE && !c->suffix && !c->in_place && !ext)
        return fxcli_usage(run, "missing -o OUTPUT (or --suffix TEXT to write beside the "
                                "inputs, or --in-place to replace them)");
    if (kind == FXCLI_OUTPUT_FILE && run->input_count > 1)
        return fxcli_usage(run,
                           "%zu inputs need -o to name a folder, and '%s' is not one "
                           "(end it with '/' to create it)",
                           run->input_count, c->output);
    if (kind == FXCLI_OUTPUT_FOLDER) {
        int code = make_output_folder(c->output);
        if (code != FXCLI_EXIT_OK) return code;
    }
    for (size_t i = 0; i < run->input_count; i++) {
        const char *input = run->inputs[i];
        char *output;
        if (c->in_place)
            output = strdup(input);
        else if (kind == FXCLI_OUTPUT_FILE)
            output = strdup(c->output);
        else
            output = fxcli_output_name(kind == FXCLI_OUTPUT_FOLDER ? c->output : NULL, input,
                                       c->suffix, ext);
        if (!fxcli_worklist_add(list, input, output)) return out_of_memory();
    }
    fxcli_worklist_check(list, c->in_place);
    return FXCLI_EXIT_OK;
}

int fxcli_plan_generated(fxcli_run *run, fxcli_worklist *list, uint64_t count, const char *prefix,
                         const char *ext)
{
    const char *output = run->common.output;
    fxcli_output_kind kind = fxcli_output_kind_of(output);
    if (kind == FXCLI_OUTPUT_NONE)
        return fxcli_usage(run, "missing -o OUTPUT (a file, or a folder for several outputs)");
    if (kind == FXCLI_OUTPUT_FILE && count > 1)
        return fxcli_usage(run,
                           "%" PRIu64 " outputs need -o to name a folder, and '%s' is not "
                           "one (end it with '/' to create it)",
                           count, output);
    if (kind == FXCLI_OUTPUT_FILE) {
        if (!fxcli_worklist_add(list, NULL, strdup(output))) return out_of_memory();
    } else {
        int code = make_output_folder(output);
        if (code != FXCLI_EXIT_OK) return code;
        for (uint64_t i = 0; i < count; i++) {
            char name[FXCLI_MESSAGE_MAX];
            /* Numbered from 1, as people count files. */
            snprintf(name, sizeof name, "%s_%0*" PRIu64 ".%s", prefix, NUMBER_DIGITS, i + 1, ext);
            if (!fxcli_worklist_add(list, NULL, fxcli_join_path(output, name)))
                return out_of_memory();
        }
    }
    fxcli_worklist_check(list, false);
    return FXCLI_EXIT_OK;
}

/* ---- safety checks ---- */

typedef struct file_identity {
    dev_t dev;
    ino_t ino;
    size_t item;
} file_identity;

static int compare_identity(const void *a, const void *b)
{
    const file_identity *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    return x->item < y->item ? -1 : x->item > y->item;
}

/* Identity only, ignoring which item it came from. */
static int compare_file(const void *a, const void *b)
{
    const file_identity *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    return 0;
}

static const fxcli_item *output_sort_base;

static int compare_output(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(output_sort_base[x].output, output_sort_base[y].output);
    return c ? c : (x < y ? -1 : x > y);
}

/* Inputs must exist and be files; returns their identities, sorted (NULL on ENOMEM). */
static file_identity *input_identities(fxcli_worklist *list, size_t *count)
{
    file_identity *ids = calloc(list->count ? list->count : 1, sizeof *ids);
    if (!ids) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < list->count; i++) {
        fxcli_item *item = &list->items[i];
        if (!item->input || item->skip) continue;
        struct stat st;
        if (stat(item->input, &st) != 0) {
            fxcli_worklist_refuse(list, item, "%s", strerror(errno));
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            fxcli_worklist_refuse(list, item, "is a folder, not a file");
            continue;
        }
        ids[n++] = (file_identity){st.st_dev, st.st_ino, i};
    }
    qsort(ids, n, sizeof *ids, compare_identity);
    *count = n;
    return ids;
}

/* With --in-place, one file named twice would be processed twice. */
static void refuse_repeated_inputs(fxcli_worklist *list, const file_identity *ids, size_t n)
{
    for (size_t k = 1; k < n; k++)
        if (!compare_file(&ids[k - 1], &ids[k]))
            fxcli_worklist_refuse(list, &list->items[ids[k].item],
                                  "the same file as '%s', given twice",
                                  list->items[ids[k - 1].item].input);
}

static void refuse_outputs_that_are_inputs(fxcli_worklist *list, const file_identity *ids, size_t n,
                                           bool in_place)
{
    for (size_t i = 0; i < list->count; i++) {
        fxcli_item *item = &list->items[i];
        if (item->skip) continue;
        struct stat st;
        if (stat(item->output, &st) != 0) continue; /* a new file */
        if (S_ISDIR(st.st_mode)) {
            fxcli_worklist_refuse(list, item, "output '%s' is a folder", item->output);
            continue;
        }
        /* With --in-place each output is its own input by construction. */
        if (in_place) continue;
        file_identity key = {st.st_dev, st.st_ino, 0};
        if (n && bsearch(&key, ids, n, sizeof *ids, compare_file))
            fxcli_worklist_refuse(list, item,
                                  "output '%s' is an input; not overwriting it (use --in-place "
                                  "to replace inputs)",
                                  item->output);
    }
}

/* The checks could not be made: run nothing rather than risk overwriting an input. */
static void refuse_all(fxcli_worklist *list)
{
    for (size_t i = 0; i < list->count; i++)
        if (!list->items[i].skip)
            fxcli_worklist_refuse(list, &list->items[i], "out of memory while checking outputs");
}

static void refuse_shared_outputs(fxcli_worklist *list)
{
    size_t *order = malloc((list->count ? list->count : 1) * sizeof *order);
    if (!order) {
        refuse_all(list);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < list->count; i++)
        if (!list->items[i].skip) order[n++] = i;
    output_sort_base = list->items;
    qsort(order, n, sizeof *order, compare_output);
    /* In each run of equal names the first item (lowest index) keeps the output. */
    for (size_t k = 1, first = 0; k < n; k++) {
        fxcli_item *item = &list->items[order[k]];
        if (strcmp(list->items[order[first]].output, item->output) != 0) {
            first = k;
            continue;
        }
        const fxcli_item *owner = &list->items[order[first]];
        fxcli_worklist_refuse(list, item, "output '%s' is also the output of '%s'", item->output,
                              owner->input ? owner->input : owner->output);
    }
    free(order);
}

/* ---- shards and existing outputs ---- */

static const fxcli_item *name_sort_base;

/* What an item is known by: its input, or its output when it has none (gen). */
static const char *sort_name(const fxcli_item *item)
{
    return item->input ? item->input : item->output;
}

static int compare_name(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(sort_name(&name_sort_base[x]), sort_name(&name_sort_base[y]));
    return c ? c : (x < y ? -1 : x > y);
}

/* Mark the items of other shards. An item's shard is its rank in the list sorted by
 * name, modulo the count: the same in every process whatever the order of the command
 * line, and strided rather than in blocks, so big and small files that sit together in
 * the sorted list spread over the shards. False on ENOMEM. */
static bool mark_other_shards(fxcli_worklist *list)
{
    const fxcli_shard *shard = list->shard;
    if (!shard || shard->count <= 1) return true;
    size_t *order = malloc((list->count ? list->count : 1) * sizeof *order);
    if (!order) return false;
    for (size_t i = 0; i < list->count; i++)
        order[i] = i;
    name_sort_base = list->items;
    qsort(order, list->count, sizeof *order, compare_name);
    for (size_t rank = 0; rank < list->count; rank++)
        if (rank % shard->count != shard->index)
            list->items[order[rank]].reason = FXCLI_SKIP_ELSEWHERE;
    free(order);
    return true;
}

/* After the checks: other shards' items leave the run, and with --skip-existing so do
 * items whose output is there (outputs are written atomically, so one that exists is
 * whole). */
static void set_aside(fxcli_worklist *list)
{
    for (size_t i = 0; i < list->count; i++) {
        fxcli_item *item = &list->items[i];
        struct stat st;
        if (item->reason == FXCLI_SKIP_ELSEWHERE) {
            item->skip = true;
            list->elsewhere++;
        } else if (!item->skip && list->skip_existing && stat(item->output, &st) == 0) {
            item->skip = true;
            item->reason = FXCLI_SKIP_EXISTING;
            list->existing++;
        }
    }
}

void fxcli_worklist_check(fxcli_worklist *list, bool in_place)
{
    if (!mark_other_shards(list)) {
        refuse_all(list);
        return;
    }
    size_t n = 0;
    file_identity *ids = input_identities(list, &n);
    if (!ids) {
        refuse_all(list);
        return;
    }
    if (in_place) refuse_repeated_inputs(list, ids, n);
    refuse_outputs_that_are_inputs(list, ids, n, in_place);
    refuse_shared_outputs(list);
    free(ids);
    set_aside(list);
}
