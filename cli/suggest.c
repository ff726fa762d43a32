/* "Did you mean …": edit distance between what was typed and what exists. */
#include <string.h>

#include "cli.h"

/* Names longer than this are compared only by their first characters; a
 * suggestion needs no more. */
#define MAX_COMPARED 64
/* A candidate this many edits away (or fewer) is offered. */
#define MAX_SUGGEST_DISTANCE 2

size_t fxcli_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAX_COMPARED) la = MAX_COMPARED;
    if (lb > MAX_COMPARED) lb = MAX_COMPARED;
    /* Two rows of the Levenshtein table. */
    size_t prev[MAX_COMPARED + 1], cur[MAX_COMPARED + 1];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t best = sub < del ? sub : del;
            cur[j] = best < ins ? best : ins;
        }
        memcpy(prev, cur, (lb + 1) * sizeof *prev);
    }
    return prev[lb];
}

bool fxcli_is_close(const char *typed, const char *candidate)
{
    size_t n = strlen(typed);
    /* A prefix of at least two letters ("conv") is a good hint too. */
    if (n >= 2 && !strncmp(typed, candidate, n)) return true;
    size_t d = fxcli_edit_distance(typed, candidate);
    return d <= MAX_SUGGEST_DISTANCE && d < strlen(candidate);
}
