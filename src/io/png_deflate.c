/* The PNG writer's deflate coder (png_deflate.h).
 *
 * Filtered photo rows are close to memoryless: their residuals compress about as
 * well with a Huffman code alone as with LZ77 at fast settings, at a fraction of
 * the time. So a band is coded in two passes over its bytes: a histogram, then
 * the bits. The only matches are runs of one repeated byte (distance 1), found
 * eight bytes at a time, which is what flat areas become after filtering.
 */
#include "io/png_deflate.h"

#include <stdlib.h> /* qsort */
#include <string.h>

enum {
    LITLEN_SYMBOLS = 286, /* 0-255 literals, 256 end of block, 257-285 lengths */
    END_OF_BLOCK = 256,
    FIRST_LENGTH_SYMBOL = 257,
    MIN_MATCH = 3,
    MAX_MATCH = 258,
    CODELEN_SYMBOLS = 19,
    CODELEN_MAX_BITS = 7,
    REPEAT_PREVIOUS = 16, /* code-length code: previous length 3-6 times */
    REPEAT_ZERO_SHORT = 17, /* zeros 3-10 times */
    REPEAT_ZERO_LONG = 18,  /* zeros 11-138 times */
    STORED_MAX = 65535,     /* bytes in one stored block */
    STORED_HEADER_BYTES = 5, /* header bits padded to a byte, LEN, NLEN */
    BLOCK_DYNAMIC = 2,
    BLOCK_STORED = 0,
    RUN_PROBE = 8, /* bytes compared at once when looking for a run */
    HIST_WAYS = 4, /* interleaved histograms: increments of equal bytes do not wait on each other */
};

/* Base lengths and extra bits of length symbols 257..285 (RFC 1951 3.2.5). */
static const uint16_t length_base[] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                       31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
#define LENGTH_CODES ((int)(sizeof length_base / sizeof *length_base))

/* The order in which code-length code lengths are sent (RFC 1951 3.2.7). */
static const uint8_t codelen_order[CODELEN_SYMBOLS] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                       11, 4,  12, 3, 13, 2, 14, 1, 15};

size_t fxi_deflate_band_bound(size_t n)
{
    /* Never more than stored blocks, plus room for the 8-byte stores of the bit writer. */
    return n + STORED_HEADER_BYTES * (n / STORED_MAX + 2) + 2 * sizeof(uint64_t);
}

/* ---- Huffman code lengths ---- */

typedef struct weighted_symbol {
    uint32_t count;
    uint16_t symbol;
} weighted_symbol;

static int by_count_then_symbol(const void *pa, const void *pb)
{
    const weighted_symbol *a = pa, *b = pb;
    if (a->count != b->count) return a->count < b->count ? -1 : 1;
    return (int)a->symbol - (int)b->symbol;
}

void fxi_huffman_lengths(const uint32_t *counts, int n, int max_bits, uint8_t *lengths)
{
    enum { MAX_SYMBOLS = 288, MAX_DEPTH = 2 * MAX_SYMBOLS };
    weighted_symbol leaves[MAX_SYMBOLS];
    int used = 0;
    memset(lengths, 0, (size_t)n);
    for (int s = 0; s < n && s < MAX_SYMBOLS; s++)
        if (counts[s]) leaves[used++] = (weighted_symbol){counts[s], (uint16_t)s};
    if (used == 0) return;
    if (used == 1) {
        lengths[leaves[0].symbol] = 1;
        return;
    }
    qsort(leaves, (size_t)used, sizeof *leaves, by_count_then_symbol);

    /* Two queues (sorted leaves, internal nodes in creation order, which are sorted
     * too): nodes 0..used-1 are the leaves, used..2*used-2 the internal nodes. */
    uint64_t weight[2 * MAX_SYMBOLS];
    int parent[2 * MAX_SYMBOLS];
    for (int i = 0; i < used; i++)
        weight[i] = leaves[i].count;
    int next_leaf = 0, next_inner = used;
    for (int node = used; node < 2 * used - 1; node++) {
        for (int take = 0; take < 2; take++) {
            bool leaf = next_leaf < used && (next_inner >= node || weight[next_leaf] <= weight[next_inner]);
            int child = leaf ? next_leaf++ : next_inner++;
            parent[child] = node;
            weight[node] = take ? weight[node] + weight[child] : weight[child];
        }
    }
    int depth[2 * MAX_SYMBOLS];
    int root = 2 * used - 2;
    depth[root] = 0;
    int per_length[MAX_DEPTH] = {0};
    for (int node = root - 1; node >= 0; node--) {
        depth[node] = depth[parent[node]] + 1;
        if (node < used) per_length[depth[node] < max_bits ? depth[node] : max_bits]++;
    }
    /* Codes deeper than max_bits were counted at max_bits, which oversubscribes the
     * code; each step moves one code from max_bits to below a shorter one until the
     * Kraft sum is exactly one again. */
    uint64_t kraft = 0;
    for (int len = 1; len <= max_bits; len++)
        kraft += (uint64_t)per_length[len] << (max_bits - len);
    while (kraft > (1ull << max_bits)) {
        per_length[max_bits]--;
        for (int len = max_bits - 1; len > 0; len--) {
            if (per_length[len]) {
                per_length[len]--;
                per_length[len + 1] += 2;
                break;
            }
        }
        kraft--;
    }
    /* The most frequent symbols (the end of the sorted leaves) get the shortest codes. */
    int leaf = used - 1;
    for (int len = 1; len <= max_bits; len++)
        for (int k = 0; k < per_length[len]; k++)
            lengths[leaves[leaf--].symbol] = (uint8_t)len;
}

/* Canonical codes, bit-reversed because deflate sends Huffman codes from the most
 * significant bit while the bit writer fills from the least significant one. */
static void canonical_codes(const uint8_t *lengths, int n, uint16_t *codes)
{
    uint16_t per_length[FXI_DEFLATE_MAX_BITS + 1] = {0};
    uint16_t next[FXI_DEFLATE_MAX_BITS + 2] = {0};
    for (int s = 0; s < n; s++)
        per_length[lengths[s]]++;
    per_length[0] = 0;
    for (int len = 1; len <= FXI_DEFLATE_MAX_BITS; len++)
        next[len + 1] = (uint16_t)((next[len] + per_length[len]) << 1);
    for (int s = 0; s < n; s++) {
        int len = lengths[s];
        if (!len) continue;
        unsigned code = next[len]++, reversed = 0;
        for (int b = 0; b < len; b++)
            reversed |= ((code >> b) & 1u) << (len - 1 - b);
        codes[s] = (uint16_t)reversed;
    }
}

/* ---- the bit writer ---- */

typedef struct bit_writer {
    uint8_t *out;
    uint64_t bits;
    unsigned count; /* bits held, at most 7 after a flush */
} bit_writer;

static inline void put_bits(bit_writer *w, uint64_t value, unsigned n)
{
    w->bits |= value << w->count;
    w->count += n;
}

/* Write the whole bytes held (one unaligned 8-byte store; the bound leaves room).
 * Callers never hold 64 bits: at most 7 plus three 15-bit codes between flushes. */
static inline void flush_bits(bit_writer *w)
{
    memcpy(w->out, &w->bits, sizeof w->bits);
    unsigned bytes = w->count >> 3;
    w->out += bytes;
    w->bits >>= bytes * 8;
    w->count &= 7;
}

static void align_to_byte(bit_writer *w)
{
    w->count = (w->count + 7) & ~7u;
    flush_bits(w);
}

/* ---- the two passes over a band ---- */

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Length of the run of in[i-1] starting at i, when at least RUN_PROBE bytes repeat it; else 0. */
static inline size_t run_at(const uint8_t *in, size_t i, size_t n)
{
    if (load64(in + i) != load64(in + i - 1)) return 0;
    uint8_t b = in[i - 1];
    uint64_t repeated = 0x0101010101010101ull * b;
    size_t j = i + RUN_PROBE;
    while (j + RUN_PROBE <= n && load64(in + j) == repeated)
        j += RUN_PROBE;
    while (j < n && in[j] == b)
        j++;
    return j - i;
}

/* The next match length a run of `left` bytes is split into: at most MAX_MATCH,
 * never leaving a remainder shorter than MIN_MATCH. */
static inline size_t next_match(size_t left)
{
    if (left <= MAX_MATCH) return left;
    if (left - MAX_MATCH < MIN_MATCH) return left - MIN_MATCH;
    return MAX_MATCH;
}

typedef struct length_code {
    uint8_t symbol_offset; /* symbol - FIRST_LENGTH_SYMBOL */
    uint8_t extra_bits;
    uint8_t extra_value;
} length_code;

static void length_codes(length_code table[MAX_MATCH + 1])
{
    for (int code = 0; code < LENGTH_CODES; code++) {
        int last = code + 1 < LENGTH_CODES ? length_base[code + 1] - 1 : MAX_MATCH;
        for (int len = length_base[code]; len <= last; len++)
            table[len] = (length_code){(uint8_t)code, length_extra[code],
                                       (uint8_t)(len - length_base[code])};
    }
    /* 258 has its own symbol (285) with no extra bits, not 284 with extra 31. */
    table[MAX_MATCH] = (length_code){LENGTH_CODES - 1, 0, 0};
}

static void count_symbols(const uint8_t *in, size_t n, const length_code *lengths,
                          uint32_t counts[LITLEN_SYMBOLS], uint64_t *extra_bits)
{
    uint32_t hist[HIST_WAYS][256];
    memset(hist, 0, sizeof hist);
    uint64_t extra = 0;
    size_t i = 0;
    if (n) hist[0][in[i++]]++;
    while (i + RUN_PROBE <= n) {
        size_t run = run_at(in, i, n);
        if (run) {
            for (size_t left = run; left;) {
                size_t m = next_match(left);
                counts[FIRST_LENGTH_SYMBOL + lengths[m].symbol_offset]++;
                extra += lengths[m].extra_bits;
                left -= m;
            }
            i += run;
            continue;
        }
        for (int k = 0; k < RUN_PROBE; k++)
            hist[k % HIST_WAYS][in[i + (size_t)k]]++;
        i += RUN_PROBE;
    }
    for (; i < n; i++)
        hist[0][in[i]]++;
    for (int s = 0; s < 256; s++)
        counts[s] += hist[0][s] + hist[1][s] + hist[2][s] + hist[3][s];
    *extra_bits = extra;
}

typedef struct band_code {
    uint32_t litlen[LITLEN_SYMBOLS]; /* bit-reversed code | length << 16 */
    uint32_t distance_one;           /* code of distance 1 (code 0) */
} band_code;

#define CODE_OF(entry) ((entry) & 0xffffu)
#define BITS_OF(entry) ((entry) >> 16)

static inline void put_code(bit_writer *w, uint32_t entry)
{
    put_bits(w, CODE_OF(entry), BITS_OF(entry));
}

static void encode_symbols(bit_writer *w, const uint8_t *in, size_t n, const length_code *lengths,
                           const band_code *code)
{
    const uint32_t *lit = code->litlen;
    size_t i = 0;
    if (n) {
        put_code(w, lit[in[i++]]);
        flush_bits(w);
    }
    while (i + RUN_PROBE <= n) {
        size_t run = run_at(in, i, n);
        if (run) {
            for (size_t left = run; left;) {
                size_t m = next_match(left);
                length_code lc = lengths[m];
                put_code(w, lit[FIRST_LENGTH_SYMBOL + lc.symbol_offset]);
                put_bits(w, lc.extra_value, lc.extra_bits);
                put_code(w, code->distance_one);
                flush_bits(w);
                left -= m;
            }
            i += run;
            continue;
        }
        /* At most 15 bits a code and 7 held: three codes fit the 64-bit buffer. */
        const uint8_t *p = in + i;
        put_code(w, lit[p[0]]);
        put_code(w, lit[p[1]]);
        put_code(w, lit[p[2]]);
        flush_bits(w);
        put_code(w, lit[p[3]]);
        put_code(w, lit[p[4]]);
        put_code(w, lit[p[5]]);
        flush_bits(w);
        put_code(w, lit[p[6]]);
        put_code(w, lit[p[7]]);
        flush_bits(w);
        i += RUN_PROBE;
    }
    for (; i < n; i++) {
        put_code(w, lit[in[i]]);
        flush_bits(w);
    }
}

/* ---- the block header ---- */

typedef struct codelen_item {
    uint8_t symbol, extra_bits, extra_value;
} codelen_item;

/* Run-length code the code lengths as RFC 1951 3.2.7 describes; returns the items. */
static int rle_code_lengths(const uint8_t *lens, int n, codelen_item *items)
{
    enum { SHORT_MIN = 3, SHORT_MAX = 10, LONG_MAX = 138, REPEAT_MAX = 6 };
    int count = 0;
    for (int i = 0; i < n;) {
        int run = 1;
        while (i + run < n && lens[i + run] == lens[i])
            run++;
        if (lens[i] == 0 && run >= SHORT_MIN) {
            int take = run > LONG_MAX ? LONG_MAX : run;
            items[count++] = take > SHORT_MAX
                                 ? (codelen_item){REPEAT_ZERO_LONG, 7, (uint8_t)(take - SHORT_MAX - 1)}
                                 : (codelen_item){REPEAT_ZERO_SHORT, 3, (uint8_t)(take - SHORT_MIN)};
            i += take;
        } else if (lens[i] != 0 && run > SHORT_MIN) {
            /* The first copy is sent as itself, the rest as repeats of it. */
            items[count++] = (codelen_item){lens[i], 0, 0};
            int rest = run - 1;
            rest = rest > REPEAT_MAX ? REPEAT_MAX : rest;
            items[count++] = (codelen_item){REPEAT_PREVIOUS, 2, (uint8_t)(rest - SHORT_MIN)};
            i += 1 + rest;
        } else {
            items[count++] = (codelen_item){lens[i], 0, 0};
            i++;
        }
    }
    return count;
}

typedef struct block_header {
    int litlen_count; /* HLIT + 257 */
    uint8_t lens[LITLEN_SYMBOLS + 1]; /* literal/length lengths, then the one distance length */
    codelen_item items[LITLEN_SYMBOLS + 1];
    int item_count;
    uint8_t codelen_lens[CODELEN_SYMBOLS];
    uint16_t codelen_codes[CODELEN_SYMBOLS];
    int codelen_count; /* HCLEN + 4 */
    uint64_t bits;
} block_header;

enum { HLIT_BITS = 5, HDIST_BITS = 5, HCLEN_BITS = 4, CODELEN_LEN_BITS = 3, BLOCK_HEADER_BITS = 3 };
#define MIN_CODELEN_COUNT 4

static void plan_header(const uint8_t *litlen_lens, block_header *h)
{
    int count = LITLEN_SYMBOLS;
    while (count > FIRST_LENGTH_SYMBOL && !litlen_lens[count - 1])
        count--;
    h->litlen_count = count;
    memcpy(h->lens, litlen_lens, (size_t)count);
    h->lens[count] = 1; /* one distance code (distance 1), length 1 */
    h->item_count = rle_code_lengths(h->lens, count + 1, h->items);
    uint32_t freq[CODELEN_SYMBOLS] = {0};
    uint64_t extra = 0;
    for (int i = 0; i < h->item_count; i++) {
        freq[h->items[i].symbol]++;
        extra += h->items[i].extra_bits;
    }
    fxi_huffman_lengths(freq, CODELEN_SYMBOLS, CODELEN_MAX_BITS, h->codelen_lens);
    canonical_codes(h->codelen_lens, CODELEN_SYMBOLS, h->codelen_codes);
    h->codelen_count = CODELEN_SYMBOLS;
    while (h->codelen_count > MIN_CODELEN_COUNT && !h->codelen_lens[codelen_order[h->codelen_count - 1]])
        h->codelen_count--;
    h->bits = BLOCK_HEADER_BITS + HLIT_BITS + HDIST_BITS + HCLEN_BITS +
              (uint64_t)CODELEN_LEN_BITS * (uint64_t)h->codelen_count + extra;
    for (int s = 0; s < CODELEN_SYMBOLS; s++)
        h->bits += (uint64_t)freq[s] * h->codelen_lens[s];
}

static void write_header(bit_writer *w, const block_header *h, bool final)
{
    put_bits(w, final, 1);
    put_bits(w, BLOCK_DYNAMIC, 2);
    put_bits(w, (uint64_t)(h->litlen_count - FIRST_LENGTH_SYMBOL), HLIT_BITS);
    put_bits(w, 0, HDIST_BITS); /* one distance code */
    put_bits(w, (uint64_t)(h->codelen_count - MIN_CODELEN_COUNT), HCLEN_BITS);
    flush_bits(w);
    for (int i = 0; i < h->codelen_count; i++) {
        put_bits(w, h->codelen_lens[codelen_order[i]], CODELEN_LEN_BITS);
        flush_bits(w);
    }
    for (int i = 0; i < h->item_count; i++) {
        codelen_item it = h->items[i];
        put_bits(w, h->codelen_codes[it.symbol], h->codelen_lens[it.symbol]);
        put_bits(w, it.extra_value, it.extra_bits);
        flush_bits(w);
    }
}

/* ---- stored blocks ---- */

static size_t stored_size(size_t n)
{
    size_t blocks = n ? (n + STORED_MAX - 1) / STORED_MAX : 1;
    return n + STORED_HEADER_BYTES * blocks;
}

/* Starts and ends byte-aligned. */
static void write_stored(bit_writer *w, const uint8_t *in, size_t n, bool final)
{
    size_t done = 0;
    do {
        size_t len = n - done > STORED_MAX ? STORED_MAX : n - done;
        bool last = done + len == n;
        put_bits(w, final && last, 1);
        put_bits(w, BLOCK_STORED, 2);
        align_to_byte(w);
        uint8_t lens[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)~len, (uint8_t)(~len >> 8)};
        memcpy(w->out, lens, sizeof lens);
        memcpy(w->out + sizeof lens, in + done, len);
        w->out += sizeof lens + len;
        done += len;
    } while (done < n);
}

/* ---- one band ---- */

size_t fxi_deflate_band(const uint8_t *in, size_t n, bool final, uint8_t *out)
{
    length_code lengths[MAX_MATCH + 1];
    length_codes(lengths);
    uint32_t counts[LITLEN_SYMBOLS] = {0};
    uint64_t extra_bits = 0;
    count_symbols(in, n, lengths, counts, &extra_bits);
    counts[END_OF_BLOCK] = 1;

    uint8_t lens[LITLEN_SYMBOLS];
    fxi_huffman_lengths(counts, LITLEN_SYMBOLS, FXI_DEFLATE_MAX_BITS, lens);
    block_header header;
    plan_header(lens, &header);
    bit_writer w = {out, 0, 0};

    uint64_t bits = header.bits + extra_bits;
    for (int s = 0; s < LITLEN_SYMBOLS; s++)
        bits += (uint64_t)counts[s] * lens[s];
    /* A sync flush after the block: an empty stored block (3 bits, padding, LEN, NLEN). */
    enum { SYNC_FLUSH_BITS = BLOCK_HEADER_BITS + 7 + 32 };
    bits += final ? 7 : 7 + SYNC_FLUSH_BITS;

    if (bits / 8 >= stored_size(n)) {
        write_stored(&w, in, n, final);
        return (size_t)(w.out - out);
    }
    band_code table;
    uint16_t litlen_codes[LITLEN_SYMBOLS] = {0};
    canonical_codes(lens, LITLEN_SYMBOLS, litlen_codes);
    for (int s = 0; s < LITLEN_SYMBOLS; s++)
        table.litlen[s] = litlen_codes[s] | (uint32_t)lens[s] << 16;
    table.distance_one = 0u | 1u << 16; /* the only distance code: length 1, code 0 */

    write_header(&w, &header, final);
    encode_symbols(&w, in, n, lengths, &table);
    put_code(&w, table.litlen[END_OF_BLOCK]);
    flush_bits(&w);
    if (!final) {
        put_bits(&w, 0, 1);
        put_bits(&w, BLOCK_STORED, 2);
        align_to_byte(&w);
        static const uint8_t empty_lens[4] = {0, 0, 0xff, 0xff};
        memcpy(w.out, empty_lens, sizeof empty_lens);
        w.out += sizeof empty_lens;
    } else {
        align_to_byte(&w);
    }
    return (size_t)(w.out - out);
}
