#ifndef CVIDEO_INTERNAL_H
#define CVIDEO_INTERNAL_H

#include <stddef.h>

#include <libavformat/avformat.h>
#include <libswscale/swscale.h>

// Shared by the poster frame and the movie editor; not part of the module's interface.

/// Writes `text` into `message`, with FFmpeg's reason for `error` when it is negative.
void cvideo_set_message(char *message, size_t length, const char *text, int error);

/// Degrees clockwise from the stream's display matrix, rounded to a quarter turn: 0, 90, 180
/// or 270.
int cvideo_rotation(const AVStream *stream);

/// A converter of `frame`'s pixels to 8-bit RGB of the same size, with the colour matrix and
/// range the frame states (BT.601 and limited range when it states none, as FFmpeg assumes).
struct SwsContext *cvideo_rgb_converter(const AVFrame *frame);

/// The colour matrix swscale needs for a colour space (BT.601 when unstated).
const int *cvideo_coefficients(enum AVColorSpace space);

#endif
