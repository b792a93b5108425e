#ifndef CHEIF_H
#define CHEIF_H

#include <stddef.h>

// HEIF and AVIF images decoded from memory: the primary image, or its embedded thumbnail.
//
// A primary image in 8-bit 4:2:0 HEVC, one picture or a grid of them as phones write it, is
// decoded tile by tile by FFmpeg's HEVC decoder (`CVideo`) on the calling thread and made RGB
// straight into the output at the size asked for: FFmpeg takes about 40% of the processor time
// libheif's decoder took for an iPhone's 12 MP photo, a decode holds one 512x512 tile beside
// the output instead of the whole image, and it can report progress and stop between tiles.
// An iPhone's embedded thumbnail is one such picture. Everything else (AVIF, 10-bit, 4:2:2 and
// 4:4:4, alpha, mirroring, crops) and any file that path refuses goes to libheif.
//
// libvips 8.14 decodes them too (`heifload`), but reads the file through its own source in
// thousands of reads of 1 to 8 bytes, parses it again for every open (`vips_thumbnail` opens
// it twice), and shrinks the decoded image with its scalar reduction: an iPhone HEIC's 320x240
// thumbnail took 40 to 50 ms there, against 1.5 ms to parse and 5 ms to decode here. libheif
// is opened with dlopen on the first HEIF, not linked: it brings the HEVC and AV1 codecs'
// libraries, which every process would otherwise load at start.

typedef struct cheif_file cheif_file;

/// Loads libheif once per process. Returns 1 when it is there; 0 with `message` saying which
/// library or function is missing.
int cheif_load(char *message, size_t message_length);

/// What a failed call found wrong.
typedef enum {
    /// The bytes are damaged or cut short.
    CHEIF_DAMAGED = 1,
    /// A HEIF libheif does not read (an image sequence, a codec it lacks), or libheif is missing.
    CHEIF_UNSUPPORTED = 2,
    /// The monitor stopped the decode.
    CHEIF_STOPPED = 3,
} cheif_failure;

/// Called before each tile of a tile-by-tile decode with the fraction done (0...1); a nonzero
/// return stops the decode.
typedef int (*cheif_monitor)(void *context, double fraction);

/// Parses a HEIF held in `data` (which must outlive the file) and finds its primary image
/// and that image's first thumbnail. NULL, with `*failure` and `message` saying why, when
/// libheif cannot be loaded or does not read the bytes.
cheif_file *cheif_open(const void *data, size_t length, cheif_failure *failure, char *message, size_t message_length);

/// The primary image's size as displayed (libheif's rotation, mirroring and crop applied).
void cheif_primary_size(const cheif_file *file, int *width, int *height);

/// 1, and the first thumbnail's size as displayed, when the primary image has a thumbnail
/// that decodes to 8-bit RGB (no alpha, no more than 8 bits); 0 otherwise.
int cheif_thumbnail_size(const cheif_file *file, int *width, int *height);

/// 1 when the primary image decodes to 8-bit RGB (no alpha, no more than 8 bits); 0 when
/// libvips should decode it (16-bit output, alpha).
int cheif_primary_is_rgb8(const cheif_file *file);

/// 1 when the primary image (`thumbnail` 0) or the thumbnail (1) will be decoded tile by tile
/// by FFmpeg (see above): it then holds one tile's YCbCr and the decoder's state beside its
/// output. 0 when libheif decodes it.
int cheif_is_tiled(cheif_file *file, int thumbnail);

/// The pixels of one of that image's pictures (a grid's tile, or the one picture) when it is
/// decoded tile by tile; 0 otherwise. FFmpeg's decoder held 1.1 MB for a 320x240 picture and
/// 1.7 MB for a 512x512 tile.
size_t cheif_tile_pixels(cheif_file *file, int thumbnail);

/// A decoded image: 8-bit RGB rows `stride` bytes apart in a block from the caller's
/// `allocate`, which the caller gives back; its ICC profile, when it has one, malloc'ed (the
/// caller frees it).
typedef struct {
    unsigned char *pixels;
    size_t stride;
    int width;
    int height;
    unsigned char *icc;
    size_t icc_length;
} cheif_decoded;

/// A block of `size` bytes for decoded pixels, or NULL.
typedef void *(*cheif_allocate)(size_t size);

/// The thumbnail (`thumbnail` 1) or the primary image decoded to 8-bit RGB, `shrink` (1, 2, 4
/// or 8) times smaller, rounded up, each pixel the mean of its block, into a block from
/// `allocate` (malloc'ed). Returns 1, or 0 with `*failure` and `message` saying why.
///
/// Tile by tile (`cheif_is_tiled`), `monitor` is called before each tile and can stop
/// the decode; a tile FFmpeg cannot decode hands the file to libheif. libheif 1.15 reports no
/// progress and cannot stop a decode under way. It gives planar RGB, interleaved here: it
/// assembles a grid image in planar RGB and would interleave it into a second whole copy (a
/// 12 MP HEIC held 73 MB at once that way; here 36 MB of planes and the shrunk RGB).
int cheif_decode(cheif_file *file, int thumbnail, int shrink, cheif_allocate allocate, cheif_monitor monitor,
                 void *context, cheif_decoded *decoded, cheif_failure *failure, char *message, size_t message_length);

void cheif_close(cheif_file *file);

#endif
