#ifndef CHEIF_TILES_H
#define CHEIF_TILES_H

#include "cheif.h"
#include "cvideo.h"

// Not part of the module's interface.

/// Decodes the pictures of `layout` (in `data`) one at a time with `decoder` and makes them
/// 8-bit RGB straight into one block from `allocate`, `shrink` (1, 2, 4 or 8) times smaller,
/// each pixel the mean of its block (Y, Cb and Cr averaged, then converted), turned as the
/// layout says. `monitor` is asked before each picture. Returns 1; 0 with `message` saying why
/// when a picture does not decode or the grid is not one this takes; -1 when the monitor
/// stopped it.
int cheif_decode_tiles(const unsigned char *data, const cheif_layout *layout, cvideo_hevc *decoder, int shrink,
                       cheif_allocate allocate, cheif_monitor monitor, void *context, cheif_decoded *decoded,
                       char *message, size_t message_length);

#endif
