/* Output naming: what -o means, and the name each input's output gets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* New folders get every permission the umask allows, as mkdir(1) does. */
#define FOLDER_MODE 0777

fxcli_output_kind fxcli_output_kind_of(const char *output)
{
    if (!output) return FXCLI_OUTPUT_NONE;
    size_t n = strlen(output);
    if (n && output[n - 1] == '/') return FXCLI_OUTPUT_FOLDER;
    struct stat st;
    if (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) return FXCLI_OUTPUT_FOLDER;
    return FXCLI_OUTPUT_FILE;
}

int fxcli_make_folders(const char *path)
{
    if (!*path) return ENOENT;
    char *copy = strdup(path);
    if (!copy) return ENOMEM;
    int err = 0;
    /* Create each prefix that ends before a '/', then the whole path. */
    for (char *p = copy + 1;; p++) {
        bool end = *p == '\0';
        if (*p != '/' && !end) continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(copy, FOLDER_MODE) != 0 && errno != EEXIST) {
            err = errno;
        } else {
            struct stat st;
            if (stat(copy, &st) != 0)
                err = errno;
            else if (!S_ISDIR(st.st_mode))
                err = ENOTDIR;
        }
        *p = saved;
        if (err || end) break;
    }
    free(copy);
    return err;
}

const char *fxcli_path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *fxcli_path_extension(const char *path)
{
    const char *base = fxcli_path_basename(path);
    const char *dot = strrchr(base, '.');
    /* ".hidden" is a name without an extension. */
    return dot && dot != base ? dot + 1 : "";
}

char *fxcli_join_path(const char *folder, const char *name)
{
    size_t fl = strlen(folder), nl = strlen(name);
    bool slash = fl && folder[fl - 1] != '/';
    char *out = malloc(fl + slash + nl + 1);
    if (!out) return NULL;
    memcpy(out, folder, fl);
    if (slash) out[fl] = '/';
    memcpy(out + fl + slash, name, nl + 1);
    return out;
}

char *fxcli_output_name(const char *folder, const char *input, const char *suffix, const char *ext)
{
    const char *base = fxcli_path_basename(input);
    const char *old_ext = fxcli_path_extension(input);
    size_t stem_len = *old_ext ? (size_t)(old_ext - 1 - base) : strlen(base);
    if (!ext) ext = old_ext;
    if (!suffix) suffix = "";
    /* The input's own folder when no output folder is given. */
    size_t folder_len = folder ? strlen(folder) : (size_t)(base - input);
    const char *folder_text = folder ? folder : input;
    bool slash = folder && folder_len && folder[folder_len - 1] != '/';

    size_t size = folder_len + slash + stem_len + strlen(suffix) + 1 + strlen(ext) + 1;
    char *out = malloc(size);
    if (!out) return NULL;
    snprintf(out, size, "%.*s%s%.*s%s%s%s", (int)folder_len, folder_text, slash ? "/" : "",
             (int)stem_len, base, suffix, *ext ? "." : "", ext);
    return out;
}
