#ifndef CVIDEO_H
#define CVIDEO_H

#include <stddef.h>

// A movie's poster frame through FFmpeg's libraries (libavformat, libavcodec, libswscale):
// the first frame the movie shows, as 8-bit RGB, and the rotation its track asks for.

typedef enum {
    CVIDEO_OK = 0,
    /// FFmpeg cannot open or parse the file.
    CVIDEO_UNREADABLE = 1,
    /// The file has no video stream, or no decoder for it.
    CVIDEO_NO_VIDEO = 2,
    /// Decoding failed before a frame came out.
    CVIDEO_CORRUPT = 3,
    /// The frame would be larger than allowed.
    CVIDEO_TOO_LARGE = 4,
} cvideo_status;

/// A decoded frame: rows of `width * 3` bytes, RGB. Free with `cvideo_free`.
typedef struct {
    unsigned char *pixels;
    int width;
    int height;
    /// Degrees clockwise the frame must turn to be upright: 0, 90, 180 or 270.
    int rotation;
} cvideo_frame;

/// Decodes the first frame of the file's main video stream. At most `max_pixels` pixels, and
/// at most `max_packets` packets read before a frame comes out (a damaged file ends there).
cvideo_status cvideo_poster_frame(const char *path, size_t max_pixels, int max_packets, cvideo_frame *frame,
                                  char *message, size_t message_length);

void cvideo_free(cvideo_frame *frame);

#endif
