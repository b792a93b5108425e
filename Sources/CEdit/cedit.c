#include "cedit.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

/// Rec. 709 luma weights, as `RecipePipeline.luma`.
static const float LUMA[3] = {0.2126f, 0.7152f, 0.0722f};

typedef struct {
    VipsImage *in;
    int count;
    cedit_stage *stages;
    /// Per vignette stage: its factor's term of x (width values) and of y (height values).
    float **rows;
    float **columns;
} state;

/// Rounds and clips to 8 bits as `cvips_to_uchar` does: + 0.5, then truncated and clipped.
static inline int to_byte(float v) {
    int q = (int)(v + 0.5f);
    return q < 0 ? 0 : q > 255 ? 255 : q;
}

static void free_state(VipsImage *image, void *data) {
    (void)image;
    state *s = data;
    for (int i = 0; i < s->count; i++) {
        if (s->rows) free(s->rows[i]);
        if (s->columns) free(s->columns[i]);
    }
    free(s->rows);
    free(s->columns);
    free(s->stages);
    g_object_unref(s->in);
    free(s);
}

typedef struct {
    VipsRegion *region;
    int *pixels;
} sequence;

static void *start(VipsImage *out, void *a, void *b) {
    (void)b;
    state *s = a;
    sequence *seq = calloc(1, sizeof(sequence));
    if (!seq) return NULL;
    seq->region = vips_region_new(s->in);
    seq->pixels = malloc(sizeof(int) * 3 * (size_t)out->Xsize);
    if (!seq->region || !seq->pixels) {
        if (seq->region) g_object_unref(seq->region);
        free(seq->pixels);
        free(seq);
        return NULL;
    }
    return seq;
}

static int stop(void *vseq, void *a, void *b) {
    (void)a;
    (void)b;
    sequence *seq = vseq;
    g_object_unref(seq->region);
    free(seq->pixels);
    free(seq);
    return 0;
}

/// One row of `n` pixels starting at column `left`, row `y`, through one stage.
static void apply(const state *s, int index, int *p, int n, int left, int y) {
    const cedit_stage *stage = &s->stages[index];
    switch (stage->kind) {
    case CEDIT_TABLE:
        for (int i = 0; i < n * 3; i += 3) {
            p[i] = stage->table[p[i] * 3];
            p[i + 1] = stage->table[p[i + 1] * 3 + 1];
            p[i + 2] = stage->table[p[i + 2] * 3 + 2];
        }
        break;
    case CEDIT_MATRIX: {
        const float *m = stage->matrix;
        for (int i = 0; i < n * 3; i += 3) {
            float r = (float)p[i], g = (float)p[i + 1], b = (float)p[i + 2];
            p[i] = to_byte(m[0] * r + m[1] * g + m[2] * b);
            p[i + 1] = to_byte(m[3] * r + m[4] * g + m[5] * b);
            p[i + 2] = to_byte(m[6] * r + m[7] * g + m[8] * b);
        }
        break;
    }
    case CEDIT_VIBRANCE: {
        float amount = (float)stage->amount;
        for (int i = 0; i < n * 3; i += 3) {
            int r = p[i], g = p[i + 1], b = p[i + 2];
            int high = r > g ? (r > b ? r : b) : (g > b ? g : b);
            int low = r < g ? (r < b ? r : b) : (g < b ? g : b);
            float factor = (float)(high - low) * (-amount / 255.0f) + (1.0f + amount);
            float luma = LUMA[0] * (float)r + LUMA[1] * (float)g + LUMA[2] * (float)b;
            p[i] = to_byte(((float)r - luma) * factor + luma);
            p[i + 1] = to_byte(((float)g - luma) * factor + luma);
            p[i + 2] = to_byte(((float)b - luma) * factor + luma);
        }
        break;
    }
    case CEDIT_LUMA_GAIN:
        for (int i = 0; i < n * 3; i += 3) {
            float luma = LUMA[0] * (float)p[i] + LUMA[1] * (float)p[i + 1] + LUMA[2] * (float)p[i + 2];
            float gain = stage->gains[to_byte(luma)];
            p[i] = to_byte((float)p[i] * gain);
            p[i + 1] = to_byte((float)p[i + 1] * gain);
            p[i + 2] = to_byte((float)p[i + 2] * gain);
        }
        break;
    case CEDIT_VIGNETTE: {
        const float *row = s->rows[index] + left;
        float column = s->columns[index][y];
        for (int x = 0, i = 0; x < n; x++, i += 3) {
            float factor = row[x] + column;
            p[i] = to_byte((float)p[i] * factor);
            p[i + 1] = to_byte((float)p[i + 1] * factor);
            p[i + 2] = to_byte((float)p[i + 2] * factor);
        }
        break;
    }
    }
}

static int generate(VipsRegion *out, void *vseq, void *a, void *b, gboolean *stop_now) {
    (void)b;
    (void)stop_now;
    sequence *seq = vseq;
    const state *s = a;
    VipsRect *r = &out->valid;
    if (vips_region_prepare(seq->region, r)) return -1;
    int n = r->width;
    for (int y = r->top; y < VIPS_RECT_BOTTOM(r); y++) {
        const VipsPel *in = VIPS_REGION_ADDR(seq->region, r->left, y);
        VipsPel *q = VIPS_REGION_ADDR(out, r->left, y);
        int *p = seq->pixels;
        for (int i = 0; i < n * 3; i++) p[i] = in[i];
        for (int k = 0; k < s->count; k++) apply(s, k, p, n, r->left, y);
        for (int i = 0; i < n * 3; i++) q[i] = (VipsPel)p[i];
    }
    return 0;
}

int cedit_point(VipsImage *in, VipsImage **out, const cedit_stage *stages, int count) {
    if (vips_image_get_format(in) != VIPS_FORMAT_UCHAR || vips_image_get_bands(in) != 3) {
        vips_error("cedit_point", "%s", "the image must be 8-bit with three bands");
        return -1;
    }
    if (vips_image_pio_input(in)) return -1;
    state *s = calloc(1, sizeof(state));
    if (!s) {
        vips_error("cedit_point", "%s", "out of memory");
        return -1;
    }
    s->count = count;
    s->stages = malloc(sizeof(cedit_stage) * (size_t)(count > 0 ? count : 1));
    s->rows = calloc((size_t)(count > 0 ? count : 1), sizeof(float *));
    s->columns = calloc((size_t)(count > 0 ? count : 1), sizeof(float *));
    int width = in->Xsize, height = in->Ysize;
    int failed = !s->stages || !s->rows || !s->columns;
    if (!failed) memcpy(s->stages, stages, sizeof(cedit_stage) * (size_t)count);
    // The vignette's factor, 1 - k d_x² - k d_y², k = amount / ((w/2)² + (h/2)²), computed as
    // `cvips_vignette_factor` computes it: a float term of x plus a float term of y.
    for (int i = 0; i < count && !failed; i++) {
        if (stages[i].kind != CEDIT_VIGNETTE) continue;
        double cx = width / 2.0, cy = height / 2.0;
        double k = stages[i].amount / (cx * cx + cy * cy);
        s->rows[i] = malloc(sizeof(float) * (size_t)width);
        s->columns[i] = malloc(sizeof(float) * (size_t)height);
        if (!s->rows[i] || !s->columns[i]) {
            failed = 1;
            break;
        }
        for (int x = 0; x < width; x++) {
            double d = x + 0.5 - cx;
            s->rows[i][x] = (float)(1 - k * d * d);
        }
        for (int y = 0; y < height; y++) {
            double d = y + 0.5 - cy;
            s->columns[i][y] = (float)(-k * d * d);
        }
    }
    s->in = in;
    g_object_ref(in);
    if (failed) {
        free_state(NULL, s);
        vips_error("cedit_point", "%s", "out of memory");
        return -1;
    }
    VipsImage *image = vips_image_new();
    g_signal_connect(image, "close", G_CALLBACK(free_state), s);
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL) ||
        vips_image_generate(image, start, generate, stop, s, NULL)) {
        g_object_unref(image);
        return -1;
    }
    *out = image;
    return 0;
}

// MARK: - Straighten

typedef struct {
    VipsImage *in;
    /// The inverse map, output pixel centre to input position: u = u0 + x * ux + y * uy, and
    /// the same for v, in the input's pixel-index coordinates (pixel i's centre at i).
    double u0, ux, uy, v0, vx, vy;
} rotation;

static void free_rotation(VipsImage *image, void *data) {
    (void)image;
    rotation *t = data;
    g_object_unref(t->in);
    free(t);
}

static void *start_rotation(VipsImage *out, void *a, void *b) {
    (void)out;
    (void)b;
    const rotation *t = a;
    return vips_region_new(t->in);
}

static int stop_rotation(void *seq, void *a, void *b) {
    (void)a;
    (void)b;
    g_object_unref(seq);
    return 0;
}

static int generate_rotation(VipsRegion *out, void *seq, void *a, void *b, gboolean *stop_now) {
    (void)b;
    (void)stop_now;
    VipsRegion *ir = seq;
    const rotation *t = a;
    VipsRect *r = &out->valid;
    // The input the four corners of this tile map to, one pixel more on each side.
    double us[4], vs[4];
    int corner = 0;
    for (int j = 0; j < 2; j++) {
        for (int i = 0; i < 2; i++) {
            double x = r->left + i * (r->width - 1), y = r->top + j * (r->height - 1);
            us[corner] = t->u0 + x * t->ux + y * t->uy;
            vs[corner] = t->v0 + x * t->vx + y * t->vy;
            corner++;
        }
    }
    double umin = us[0], umax = us[0], vmin = vs[0], vmax = vs[0];
    for (int k = 1; k < 4; k++) {
        umin = fmin(umin, us[k]);
        umax = fmax(umax, us[k]);
        vmin = fmin(vmin, vs[k]);
        vmax = fmax(vmax, vs[k]);
    }
    VipsRect image = {0, 0, t->in->Xsize, t->in->Ysize};
    VipsRect need;
    need.left = (int)floor(umin) - 1;
    need.top = (int)floor(vmin) - 1;
    need.width = (int)ceil(umax) + 2 - need.left;
    need.height = (int)ceil(vmax) + 2 - need.top;
    vips_rect_intersectrect(&need, &image, &need);
    if (vips_rect_isempty(&need)) {
        vips_region_black(out);
        return 0;
    }
    if (vips_region_prepare(ir, &need)) return -1;
    const VipsPel *base = VIPS_REGION_ADDR(ir, need.left, need.top);
    size_t stride = VIPS_REGION_LSKIP(ir);
    int last_x = need.width - 1, last_y = need.height - 1;
    for (int y = r->top; y < VIPS_RECT_BOTTOM(r); y++) {
        VipsPel *q = VIPS_REGION_ADDR(out, r->left, y);
        double u = t->u0 + r->left * t->ux + y * t->uy - need.left;
        double v = t->v0 + r->left * t->vx + y * t->vy - need.top;
        for (int x = 0; x < r->width; x++, u += t->ux, v += t->vx, q += 3) {
            double fu = floor(u), fv = floor(v);
            int x0 = (int)fu, y0 = (int)fv;
            int wx = (int)((u - fu) * 1024), wy = (int)((v - fv) * 1024);
            // Outside the input (never, for a straighten's rectangle): the nearest edge.
            int x1 = x0 + 1, y1 = y0 + 1;
            x0 = x0 < 0 ? 0 : x0 > last_x ? last_x : x0;
            x1 = x1 < 0 ? 0 : x1 > last_x ? last_x : x1;
            y0 = y0 < 0 ? 0 : y0 > last_y ? last_y : y0;
            y1 = y1 < 0 ? 0 : y1 > last_y ? last_y : y1;
            const VipsPel *p00 = base + (size_t)y0 * stride + (size_t)x0 * 3;
            const VipsPel *p10 = base + (size_t)y0 * stride + (size_t)x1 * 3;
            const VipsPel *p01 = base + (size_t)y1 * stride + (size_t)x0 * 3;
            const VipsPel *p11 = base + (size_t)y1 * stride + (size_t)x1 * 3;
            for (int c = 0; c < 3; c++) {
                int top = p00[c] * (1024 - wx) + p10[c] * wx;
                int bottom = p01[c] * (1024 - wx) + p11[c] * wx;
                q[c] = (VipsPel)((top * (1024 - wy) + bottom * wy + (1 << 19)) >> 20);
            }
        }
    }
    return 0;
}

int cedit_straighten(VipsImage *in, VipsImage **out, double degrees, int width, int height) {
    if (vips_image_get_format(in) != VIPS_FORMAT_UCHAR || vips_image_get_bands(in) != 3) {
        vips_error("cedit_straighten", "%s", "the image must be 8-bit with three bands");
        return -1;
    }
    if (width < 1 || height < 1) {
        vips_error("cedit_straighten", "%s", "the rectangle is empty");
        return -1;
    }
    if (vips_image_pio_input(in)) return -1;
    rotation *t = calloc(1, sizeof(rotation));
    if (!t) {
        vips_error("cedit_straighten", "%s", "out of memory");
        return -1;
    }
    // Clockwise by θ on screen (y down) sends (x, y) about the centre to
    // (x cos θ - y sin θ, x sin θ + y cos θ); the inverse takes an output point back:
    // (x cos θ + y sin θ, -x sin θ + y cos θ). Output pixel x's centre is x + 0.5 - width / 2
    // from the centre, and input position u is pixel index u - 0.5.
    double angle = degrees * M_PI / 180, c = cos(angle), s = sin(angle);
    double ox = 0.5 - width / 2.0, oy = 0.5 - height / 2.0;
    t->ux = c;
    t->uy = s;
    t->u0 = in->Xsize / 2.0 + ox * c + oy * s - 0.5;
    t->vx = -s;
    t->vy = c;
    t->v0 = in->Ysize / 2.0 - ox * s + oy * c - 0.5;
    t->in = in;
    g_object_ref(in);
    VipsImage *image = vips_image_new();
    g_signal_connect(image, "close", G_CALLBACK(free_rotation), t);
    if (vips_image_pipelinev(image, VIPS_DEMAND_STYLE_SMALLTILE, in, NULL)) {
        g_object_unref(image);
        return -1;
    }
    image->Xsize = width;
    image->Ysize = height;
    if (vips_image_generate(image, start_rotation, generate_rotation, stop_rotation, t, NULL)) {
        g_object_unref(image);
        return -1;
    }
    *out = image;
    return 0;
}
