// The 1/8 scale image of the JPEGs cameras, phones and the web write (Huffman-coded, baseline
// with one scan or progressive, 8-bit, grey, YCbCr or RGB, with or without restart markers):
// what a grid thumbnail starts from, and nothing else.
//
// Why our own: at 1/8 a full-resolution component needs only each block's DC, and a
// subsampled one a few of its coefficients, yet every coefficient must still be Huffman
// decoded to find where the next block starts. libjpeg-turbo does that one symbol at a time:
// a table look-up for the code, the coefficient's bits read apart, a refill test and a
// branch on each. Here, for the coefficients no IDCT reads, one look-up of the next 12 bits
// consumes every whole symbol they hold (two on average in a photo) without reading their
// values; for the others, one look-up of 10 bits gives a symbol's code, run and value
// together. Where the next eight bytes hold no 0xFF, nearly everywhere, the bit buffer is
// refilled without a branch on each byte.
//
// A progressive file spreads each block over several scans: the DCs first, then bands of AC
// coefficients, each in a first pass and refinement passes of one more bit. Only the DC scans
// and the subsampled chroma's AC scans are decoded; luma's AC scans, most of the file, are
// stepped over by looking for the marker that ends each.
//
// The pixels are libjpeg's: the DC over 8 for a full-resolution block, the mean of each half
// (from coefficients 0, 1 and 3) for a subsampled one, then its YCbCr to RGB.
//
// Anything unexpected (another kind of file, a bad code, data that ends early, a restart
// marker out of order) declines: the caller then decodes with libjpeg-turbo, which reports
// the damage as before. Every read stays inside the data: past its end, and past a marker,
// the reader feeds zero bits, and an MCU that reads them declines.

#include "cjpeg_fast.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// Bits looked at at once; codes longer than this, or a code with its value longer, take the
/// slow path (rare: a photo's common codes are short).
#define LOOKAHEAD 10
/// Bits looked at at once when skipping coefficients: two symbols on average in a photo.
#define SKIP 12
/// The most blocks in one MCU the standard allows.
#define MAX_BLOCKS_IN_MCU 10

enum {
    /// A code whose symbol is read whole, then its value apart.
    RUN_SYMBOL = 0xFD,
    /// End of block.
    RUN_EOB = 0xFE,
    /// A code longer than the look-ahead.
    RUN_LONG = 0xFF,
};

/// One entry of the look-up by the next LOOKAHEAD bits. When `run` is under 16 the entry is a
/// whole symbol with its value: skip `run` zeros, store `value`, consume `length` bits.
typedef struct {
    int16_t value;
    uint8_t length;
    uint8_t run;
} entry;

/// One entry of the look-up by the next SKIP bits for coefficients no IDCT reads: as many
/// whole symbols as those bits hold, consumed together. `length` 0: not even one.
typedef struct {
    uint8_t length;
    /// Zig-zag positions the symbols move over (each symbol's run and its coefficient).
    uint8_t advance;
    /// The last symbol ends the block.
    uint8_t end;
    uint8_t unused;
} skip_entry;

typedef struct {
    entry fast[1 << LOOKAHEAD];
    skip_entry skip[1 << SKIP];
    /// The largest code of each length, -1 for a length with none.
    int32_t maxcode[17];
    /// Index into `values` of a code of each length, less the code.
    int32_t offset[17];
    uint8_t values[256];
    int count;
} table;

/// The natural (row-major) position of each zig-zag position, and 16 more for a run past the
/// end of a damaged block: they all go to a spare slot no IDCT reads.
static const uint8_t natural_order[80] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 64, 64,
    64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64, 64,
};

static inline int extend(int bits, int size) {
    return bits < (1 << (size - 1)) ? bits - (1 << size) + 1 : bits;
}

/// Builds the look-up for one Huffman table. Returns 0 for a table no valid code set makes.
static int build_table(const JHUFF_TBL *source, int ac, table *t) {
    if (!source) return 0;
    int count = 0;
    for (int l = 1; l <= 16; l++) count += source->bits[l];
    if (count == 0 || count > 256) return 0;
    t->count = count;
    memcpy(t->values, source->huffval, 256);
    uint16_t codes[256];
    uint8_t lengths[256];
    int code = 0, k = 0;
    for (int l = 1; l <= 16; l++) {
        int n = source->bits[l];
        t->offset[l] = k - code;
        for (int i = 0; i < n; i++) {
            codes[k] = (uint16_t)code;
            lengths[k] = (uint8_t)l;
            k++;
            code++;
        }
        if (code > (1 << l)) return 0;
        t->maxcode[l] = n ? code - 1 : -1;
        code <<= 1;
    }
    for (int i = 0; i < (1 << LOOKAHEAD); i++) {
        t->fast[i] = (entry){0, 0, RUN_LONG};
    }
    for (int i = 0; i < count; i++) {
        int l = lengths[i];
        if (l > LOOKAHEAD) break;
        int symbol = t->values[i];
        int run = ac ? symbol >> 4 : 0;
        int size = ac ? symbol & 15 : symbol;
        int first = codes[i] << (LOOKAHEAD - l), span = 1 << (LOOKAHEAD - l);
        for (int j = first; j < first + span; j++) {
            entry e;
            if (ac && size == 0) {
                // ZRL skips sixteen zeros: fifteen, then a stored zero. Anything else ends the
                // block (in a progressive scan, a run of blocks: the symbol is kept for that).
                e = run == 15 ? (entry){0, (uint8_t)l, 15} : (entry){(int16_t)symbol, (uint8_t)l, RUN_EOB};
            } else if (size <= 15 && l + size <= LOOKAHEAD) {
                int bits = size ? (j >> (LOOKAHEAD - l - size)) & ((1 << size) - 1) : 0;
                e = (entry){(int16_t)(size ? extend(bits, size) : 0), (uint8_t)(l + size), (uint8_t)run};
            } else {
                e = (entry){(int16_t)symbol, (uint8_t)l, RUN_SYMBOL};
            }
            t->fast[j] = e;
        }
    }
    return 1;
}

/// The look-up by SKIP bits for an AC table: as many whole symbols as those bits hold. Only a
/// baseline scan skips coefficients this way.
static void build_skips(table *t) {
    for (int j = 0; j < (1 << SKIP); j++) {
        int position = 0, advance = 0, end = 0;
        while (position < SKIP) {
            entry e = t->fast[((j << position) & ((1 << SKIP) - 1)) >> (SKIP - LOOKAHEAD)];
            if (e.run > RUN_EOB || e.run == RUN_SYMBOL || position + e.length > SKIP) break;
            position += e.length;
            if (e.run == RUN_EOB) {
                end = 1;
                break;
            }
            advance += e.run + 1;
        }
        t->skip[j] = (skip_entry){(uint8_t)position, (uint8_t)advance, (uint8_t)end, 0};
    }
}

/// A bit reader over the scan as the file has it: `bits` valid bits at the top of `acc`, the
/// next bytes at `p`. Where the next eight bytes hold no 0xFF (nearly everywhere: 0xFF comes
/// once in some 256 bytes of coded data, stuffed with a zero), a refill leaves 56 to 63 valid
/// bits without a branch, and never loads past a 0xFF; the bytes near one go one at a time,
/// unstuffed. At a marker or the end of the data it feeds zero bits, counted in `zeros`: a
/// block that reads them is damaged or cut short.
typedef struct {
    uint64_t acc;
    int bits;
    const uint8_t *p;
    /// One past the last place an eight-byte load may start, and the end of the data.
    const uint8_t *limit, *end;
    int zeros;
} reader;

static inline uint64_t load_be64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

/// Whether any byte of `w` is 0xFF.
static inline int has_ff(uint64_t w) {
    uint64_t v = ~w;
    return ((v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL) != 0;
}

/// A refill a byte at a time, for the bytes around a 0xFF and at the end. Like the fast one
/// it leaves 56 to 63 bits: never 64, which the fast one could not take.
static void refill_slow(reader *r) {
    while (r->bits < 56) {
        unsigned byte = 0;
        if (r->zeros == 0 && r->p < r->end) {
            byte = *r->p;
            if (byte != 0xFF) {
                r->p++;
            } else if (r->p + 1 < r->end && r->p[1] == 0x00) {
                r->p += 2;
            } else {
                // A marker (or the data's end): it stays where it is, for the restart check.
                byte = 0;
                r->zeros += 8;
            }
        } else {
            r->zeros += 8;
        }
        r->acc |= (uint64_t)byte << (56 - r->bits);
        r->bits += 8;
    }
}

/// The branch-free refill, on a reader's fields wherever they live (`decode_block` keeps
/// them in locals, so in registers). Returns 0 where the next eight bytes hold a 0xFF or run
/// past the data: `refill_slow` must take them.
static inline __attribute__((always_inline)) int refill_fast(uint64_t *acc, int *bits, const uint8_t **p,
                                                             const uint8_t *limit) {
    if (__builtin_expect(*p >= limit, 0)) return 0;
    uint64_t w = load_be64(*p);
    if (__builtin_expect(has_ff(w), 0)) return 0;
    *acc |= w >> *bits;
    *p += (63 - *bits) >> 3;
    *bits |= 56;
    return 1;
}

static inline void refill(reader *r) {
    if (!refill_fast(&r->acc, &r->bits, &r->p, r->limit)) refill_slow(r);
}

static inline void consume(reader *r, int n) {
    r->acc <<= n;
    r->bits -= n;
}

/// A symbol the look-up could not give whole: its code is long, or its value is. Returns the
/// symbol, or -1 for a code the table does not have. The reader was refilled.
static int decode_symbol(reader *r, const table *t) {
    entry e = t->fast[r->acc >> (64 - LOOKAHEAD)];
    if (e.run == RUN_SYMBOL) {
        consume(r, e.length);
        return e.value;
    }
    for (int l = LOOKAHEAD + 1; l <= 16; l++) {
        int32_t code = (int32_t)(r->acc >> (64 - l));
        if (code <= t->maxcode[l]) {
            int index = t->offset[l] + code;
            if (index < 0 || index >= t->count) return -1;
            consume(r, l);
            return t->values[index];
        }
    }
    return -1;
}

/// A DC difference: its size by the table, then that many bits. Returns 0 for damaged data.
static int decode_dc(reader *r, const table *t, int *diff) {
    refill(r);
    entry e = t->fast[r->acc >> (64 - LOOKAHEAD)];
    if (e.run == 0) {
        consume(r, e.length);
        *diff = e.value;
        return 1;
    }
    int size = decode_symbol(r, t);
    if (size < 0 || size > 15) return 0;
    refill(r);
    *diff = 0;
    if (size) {
        *diff = extend((int)(r->acc >> (64 - size)), size);
        consume(r, size);
    }
    return 1;
}

/// Decodes one block's coefficients into `zz` (natural order, 65 entries: the last is the
/// spare slot). Only the nonzero coefficients before zig-zag position `coefficients` are
/// stored; the rest are skipped, or stored into the spare slot. Returns 0 for damaged data.
/// The reader lives in locals (registers) here; it goes back to `r` around the slow path.
static inline int decode_block(reader *r, const table *dc, const table *ac, int coefficients, int *predictor, int32_t *zz) {
    uint64_t acc = r->acc;
    int bits = r->bits;
    const uint8_t *p = r->p;
    const uint8_t *limit = r->limit;
#define SAVE()                                                                                     \
    do {                                                                                           \
        r->acc = acc;                                                                              \
        r->bits = bits;                                                                            \
        r->p = p;                                                                                  \
    } while (0)
#define LOAD()                                                                                     \
    do {                                                                                           \
        acc = r->acc;                                                                              \
        bits = r->bits;                                                                            \
        p = r->p;                                                                                  \
    } while (0)
#define REFILL()                                                                                   \
    do {                                                                                           \
        if (!refill_fast(&acc, &bits, &p, limit)) {                                                \
            SAVE();                                                                                \
            refill_slow(r);                                                                        \
            LOAD();                                                                                \
        }                                                                                          \
    } while (0)
#define CONSUME(n)                                                                                 \
    do {                                                                                           \
        acc <<= (n);                                                                               \
        bits -= (n);                                                                               \
    } while (0)
#define SLOW_SYMBOL(t, out)                                                                        \
    do {                                                                                           \
        SAVE();                                                                                    \
        out = decode_symbol(r, t);                                                                 \
        LOAD();                                                                                    \
    } while (0)
    int ok = 1;
    int diff;
    SAVE();
    if (!decode_dc(r, dc, &diff)) return 0;
    LOAD();
    entry e;
    // Wrapping, as damaged data may add up past an int.
    *predictor = (int)((unsigned)*predictor + (unsigned)diff);
    zz[0] = *predictor;
    // One symbol by the one-symbol look-up, its value stored in `slot` (the spare one for a
    // coefficient no IDCT reads); leaves the loop it is in after a symbol the look-up could
    // not give whole, so that the buffer is refilled.
#define ONE_SYMBOL(slot)                                                                           \
    e = ac->fast[acc >> (64 - LOOKAHEAD)];                                                         \
    if (e.run < 16) {                                                                              \
        CONSUME(e.length);                                                                         \
        k += e.run;                                                                                \
        zz[slot] = e.value;                                                                        \
        k++;                                                                                       \
        if (k >= 64) goto end;                                                                     \
        continue;                                                                                  \
    }                                                                                              \
    if (e.run == RUN_EOB) {                                                                        \
        CONSUME(e.length);                                                                         \
        goto end;                                                                                  \
    }                                                                                              \
    int symbol;                                                                                    \
    SLOW_SYMBOL(ac, symbol);                                                                       \
    if (symbol < 0) {                                                                              \
        ok = 0;                                                                                    \
        goto out;                                                                                  \
    }                                                                                              \
    int run = symbol >> 4, size = symbol & 15;                                                     \
    if (size == 0) {                                                                               \
        if (run != 15) goto end;                                                                   \
        k += 16;                                                                                   \
        break;                                                                                     \
    }                                                                                              \
    REFILL();                                                                                      \
    k += run;                                                                                      \
    zz[slot] = extend((int)(acc >> (64 - size)), size);                                            \
    CONSUME(size);                                                                                 \
    k++;                                                                                           \
    break;
    int k = 1;
    // The coefficients the IDCT reads, one symbol at a time. After a refill, five whole symbols
    // (at most LOOKAHEAD bits each) fit in the buffer: four of every five skip the refill.
    while (k < coefficients) {
        REFILL();
        for (int i = 0; i < 56 / LOOKAHEAD && k < coefficients; i++) {
            ONE_SYMBOL(k < coefficients ? natural_order[k] : 64)
        }
    }
    // The rest of the block, several symbols a look-up while they stay inside the block.
    while (k < 64) {
        REFILL();
        for (int i = 0; i < 56 / SKIP; i++) {
            skip_entry s = ac->skip[acc >> (64 - SKIP)];
            // An end of block counts as a position: a block that fills all 64 has none, and
            // what follows it is the next block's DC.
            if (s.length && k + s.advance + s.end <= 64) {
                CONSUME(s.length);
                k += s.advance;
                if (s.end || k >= 64) goto end;
                continue;
            }
            ONE_SYMBOL(64)
        }
    }
end:
    ok = k <= 64;
out:
    SAVE();
    return ok;
#undef REFILL
#undef CONSUME
#undef SLOW_SYMBOL
#undef SAVE
#undef LOAD
#undef ONE_SYMBOL
}

/// One component: where its blocks go and how its reduced IDCT is made.
typedef struct {
    int h, v;
    /// Pixels of one block at this scale, across and down.
    int nh, nv;
    const table *dc, *ac;
    int predictor;
    /// One past the last zig-zag position the IDCT reads; the rest of a block is skipped.
    int coefficients;
    /// The dequantisers, natural order.
    float quant[64];
    int quant1;
    uint8_t *plane;
    size_t stride;
    int rows;
    /// A progressive file's coefficients until its last scan, `per_block` for each block of
    /// the plane, `block_stride` blocks a row: the DC alone, or the nine (u, v in 0, 1, 3) a
    /// subsampled block's halves are made from.
    int32_t *coefficient_store;
    int per_block;
    /// For each such subsampled block, which zig-zag positions are nonzero so far: a
    /// refinement pass sends a correction bit for each of them.
    uint64_t *nonzero;
    size_t block_stride;
    /// The blocks a scan of this component alone covers (no MCU padding).
    size_t blocks_across, blocks_down;
} component;

/// The natural positions of the nine coefficients a progressive file's subsampled block keeps,
/// and the slot of each natural position among them, or -1.
static const uint8_t kept_natural[9] = {0, 1, 3, 8, 9, 11, 24, 25, 27};
static const int8_t kept_slot[64] = {
    0,  1,  -1, 2,  -1, -1, -1, -1, 3,  4,  -1, 5,  -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, 6,  7,  -1, 8,  -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

static inline uint8_t clamp_pixel(float value) {
    return (uint8_t)fminf(fmaxf(value + 128.5f, 0.0f), 255.0f);
}

/// A block made into n pixels across or down (n 1 or 2), each the mean of the 8 / n pixels of
/// the full block it covers: what libjpeg's reduced IDCTs compute, and what a box shrink of
/// the full decode gives. With f(x) = 1/2 sum C(u) F(u) cos((2x+1) u pi / 16), one pixel is
/// the mean of all eight, C(0)/2 F(0); two pixels are that plus and minus the odd
/// coefficients' share (the even ones' cosines sum to zero over each half). Frequencies 5 and
/// 7 are left out: their weights are the smallest, photos quantise them hardest, and without
/// them the rest of each block can be skipped (on the corpus' photos, the mean distance to
/// the box shrink of the full decode moved by under 0.01 of 255).
static inline __attribute__((always_inline)) void box_1d(
    const int32_t *coefficients, const float *quant, int step, float *out, int out_step, const int n) {
    const float dc = 0.35355339f;  // C(0) / 2
    // 1/2 * 1/4 * sum over x = 0...3 of cos((2x+1) u pi / 16), for u = 1 and 3.
    const float w1 = 0.32036724f, w3 = -0.11266292f;
    float even = dc * (float)coefficients[0] * quant[0];
    if (n == 1) {
        out[0] = even;
        return;
    }
    float odd = w1 * (float)coefficients[step] * quant[step] + w3 * (float)coefficients[3 * step] * quant[3 * step];
    out[0] = even + odd;
    out[out_step] = even - odd;
}

/// The same down the block's columns, over values already transformed across.
static inline __attribute__((always_inline)) void box_1d_float(const float *in, int step, float *out, int out_step, const int n) {
    const float dc = 0.35355339f;
    const float w1 = 0.32036724f, w3 = -0.11266292f;
    float even = dc * in[0];
    if (n == 1) {
        out[0] = even;
        return;
    }
    float odd = w1 * in[step] + w3 * in[3 * step];
    out[0] = even + odd;
    out[out_step] = even - odd;
}

/// A block's nh by nv pixels: across each needed row of coefficients, then down.
static inline __attribute__((always_inline)) void box_block(
    const component *c, const int32_t *zz, uint8_t *out, const int nh, const int nv) {
    float across[4][2], pixels[2][2];
    static const int used[3] = {0, 1, 3};
    for (int i = 0; i < (nv == 1 ? 1 : 3); i++) {
        int v = used[i];
        box_1d(zz + 8 * v, c->quant + 8 * v, 1, across[v], 1, nh);
    }
    for (int x = 0; x < nh; x++) box_1d_float(&across[0][x], 2, &pixels[0][x], 2, nv);
    for (int y = 0; y < nv; y++) {
        for (int x = 0; x < nh; x++) out[(size_t)y * c->stride + x] = clamp_pixel(pixels[y][x]);
    }
}

/// The block's pixels into the plane at (x, y).
static inline void idct_block(const component *c, const int32_t *zz, int x, int y) {
    uint8_t *out = c->plane + (size_t)y * c->stride + x;
    switch (c->nh * 2 + c->nv) {
    case 1 * 2 + 1: {
        // Exactly libjpeg's: the DC over 8, rounded.
        int64_t value = (((int64_t)zz[0] * c->quant1 + 4) >> 3) + 128;
        out[0] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
        break;
    }
    case 2 * 2 + 2:
        box_block(c, zz, out, 2, 2);
        break;
    case 2 * 2 + 1:
        box_block(c, zz, out, 2, 1);
        break;
    default:
        box_block(c, zz, out, 1, 2);
        break;
    }
}

/// Zeroes the positions a block of this component may have stored (its first `coefficients`
/// in zig-zag order; past them a block stores into the spare slot).
static inline void clear_block(const component *c, int32_t *zz) {
    for (int k = 1; k < c->coefficients; k++) zz[natural_order[k]] = 0;
}

/// Moves the reader past the restart marker that must end an interval (after any fill
/// bytes), and starts the next interval. Returns 0 where the marker is missing, out of order,
/// or has data before it.
static int restart(reader *r, int number) {
    const uint8_t *p = r->p;
    while (p + 2 < r->end && p[0] == 0xFF && p[1] == 0xFF) p++;
    if (p + 2 > r->end || p[0] != 0xFF || p[1] != 0xD0 + (number & 7)) return 0;
    r->p = p + 2;
    r->acc = 0;
    r->bits = 0;
    r->zeros = 0;
    return 1;
}

/// What one decode shares between its passes.
typedef struct {
    struct jpeg_decompress_struct *cinfo;
    int components;
    component comps[3];
    /// The MCU grid of an interleaved scan.
    size_t mcus_across, mcus_down;
    int max_h, max_v;
    table *tables;
    int built[2 * NUM_HUFF_TBLS];
    cjpeg_monitor monitor;
    void *context;
} decode_state;

/// The components in frame order, their tables (for a baseline file) and planes. Returns 0
/// for a layout this decoder does not take.
static int set_up(decode_state *d, int progressive, size_t width, size_t height, size_t max_memory) {
    struct jpeg_decompress_struct *cinfo = d->cinfo;
    int components = d->components;
    d->max_h = d->max_v = 1;
    for (int i = 0; i < components; i++) {
        jpeg_component_info *info = &cinfo->comp_info[i];
        if (info->h_samp_factor < 1 || info->v_samp_factor < 1) return 0;
        if (info->h_samp_factor > d->max_h) d->max_h = info->h_samp_factor;
        if (info->v_samp_factor > d->max_v) d->max_v = info->v_samp_factor;
    }
    int inverse[64];
    for (int i = 0; i < 64; i++) inverse[natural_order[i]] = i;
    int blocks_in_mcu = 0;
    for (int i = 0; i < components; i++) {
        jpeg_component_info *info = &cinfo->comp_info[i];
        component *c = &d->comps[i];
        c->h = components == 1 ? 1 : info->h_samp_factor;
        c->v = components == 1 ? 1 : info->v_samp_factor;
        if (d->max_h % c->h || d->max_v % c->v) return 0;
        int rh = components == 1 ? 1 : d->max_h / c->h, rv = components == 1 ? 1 : d->max_v / c->v;
        if (rh > 2 || rv > 2) return 0;
        // A subsampled component's blocks cover more of the image: their IDCTs make more
        // pixels, so that every plane comes out at the output's size.
        c->nh = rh;
        c->nv = rv;
        c->per_block = rh * rv > 1 ? 9 : 1;
        blocks_in_mcu += c->h * c->v;
        int q = info->quant_tbl_no;
        if (q < 0 || q >= NUM_QUANT_TBLS || !cinfo->quant_tbl_ptrs[q]) return 0;
        const JQUANT_TBL *quant = cinfo->quant_tbl_ptrs[q];
        for (int j = 0; j < 64; j++) c->quant[j] = (float)quant->quantval[j];
        c->quant1 = quant->quantval[0];
        // One pixel a direction reads frequency 0 of it; two read 0, 1 and 3.
        c->coefficients = 1;
        for (int fv = 0; fv < (c->nv == 1 ? 1 : 4); fv++) {
            for (int fu = 0; fu < (c->nh == 1 ? 1 : 4); fu++) {
                if (inverse[fv * 8 + fu] + 1 > c->coefficients) c->coefficients = inverse[fv * 8 + fu] + 1;
            }
        }
        size_t component_width = ((size_t)cinfo->image_width * (size_t)c->h + (size_t)d->max_h - 1) / (size_t)d->max_h;
        size_t component_height = ((size_t)cinfo->image_height * (size_t)c->v + (size_t)d->max_v - 1) / (size_t)d->max_v;
        c->blocks_across = (component_width + 7) / 8;
        c->blocks_down = (component_height + 7) / 8;
    }
    if (blocks_in_mcu > MAX_BLOCKS_IN_MCU) return 0;
    // The grid of MCUs: one block each for a single component, else max_h by max_v blocks of
    // the largest component.
    if (components == 1) {
        d->mcus_across = (cinfo->image_width + 7) / 8;
        d->mcus_down = (cinfo->image_height + 7) / 8;
    } else {
        d->mcus_across = (cinfo->image_width + 8 * (size_t)d->max_h - 1) / (8 * (size_t)d->max_h);
        d->mcus_down = (cinfo->image_height + 8 * (size_t)d->max_v - 1) / (8 * (size_t)d->max_v);
    }
    size_t memory = 0;
    for (int i = 0; i < components; i++) {
        component *c = &d->comps[i];
        c->stride = d->mcus_across * (size_t)c->h * (size_t)c->nh;
        c->rows = (int)(d->mcus_down * (size_t)c->v * (size_t)c->nv);
        if (width > c->stride || height > (size_t)c->rows) return 0;
        c->block_stride = d->mcus_across * (size_t)c->h;
        size_t blocks = c->block_stride * d->mcus_down * (size_t)c->v;
        // The planes, and a progressive file's kept coefficients: at most 44 bytes a block,
        // where libjpeg-turbo keeps 128.
        memory += c->stride * (size_t)c->rows;
        if (progressive) memory += blocks * ((size_t)c->per_block * sizeof(int32_t) + (c->per_block > 1 ? sizeof(uint64_t) : 0));
        if (memory > max_memory) return 0;
        c->plane = malloc(c->stride * (size_t)c->rows);
        if (!c->plane) return 0;
        if (progressive) {
            c->coefficient_store = calloc(blocks * (size_t)c->per_block, sizeof(int32_t));
            if (!c->coefficient_store) return 0;
            if (c->per_block > 1) {
                c->nonzero = calloc(blocks, sizeof(uint64_t));
                if (!c->nonzero) return 0;
            }
        }
    }
    return 1;
}

/// The look-up for one of the file's tables, built once and shared by the components that use
/// it (Cb and Cr usually do): fewer to keep in the processor's first-level cache.
static const table *lookup(decode_state *d, const JHUFF_TBL *source, int ac, int number) {
    int slot = ac * NUM_HUFF_TBLS + number;
    if (!d->built[slot]) {
        if (!build_table(source, ac, &d->tables[slot])) return NULL;
        if (ac && !d->cinfo->progressive_mode) build_skips(&d->tables[slot]);
        d->built[slot] = 1;
    }
    return &d->tables[slot];
}

/// A baseline file's one scan, every block into its plane. Returns FAST_DONE, or why not.
static fast_status baseline_scan(decode_state *d, const unsigned char *data, size_t length) {
    struct jpeg_decompress_struct *cinfo = d->cinfo;
    if (cinfo->comps_in_scan != d->components) return FAST_DECLINED;
    if (cinfo->Ss != 0 || cinfo->Se != 63 || cinfo->Ah != 0 || cinfo->Al != 0) return FAST_DECLINED;
    // The scan's components, in its order (a file may list them in another than the frame's).
    component *order[3];
    for (int i = 0; i < d->components; i++) {
        jpeg_component_info *info = cinfo->cur_comp_info[i];
        if (!info) return FAST_DECLINED;
        component *c = &d->comps[info - cinfo->comp_info];
        int dc = info->dc_tbl_no, ac = info->ac_tbl_no;
        if (dc < 0 || dc >= NUM_HUFF_TBLS || ac < 0 || ac >= NUM_HUFF_TBLS) return FAST_DECLINED;
        c->dc = lookup(d, cinfo->dc_huff_tbl_ptrs[dc], 0, dc);
        c->ac = lookup(d, cinfo->ac_huff_tbl_ptrs[ac], 1, ac);
        if (!c->dc || !c->ac) return FAST_DECLINED;
        order[i] = c;
    }
    int32_t zz[65];
    memset(zz, 0, sizeof(zz));
    reader r = {0, 0, data, length >= 8 ? data + length - 7 : data, data + length, 0};
    size_t interval = cinfo->restart_interval, left_in_interval = interval;
    int restarts = 0;
    for (size_t my = 0; my < d->mcus_down; my++) {
        for (size_t mx = 0; mx < d->mcus_across; mx++) {
            if (interval && left_in_interval == 0) {
                if (!restart(&r, restarts++)) return FAST_DECLINED;
                for (int i = 0; i < d->components; i++) d->comps[i].predictor = 0;
                left_in_interval = interval;
            }
            for (int i = 0; i < d->components; i++) {
                component *c = order[i];
                for (int by = 0; by < c->v; by++) {
                    for (int bx = 0; bx < c->h; bx++) {
                        if (!decode_block(&r, c->dc, c->ac, c->coefficients, &c->predictor, zz)) return FAST_DECLINED;
                        idct_block(c, zz, (int)((mx * (size_t)c->h + (size_t)bx) * (size_t)c->nh),
                                   (int)((my * (size_t)c->v + (size_t)by) * (size_t)c->nv));
                        clear_block(c, zz);
                    }
                }
            }
            // Bits read past a marker or the end: damaged or cut short.
            if (r.zeros && r.bits < r.zeros) return FAST_DECLINED;
            if (interval) left_in_interval--;
        }
        if (d->monitor && d->monitor(d->context, 0.9 * (double)(my + 1) / (double)d->mcus_down)) return FAST_CANCELLED;
    }
    return FAST_DONE;
}

/// The next marker at or after `p` in coded data (not a stuffed zero, not a restart marker),
/// or NULL.
static const uint8_t *next_marker(const uint8_t *p, const uint8_t *end) {
    while (p + 1 < end) {
        const uint8_t *ff = memchr(p, 0xFF, (size_t)(end - p - 1));
        if (!ff) return NULL;
        uint8_t m = ff[1];
        if (m == 0xFF) {
            p = ff + 1;
        } else if (m == 0x00 || (m >= 0xD0 && m <= 0xD7)) {
            p = ff + 2;
        } else {
            return ff;
        }
    }
    return NULL;
}

/// One scan of a progressive file: which components, which coefficients, which bits.
typedef struct {
    int count;
    component *comps[4];
    int dc_tables[4], ac_tables[4];
    int ss, se, ah, al;
} scan_header;

/// A progressive DC scan: the first (each block's DC difference, shifted up by `al`) or a
/// refinement (one more bit of each). Leaves `*end_of_scan` at the marker after it.
static fast_status dc_scan(decode_state *d, const scan_header *scan, const table **tables, size_t interval,
                           const uint8_t *data, const uint8_t *end, const uint8_t **end_of_scan) {
    reader r = {0, 0, data, end - data >= 8 ? end - 7 : data, end, 0};
    // One component: its blocks in order, without the MCU grid's padding. Several: MCUs.
    int interleaved = scan->count > 1;
    size_t across = interleaved ? d->mcus_across : scan->comps[0]->blocks_across;
    size_t down = interleaved ? d->mcus_down : scan->comps[0]->blocks_down;
    size_t left_in_interval = interval;
    int restarts = 0;
    for (int i = 0; i < scan->count; i++) scan->comps[i]->predictor = 0;
    for (size_t my = 0; my < down; my++) {
        for (size_t mx = 0; mx < across; mx++) {
            if (interval && left_in_interval == 0) {
                if (!restart(&r, restarts++)) return FAST_DECLINED;
                for (int i = 0; i < scan->count; i++) scan->comps[i]->predictor = 0;
                left_in_interval = interval;
            }
            for (int i = 0; i < scan->count; i++) {
                component *c = scan->comps[i];
                int h = interleaved ? c->h : 1, v = interleaved ? c->v : 1;
                for (int by = 0; by < v; by++) {
                    for (int bx = 0; bx < h; bx++) {
                        size_t block = (my * (size_t)v + (size_t)by) * c->block_stride + mx * (size_t)h + (size_t)bx;
                        int32_t *dc = &c->coefficient_store[block * (size_t)c->per_block];
                        if (scan->ah == 0) {
                            int diff;
                            if (!decode_dc(&r, tables[i], &diff)) return FAST_DECLINED;
                            // Wrapping, as damaged data may add up past an int.
                            c->predictor = (int)((unsigned)c->predictor + (unsigned)diff);
                            *dc = (int32_t)((uint32_t)c->predictor << scan->al);
                        } else {
                            refill(&r);
                            if (r.acc >> 63) *dc |= (int32_t)1 << scan->al;
                            consume(&r, 1);
                        }
                    }
                }
            }
            if (r.zeros && r.bits < r.zeros) return FAST_DECLINED;
            if (interval) left_in_interval--;
        }
    }
    *end_of_scan = next_marker(r.p, end);
    return *end_of_scan ? FAST_DONE : FAST_DECLINED;
}

/// One symbol of a progressive AC scan. Returns 1 for a coefficient: the zeros to pass over
/// before it (`run`) and its value (0 for sixteen zeros); 0 for an end of band, with the blocks
/// it covers, this one included, in `bands`; -1 for a code the table does not have.
static int ac_symbol(reader *r, const table *t, int *run, int *value, unsigned *bands) {
    refill(r);
    entry e = t->fast[r->acc >> (64 - LOOKAHEAD)];
    if (e.run < 16) {
        consume(r, e.length);
        *run = e.run;
        *value = e.value;
        return 1;
    }
    int symbol;
    if (e.run == RUN_EOB) {
        consume(r, e.length);
        symbol = e.value;
    } else {
        symbol = decode_symbol(r, t);
        if (symbol < 0) return -1;
    }
    *run = symbol >> 4;
    int size = symbol & 15;
    if (size == 0 && *run != 15) {
        // 2^run blocks, and `run` more bits of them.
        refill(r);
        *bands = 1u << *run;
        if (*run) {
            *bands += (unsigned)(r->acc >> (64 - *run));
            consume(r, *run);
        }
        return 0;
    }
    *value = 0;
    if (size) {
        refill(r);
        *value = extend((int)(r->acc >> (64 - size)), size);
        consume(r, size);
    }
    return 1;
}

/// A block of a progressive AC scan's first pass (coefficients `ss` to `se`, shifted up by
/// `al`): keeps those its halves are made from, and notes which are nonzero. Returns 0 for
/// damaged data.
static int first_pass_block(reader *r, const table *t, const scan_header *scan, int32_t *kept, uint64_t *nonzero,
                            unsigned *end_of_bands) {
    // A run of blocks with nothing in this band.
    if (*end_of_bands) {
        (*end_of_bands)--;
        return 1;
    }
    for (int k = scan->ss; k <= scan->se; k++) {
        int run, value;
        unsigned bands;
        int kind = ac_symbol(r, t, &run, &value, &bands);
        if (kind < 0) return 0;
        if (kind == 0) {
            *end_of_bands = bands - 1;
            break;
        }
        k += run;
        if (k > scan->se) return 0;
        if (value) *nonzero |= 1ULL << k;
        int slot = kept_slot[natural_order[k]];
        if (slot >= 0) kept[slot] = (int32_t)((uint32_t)value << scan->al);
    }
    return 1;
}

/// The zig-zag positions from `from` up to, not including, `to` (0 <= from <= to <= 64).
static inline uint64_t positions(int from, int to) {
    uint64_t below_to = to >= 64 ? ~0ULL : (1ULL << to) - 1;
    return below_to & ~((1ULL << from) - 1);
}

/// One correction bit for each coefficient in `pending`, in zig-zag order: it adds `bit` (with
/// the coefficient's sign) where a kept coefficient lacks it.
static void corrections(reader *r, uint64_t pending, int32_t *kept, int32_t bit) {
    while (pending) {
        refill(r);
        for (int i = 0; i < 48 && pending; i++) {
            int k = __builtin_ctzll(pending);
            pending &= pending - 1;
            int correction = (int)(r->acc >> 63);
            consume(r, 1);
            int slot = kept_slot[natural_order[k]];
            if (correction && slot >= 0 && (kept[slot] & bit) == 0) kept[slot] += kept[slot] >= 0 ? bit : -bit;
        }
    }
}

/// A block of a progressive AC refinement pass (ITU-T T.81, G.1.2.3): one more bit of every
/// coefficient of the band, a correction bit for each already nonzero, and the coefficients
/// that become nonzero (plus or minus the bit). Returns 0 for damaged data.
static int refinement_block(reader *r, const table *t, const scan_header *scan, int32_t *kept, uint64_t *nonzero,
                            unsigned *end_of_bands) {
    int32_t bit = (int32_t)1 << scan->al;
    int k = scan->ss;
    if (*end_of_bands == 0) {
        for (; k <= scan->se; k++) {
            int run, value;
            unsigned bands;
            int kind = ac_symbol(r, t, &run, &value, &bands);
            if (kind < 0) return 0;
            if (kind == 0) {
                *end_of_bands = bands;
                break;
            }
            // A refinement's new coefficients are plus or minus one bit.
            if (value < -1 || value > 1) return 0;
            // Past the coefficients already nonzero (a correction bit each) and `run` of those
            // still zero, to the one the symbol is for.
            uint64_t still_zero = ~*nonzero & positions(k, scan->se + 1);
            for (int i = 0; i < run && still_zero; i++) still_zero &= still_zero - 1;
            int target = still_zero ? __builtin_ctzll(still_zero) : scan->se + 1;
            corrections(r, *nonzero & positions(k, target), kept, bit);
            k = target;
            if (value) {
                if (k > scan->se) return 0;
                *nonzero |= 1ULL << k;
                int slot = kept_slot[natural_order[k]];
                if (slot >= 0) kept[slot] = value * bit;
            }
        }
    }
    if (*end_of_bands > 0) {
        // The rest of the band: corrections for the coefficients already nonzero.
        if (k <= scan->se) corrections(r, *nonzero & positions(k, scan->se + 1), kept, bit);
        (*end_of_bands)--;
    }
    return 1;
}

/// A progressive AC scan of one subsampled component, a first pass or a refinement, block by
/// block without the MCU grid's padding. Leaves `*end_of_scan` at the marker after it.
static fast_status ac_scan(component *c, const table *t, const scan_header *scan, size_t interval,
                           const uint8_t *data, const uint8_t *end, const uint8_t **end_of_scan) {
    reader r = {0, 0, data, end - data >= 8 ? end - 7 : data, end, 0};
    unsigned end_of_bands = 0;
    size_t left_in_interval = interval;
    int restarts = 0;
    for (size_t by = 0; by < c->blocks_down; by++) {
        for (size_t bx = 0; bx < c->blocks_across; bx++) {
            if (interval && left_in_interval == 0) {
                if (!restart(&r, restarts++)) return FAST_DECLINED;
                end_of_bands = 0;
                left_in_interval = interval;
            }
            if (interval) left_in_interval--;
            int32_t *kept = &c->coefficient_store[(by * c->block_stride + bx) * 9];
            uint64_t *nonzero = &c->nonzero[by * c->block_stride + bx];
            int ok = scan->ah == 0 ? first_pass_block(&r, t, scan, kept, nonzero, &end_of_bands)
                                   : refinement_block(&r, t, scan, kept, nonzero, &end_of_bands);
            if (!ok || (r.zeros && r.bits < r.zeros)) return FAST_DECLINED;
        }
    }
    *end_of_scan = next_marker(r.p, end);
    return *end_of_scan ? FAST_DONE : FAST_DECLINED;
}

/// Reads a two-byte big-endian length or value.
static inline size_t be16(const uint8_t *p) {
    return ((size_t)p[0] << 8) | p[1];
}

/// A progressive file at 1/8: only its DC scans are decoded (a full-resolution block's pixel
/// is its DC, as libjpeg makes it); the AC scans, most of the file, are stepped over by
/// looking for the next marker. The markers between scans are read here: Huffman tables
/// (each scan may bring its own), restart intervals, the next scan's header.
static fast_status progressive_scans(decode_state *d, const unsigned char *data, size_t length) {
    struct jpeg_decompress_struct *cinfo = d->cinfo;
    const uint8_t *end = data + length, *p = data;
    // The tables as the file defines them so far (libjpeg read those before the first scan),
    // DC then AC.
    JHUFF_TBL huffman[2][NUM_HUFF_TBLS];
    int defined[2][NUM_HUFF_TBLS];
    for (int i = 0; i < NUM_HUFF_TBLS; i++) {
        defined[0][i] = cinfo->dc_huff_tbl_ptrs[i] != NULL;
        if (defined[0][i]) huffman[0][i] = *cinfo->dc_huff_tbl_ptrs[i];
        defined[1][i] = cinfo->ac_huff_tbl_ptrs[i] != NULL;
        if (defined[1][i]) huffman[1][i] = *cinfo->ac_huff_tbl_ptrs[i];
    }
    // The lowest DC bit each component has so far, -1 before its first DC scan.
    int dc_bit[3] = {-1, -1, -1};
    size_t interval = cinfo->restart_interval;
    scan_header scan = {0};
    scan.count = cinfo->comps_in_scan;
    if (scan.count < 1 || scan.count > d->components) return FAST_DECLINED;
    for (int i = 0; i < scan.count; i++) {
        jpeg_component_info *info = cinfo->cur_comp_info[i];
        if (!info) return FAST_DECLINED;
        scan.comps[i] = &d->comps[info - cinfo->comp_info];
        scan.dc_tables[i] = info->dc_tbl_no;
        scan.ac_tables[i] = info->ac_tbl_no;
    }
    scan.ss = cinfo->Ss;
    scan.se = cinfo->Se;
    scan.ah = cinfo->Ah;
    scan.al = cinfo->Al;
    int scans = 0;
    for (;;) {
        if (++scans > 1000) return FAST_DECLINED;
        const uint8_t *marker;
        if (scan.ss == 0) {
            // A DC scan: progressive DC scans carry no AC coefficients.
            if (scan.se != 0 || scan.al > 13) return FAST_DECLINED;
            const table *tables[4];
            for (int i = 0; i < scan.count; i++) {
                int c = (int)(scan.comps[i] - d->comps);
                if (scan.ah == 0) {
                    if (dc_bit[c] != -1) return FAST_DECLINED;
                    int n = scan.dc_tables[i];
                    if (n < 0 || n >= NUM_HUFF_TBLS || !defined[0][n]) return FAST_DECLINED;
                    // Rebuilt for each scan: a later table may replace one of the same number.
                    d->built[n] = 0;
                    tables[i] = lookup(d, &huffman[0][n], 0, n);
                    if (!tables[i]) return FAST_DECLINED;
                } else if (dc_bit[c] != scan.ah || scan.al != scan.ah - 1) {
                    return FAST_DECLINED;
                }
                dc_bit[c] = scan.al;
            }
            fast_status status = dc_scan(d, &scan, tables, interval, p, end, &marker);
            if (status != FAST_DONE) return status;
        } else if (scan.count == 1 && scan.comps[0]->per_block > 1) {
            // A subsampled component's AC band: its blocks' halves need coefficients 1 and 3
            // across and down, and their refinements.
            if (scan.se > 63 || scan.ss > scan.se || scan.al > 13) return FAST_DECLINED;
            if (scan.ah != 0 && scan.al != scan.ah - 1) return FAST_DECLINED;
            int n = scan.ac_tables[0];
            if (n < 0 || n >= NUM_HUFF_TBLS || !defined[1][n]) return FAST_DECLINED;
            d->built[NUM_HUFF_TBLS + n] = 0;
            const table *t = lookup(d, &huffman[1][n], 1, n);
            if (!t) return FAST_DECLINED;
            fast_status status = ac_scan(scan.comps[0], t, &scan, interval, p, end, &marker);
            if (status != FAST_DONE) return status;
        } else {
            // Luma's AC bands (and a full-resolution chroma's): stepped over.
            marker = next_marker(p, end);
            if (!marker) return FAST_DECLINED;
        }
        if (d->monitor && d->monitor(d->context, 0.9 * (double)(marker - data) / (double)length)) return FAST_CANCELLED;
        // The markers up to the next scan, or the end of the image.
        p = marker;
        for (;;) {
            while (p + 1 < end && p[0] == 0xFF && p[1] == 0xFF) p++;
            if (p + 2 > end || p[0] != 0xFF) return FAST_DECLINED;
            uint8_t m = p[1];
            if (m == 0xD9) {
                for (int c = 0; c < d->components; c++) {
                    if (dc_bit[c] == -1) return FAST_DECLINED;
                }
                return FAST_DONE;
            }
            if (p + 4 > end) return FAST_DECLINED;
            size_t segment = be16(p + 2);
            if (segment < 2 || p + 2 + segment > end) return FAST_DECLINED;
            const uint8_t *body = p + 4, *stop = p + 2 + segment;
            if (m == 0xC4) {
                while (body < stop) {
                    if (body + 17 > stop) return FAST_DECLINED;
                    int kind = body[0] >> 4, number = body[0] & 15;
                    size_t count = 0;
                    for (int l = 1; l <= 16; l++) count += body[l];
                    if (kind > 1 || number >= NUM_HUFF_TBLS || count > 256 || body + 17 + count > stop) return FAST_DECLINED;
                    JHUFF_TBL *t = &huffman[kind][number];
                    memset(t, 0, sizeof(*t));
                    for (int l = 1; l <= 16; l++) t->bits[l] = body[l];
                    memcpy(t->huffval, body + 17, count);
                    defined[kind][number] = 1;
                    body += 17 + count;
                }
            } else if (m == 0xDD) {
                if (segment != 4) return FAST_DECLINED;
                interval = be16(body);
            } else if (m == 0xDA) {
                if (segment < 3) return FAST_DECLINED;
                int count = body[0];
                if (count < 1 || count > d->components || segment != (size_t)(6 + 2 * count)) return FAST_DECLINED;
                scan.count = count;
                for (int i = 0; i < count; i++) {
                    int id = body[1 + 2 * i], found = -1;
                    for (int c = 0; c < d->components; c++) {
                        if (cinfo->comp_info[c].component_id == id) found = c;
                    }
                    if (found < 0) return FAST_DECLINED;
                    scan.comps[i] = &d->comps[found];
                    scan.dc_tables[i] = body[2 + 2 * i] >> 4;
                    scan.ac_tables[i] = body[2 + 2 * i] & 15;
                }
                const uint8_t *tail = body + 1 + 2 * count;
                scan.ss = tail[0];
                scan.se = tail[1];
                scan.ah = tail[2] >> 4;
                scan.al = tail[2] & 15;
                p = stop;
                break;
            } else if ((m >= 0xE0 && m <= 0xEF) || m == 0xFE) {
                // Application data and comments: nothing for the pixels.
            } else {
                // New quantisation tables, a DNL marker, another frame: left to libjpeg.
                return FAST_DECLINED;
            }
            p = stop;
        }
    }
}

/// The planes, all at the output's size, converted to RGB (or copied, for grey) into `pixels`.
static void write_pixels(decode_state *d, unsigned char *pixels, size_t stride, size_t width, size_t height) {
    int components = d->components;
    int cr_r[256], cb_b[256], cr_g[256], cb_g[256];
    for (int i = 0; i < 256; i++) {
        int x = i - 128;
        cr_r[i] = (int)((91881 * x + 32768) >> 16);
        cb_b[i] = (int)((116130 * x + 32768) >> 16);
        cr_g[i] = -46802 * x;
        cb_g[i] = -22554 * x + 32768;
    }
    for (size_t y = 0; y < height; y++) {
        const uint8_t *source[3];
        for (int i = 0; i < components; i++) source[i] = d->comps[i].plane + y * d->comps[i].stride;
        uint8_t *out = pixels + y * stride;
        if (components == 1) {
            memcpy(out, source[0], width);
        } else if (d->cinfo->jpeg_color_space == JCS_RGB) {
            for (size_t x = 0; x < width; x++) {
                out[3 * x] = source[0][x];
                out[3 * x + 1] = source[1][x];
                out[3 * x + 2] = source[2][x];
            }
        } else {
            const uint8_t *ys = source[0], *cbs = source[1], *crs = source[2];
            for (size_t x = 0; x < width; x++) {
                int luma = ys[x], cb = cbs[x], cr = crs[x];
                int red = luma + cr_r[cr];
                int green = luma + ((cb_g[cb] + cr_g[cr]) >> 16);
                int blue = luma + cb_b[cb];
                out[3 * x] = (uint8_t)(red < 0 ? 0 : red > 255 ? 255 : red);
                out[3 * x + 1] = (uint8_t)(green < 0 ? 0 : green > 255 ? 255 : green);
                out[3 * x + 2] = (uint8_t)(blue < 0 ? 0 : blue > 255 ? 255 : blue);
            }
        }
    }
}

fast_status cjpeg_fast_decode(struct jpeg_decompress_struct *cinfo, const unsigned char *data, size_t length,
                              unsigned char *pixels, size_t stride, size_t max_memory, cjpeg_monitor monitor,
                              void *context) {
    // At 1/4 and 1/2 the IDCTs read nearly every coefficient, and libjpeg-turbo's SIMD code
    // outruns what the Huffman look-ups save here (docs/BENCHMARKS.md): this decoder makes the
    // 1/8 scale image only.
    if (cinfo->scale_num * 8 != cinfo->scale_denom) return FAST_DECLINED;
    if (cinfo->arith_code || cinfo->data_precision != 8) return FAST_DECLINED;
    int components = cinfo->num_components;
    if (components == 1) {
        if (cinfo->jpeg_color_space != JCS_GRAYSCALE) return FAST_DECLINED;
    } else if (components == 3) {
        if (cinfo->jpeg_color_space != JCS_YCbCr && cinfo->jpeg_color_space != JCS_RGB) return FAST_DECLINED;
    } else {
        return FAST_DECLINED;
    }
    size_t width = cinfo->output_width, height = cinfo->output_height;
    if (width != ((size_t)cinfo->image_width + 7) / 8 || height != ((size_t)cinfo->image_height + 7) / 8) {
        return FAST_DECLINED;
    }
    decode_state d;
    memset(&d, 0, sizeof(d));
    d.cinfo = cinfo;
    d.components = components;
    d.monitor = monitor;
    d.context = context;
    fast_status status = FAST_DECLINED;
    int progressive = cinfo->progressive_mode != 0;
    d.tables = malloc(sizeof(table) * 2 * NUM_HUFF_TBLS);
    if (!d.tables || !set_up(&d, progressive, width, height, max_memory)) goto done;
    status = progressive ? progressive_scans(&d, data, length) : baseline_scan(&d, data, length);
    if (status != FAST_DONE) goto done;
    if (progressive) {
        // Every block from its kept coefficients, as a baseline block would be made.
        int32_t zz[65];
        memset(zz, 0, sizeof(zz));
        for (int i = 0; i < components; i++) {
            component *c = &d.comps[i];
            size_t rows = d.mcus_down * (size_t)c->v;
            for (size_t by = 0; by < rows; by++) {
                for (size_t bx = 0; bx < c->block_stride; bx++) {
                    const int32_t *kept = &c->coefficient_store[(by * c->block_stride + bx) * (size_t)c->per_block];
                    for (int n = 0; n < c->per_block; n++) zz[kept_natural[n]] = kept[n];
                    idct_block(c, zz, (int)(bx * (size_t)c->nh), (int)(by * (size_t)c->nv));
                    clear_block(c, zz);
                }
            }
        }
    }
    write_pixels(&d, pixels, stride, width, height);
    if (monitor && monitor(context, 1)) status = FAST_CANCELLED;

done:
    for (int i = 0; i < 3; i++) {
        free(d.comps[i].plane);
        free(d.comps[i].coefficient_store);
        free(d.comps[i].nonzero);
    }
    free(d.tables);
    return status;
}

// A check for tests: the progressive decoder's kept coefficients against libjpeg's own.

#include <setjmp.h>

typedef struct {
    struct jpeg_error_mgr error;
    jmp_buf escape;
} check_error;

static void check_error_exit(j_common_ptr cinfo) {
    longjmp(((check_error *)cinfo->err)->escape, 1);
}

static void check_message(j_common_ptr cinfo, int level) {
    (void)cinfo;
    (void)level;
}

long cjpeg_check_progressive_coefficients(const unsigned char *data, size_t length, long *compared) {
    *compared = 0;
    struct jpeg_decompress_struct ours, theirs;
    check_error ours_error, theirs_error;
    ours.err = jpeg_std_error(&ours_error.error);
    theirs.err = jpeg_std_error(&theirs_error.error);
    ours_error.error.error_exit = theirs_error.error.error_exit = check_error_exit;
    ours_error.error.emit_message = theirs_error.error.emit_message = check_message;
    // Written between setjmp and a possible longjmp: volatile (or on the heap), so their values
    // survive it.
    decode_state *volatile state = calloc(1, sizeof(decode_state));
    volatile long result = -1;
    volatile int created = 0;
    if (!state) return -1;
    decode_state *d = state;
    if (setjmp(ours_error.escape) || setjmp(theirs_error.escape)) goto done;
    jpeg_create_decompress(&ours);
    jpeg_create_decompress(&theirs);
    created = 1;
    jpeg_mem_src(&ours, data, (unsigned long)length);
    jpeg_read_header(&ours, TRUE);
    if (!ours.progressive_mode || (ours.num_components != 1 && ours.num_components != 3)) goto done;
    ours.scale_num = 1;
    ours.scale_denom = 8;
    jpeg_calc_output_dimensions(&ours);
    d->cinfo = &ours;
    d->components = ours.num_components;
    d->tables = malloc(sizeof(table) * 2 * NUM_HUFF_TBLS);
    if (!d->tables || !set_up(d, 1, ours.output_width, ours.output_height, (size_t)1 << 30)) goto done;
    if (progressive_scans(d, ours.src->next_input_byte, ours.src->bytes_in_buffer) != FAST_DONE) goto done;
    jpeg_mem_src(&theirs, data, (unsigned long)length);
    jpeg_read_header(&theirs, TRUE);
    jvirt_barray_ptr *coefficients = jpeg_read_coefficients(&theirs);
    long differ = 0;
    for (int i = 0; i < d->components; i++) {
        component *c = &d->comps[i];
        jpeg_component_info *info = &theirs.comp_info[i];
        for (JDIMENSION by = 0; by < info->height_in_blocks; by++) {
            JBLOCKARRAY row = theirs.mem->access_virt_barray((j_common_ptr)&theirs, coefficients[i], by, 1, FALSE);
            for (JDIMENSION bx = 0; bx < info->width_in_blocks; bx++) {
                const int32_t *kept = &c->coefficient_store[(by * c->block_stride + bx) * (size_t)c->per_block];
                for (int n = 0; n < c->per_block; n++) {
                    (*compared)++;
                    if (kept[n] != row[0][bx][kept_natural[n]]) differ++;
                }
            }
        }
    }
    result = differ;

done:
    if (created) {
        jpeg_destroy_decompress(&ours);
        jpeg_destroy_decompress(&theirs);
    }
    for (int i = 0; i < 3; i++) {
        free(state->comps[i].plane);
        free(state->comps[i].coefficient_store);
        free(state->comps[i].nonzero);
    }
    free(state->tables);
    free(state);
    return result;
}
