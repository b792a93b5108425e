#ifndef CVIDEO_INTERNAL_H
#define CVIDEO_INTERNAL_H

#include <stddef.h>

#include <libavformat/avformat.h>

// Shared by the poster frame and the movie editor; not part of the module's interface.

/// Writes `text` into `message`, with FFmpeg's reason for `error` when it is negative.
void cvideo_set_message(char *message, size_t length, const char *text, int error);

/// Degrees clockwise from the stream's display matrix, rounded to a quarter turn: 0, 90, 180
/// or 270.
int cvideo_rotation(const AVStream *stream);

#endif
