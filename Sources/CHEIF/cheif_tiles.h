#ifndef CHEIF_TILES_H
#define CHEIF_TILES_H

#include "cheif.h"
#include "cvideo.h"

// Not part of the module's interface.

/// The largest picture FFmpeg may decode for `layout`: its pictures' stated size (`ispe`) and
/// 64 coded rows and columns beyond (a picture is coded in blocks of up to 64 and cropped to
/// its size), so that a file stating small tiles and coding huge ones is refused before
/// FFmpeg allocates them.
size_t cheif_picture_limit(const cheif_layout *layout);

/// Decodes the pictures of `layout` (in `data`) with `decoder` and makes them 8-bit RGB
/// straight into one block from `allocate`, `shrink` times smaller, each pixel the mean of its
/// block (Y, Cb and Cr averaged, then converted), turned as the layout says. The calling thread
/// takes the tiles one at a time, and helper threads lent by `helpers` (or NULL) take them
/// beside it, each with a decoder of its own. `monitor` is asked before each tile. Returns 1;
/// 0 with `message` saying why when a picture does not decode or the grid is not one this
/// takes; -1 when the monitor stopped it.
int cheif_decode_tiles(const unsigned char *data, const cheif_layout *layout, cvideo_hevc *decoder, int shrink,
                       cheif_allocate allocate, cheif_monitor monitor, void *context, const cheif_helpers *helpers,
                       cheif_decoded *decoded, char *message, size_t message_length);

#endif
