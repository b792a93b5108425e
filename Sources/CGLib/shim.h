#ifndef CGLIB_SHIM_H
#define CGLIB_SHIM_H

// GLib and GObject, linked at start: libvips' images are GObjects, and GLib's few libraries
// load in a fraction of a millisecond. libvips itself is opened on first use (CVips).
#include <glib-object.h>
#include <gmodule.h>

#endif
