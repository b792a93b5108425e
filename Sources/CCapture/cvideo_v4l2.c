#include "cvideo_capture.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/// An ioctl retried when a signal interrupts it.
static int control(int fd, unsigned long request, void *argument) {
    int result;
    do result = ioctl(fd, request, argument);
    while (result < 0 && errno == EINTR);
    return result;
}

/// The fastest rate the device offers for a format at a size (the shortest frame interval).
static void fastest_rate(int fd, unsigned format, unsigned width, unsigned height, ccapture_v4l2_mode *mode) {
    mode->rate_num = 0;
    mode->rate_den = 1;
    // Bounded: a driver lists a handful of intervals, or one stepwise range.
    for (unsigned index = 0; index < 64; index++) {
        struct v4l2_frmivalenum interval = {.index = index, .pixel_format = format, .width = width, .height = height};
        if (control(fd, VIDIOC_ENUM_FRAMEINTERVALS, &interval) < 0) break;
        struct v4l2_fract fraction = interval.type == V4L2_FRMIVAL_TYPE_DISCRETE ? interval.discrete
                                                                                 : interval.stepwise.min;
        if (fraction.numerator == 0 || fraction.denominator == 0 || fraction.denominator > 1000000) continue;
        // Frames per second is the interval upside down; keep the largest.
        if (mode->rate_num == 0 ||
            (long long)fraction.denominator * mode->rate_den > (long long)mode->rate_num * fraction.numerator) {
            mode->rate_num = (int)fraction.denominator;
            mode->rate_den = (int)fraction.numerator;
        }
        if (interval.type != V4L2_FRMIVAL_TYPE_DISCRETE) break;
    }
}

int ccapture_v4l2_describe(const char *path, char *name, size_t name_length, ccapture_v4l2_mode *modes, int capacity,
                           char *message, size_t message_length) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(message, message_length, "cannot open %s (%s)", path, strerror(errno));
        return -1;
    }
    struct v4l2_capability capability;
    memset(&capability, 0, sizeof(capability));
    if (control(fd, VIDIOC_QUERYCAP, &capability) < 0) {
        snprintf(message, message_length, "%s is not a Video4Linux2 device (%s)", path, strerror(errno));
        close(fd);
        return -1;
    }
    unsigned caps = capability.capabilities & V4L2_CAP_DEVICE_CAPS ? capability.device_caps : capability.capabilities;
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)) {
        snprintf(message, message_length, "%s captures no video frames (a metadata or output node)", path);
        close(fd);
        return -1;
    }
    snprintf(name, name_length, "%.*s", (int)sizeof(capability.card), (const char *)capability.card);
    int count = 0;
    for (unsigned f = 0; f < 64 && count < capacity; f++) {
        struct v4l2_fmtdesc format = {.index = f, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
        if (control(fd, VIDIOC_ENUM_FMT, &format) < 0) break;
        for (unsigned s = 0; s < 64 && count < capacity; s++) {
            struct v4l2_frmsizeenum size = {.index = s, .pixel_format = format.pixelformat};
            if (control(fd, VIDIOC_ENUM_FRAMESIZES, &size) < 0) break;
            unsigned width = size.type == V4L2_FRMSIZE_TYPE_DISCRETE ? size.discrete.width : size.stepwise.max_width;
            unsigned height = size.type == V4L2_FRMSIZE_TYPE_DISCRETE ? size.discrete.height : size.stepwise.max_height;
            if (width == 0 || height == 0 || width > 16384 || height > 16384) continue;
            ccapture_v4l2_mode *mode = &modes[count++];
            for (int i = 0; i < 4; i++) {
                char c = (char)((format.pixelformat >> (8 * i)) & 0xFF);
                mode->fourcc[i] = c >= 32 && c < 127 ? c : '?';
            }
            mode->fourcc[4] = 0;
            mode->width = (int)width;
            mode->height = (int)height;
            fastest_rate(fd, format.pixelformat, width, height, mode);
            if (size.type != V4L2_FRMSIZE_TYPE_DISCRETE) break;
        }
    }
    close(fd);
    return count;
}
