#include "ccolour.h"

#include <lcms2.h>

void *ccolour_rgb_to_srgb(const void *profile, size_t length) {
    if (!profile || length == 0 || length > 0xFFFFFFFFu) return NULL;
    cmsHPROFILE source = cmsOpenProfileFromMem(profile, (cmsUInt32Number)length);
    if (!source) return NULL;
    cmsHTRANSFORM transform = NULL;
    if (cmsGetColorSpace(source) == cmsSigRgbData) {
        cmsHPROFILE srgb = cmsCreate_sRGBProfile();
        if (srgb) {
            // No one-pixel cache: the transform is shared between threads.
            transform = cmsCreateTransform(source, TYPE_RGB_8, srgb, TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC,
                                           cmsFLAGS_NOCACHE);
            cmsCloseProfile(srgb);
        }
    }
    cmsCloseProfile(source);
    return transform;
}

void ccolour_apply(void *transform, const unsigned char *in, size_t in_stride, unsigned char *out,
                   size_t out_stride, int width, int height) {
    cmsDoTransformLineStride((cmsHTRANSFORM)transform, in, out, (cmsUInt32Number)width, (cmsUInt32Number)height,
                             (cmsUInt32Number)in_stride, (cmsUInt32Number)out_stride, 0, 0);
}

void ccolour_free(void *transform) {
    if (transform) cmsDeleteTransform((cmsHTRANSFORM)transform);
}
