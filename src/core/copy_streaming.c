/* A copy of a large block with non-temporal stores (internal.h says when to use it). */
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "internal.h"

/* Below this a copy stays in memcpy: the aligned head and the tail cost more than the
 * lines it saves reading. */
#define STREAMING_MIN_BYTES 4096

void fxi_copy_streaming(void *dst, const void *src, size_t n)
{
#if defined(__SSE2__)
    if (n >= STREAMING_MIN_BYTES) {
        uint8_t *d = dst;
        const uint8_t *s = src;
        const size_t head = (16 - ((uintptr_t)d & 15)) & 15; /* to an aligned store */
        memcpy(d, s, head);
        d += head;
        s += head;
        n -= head;
        const size_t body = n & ~(size_t)63;
        for (size_t i = 0; i < body; i += 64) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
            const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
            const __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));
            _mm_stream_si128((__m128i *)(void *)(d + i), a);
            _mm_stream_si128((__m128i *)(void *)(d + i + 16), b);
            _mm_stream_si128((__m128i *)(void *)(d + i + 32), c);
            _mm_stream_si128((__m128i *)(void *)(d + i + 48), e);
        }
        /* Non-temporal stores are weakly ordered: make them visible before whatever
         * follows (a DMA queued by this thread, another thread reading the block). */
        _mm_sfence();
        memcpy(d + body, s + body, n - body);
        return;
    }
#endif
    memcpy(dst, src, n);
}
