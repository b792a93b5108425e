#ifndef CHEIF_H
#define CHEIF_H

#include <stddef.h>
#include <stdint.h>

// HEIF and AVIF images decoded from memory: the primary image, or its embedded thumbnail.
//
// An image in 8-bit 4:2:0 HEVC, one picture or a grid of them as phones write it, whose
// layout the caller offers (`cheif_offer_layout`), is decoded tile by tile by FFmpeg's HEVC
// decoder (`CVideo`) on the calling thread, and on helper threads when the caller lends free
// processors (`cheif_helpers`), and made RGB straight into the output at the size asked for: FFmpeg takes about 40% of the processor time libheif's decoder took for an
// iPhone's 12 MP photo, a decode holds one 512x512 tile beside the output instead of the whole
// image, and it can report progress and stop between tiles. An iPhone's embedded thumbnail is
// one such picture. Everything else (AVIF, 10-bit, 4:2:2 and 4:4:4, alpha, mirroring, crops)
// and any file that path refuses goes to libheif.
//
// libvips 8.14 decodes them too (`heifload`), but reads the file through its own source in
// thousands of reads of 1 to 8 bytes, parses it again for every open (`vips_thumbnail` opens
// it twice), and shrinks the decoded image with its scalar reduction: an iPhone HEIC's
// embedded thumbnail took several times longer there (docs/BENCHMARKS.md). libheif
// is opened with dlopen on the first HEIF that needs it, not linked: it brings the HEVC and AV1 codecs'
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
/// return stops the decode. Called one call at a time, from any of the decode's threads.
typedef int (*cheif_monitor)(void *context, double fraction);

/// Processors a tile-by-tile decode may borrow for helper threads, each with a decoder of its
/// own, taking tiles until none are left. `spare` says how many processors are free now (less
/// than 0 when more threads work than there are processors, and a helper then stops after its
/// tile); `borrow` takes one (1) or finds none (0); `give_back` returns one when its helper
/// ends.
typedef struct {
    int (*spare)(void *context);
    int (*borrow)(void *context);
    void (*give_back)(void *context);
    void *context;
} cheif_helpers;

/// Parses a HEIF held in `data` (which must outlive the file) and finds its primary image
/// and that image's first thumbnail. NULL, with `*failure` and `message` saying why, when
/// libheif cannot be loaded or does not read the bytes.
cheif_file *cheif_open(const void *data, size_t length, cheif_failure *failure, char *message, size_t message_length);

/// A HEIF held in `data` (which must outlive the file) without libheif: its images are only
/// those whose layouts the caller offers, decoded tile by tile, and `cheif_decode` of any other
/// fails with `CHEIF_UNSUPPORTED` (the caller then opens the bytes with `cheif_open`). The
/// caller reads the sizes, alpha and ICC profile itself. For a process that decodes only
/// phones' HEICs, libheif is never loaded, nor is each file parsed by it. NULL when out of memory.
cheif_file *cheif_open_layouts(const void *data, size_t length);

/// The primary image's size as displayed (libheif's rotation, mirroring and crop applied).
void cheif_primary_size(const cheif_file *file, int *width, int *height);

/// 1, and the first thumbnail's size as displayed, when the primary image has a thumbnail
/// that decodes to 8-bit RGB (no alpha, no more than 8 bits); 0 otherwise.
int cheif_thumbnail_size(const cheif_file *file, int *width, int *height);

/// 1 when the primary image decodes to 8-bit RGB (no alpha, no more than 8 bits); 0 when
/// libvips should decode it (16-bit output, alpha).
int cheif_primary_is_rgb8(const cheif_file *file);

/// One stretch of a picture's bytes: an offset into the bytes `cheif_open` was given.
typedef struct {
    size_t offset;
    size_t length;
} cheif_extent;

/// Where an image's HEVC pictures lie in the file, as Lightbox's HEIF reader in Swift found
/// them (`HEIFCodedImage` in LightboxMetadata): the boxes of a file are read there, in
/// bounds-checked code, not here.
typedef struct {
    /// The item, which must be the one libheif took.
    uint32_t item;
    /// The `hvcC` box's contents, the decoder configuration every picture shares.
    size_t config_offset;
    size_t config_length;
    /// Pictures in the grid's order, row by row; `first_extent[i]` up to `first_extent[i + 1]`
    /// index picture `i`'s extents (`rows * columns + 1` entries).
    int columns;
    int rows;
    const size_t *first_extent;
    const cheif_extent *extents;
    /// The image before its turn: the grid's output size, or the single picture's `ispe`.
    int width;
    int height;
    /// The first picture's size (`ispe`); FFmpeg decodes none larger than this and 64 coded
    /// rows and columns beyond.
    int tile_width;
    int tile_height;
    /// Quarter turns anticlockwise (`irot`): 0 to 3.
    int rotation;
    /// The `nclx` colour description's matrix and range, when the image or its pictures have
    /// one (`has_nclx`); else the stream's VUI says, as libheif's libde265 plugin reads it.
    int has_nclx;
    int matrix;
    int full_range;
} cheif_layout;

/// Offers the layout of the primary image (`thumbnail` 0) or the thumbnail (1), which `file`
/// copies. That image is then decoded tile by tile by FFmpeg (see above) when the layout is the
/// image libheif found (its item, and its size once turned; any layout for a file opened
/// without libheif), the configuration says 8-bit
/// 4:2:0 and FFmpeg's decoder opens: it holds one picture's YCbCr and the decoder's state
/// beside its output. Returns 1 then; 0 leaves the image to libheif.
int cheif_offer_layout(cheif_file *file, int thumbnail, const cheif_layout *layout);

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
    /// 1 when decoded tile by tile through FFmpeg, 0 when by libheif.
    int tiled;
} cheif_decoded;

/// A block of `size` bytes for decoded pixels, or NULL.
typedef void *(*cheif_allocate)(size_t size);

/// The thumbnail (`thumbnail` 1) or the primary image decoded to 8-bit RGB, `shrink` (1, 2, 4
/// or 8) times smaller, rounded up, each pixel the mean of its block, into a block from
/// `allocate` (malloc'ed). Returns 1, or 0 with `*failure` and `message` saying why. A file
/// opened without libheif (`cheif_open_layouts`) gives no ICC profile.
///
/// Tile by tile (`cheif_offer_layout`), `monitor` is called before each tile and can stop
/// the decode, and `helpers` (or NULL) lends it processors that no other work uses: a
/// processor seen free at two tile boundaries in a row (not one between two files of a batch)
/// gets a helper thread while two or more tiles are left. A tile FFmpeg cannot decode hands
/// the file to libheif. libheif 1.15 reports no
/// progress and cannot stop a decode under way. It gives planar RGB, interleaved here: it
/// assembles a grid image in planar RGB and would interleave it into a second whole copy;
/// here only the planes and the shrunk RGB are held.
int cheif_decode(cheif_file *file, int thumbnail, int shrink, cheif_allocate allocate, cheif_monitor monitor,
                 void *context, const cheif_helpers *helpers, cheif_decoded *decoded, cheif_failure *failure,
                 char *message, size_t message_length);

void cheif_close(cheif_file *file);

/// Encodes 8-bit YCbCr 4:2:0 planes (limited range, BT.601; odd sides lose their last row or
/// column) as a HEIC with libheif's HEVC encoder at `quality` (1...100) and x265's `preset`
/// ("veryfast"; NULL for libheif's default), with `exif` (a TIFF
/// stream, as in a JPEG's APP1 after "Exif\0\0") and, when `thumbnail_size` is positive, an
/// embedded thumbnail fitting that square. 1 with `*out` (`free`) holding `*out_length` bytes; 0
/// with `message` saying why.
int cheif_encode_yuv420(const unsigned char *const planes[3], const int strides[3], int width, int height,
                        int quality, const char *preset, const unsigned char *exif, size_t exif_length, int thumbnail_size,
                        unsigned char **out, size_t *out_length, char *message, size_t message_length);

#endif
