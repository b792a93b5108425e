#ifndef CHEIF_H
#define CHEIF_H

#include <stddef.h>

// A HEIF or AVIF file's embedded thumbnail decoded by libheif directly, from memory.
//
// libvips 8.14 decodes it too (`heifload` with `thumbnail`), but reads the file through its
// own source in thousands of reads of 1 to 8 bytes, parses the file again for every open,
// and `vips_thumbnail` opens it twice: an iPhone HEIC's 320x240 thumbnail took 40 to 50 ms
// there, against 1.5 ms to parse and 5 ms to decode here. libheif is opened with dlopen on
// the first HEIF, not linked: it brings the HEVC and AV1 codecs' libraries, which every
// process would otherwise load at start.

typedef struct cheif_file cheif_file;

/// Parses a HEIF held in `data` (which must outlive the file) and finds its primary image
/// and that image's first thumbnail. NULL, with `message` saying why, when libheif cannot be
/// loaded or the bytes are not a HEIF it reads.
cheif_file *cheif_open(const void *data, size_t length, char *message, size_t message_length);

/// The primary image's size as displayed (libheif's rotation, mirroring and crop applied).
void cheif_primary_size(const cheif_file *file, int *width, int *height);

/// 1, and the first thumbnail's size as displayed, when the primary image has a thumbnail
/// that decodes to 8-bit RGB (no alpha, no more than 8 bits); 0 otherwise.
int cheif_thumbnail_size(const cheif_file *file, int *width, int *height);

/// The thumbnail decoded to 8-bit RGB, rows packed (`width` * 3 bytes), in `*pixels` (malloc'ed,
/// the caller frees it), and its ICC profile, when it has one, in `*icc` (malloc'ed) and
/// `*icc_length`. Returns 1, or 0 with `message` saying why.
int cheif_decode_thumbnail(cheif_file *file, unsigned char **pixels, int *width, int *height,
                           unsigned char **icc, size_t *icc_length, char *message, size_t message_length);

void cheif_close(cheif_file *file);

#endif
