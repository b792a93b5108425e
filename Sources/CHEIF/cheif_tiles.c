#include "cheif_tiles.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A HEIF's HEVC pictures decoded one at a time by FFmpeg and made RGB straight into the
// output, `shrink` times smaller: only one tile's YCbCr is ever held beside the output.

/// The YCbCr to RGB conversion of one colour matrix and range.
typedef struct {
    double y_offset, y_scale, c_scale;
    double r_cr, g_cb, g_cr, b_cb;
} coefficients;

/// Kr and Kb of an ITU-T H.273 matrix. 0 for the matrices libheif is left with (identity,
/// YCgCo, chromaticity-derived).
static int matrix_weights(int matrix, double *kr, double *kb) {
    switch (matrix) {
    case 1: *kr = 0.2126, *kb = 0.0722; return 1; // BT.709
    case 4: *kr = 0.30, *kb = 0.11; return 1; // FCC
    case 2: // unspecified: BT.601, as libheif assumes
    case 5:
    case 6: *kr = 0.299, *kb = 0.114; return 1; // BT.601
    case 7: *kr = 0.212, *kb = 0.087; return 1; // SMPTE 240M
    case 9:
    case 10: *kr = 0.2627, *kb = 0.0593; return 1; // BT.2020
    default: return 0;
    }
}

static int make_coefficients(int matrix, int full_range, coefficients *out) {
    double kr, kb;
    if (!matrix_weights(matrix, &kr, &kb)) return 0;
    double kg = 1 - kr - kb;
    *out = (coefficients){
        .y_offset = full_range ? 0 : 16,
        .y_scale = full_range ? 1 : 255.0 / 219.0,
        .c_scale = full_range ? 1 : 255.0 / 224.0,
        .r_cr = 2 * (1 - kr),
        .g_cb = -2 * kb * (1 - kb) / kg,
        .g_cr = -2 * kr * (1 - kr) / kg,
        .b_cb = 2 * (1 - kb),
    };
    return 1;
}

static inline unsigned char clamp_fixed(int32_t value) {
    value >>= 16;
    return (unsigned char)(value < 0 ? 0 : value > 255 ? 255 : value);
}

static inline unsigned char clamp_double(double value) {
    return (unsigned char)(value <= 0 ? 0 : value >= 255 ? 255 : lround(value));
}

/// The conversion as 16.16 fixed-point tables indexed by a block's sum of `luma_count` Y
/// samples and of `chroma_count` Cb or Cr samples: the mean's contribution, luma's with the
/// rounding half added.
typedef struct {
    int32_t *y, *r_cr, *g_cb, *g_cr, *b_cb;
} tables;

static void free_tables(tables *t) {
    free(t->y);
    free(t->r_cr);
    free(t->g_cb);
    free(t->g_cr);
    free(t->b_cb);
}

static int make_tables(const coefficients *c, int luma_count, int chroma_count, tables *t) {
    size_t luma = (size_t)luma_count * 255 + 1, chroma = (size_t)chroma_count * 255 + 1;
    *t = (tables){malloc(luma * 4), malloc(chroma * 4), malloc(chroma * 4), malloc(chroma * 4), malloc(chroma * 4)};
    if (!t->y || !t->r_cr || !t->g_cb || !t->g_cr || !t->b_cb) {
        free_tables(t);
        return 0;
    }
    for (size_t sum = 0; sum < luma; sum++) {
        t->y[sum] = (int32_t)lround(((double)sum / luma_count - c->y_offset) * c->y_scale * 65536) + 32768;
    }
    for (size_t sum = 0; sum < chroma; sum++) {
        double value = ((double)sum / chroma_count - 128) * c->c_scale * 65536;
        t->r_cr[sum] = (int32_t)lround(value * c->r_cr);
        t->g_cb[sum] = (int32_t)lround(value * c->g_cb);
        t->g_cr[sum] = (int32_t)lround(value * c->g_cr);
        t->b_cb[sum] = (int32_t)lround(value * c->b_cb);
    }
    return 1;
}

/// Where output pixel (x, y) of the image before its turn goes in the turned output:
/// `base + x * step_x + y * step_y` bytes.
typedef struct {
    unsigned char *base;
    ptrdiff_t step_x, step_y;
} placement;

static inline void put(unsigned char *at, const tables *t, int32_t y, int cb, int cr) {
    at[0] = clamp_fixed(y + t->r_cr[cr]);
    at[1] = clamp_fixed(y + t->g_cb[cb] + t->g_cr[cr]);
    at[2] = clamp_fixed(y + t->b_cb[cb]);
}

/// Scratch rows for a tile's conversion: one sum a pixel column, and one a block.
typedef struct {
    uint16_t *columns;
    uint16_t *luma, *cb, *cr;
} scratch;

/// The sums of `shrink` x `shrink` blocks of one plane, `blocks` of them from `top` (a row):
/// each column's rows added first, then each block's columns (both loops the compiler turns
/// into vector adds).
static inline void block_sums(const unsigned char *top, int stride, int shrink, int blocks, uint16_t *columns,
                              uint16_t *sums) {
    int span = blocks * shrink;
    for (int x = 0; x < span; x++) columns[x] = top[x];
    for (int dy = 1; dy < shrink; dy++) {
        const unsigned char *row = top + (size_t)dy * stride;
        for (int x = 0; x < span; x++) columns[x] = (uint16_t)(columns[x] + row[x]);
    }
    if (shrink == 1) {
        for (int block = 0; block < blocks; block++) sums[block] = columns[block];
    } else if (shrink == 2) {
        for (int block = 0; block < blocks; block++) sums[block] = (uint16_t)(columns[2 * block] + columns[2 * block + 1]);
    } else {
        for (int block = 0; block < blocks; block++) {
            unsigned sum = 0;
            for (int dx = 0; dx < shrink; dx++) sum += columns[block * shrink + dx];
            sums[block] = (uint16_t)sum;
        }
    }
}

/// Whole `shrink` x `shrink` blocks (2, 4 or 8, a constant once inlined) of a 4:2:0 picture,
/// `blocks` of them from tile-local (0, `top`), into the output from `out` (the first block's
/// pixel), `step` bytes apart: 3 unless the image is turned.
static inline void whole_blocks(const cvideo_picture *p, const tables *t, int shrink, int top, int blocks,
                                unsigned char *out, ptrdiff_t step, const scratch *s) {
    int chroma_x = shrink / 2, chroma_top = top / 2;
    block_sums(p->planes[0] + (size_t)top * p->strides[0], p->strides[0], shrink, blocks, s->columns, s->luma);
    const uint16_t *cb = s->cb, *cr = s->cr;
    if (chroma_x == 1) {
        // 2 x 2 blocks: one chroma sample each, the samples themselves.
        const unsigned char *cb_row = p->planes[1] + (size_t)chroma_top * p->strides[1];
        const unsigned char *cr_row = p->planes[2] + (size_t)chroma_top * p->strides[2];
        for (int block = 0; block < blocks; block++) s->cb[block] = cb_row[block], s->cr[block] = cr_row[block];
    } else {
        block_sums(p->planes[1] + (size_t)chroma_top * p->strides[1], p->strides[1], chroma_x, blocks, s->columns, s->cb);
        block_sums(p->planes[2] + (size_t)chroma_top * p->strides[2], p->strides[2], chroma_x, blocks, s->columns, s->cr);
    }
    if (step == 3) {
        for (int block = 0; block < blocks; block++) put(out + block * 3, t, t->y[s->luma[block]], cb[block], cr[block]);
    } else {
        for (int block = 0; block < blocks; block++, out += step) put(out, t, t->y[s->luma[block]], cb[block], cr[block]);
    }
}

/// A part block at the image's right or bottom edge, tile-local [x0, x1) x [y0, y1): the mean
/// of the pixels there, and of the chroma samples under them.
static void part_block(const cvideo_picture *p, const coefficients *c, int x0, int x1, int y0, int y1,
                       unsigned char *out) {
    double y_sum = 0, cb_sum = 0, cr_sum = 0;
    for (int y = y0; y < y1; y++) {
        for (int x = x0; x < x1; x++) y_sum += p->planes[0][(size_t)y * p->strides[0] + x];
    }
    int cx0 = x0 >> p->chroma_shift_x, cx1 = ((x1 - 1) >> p->chroma_shift_x) + 1;
    int cy0 = y0 >> p->chroma_shift_y, cy1 = ((y1 - 1) >> p->chroma_shift_y) + 1;
    for (int y = cy0; y < cy1; y++) {
        for (int x = cx0; x < cx1; x++) {
            cb_sum += p->planes[1][(size_t)y * p->strides[1] + x];
            cr_sum += p->planes[2][(size_t)y * p->strides[2] + x];
        }
    }
    double luma = (y_sum / ((x1 - x0) * (y1 - y0)) - c->y_offset) * c->y_scale;
    double chroma_count = (double)(cx1 - cx0) * (cy1 - cy0);
    double cb = (cb_sum / chroma_count - 128) * c->c_scale, cr = (cr_sum / chroma_count - 128) * c->c_scale;
    out[0] = clamp_double(luma + c->r_cr * cr);
    out[1] = clamp_double(luma + c->g_cb * cb + c->g_cr * cr);
    out[2] = clamp_double(luma + c->b_cb * cb);
}

/// One decoded tile, whose tile-local [0, width) x [0, height) is in the image, into the output
/// from output pixel (`first_x`, `first_y`) of the image before its turn.
static void convert_tile(const cvideo_picture *p, const tables *t, const coefficients *c, int shrink, int width,
                         int height, int first_x, int first_y, const placement *to, const scratch *s) {
    int whole_columns = width / shrink, whole_rows = height / shrink;
    int columns = (width + shrink - 1) / shrink, rows = (height + shrink - 1) / shrink;
    for (int row = 0; row < rows; row++) {
        unsigned char *out = to->base + (ptrdiff_t)first_x * to->step_x + (ptrdiff_t)(first_y + row) * to->step_y;
        int top = row * shrink, first_part = 0;
        if (row < whole_rows) {
            first_part = whole_columns;
            switch (shrink) {
            case 1: {
                const unsigned char *luma = p->planes[0] + (size_t)top * p->strides[0];
                const unsigned char *cb = p->planes[1] + (size_t)(top >> p->chroma_shift_y) * p->strides[1];
                const unsigned char *cr = p->planes[2] + (size_t)(top >> p->chroma_shift_y) * p->strides[2];
                unsigned char *at = out;
                for (int x = 0; x < width; x++, at += to->step_x) {
                    put(at, t, t->y[luma[x]], cb[x >> p->chroma_shift_x], cr[x >> p->chroma_shift_x]);
                }
                break;
            }
            case 2: whole_blocks(p, t, 2, top, whole_columns, out, to->step_x, s); break;
            case 4: whole_blocks(p, t, 4, top, whole_columns, out, to->step_x, s); break;
            default: whole_blocks(p, t, 8, top, whole_columns, out, to->step_x, s); break;
            }
        }
        int y1 = top + shrink < height ? top + shrink : height;
        for (int column = first_part; column < columns; column++) {
            int x0 = column * shrink, x1 = x0 + shrink < width ? x0 + shrink : width;
            part_block(p, c, x0, x1, top, y1, out + (ptrdiff_t)column * to->step_x);
        }
    }
}

int cheif_decode_tiles(const unsigned char *data, const cheif_layout *layout, cvideo_hevc *decoder, int shrink,
                       cheif_allocate allocate, cheif_monitor monitor, void *context, cheif_decoded *decoded,
                       char *message, size_t message_length) {
    int width = (layout->width + shrink - 1) / shrink, height = (layout->height + shrink - 1) / shrink;
    int turned = layout->rotation & 1;
    int out_width = turned ? height : width, out_height = turned ? width : height;
    size_t stride = (size_t)out_width * 3;
    // Quarter turns anticlockwise: (x, y) goes to (y, W-1-x), (W-1-x, H-1-y) or (H-1-y, x).
    ptrdiff_t origin = 0, step_x = 3, step_y = (ptrdiff_t)stride;
    switch (layout->rotation) {
    case 1: origin = (ptrdiff_t)((size_t)(width - 1) * stride), step_x = -(ptrdiff_t)stride, step_y = 3; break;
    case 2:
        origin = (ptrdiff_t)((size_t)(height - 1) * stride + (size_t)(width - 1) * 3);
        step_x = -3, step_y = -(ptrdiff_t)stride;
        break;
    case 3: origin = (ptrdiff_t)(height - 1) * 3, step_x = (ptrdiff_t)stride, step_y = -3; break;
    default: break;
    }
    unsigned char *out = allocate(stride * (size_t)out_height);
    if (!out) {
        snprintf(message, message_length, "out of memory");
        return 0;
    }
    placement to = {out + origin, step_x, step_y};
    int tile_count = layout->rows * layout->columns, tile_width = 0, tile_height = 0, shift_x = 0, shift_y = 0;
    tables t = {0};
    scratch rows = {0};
    coefficients c;
    unsigned char *joined = NULL;
    int result = 1;
    for (int tile = 0; tile < tile_count && result == 1; tile++) {
        if (monitor && monitor(context, (double)tile / tile_count)) {
            result = -1;
            break;
        }
        // A tile's bytes, joined when the file splits them.
        size_t first = layout->first_extent[tile], last = layout->first_extent[tile + 1], length = 0;
        const unsigned char *bytes = data + layout->extents[first].offset;
        for (size_t e = first; e < last; e++) length += layout->extents[e].length;
        if (last - first > 1) {
            free(joined);
            if (!(joined = malloc(length))) {
                snprintf(message, message_length, "out of memory");
                result = 0;
                break;
            }
            size_t at = 0;
            for (size_t e = first; e < last; e++) {
                memcpy(joined + at, data + layout->extents[e].offset, layout->extents[e].length);
                at += layout->extents[e].length;
            }
            bytes = joined;
        }
        cvideo_picture picture;
        char reason[160];
        if (cvideo_hevc_decode(decoder, bytes, length, &picture, reason, sizeof(reason)) != CVIDEO_OK) {
            snprintf(message, message_length, "tile %d of %d: %s", tile + 1, tile_count, reason);
            result = 0;
            break;
        }
        if (tile == 0) {
            tile_width = picture.width, tile_height = picture.height;
            shift_x = picture.chroma_shift_x, shift_y = picture.chroma_shift_y;
            // Without an `nclx` box, what the stream's VUI says, as libheif's libde265 plugin
            // reads it: an iPhone's tiles say BT.601 at full range, x265's limited range.
            int matrix = layout->has_nclx ? layout->matrix : picture.matrix;
            int full_range = layout->has_nclx ? layout->full_range : picture.full_range;
            // Blocks never straddle two tiles, and the pictures are 4:2:0, as the layout's
            // configuration said (a block of 2, 4 or 8 holds whole chroma samples).
            int fits = (layout->columns == 1 || tile_width % shrink == 0) &&
                       (layout->rows == 1 || tile_height % shrink == 0) &&
                       shift_x == 1 && shift_y == 1 &&
                       (long)tile_width * layout->columns >= layout->width &&
                       (long)tile_height * layout->rows >= layout->height;
            int luma_count = shrink * shrink;
            int chroma_count = shrink == 1 ? 1 : (shrink >> shift_x) * (shrink >> shift_y);
            size_t row = (size_t)tile_width + 8;
            rows = (scratch){malloc(row * 2), malloc(row * 2), malloc(row * 2), malloc(row * 2)};
            if (!rows.columns || !rows.luma || !rows.cb || !rows.cr) {
                snprintf(message, message_length, "out of memory");
                result = 0;
                break;
            }
            if (!fits || !make_coefficients(matrix, full_range, &c) || !make_tables(&c, luma_count, chroma_count, &t)) {
                snprintf(message, message_length, "the grid's tiles or colour matrix are not ones Lightbox decodes");
                result = 0;
                break;
            }
        } else if (picture.width != tile_width || picture.height != tile_height || picture.chroma_shift_x != shift_x ||
                   picture.chroma_shift_y != shift_y) {
            snprintf(message, message_length, "tile %d of %d differs in size or chroma from the first", tile + 1,
                     tile_count);
            result = 0;
            break;
        }
        int x = (tile % layout->columns) * tile_width, y = (tile / layout->columns) * tile_height;
        int visible_width = layout->width - x < tile_width ? layout->width - x : tile_width;
        int visible_height = layout->height - y < tile_height ? layout->height - y : tile_height;
        if (visible_width <= 0 || visible_height <= 0) continue;
        convert_tile(&picture, &t, &c, shrink, visible_width, visible_height, x / shrink, y / shrink, &to, &rows);
    }
    free(joined);
    free_tables(&t);
    free(rows.columns);
    free(rows.luma);
    free(rows.cb);
    free(rows.cr);
    if (result == 1 && monitor && monitor(context, 1)) result = -1;
    if (result != 1) {
        // `allocate`'s blocks come from malloc.
        free(out);
        return result;
    }
    decoded->pixels = out;
    decoded->stride = stride;
    decoded->width = out_width;
    decoded->height = out_height;
    return 1;
}
