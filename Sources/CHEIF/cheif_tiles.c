#include "cheif_tiles.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
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

size_t cheif_picture_limit(const cheif_layout *layout) {
    return ((size_t)layout->tile_width + 64) * ((size_t)layout->tile_height + 64);
}

/// At most this many helper threads beside the calling one: a grid of 48 tiles shared more ways
/// gains little, and each holds a decoder.
enum { max_helpers = 7 };

/// What the threads decoding one image share. The first picture's size, chroma and the
/// conversion are set by the calling thread before any helper starts, and only read after.
typedef struct {
    const unsigned char *data;
    const cheif_layout *layout;
    int shrink, tile_count;
    placement to;
    int tile_width, tile_height, shift_x, shift_y;
    tables t;
    coefficients c;
    cheif_monitor monitor;
    void *context;
    const cheif_helpers *helpers;
    pthread_mutex_t lock;
    // Under `lock`: the next tile to take; 1 while going on, 0 failed (`message` says why), -1
    // stopped by the monitor.
    int next, result;
    char *message;
    size_t message_length;
} tile_job;

/// One thread's own: its decoder, its scratch rows, and a tile's bytes joined when the file
/// splits them.
typedef struct {
    cvideo_hevc *decoder;
    scratch rows;
    unsigned char *joined;
} tile_worker;

static int make_scratch(scratch *s, int tile_width) {
    size_t row = ((size_t)tile_width + 8) * sizeof(uint16_t);
    *s = (scratch){malloc(row), malloc(row), malloc(row), malloc(row)};
    return s->columns && s->luma && s->cb && s->cr;
}

static void free_worker(tile_worker *w, int close_decoder) {
    if (close_decoder) cvideo_hevc_close(w->decoder);
    free(w->rows.columns);
    free(w->rows.luma);
    free(w->rows.cb);
    free(w->rows.cr);
    free(w->joined);
}

/// Ends the decode with `message` unless it has ended already.
static void fail(tile_job *job, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void fail(tile_job *job, const char *format, ...) {
    pthread_mutex_lock(&job->lock);
    if (job->result == 1) {
        job->result = 0;
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(job->message, job->message_length, format, arguments);
        va_end(arguments);
    }
    pthread_mutex_unlock(&job->lock);
}

/// The next tile for a thread, after the monitor has been told and has not stopped the decode;
/// -1 when none is left or the decode has ended. `*left` is how many are left after it.
static int take_tile(tile_job *job, int *left) {
    pthread_mutex_lock(&job->lock);
    int tile = -1;
    if (job->result == 1 && job->next < job->tile_count) {
        if (job->monitor && job->monitor(job->context, (double)job->next / job->tile_count)) {
            job->result = -1;
        } else {
            tile = job->next++;
        }
    }
    if (left) *left = job->tile_count - job->next;
    pthread_mutex_unlock(&job->lock);
    return tile;
}

/// Decodes `tile` with `w`'s decoder. 1 with the picture; 0 when the decode has failed.
static int decode_tile(tile_job *job, tile_worker *w, int tile, cvideo_picture *picture) {
    const cheif_layout *layout = job->layout;
    size_t first = layout->first_extent[tile], last = layout->first_extent[tile + 1], length = 0;
    const unsigned char *bytes = job->data + layout->extents[first].offset;
    for (size_t e = first; e < last; e++) length += layout->extents[e].length;
    if (last - first > 1) {
        free(w->joined);
        if (!(w->joined = malloc(length))) {
            fail(job, "out of memory");
            return 0;
        }
        size_t at = 0;
        for (size_t e = first; e < last; e++) {
            memcpy(w->joined + at, job->data + layout->extents[e].offset, layout->extents[e].length);
            at += layout->extents[e].length;
        }
        bytes = w->joined;
    }
    char reason[160];
    if (cvideo_hevc_decode(w->decoder, bytes, length, picture, reason, sizeof(reason)) != CVIDEO_OK) {
        fail(job, "tile %d of %d: %s", tile + 1, job->tile_count, reason);
        return 0;
    }
    return 1;
}

/// A decoded tile other than the first, checked against the first and converted into the
/// output. 0 when the decode has failed.
static int place_tile(tile_job *job, tile_worker *w, int tile, const cvideo_picture *picture) {
    const cheif_layout *layout = job->layout;
    if (picture->width != job->tile_width || picture->height != job->tile_height ||
        picture->chroma_shift_x != job->shift_x || picture->chroma_shift_y != job->shift_y) {
        fail(job, "tile %d of %d differs in size or chroma from the first", tile + 1, job->tile_count);
        return 0;
    }
    int x = (tile % layout->columns) * job->tile_width, y = (tile / layout->columns) * job->tile_height;
    int visible_width = layout->width - x < job->tile_width ? layout->width - x : job->tile_width;
    int visible_height = layout->height - y < job->tile_height ? layout->height - y : job->tile_height;
    if (visible_width > 0 && visible_height > 0) {
        convert_tile(picture, &job->t, &job->c, job->shrink, visible_width, visible_height, x / job->shrink,
                     y / job->shrink, &job->to, &w->rows);
    }
    return 1;
}

/// Sets the tiles' size, chroma and conversion from the first picture. 0 when the decode has
/// failed.
static int set_up(tile_job *job, tile_worker *w, const cvideo_picture *picture) {
    const cheif_layout *layout = job->layout;
    int shrink = job->shrink;
    job->tile_width = picture->width, job->tile_height = picture->height;
    job->shift_x = picture->chroma_shift_x, job->shift_y = picture->chroma_shift_y;
    // Without an `nclx` box, what the stream's VUI says, as libheif's libde265 plugin reads
    // it: an iPhone's tiles say BT.601 at full range, x265's limited range.
    int matrix = layout->has_nclx ? layout->matrix : picture->matrix;
    int full_range = layout->has_nclx ? layout->full_range : picture->full_range;
    // Blocks never straddle two tiles, and the pictures are 4:2:0, as the layout's
    // configuration said (a block of 2, 4 or 8 holds whole chroma samples).
    int fits = (layout->columns == 1 || job->tile_width % shrink == 0) &&
               (layout->rows == 1 || job->tile_height % shrink == 0) && job->shift_x == 1 && job->shift_y == 1 &&
               (long)job->tile_width * layout->columns >= layout->width &&
               (long)job->tile_height * layout->rows >= layout->height;
    int luma_count = shrink * shrink;
    int chroma_count = shrink == 1 ? 1 : (shrink >> job->shift_x) * (shrink >> job->shift_y);
    if (!make_scratch(&w->rows, job->tile_width)) {
        fail(job, "out of memory");
        return 0;
    }
    if (!fits || !make_coefficients(matrix, full_range, &job->c) || !make_tables(&job->c, luma_count, chroma_count, &job->t)) {
        fail(job, "the grid's tiles or colour matrix are not ones Lightbox decodes");
        return 0;
    }
    return 1;
}

/// A helper thread: a decoder of its own, then tiles until none are left, the decode ends or
/// the processors are wanted elsewhere. Gives its processor back when it ends.
static void *help(void *argument) {
    tile_job *job = argument;
    const cheif_layout *layout = job->layout;
    tile_worker w = {0};
    // A helper that cannot start leaves its tiles to the others.
    if (cvideo_hevc_open(job->data + layout->config_offset, layout->config_length, cheif_picture_limit(layout),
                         &w.decoder, NULL, 0) == CVIDEO_OK &&
        make_scratch(&w.rows, job->tile_width)) {
        int tile;
        cvideo_picture picture;
        while (job->helpers->spare(job->helpers->context) >= 0 && (tile = take_tile(job, NULL)) >= 0 &&
               decode_tile(job, &w, tile, &picture) && place_tile(job, &w, tile, &picture)) {
        }
    }
    free_worker(&w, 1);
    job->helpers->give_back(job->helpers->context);
    return NULL;
}

int cheif_decode_tiles(const unsigned char *data, const cheif_layout *layout, cvideo_hevc *decoder, int shrink,
                       cheif_allocate allocate, cheif_monitor monitor, void *context, const cheif_helpers *helpers,
                       cheif_decoded *decoded, char *message, size_t message_length) {
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
    tile_job job = {
        .data = data,
        .layout = layout,
        .shrink = shrink,
        .tile_count = layout->rows * layout->columns,
        .to = {out + origin, step_x, step_y},
        .monitor = monitor,
        .context = context,
        .helpers = helpers,
        .result = 1,
        .message = message,
        .message_length = message_length,
    };
    pthread_mutex_init(&job.lock, NULL);
    tile_worker self = {.decoder = decoder};
    pthread_t threads[max_helpers];
    int helper_count = 0, seen_spare = 0, left = 0;
    cvideo_picture picture;
    // The first tile alone: it sets the size and conversion every thread uses.
    int tile = take_tile(&job, &left);
    if (tile == 0 && decode_tile(&job, &self, tile, &picture) && set_up(&job, &self, &picture)) {
        place_tile(&job, &self, tile, &picture);
        while ((tile = take_tile(&job, &left)) >= 0) {
            // A helper for a processor free now and at the tile before, while this tile and two
            // more are left: a processor free only between two files of a batch stays with them.
            if (helpers && helper_count < max_helpers && left >= 2) {
                int spare = helpers->spare(helpers->context) > 0;
                if (spare && seen_spare && helpers->borrow(helpers->context)) {
                    if (pthread_create(&threads[helper_count], NULL, help, &job) == 0) {
                        helper_count++;
                    } else {
                        helpers->give_back(helpers->context);
                    }
                    spare = 0;
                }
                seen_spare = spare;
            }
            if (!decode_tile(&job, &self, tile, &picture) || !place_tile(&job, &self, tile, &picture)) break;
        }
    }
    for (int helper = 0; helper < helper_count; helper++) pthread_join(threads[helper], NULL);
    pthread_mutex_destroy(&job.lock);
    free_worker(&self, 0);
    free_tables(&job.t);
    int result = job.result;
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
