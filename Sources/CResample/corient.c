#include "corient.h"

#include <string.h>

int corient(const unsigned char *in, int width, int height, size_t in_stride, int bands, int orientation,
            unsigned char *out, size_t out_stride) {
    if (!in || !out || width < 1 || height < 1 || bands < 1 || bands > 4 || orientation < 1 || orientation > 8
        || in_stride < (size_t)width * bands)
        return -1;
    const int swaps = orientation >= 5;
    const int out_width = swaps ? height : width, out_height = swaps ? width : height;
    if (out_stride < (size_t)out_width * bands) return -1;
    const ptrdiff_t pixel = bands, row = (ptrdiff_t)in_stride;
    for (int oy = 0; oy < out_height; oy++) {
        // Where output pixel (0, oy) comes from, and how far the next one along the row is.
        int sx, sy;
        ptrdiff_t step;
        switch (orientation) {
        case 1: sx = 0; sy = oy; step = pixel; break;
        case 2: sx = width - 1; sy = oy; step = -pixel; break;
        case 3: sx = width - 1; sy = height - 1 - oy; step = -pixel; break;
        case 4: sx = 0; sy = height - 1 - oy; step = pixel; break;
        case 5: sx = oy; sy = 0; step = row; break;
        case 6: sx = oy; sy = height - 1; step = -row; break;
        case 7: sx = width - 1 - oy; sy = height - 1; step = -row; break;
        default: sx = width - 1 - oy; sy = 0; step = row; break;
        }
        const unsigned char *source = in + (size_t)sy * in_stride + (size_t)sx * bands;
        unsigned char *target = out + (size_t)oy * out_stride;
        if (step == pixel) {
            memcpy(target, source, (size_t)out_width * bands);
        } else if (bands == 3) {
            for (int ox = 0; ox < out_width; ox++, source += step, target += 3) {
                target[0] = source[0];
                target[1] = source[1];
                target[2] = source[2];
            }
        } else {
            for (int ox = 0; ox < out_width; ox++, source += step, target += bands) {
                for (int b = 0; b < bands; b++) target[b] = source[b];
            }
        }
    }
    return 0;
}
