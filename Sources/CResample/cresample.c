#include "cresample.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define CRESAMPLE_X86 1
#endif

/// Weights are fixed point with this many fraction bits: sums of 8-bit values times weights
/// whose magnitudes add up to under 2 stay well inside 32 bits.
#define FRACTION_BITS 14
#define ONE (1 << FRACTION_BITS)
#define HALF (1 << (FRACTION_BITS - 1))

/// Bytes of slack after each row copy, so that SIMD loads of the last taps stay inside it.
#define ROW_SLACK 64

/// One axis of the filter: for each output position, the first input position of its window
/// and `taps` weights (the same count for every position, zeros where the window is shorter).
typedef struct {
    int taps;
    int *starts;
    int16_t *weights;
} axis_filter;

static double lanczos3(double x) {
    if (x == 0) return 1;
    if (x <= -3 || x >= 3) return 0;
    double px = M_PI * x;
    return 3 * sin(px) * sin(px / 3) / (px * px);
}

static void free_filter(axis_filter *filter) {
    free(filter->starts);
    free(filter->weights);
}

/// The weights for `out_size` positions over `in_size` (>= out_size), `taps` rounded up to
/// `multiple`. Positions outside the input take the weight to the nearest edge pixel.
static int make_filter(int in_size, int out_size, int multiple, axis_filter *filter) {
    double scale = (double)in_size / out_size;
    double support = 3 * scale;
    int span = (int)ceil(2 * support) + 1;
    if (span > in_size) span = in_size;
    int taps = (span + multiple - 1) / multiple * multiple;
    filter->taps = taps;
    filter->starts = malloc(sizeof(int) * (size_t)out_size);
    filter->weights = calloc((size_t)out_size * (size_t)taps, sizeof(int16_t));
    double *real = malloc(sizeof(double) * (size_t)taps);
    if (!filter->starts || !filter->weights || !real) {
        free(real);
        free_filter(filter);
        memset(filter, 0, sizeof(*filter));
        return -1;
    }
    for (int i = 0; i < out_size; i++) {
        double centre = (i + 0.5) * scale;
        int first = (int)floor(centre - support);
        int start = first < 0 ? 0 : first;
        if (start > in_size - span) start = in_size - span;
        for (int t = 0; t < taps; t++) real[t] = 0;
        double total = 0;
        for (int j = first; j <= (int)ceil(centre + support); j++) {
            double weight = lanczos3((j + 0.5 - centre) / scale);
            if (weight == 0) continue;
            int at = (j < 0 ? 0 : j >= in_size ? in_size - 1 : j) - start;
            real[at] += weight;
            total += weight;
        }
        int16_t *weights = filter->weights + (size_t)i * taps;
        int sum = 0, largest = 0;
        for (int t = 0; t < span; t++) {
            weights[t] = (int16_t)lround(real[t] / total * ONE);
            sum += weights[t];
            if (weights[t] > weights[largest]) largest = t;
        }
        // The rounding error goes to the heaviest tap, so that a flat area stays exactly flat.
        weights[largest] = (int16_t)(weights[largest] + ONE - sum);
        filter->starts[i] = start;
    }
    free(real);
    return 0;
}

/// Filters are kept for the process by their sizes, 32 at most, never changed once kept: a
/// batch of one camera's photos resizes between the same sizes every time, and making a
/// filter (two `sin` a tap) was 3.0% of the samples of a batch of 256 px HEIC thumbnails.
#define KEPT_FILTERS 32
static struct {
    int in_size, out_size, multiple;
    axis_filter filter;
} kept[KEPT_FILTERS];
static int kept_count;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

/// A kept filter made before for these sizes, or NULL. Called with `kept_lock` held.
static const axis_filter *find_kept(int in_size, int out_size, int multiple) {
    for (int i = 0; i < kept_count; i++) {
        if (kept[i].in_size == in_size && kept[i].out_size == out_size && kept[i].multiple == multiple) {
            return &kept[i].filter;
        }
    }
    return NULL;
}

/// The filter for these sizes: a kept one, or one made into `*made` (zeroed when it is kept
/// instead), which the caller frees with `free_filter` either way. NULL when memory runs out.
static const axis_filter *filter_for(int in_size, int out_size, int multiple, axis_filter *made) {
    memset(made, 0, sizeof(*made));
    pthread_mutex_lock(&kept_lock);
    const axis_filter *found = find_kept(in_size, out_size, multiple);
    pthread_mutex_unlock(&kept_lock);
    if (found) return found;
    if (make_filter(in_size, out_size, multiple, made)) return NULL;
    pthread_mutex_lock(&kept_lock);
    // Another thread may have kept the same sizes meanwhile: `made` is then this call's own.
    found = find_kept(in_size, out_size, multiple);
    if (!found && kept_count < KEPT_FILTERS) {
        kept[kept_count].in_size = in_size;
        kept[kept_count].out_size = out_size;
        kept[kept_count].multiple = multiple;
        kept[kept_count].filter = *made;
        found = &kept[kept_count].filter;
        kept_count++;
        memset(made, 0, sizeof(*made));
    }
    pthread_mutex_unlock(&kept_lock);
    return found ? found : made;
}

static inline unsigned char clamp_byte(int32_t value) {
    value >>= FRACTION_BITS;
    return (unsigned char)(value < 0 ? 0 : value > 255 ? 255 : value);
}

/// One row filtered horizontally, any band count.
static void horizontal_scalar(const unsigned char *row, int bands, const axis_filter *filter, int out_width,
                              unsigned char *out) {
    for (int x = 0; x < out_width; x++) {
        const unsigned char *p = row + (size_t)filter->starts[x] * bands;
        const int16_t *weights = filter->weights + (size_t)x * filter->taps;
        for (int b = 0; b < bands; b++) {
            int32_t sum = HALF;
            for (int t = 0; t < filter->taps; t++) sum += weights[t] * p[t * bands + b];
            out[x * bands + b] = clamp_byte(sum);
        }
    }
}

#ifdef CRESAMPLE_X86
/// Output pixels `from`..<`out_width` of one row of three bands filtered horizontally, four
/// taps per step (and a last two): each 16-byte load holds four pixels, shuffled into two
/// vectors of 16-bit pairs (r0 r1 g0 g1 b0 b1 0 0) that one multiply-add each weighs. `pairs`
/// holds each position's weights two by two as 32-bit words. The row has ROW_SLACK readable
/// bytes after its end; `out` 1 writable byte after its end.
__attribute__((target("ssse3"))) static void horizontal_rgb_ssse3(const unsigned char *row,
                                                                  const axis_filter *filter,
                                                                  const int32_t *pairs, int from, int out_width,
                                                                  unsigned char *out) {
    const __m128i first = _mm_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
    const __m128i second = _mm_setr_epi8(6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1);
    const int taps = filter->taps;
    for (int x = from; x < out_width; x++) {
        const unsigned char *p = row + (size_t)filter->starts[x] * 3;
        const int32_t *pair = pairs + (size_t)x * (taps / 2);
        __m128i sum = _mm_set1_epi32(HALF);
        int t = 0;
        for (; t + 4 <= taps; t += 4, p += 12, pair += 2) {
            __m128i pixels = _mm_loadu_si128((const __m128i *)p);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_shuffle_epi8(pixels, first), _mm_set1_epi32(pair[0])));
            sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_shuffle_epi8(pixels, second), _mm_set1_epi32(pair[1])));
        }
        if (t < taps) {
            __m128i pixels = _mm_loadl_epi64((const __m128i *)p);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_shuffle_epi8(pixels, first), _mm_set1_epi32(pair[0])));
        }
        __m128i packed = _mm_packus_epi16(_mm_packs_epi32(_mm_srai_epi32(sum, FRACTION_BITS), sum), sum);
        int32_t rgbx = _mm_cvtsi128_si32(packed);
        memcpy(out + x * 3, &rgbx, 4);
    }
}

/// The same for two output pixels at once, one in each 128-bit half (AVX2): the same sums, so
/// the same values. `quads` holds, for each two positions and each two taps, the first
/// position's weight pair four times then the second's. Returns how many pixels it made (an
/// even count; the last of an odd row is left).
__attribute__((target("avx2"))) static int horizontal_rgb_avx2(const unsigned char *row, const axis_filter *filter,
                                                               const int32_t *quads, int out_width,
                                                               unsigned char *out) {
    const __m256i first = _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1,
                                           0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
    const __m256i second = _mm256_setr_epi8(6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1,
                                            6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1);
    const int taps = filter->taps;
    int x = 0;
    for (; x + 2 <= out_width; x += 2) {
        const unsigned char *p = row + (size_t)filter->starts[x] * 3;
        const unsigned char *q = row + (size_t)filter->starts[x + 1] * 3;
        const int32_t *weights = quads + (size_t)x * (taps / 2) * 4;
        __m256i sum = _mm256_set1_epi32(HALF);
        int t = 0;
        for (; t + 4 <= taps; t += 4, p += 12, q += 12, weights += 16) {
            __m256i pixels = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)), _mm_loadu_si128((const __m128i *)q), 1);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels, first),
                                                          _mm256_loadu_si256((const __m256i *)weights)));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels, second),
                                                          _mm256_loadu_si256((const __m256i *)(weights + 8))));
        }
        if (t < taps) {
            __m256i pixels = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)p)), _mm_loadl_epi64((const __m128i *)q), 1);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels, first),
                                                          _mm256_loadu_si256((const __m256i *)weights)));
        }
        __m256i shifted = _mm256_srai_epi32(sum, FRACTION_BITS);
        __m256i packed = _mm256_packus_epi16(_mm256_packs_epi32(shifted, shifted), shifted);
        int32_t left = _mm_cvtsi128_si32(_mm256_castsi256_si128(packed));
        int32_t right = _mm_cvtsi128_si32(_mm256_extracti128_si256(packed, 1));
        // The left pixel's spare fourth byte is the right pixel's first: written over next.
        memcpy(out + x * 3, &left, 4);
        memcpy(out + x * 3 + 3, &right, 4);
    }
    return x;
}

#endif

/// One output row: the weighted sum of `taps` filtered rows.
static void vertical_scalar(unsigned char *const *rows, const int16_t *weights, int taps, size_t from,
                            size_t length, unsigned char *out) {
    for (size_t i = from; i < length; i++) {
        int32_t sum = HALF;
        for (int t = 0; t < taps; t++) sum += weights[t] * rows[t][i];
        out[i] = clamp_byte(sum);
    }
}

#ifdef CRESAMPLE_X86
/// The same, 16 values per step from `from` (SSE2, which every x86-64 has): two rows' bytes
/// interleaved into 16-bit pairs, each pair weighed by one multiply-add. The rows have 16
/// readable bytes after `length`; values after the last whole step are left to the scalar loop.
static void vertical_sse2(unsigned char *const *rows, const int16_t *weights, int taps, size_t from, size_t length,
                          unsigned char *out) {
    const __m128i zero = _mm_setzero_si128();
    size_t i = from;
    for (; i + 16 <= length; i += 16) {
        __m128i sums[4];
        for (int k = 0; k < 4; k++) sums[k] = _mm_set1_epi32(HALF);
        for (int t = 0; t < taps; t += 2) {
            // An odd count pairs the last row with itself, weighed 0.
            const int next = t + 1 < taps ? t + 1 : t;
            const uint16_t high = t + 1 < taps ? (uint16_t)weights[t + 1] : 0;
            const __m128i pair = _mm_set1_epi32((int32_t)((uint32_t)(uint16_t)weights[t] | (uint32_t)high << 16));
            const __m128i a = _mm_loadu_si128((const __m128i *)(rows[t] + i));
            const __m128i b = _mm_loadu_si128((const __m128i *)(rows[next] + i));
            const __m128i low8 = _mm_unpacklo_epi8(a, b), high8 = _mm_unpackhi_epi8(a, b);
            sums[0] = _mm_add_epi32(sums[0], _mm_madd_epi16(_mm_unpacklo_epi8(low8, zero), pair));
            sums[1] = _mm_add_epi32(sums[1], _mm_madd_epi16(_mm_unpackhi_epi8(low8, zero), pair));
            sums[2] = _mm_add_epi32(sums[2], _mm_madd_epi16(_mm_unpacklo_epi8(high8, zero), pair));
            sums[3] = _mm_add_epi32(sums[3], _mm_madd_epi16(_mm_unpackhi_epi8(high8, zero), pair));
        }
        for (int k = 0; k < 4; k++) sums[k] = _mm_srai_epi32(sums[k], FRACTION_BITS);
        const __m128i words = _mm_packs_epi32(sums[0], sums[1]), more = _mm_packs_epi32(sums[2], sums[3]);
        _mm_storeu_si128((__m128i *)(out + i), _mm_packus_epi16(words, more));
    }
    vertical_scalar(rows, weights, taps, i, length, out);
}

/// The same, 32 values per step (AVX2): each 128-bit half does what one SSE2 step does, so the
/// values are the same. Returns where it stopped: the rest is left to `vertical_sse2`.
__attribute__((target("avx2"))) static size_t vertical_avx2(unsigned char *const *rows, const int16_t *weights,
                                                            int taps, size_t length, unsigned char *out) {
    const __m256i zero = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= length; i += 32) {
        __m256i sums[4];
        for (int k = 0; k < 4; k++) sums[k] = _mm256_set1_epi32(HALF);
        for (int t = 0; t < taps; t += 2) {
            const int next = t + 1 < taps ? t + 1 : t;
            const uint16_t high = t + 1 < taps ? (uint16_t)weights[t + 1] : 0;
            const __m256i pair = _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)weights[t] | (uint32_t)high << 16));
            const __m256i a = _mm256_loadu_si256((const __m256i *)(rows[t] + i));
            const __m256i b = _mm256_loadu_si256((const __m256i *)(rows[next] + i));
            const __m256i low8 = _mm256_unpacklo_epi8(a, b), high8 = _mm256_unpackhi_epi8(a, b);
            sums[0] = _mm256_add_epi32(sums[0], _mm256_madd_epi16(_mm256_unpacklo_epi8(low8, zero), pair));
            sums[1] = _mm256_add_epi32(sums[1], _mm256_madd_epi16(_mm256_unpackhi_epi8(low8, zero), pair));
            sums[2] = _mm256_add_epi32(sums[2], _mm256_madd_epi16(_mm256_unpacklo_epi8(high8, zero), pair));
            sums[3] = _mm256_add_epi32(sums[3], _mm256_madd_epi16(_mm256_unpackhi_epi8(high8, zero), pair));
        }
        for (int k = 0; k < 4; k++) sums[k] = _mm256_srai_epi32(sums[k], FRACTION_BITS);
        const __m256i words = _mm256_packs_epi32(sums[0], sums[1]), more = _mm256_packs_epi32(sums[2], sums[3]);
        _mm256_storeu_si256((__m256i *)(out + i), _mm256_packus_epi16(words, more));
    }
    return i;
}
#endif

int cresample_level(void) {
#ifdef CRESAMPLE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return CRESAMPLE_AVX2;
    if (__builtin_cpu_supports("ssse3")) return CRESAMPLE_SSE;
#endif
    return CRESAMPLE_SCALAR;
}

int cresample_lanczos3(const unsigned char *in, int in_width, int in_height, size_t in_stride, int bands,
                       unsigned char *out, int out_width, int out_height, size_t out_stride) {
    return cresample_lanczos3_at(in, in_width, in_height, in_stride, bands, out, out_width, out_height, out_stride,
                                 CRESAMPLE_AVX2);
}

int cresample_lanczos3_at(const unsigned char *in, int in_width, int in_height, size_t in_stride, int bands,
                          unsigned char *out, int out_width, int out_height, size_t out_stride, int level) {
    if (!in || !out || bands < 1 || bands > 4 || out_width < 1 || out_height < 1 || out_width > in_width ||
        out_height > in_height || in_stride < (size_t)in_width * bands || out_stride < (size_t)out_width * bands)
        return -1;
    const int supported = cresample_level();
    if (level > supported) level = supported;
    // Rows of three bands take SIMD from SSSE3 up; columns take it at any level but plain C.
    const int simd = bands == 3 && level >= CRESAMPLE_SSE, wide = level >= CRESAMPLE_AVX2;
    axis_filter made_across, made_down;
    const axis_filter *across_filter = filter_for(in_width, out_width, simd ? 2 : 1, &made_across);
    const axis_filter *down_filter = across_filter ? filter_for(in_height, out_height, 1, &made_down) : NULL;
    if (!across_filter || !down_filter) {
        free_filter(&made_across);
        if (across_filter) free_filter(&made_down);
        return -1;
    }
    const axis_filter across = *across_filter, down = *down_filter;
    const size_t in_row = (size_t)in_width * bands, out_row = (size_t)out_width * bands;
    const unsigned char *end = in + (size_t)(in_height - 1) * in_stride + in_row;
    const int ring = down.taps;
    unsigned char *copy = malloc(in_row + ROW_SLACK);
    // Each filtered row has slack for a 4-byte store past its end and a 16-byte load.
    const size_t filtered_row = out_row + 16;
    unsigned char *filtered = calloc(filtered_row, (size_t)ring);
    int *held = malloc(sizeof(int) * (size_t)ring);
    unsigned char **rows = malloc(sizeof(unsigned char *) * (size_t)ring);
    const size_t pair_count = (size_t)out_width * (size_t)(across.taps / 2);
    int32_t *pairs = simd ? malloc(sizeof(int32_t) * pair_count) : NULL;
    int32_t *quads = simd && wide ? malloc(sizeof(int32_t) * 4 * pair_count) : NULL;
    int status = -1;
    if (!copy || !filtered || !held || !rows || (simd && !pairs) || (simd && wide && !quads)) goto done;
    memset(copy + in_row, 0, ROW_SLACK);
    for (int r = 0; r < ring; r++) held[r] = -1;
    if (simd) {
        for (size_t k = 0; k < (size_t)out_width * (size_t)(across.taps / 2); k++) {
            uint16_t low = (uint16_t)across.weights[2 * k], high = (uint16_t)across.weights[2 * k + 1];
            pairs[k] = (int32_t)((uint32_t)low | (uint32_t)high << 16);
        }
    }
    if (quads) {
        const int steps = across.taps / 2;
        for (int x = 0; x + 1 < out_width; x += 2) {
            for (int k = 0; k < steps; k++) {
                int32_t *quad = quads + ((size_t)x * steps + (size_t)k * 2) * 4;
                for (int l = 0; l < 4; l++) {
                    quad[l] = pairs[(size_t)x * steps + k];
                    quad[4 + l] = pairs[(size_t)(x + 1) * steps + k];
                }
            }
        }
    }
    for (int y = 0; y < out_height; y++) {
        const int start = down.starts[y];
        for (int t = 0; t < ring; t++) {
            // Windows only move down, and the ring holds a whole window: each input row is
            // filtered once.
            const int source = start + t < in_height ? start + t : in_height - 1;
            const int slot = source % ring;
            unsigned char *target = filtered + (size_t)slot * filtered_row;
            if (held[slot] != source) {
                const unsigned char *line = in + (size_t)source * in_stride;
#ifdef CRESAMPLE_X86
                if (simd) {
                    // The SIMD loads read up to ROW_SLACK bytes past the row's end and use none
                    // of them: inside the image but for its last rows, which are copied first.
                    const unsigned char *from = line;
                    if (line + in_row + ROW_SLACK > end) {
                        memcpy(copy, line, in_row);
                        from = copy;
                    }
                    const int done = quads ? horizontal_rgb_avx2(from, &across, quads, out_width, target) : 0;
                    horizontal_rgb_ssse3(from, &across, pairs, done, out_width, target);
                } else
#endif
                    horizontal_scalar(line, bands, &across, out_width, target);
                held[slot] = source;
            }
            rows[t] = target;
        }
        const int16_t *weights = down.weights + (size_t)y * down.taps;
        unsigned char *line = out + (size_t)y * out_stride;
#ifdef CRESAMPLE_X86
        if (level >= CRESAMPLE_SSE) {
            const size_t done = wide ? vertical_avx2(rows, weights, down.taps, out_row, line) : 0;
            vertical_sse2(rows, weights, down.taps, done, out_row, line);
        } else {
            vertical_scalar(rows, weights, down.taps, 0, out_row, line);
        }
#else
        vertical_scalar(rows, weights, down.taps, 0, out_row, line);
#endif
    }
    status = 0;
done:
    free(copy);
    free(filtered);
    free(held);
    free(rows);
    free(pairs);
    free(quads);
    free_filter(&made_across);
    free_filter(&made_down);
    return status;
}
