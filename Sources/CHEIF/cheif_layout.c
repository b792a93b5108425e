#include "cheif_layout.h"

#include <stdlib.h>
#include <string.h>

// Every read is bounds-checked: the bytes come from any file. A box the reader does not
// understand makes the layout unusable, never a crash; libheif then reads the file.

typedef struct {
    const unsigned char *start;
    const unsigned char *end;
} span;

/// Big-endian unsigned integer of `size` bytes (0, 1, 2, 4 or 8) at `*at`, advancing it.
/// 0 when it would pass `end`.
static int read_uint(const unsigned char **at, const unsigned char *end, int size, uint64_t *value) {
    *value = 0;
    if (size < 0 || size > 8 || end - *at < size) return 0;
    for (int i = 0; i < size; i++) *value = (*value << 8) | (*at)[i];
    *at += size;
    return 1;
}

/// The next box in `*within`: its type and contents (after the header). Advances `*within`
/// past it. 0 at the end or when the header is damaged.
static int next_box(span *within, char type[4], span *contents) {
    const unsigned char *at = within->start;
    uint64_t size, kind;
    if (!read_uint(&at, within->end, 4, &size) || !read_uint(&at, within->end, 4, &kind)) return 0;
    if (size == 1) {
        if (!read_uint(&at, within->end, 8, &size)) return 0;
    } else if (size == 0) {
        size = (uint64_t)(within->end - within->start);
    }
    size_t header = (size_t)(at - within->start);
    if (size < header || size > (uint64_t)(within->end - within->start)) return 0;
    for (int i = 0; i < 4; i++) type[i] = (char)(kind >> (24 - 8 * i));
    contents->start = at;
    contents->end = within->start + size;
    within->start = contents->end;
    return 1;
}

/// The first child box of `parent` of type `wanted`, skipping `skip` bytes of the parent's own
/// fields first (a full box's version and flags).
static int find_box(span parent, size_t skip, const char *wanted, span *found) {
    if ((size_t)(parent.end - parent.start) < skip) return 0;
    parent.start += skip;
    char type[4];
    span contents;
    while (next_box(&parent, type, &contents)) {
        if (memcmp(type, wanted, 4) == 0) {
            *found = contents;
            return 1;
        }
    }
    return 0;
}

/// A full box's version, and the contents after the version and flags.
static int full_box(span *box, int *version, uint32_t *flags) {
    uint64_t value;
    const unsigned char *at = box->start;
    if (!read_uint(&at, box->end, 4, &value)) return 0;
    *version = (int)(value >> 24);
    *flags = (uint32_t)(value & 0xffffff);
    box->start = at;
    return 1;
}

typedef struct {
    span file;
    span iinf, iloc, iref, ipco, ipma, idat;
    int has_idat;
} boxes;

/// An item's four-character type from `iinf` (item info entries of version 2 or 3).
static int item_type(const boxes *meta, uint32_t id, char type[4]) {
    span iinf = meta->iinf;
    int version;
    uint32_t flags;
    uint64_t count;
    if (!full_box(&iinf, &version, &flags) || !read_uint(&iinf.start, iinf.end, version == 0 ? 2 : 4, &count)) return 0;
    char kind[4];
    span entry;
    while (next_box(&iinf, kind, &entry)) {
        if (memcmp(kind, "infe", 4) != 0 || !full_box(&entry, &version, &flags) || version < 2) continue;
        uint64_t item, protection, item_kind;
        if (!read_uint(&entry.start, entry.end, version == 2 ? 2 : 4, &item) ||
            !read_uint(&entry.start, entry.end, 2, &protection) || !read_uint(&entry.start, entry.end, 4, &item_kind)) {
            return 0;
        }
        if (item != id) continue;
        // A protected (encrypted) item is not one to decode.
        if (protection != 0) return 0;
        for (int i = 0; i < 4; i++) type[i] = (char)(item_kind >> (24 - 8 * i));
        return 1;
    }
    return 0;
}

/// Item `id`'s extents from `iloc`, as offsets into the file, appended to `*extents` (grown).
static int item_extents(const boxes *meta, uint32_t id, cheif_extent **extents, size_t *count, size_t *capacity) {
    span iloc = meta->iloc;
    int version;
    uint32_t flags;
    uint64_t sizes, items;
    if (!full_box(&iloc, &version, &flags) || version > 2 || !read_uint(&iloc.start, iloc.end, 2, &sizes) ||
        !read_uint(&iloc.start, iloc.end, version < 2 ? 2 : 4, &items)) {
        return 0;
    }
    int offset_size = (int)(sizes >> 12) & 15, length_size = (int)(sizes >> 8) & 15;
    int base_size = (int)(sizes >> 4) & 15, index_size = version >= 1 ? (int)sizes & 15 : 0;
    for (uint64_t n = 0; n < items; n++) {
        uint64_t item, method = 0, reference, base, extent_count;
        if (!read_uint(&iloc.start, iloc.end, version < 2 ? 2 : 4, &item)) return 0;
        if (version >= 1) {
            if (!read_uint(&iloc.start, iloc.end, 2, &method)) return 0;
            method &= 15;
        }
        if (!read_uint(&iloc.start, iloc.end, 2, &reference) || !read_uint(&iloc.start, iloc.end, base_size, &base) ||
            !read_uint(&iloc.start, iloc.end, 2, &extent_count)) {
            return 0;
        }
        for (uint64_t e = 0; e < extent_count; e++) {
            uint64_t index, offset, length;
            if (!read_uint(&iloc.start, iloc.end, index_size, &index) ||
                !read_uint(&iloc.start, iloc.end, offset_size, &offset) ||
                !read_uint(&iloc.start, iloc.end, length_size, &length)) {
                return 0;
            }
            if (item != id) continue;
            // Only bytes in this file or in `idat`; a length of 0 (to the end) is left to libheif.
            if (reference != 0 || method > 1 || length == 0) return 0;
            span source = meta->file;
            if (method == 1) {
                if (!meta->has_idat) return 0;
                source = meta->idat;
            }
            uint64_t available = (uint64_t)(source.end - source.start);
            if (base > available || offset > available - base || length > available - base - offset) return 0;
            if (*count == *capacity) {
                size_t grown = *capacity ? *capacity * 2 : 64;
                cheif_extent *larger = realloc(*extents, grown * sizeof(**extents));
                if (!larger) return 0;
                *extents = larger;
                *capacity = grown;
            }
            (*extents)[(*count)++] = (cheif_extent){
                .offset = (size_t)(source.start - meta->file.start) + (size_t)(base + offset), .length = (size_t)length};
        }
        if (item == id) return 1;
    }
    return 0;
}

/// The items `from` refers to by `kind` in `iref`: their count, and up to `max` of them in `to`.
static long references(const boxes *meta, uint32_t from, const char *kind, uint32_t *to, long max) {
    span iref = meta->iref;
    int version;
    uint32_t flags;
    if (!full_box(&iref, &version, &flags)) return -1;
    int id_size = version == 0 ? 2 : 4;
    char type[4];
    span entry;
    while (next_box(&iref, type, &entry)) {
        uint64_t source, count;
        if (!read_uint(&entry.start, entry.end, id_size, &source) || !read_uint(&entry.start, entry.end, 2, &count)) {
            return -1;
        }
        if (source != from || memcmp(type, kind, 4) != 0) continue;
        for (uint64_t i = 0; i < count; i++) {
            uint64_t target;
            if (!read_uint(&entry.start, entry.end, id_size, &target)) return -1;
            if ((long)i < max) to[i] = (uint32_t)target;
        }
        return (long)count;
    }
    return 0;
}

/// Whether some item refers to `id` by `kind`.
static int referred_to(const boxes *meta, uint32_t id, const char *kind) {
    span iref = meta->iref;
    int version;
    uint32_t flags;
    if (!full_box(&iref, &version, &flags)) return 0;
    int id_size = version == 0 ? 2 : 4;
    char type[4];
    span entry;
    while (next_box(&iref, type, &entry)) {
        uint64_t source, count, target;
        if (!read_uint(&entry.start, entry.end, id_size, &source) || !read_uint(&entry.start, entry.end, 2, &count)) {
            return 0;
        }
        if (memcmp(type, kind, 4) != 0) continue;
        for (uint64_t i = 0; i < count; i++) {
            if (read_uint(&entry.start, entry.end, id_size, &target) && target == id) return 1;
        }
    }
    return 0;
}

/// What an image item's properties say.
typedef struct {
    span config;
    int config_index;
    int has_config;
    int has_size;
    uint32_t width, height;
    int rotation;
    int has_nclx;
    int matrix;
    int full_range;
} properties;

/// Reads item `id`'s properties through `ipma` and `ipco`. 0 when one makes the item one the
/// own decoder does not take: mirroring, a crop, a turn on a tile, an essential property it
/// does not know.
static int item_properties(const boxes *meta, uint32_t id, int is_tile, properties *found) {
    memset(found, 0, sizeof(*found));
    span ipma = meta->ipma;
    int version;
    uint32_t flags;
    uint64_t entries;
    if (!full_box(&ipma, &version, &flags) || !read_uint(&ipma.start, ipma.end, 4, &entries)) return 0;
    for (uint64_t n = 0; n < entries; n++) {
        uint64_t item, count;
        if (!read_uint(&ipma.start, ipma.end, version < 1 ? 2 : 4, &item) || !read_uint(&ipma.start, ipma.end, 1, &count)) {
            return 0;
        }
        int wide = flags & 1;
        const unsigned char *associations = ipma.start;
        if ((size_t)(ipma.end - ipma.start) < count * (wide ? 2 : 1)) return 0;
        ipma.start += count * (wide ? 2 : 1);
        if (item != id) continue;
        for (uint64_t a = 0; a < count; a++) {
            uint64_t value;
            read_uint(&associations, ipma.start, wide ? 2 : 1, &value);
            int essential = (int)(value >> (wide ? 15 : 7));
            int index = (int)(value & (wide ? 0x7fff : 0x7f));
            if (index == 0) continue;
            // The property is ipco's child number `index`, from 1.
            span ipco = meta->ipco, property;
            char type[4];
            int i = 0, known = 0;
            while (i < index && next_box(&ipco, type, &property)) i++;
            if (i != index) return 0;
            if (memcmp(type, "hvcC", 4) == 0) {
                found->config = property;
                found->config_index = index;
                found->has_config = 1;
                known = 1;
            } else if (memcmp(type, "ispe", 4) == 0) {
                uint64_t width, height;
                int box_version;
                uint32_t box_flags;
                if (!full_box(&property, &box_version, &box_flags) || !read_uint(&property.start, property.end, 4, &width) ||
                    !read_uint(&property.start, property.end, 4, &height)) {
                    return 0;
                }
                found->width = (uint32_t)width;
                found->height = (uint32_t)height;
                found->has_size = 1;
                known = 1;
            } else if (memcmp(type, "irot", 4) == 0) {
                uint64_t angle;
                // Several turns, or a turn of one tile, are left to libheif.
                if (is_tile || found->rotation || !read_uint(&property.start, property.end, 1, &angle)) return 0;
                found->rotation = (int)(angle & 3);
                known = 1;
            } else if (memcmp(type, "colr", 4) == 0) {
                uint64_t kind, primaries, transfer, matrix, range;
                const unsigned char *at = property.start;
                if (read_uint(&at, property.end, 4, &kind) && kind == 0x6e636c78 /* nclx */ && !found->has_nclx) {
                    if (!read_uint(&at, property.end, 2, &primaries) || !read_uint(&at, property.end, 2, &transfer) ||
                        !read_uint(&at, property.end, 2, &matrix) || !read_uint(&at, property.end, 1, &range)) {
                        return 0;
                    }
                    found->has_nclx = 1;
                    found->matrix = (int)matrix;
                    found->full_range = (int)(range >> 7);
                }
                known = 1;
            } else if (memcmp(type, "pixi", 4) == 0) {
                known = 1;
            } else if (memcmp(type, "imir", 4) == 0 || memcmp(type, "clap", 4) == 0 || memcmp(type, "lsel", 4) == 0) {
                return 0;
            }
            if (essential && !known) return 0;
        }
        return 1;
    }
    return 1;
}

void cheif_free_layout(cheif_layout *layout) {
    free(layout->first_extent);
    free(layout->extents);
    memset(layout, 0, sizeof(*layout));
}

int cheif_read_layout(const unsigned char *data, size_t length, uint32_t item, cheif_layout *layout) {
    memset(layout, 0, sizeof(*layout));
    boxes meta = {.file = {data, data + length}};
    span top = meta.file, contents, iprp;
    char type[4];
    int found_meta = 0;
    while (next_box(&top, type, &contents)) {
        if (memcmp(type, "meta", 4) == 0) {
            found_meta = 1;
            break;
        }
    }
    span pitm;
    int version;
    uint32_t flags;
    uint64_t primary = item;
    if (!found_meta || !find_box(contents, 4, "iinf", &meta.iinf) || !find_box(contents, 4, "iloc", &meta.iloc) ||
        !find_box(contents, 4, "iprp", &iprp) || !find_box(iprp, 0, "ipco", &meta.ipco) ||
        !find_box(iprp, 0, "ipma", &meta.ipma)) {
        return 0;
    }
    if (item == 0 && (!find_box(contents, 4, "pitm", &pitm) || !full_box(&pitm, &version, &flags) ||
                      !read_uint(&pitm.start, pitm.end, version == 0 ? 2 : 4, &primary))) {
        return 0;
    }
    int has_iref = find_box(contents, 4, "iref", &meta.iref);
    meta.has_idat = find_box(contents, 4, "idat", &meta.idat);
    char primary_type[4];
    properties image;
    if (!item_type(&meta, (uint32_t)primary, primary_type) || !item_properties(&meta, (uint32_t)primary, 0, &image)) {
        return 0;
    }
    // An image that is itself a tile or an overlay's layer is not the simple case.
    if (has_iref && referred_to(&meta, (uint32_t)primary, "dimg")) return 0;
    uint32_t *tiles = NULL;
    long tile_count = 1;
    size_t capacity = 0, count = 0;
    int usable = 0;
    if (memcmp(primary_type, "grid", 4) == 0) {
        // The grid's own data: version, flags, rows and columns less one, output size.
        cheif_extent *grid_extents = NULL;
        size_t grid_count = 0, grid_capacity = 0;
        uint64_t grid_version = 1, grid_flags, rows, columns, width, height;
        if (has_iref && item_extents(&meta, (uint32_t)primary, &grid_extents, &grid_count, &grid_capacity) &&
            grid_count == 1) {
            const unsigned char *at = data + grid_extents[0].offset, *end = at + grid_extents[0].length;
            if (read_uint(&at, end, 1, &grid_version) && grid_version == 0 && read_uint(&at, end, 1, &grid_flags) &&
                read_uint(&at, end, 1, &rows) && read_uint(&at, end, 1, &columns) &&
                read_uint(&at, end, (grid_flags & 1) ? 4 : 2, &width) &&
                read_uint(&at, end, (grid_flags & 1) ? 4 : 2, &height)) {
                layout->rows = (int)rows + 1;
                layout->columns = (int)columns + 1;
                layout->width = (int)width;
                layout->height = (int)height;
                tile_count = (long)layout->rows * layout->columns;
                usable = width > 0 && height > 0 && width <= INT32_MAX && height <= INT32_MAX;
            }
        }
        free(grid_extents);
        if (!usable) return 0;
        tiles = malloc((size_t)tile_count * sizeof(*tiles));
        if (!tiles || references(&meta, (uint32_t)primary, "dimg", tiles, tile_count) != tile_count) {
            free(tiles);
            return 0;
        }
    } else if (memcmp(primary_type, "hvc1", 4) == 0 && image.has_config && image.has_size) {
        layout->rows = layout->columns = 1;
        layout->width = (int)image.width;
        layout->height = (int)image.height;
        if (layout->width <= 0 || layout->height <= 0) return 0;
        tiles = malloc(sizeof(*tiles));
        if (!tiles) return 0;
        tiles[0] = (uint32_t)primary;
    } else {
        return 0;
    }
    layout->rotation = image.rotation;
    layout->has_nclx = image.has_nclx;
    layout->matrix = image.matrix;
    layout->full_range = image.full_range;
    layout->first_extent = malloc(((size_t)tile_count + 1) * sizeof(size_t));
    usable = layout->first_extent != NULL;
    int config_index = 0;
    for (long t = 0; usable && t < tile_count; t++) {
        char tile_type[4];
        properties tile = image;
        if (tiles[t] != primary &&
            (!item_type(&meta, tiles[t], tile_type) || memcmp(tile_type, "hvc1", 4) != 0 ||
             !item_properties(&meta, tiles[t], 1, &tile))) {
            usable = 0;
            break;
        }
        // One configuration for every tile, as phones write them; other grids go to libheif.
        if (!tile.has_config || (config_index && tile.config_index != config_index)) {
            usable = 0;
            break;
        }
        if (!config_index) {
            config_index = tile.config_index;
            layout->tile_width = tile.has_size ? (int)tile.width : layout->width;
            layout->tile_height = tile.has_size ? (int)tile.height : layout->height;
            layout->config = tile.config.start;
            layout->config_length = (size_t)(tile.config.end - tile.config.start);
            // The decoder configuration record's chroma format (1: 4:2:0) and bit depths less
            // 8, in bytes 16 to 18: 8-bit 4:2:0, as phones write, or libheif decodes it.
            if (layout->config_length < 23 || (layout->config[16] & 3) != 1 || (layout->config[17] & 7) != 0 ||
                (layout->config[18] & 7) != 0) {
                usable = 0;
                break;
            }
            if (!layout->has_nclx && tile.has_nclx) {
                layout->has_nclx = 1;
                layout->matrix = tile.matrix;
                layout->full_range = tile.full_range;
            }
        }
        layout->first_extent[t] = count;
        usable = item_extents(&meta, tiles[t], &layout->extents, &count, &capacity) && count > layout->first_extent[t];
    }
    free(tiles);
    if (!usable) {
        cheif_free_layout(layout);
        return 0;
    }
    layout->first_extent[tile_count] = count;
    return 1;
}
