#!/bin/sh
# A Lightbox editor in shell: turns a photo or a movie into its negative, optionally part of
# the way.
#
# It speaks Lightbox's editor protocol (docs/EDITORS.md): one JSON request on standard input,
# one JSON answer on standard output; jq reads and writes the JSON, the `vips` command
# (Debian's libvips-tools) a photo's pixels and the `ffmpeg` command a movie's. Its recipe is its own format, which it can continue:
# strengths multiply, so a half negative of a half negative is a quarter one.
#
#     lightbox edit ID --editor org.lightbox.example.negative --filter strength=0.8
set -eu

FORMAT=org.lightbox.example.negative
request=$(cat)
field() { printf '%s' "$request" | jq -r "$1"; }

if [ "$(field .protocol)" != 1 ]; then
    jq -n '{error: "this editor speaks protocol 1"}'
    exit 0
fi
case "$(field .action)" in
canHandle)
    printf '%s' "$request" | jq --arg format "$FORMAT" \
        '{canHandle: (.adjustmentData.formatIdentifier == $format and (.adjustmentData.formatVersion | startswith("1.")))}'
    exit 0
    ;;
edit) ;;
*)
    jq -n --arg action "$(field .action)" '{error: ("unknown action " + $action)}'
    exit 0
    ;;
esac

# The strength asked for (the last strength=S filter, 1 without one), times the recipe's it continues.
strength=$(printf '%s' "$request" | jq -r '
    ([.filters[] | select(startswith("strength=")) | ltrimstr("strength=") | tonumber? // empty] | last // 1)
    * (if .input.adjustmentData then (.input.adjustmentData.data | @base64d | fromjson | .strength) else 1 end)')
if ! jq -n --argjson s "$strength" -e '$s >= 0 and $s <= 1' >/dev/null 2>&1; then
    jq -n --arg s "$strength" '{error: ("strength must be from 0 to 1, not " + $s)}'
    exit 0
fi
output=$(field .output.renderedContent)
folder=$(dirname "$output")
a=$(jq -n --argjson s "$strength" '1 - 2 * $s')
b=$(jq -n --argjson s "$strength" '255 * $s')
data=$(jq -cn --argjson s "$strength" '{strength: $s}' | base64 -w0)
answer() {
    jq -n --arg format "$FORMAT" --arg data "$data" \
        '{adjustmentData: {formatIdentifier: $format, formatVersion: "1.1", data: $data}}'
}

# A movie: every frame through the same line by ffmpeg (Debian's), the sound and the
# metadata copied; ffmpeg writes the upright frames (it applies the track's rotation).
if [ "$(field .input.mediaType)" = video ]; then
    curve="$a*val+$b"
    ffmpeg -v error -nostdin -y -i "$(field .input.movie)" -map 0:v:0 -map '0:a?' -map_metadata 0 \
        -vf "format=rgb24,lutrgb=r='$curve':g='$curve':b='$curve'" -c:v libx264 -crf 18 -preset veryfast \
        -pix_fmt yuv420p -fps_mode passthrough -threads 2 -c:a copy -f mov "$output"
    answer
    exit 0
fi

source=$(field .input.fullSizeImage)
orientation=$(field .input.orientation)

# Upright first, by the orientation Lightbox gives (it may differ from the file's own tag),
# then out = (1 - 2s) * in + 255 s, in sRGB.
upright="$folder/upright.v"
case "$orientation" in
2) vips flip "$source" "$upright" horizontal ;;
3) vips rot "$source" "$upright" d180 ;;
4) vips flip "$source" "$upright" vertical ;;
5) vips rot "$source" "$folder/turned.v" d90 && vips flip "$folder/turned.v" "$upright" horizontal ;;
6) vips rot "$source" "$upright" d90 ;;
7) vips rot "$source" "$folder/turned.v" d270 && vips flip "$folder/turned.v" "$upright" horizontal ;;
8) vips rot "$source" "$upright" d270 ;;
*) vips copy "$source" "$upright" ;;
esac
vips colourspace "$upright" "$folder/srgb.v" srgb
vips linear --uchar -- "$folder/srgb.v" "$output[Q=92,strip]" "$a" "$b"
rm -f "$folder/upright.v" "$folder/turned.v" "$folder/srgb.v"
answer
