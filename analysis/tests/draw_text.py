"""Draws lines of text on a real photo, as on the photo of a sign or a receipt, for the tests
that read it back (the library's, the web page's): `with_text_image` of the service's tests,
saved as a JPEG. Prints each line's box as drawn, 0 to 1 from the top left.

    PYTHONPATH=analysis python -m tests.draw_text PHOTO OUTPUT.jpg "LINE" ["LINE" ...]
"""

import json
import sys

from tests.test_service import with_text_image


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: python -m tests.draw_text PHOTO OUTPUT.jpg LINE [LINE ...]")
    photo, output, *lines = argv
    image, boxes = with_text_image(photo, lines)
    image.save(output, "JPEG", quality=92)
    print(json.dumps(boxes))


if __name__ == "__main__":
    main(sys.argv[1:])
