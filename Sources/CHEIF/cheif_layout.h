#ifndef CHEIF_LAYOUT_H
#define CHEIF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

// Where a HEIF's image lies in the file, read from its boxes (ISO/IEC 23008-12): the
// HEVC pictures (a grid's tiles, or the one picture), their decoder configuration, the grid's
// size and the turn the image takes. Not part of the module's interface.

/// One stretch of a picture's bytes in the file.
typedef struct {
    size_t offset;
    size_t length;
} cheif_extent;

typedef struct {
    /// The `hvcC` box's contents, which every picture shares.
    const unsigned char *config;
    size_t config_length;
    /// Pictures in the grid's order, row by row; `first_extent[i]` up to `first_extent[i + 1]`
    /// index picture `i`'s extents.
    int columns;
    int rows;
    size_t *first_extent;
    cheif_extent *extents;
    /// The image before its turn: the grid's output size, or the single picture's `ispe`.
    int width;
    int height;
    /// The first picture's size (`ispe`), or the image's when it states none.
    int tile_width;
    int tile_height;
    /// Quarter turns anticlockwise (`irot`): 0 to 3.
    int rotation;
    /// The `nclx` colour description's matrix and range, when the image or its tiles have one
    /// (`has_nclx`).
    int has_nclx;
    int matrix;
    int full_range;
} cheif_layout;

/// Reads the layout of image item `item` of `data` (0: the primary image, `pitm`). 1 when it
/// is HEVC (`hvc1`) in a form the own decoder takes: 8-bit 4:2:0, one picture or a grid of
/// pictures with one configuration, turned by `irot` at most (no `imir` mirroring, no `clap`
/// crop, no other essential property, no image derived from another). 0 otherwise, for damaged
/// boxes too: libheif then decides.
int cheif_read_layout(const unsigned char *data, size_t length, uint32_t item, cheif_layout *layout);

void cheif_free_layout(cheif_layout *layout);

#endif
