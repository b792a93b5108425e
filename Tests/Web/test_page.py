"""The web page in Chromium, as a person uses it, at a desktop's size and a phone's.

scripts/check-web serves a library of real photos (more than the page's first load) with one
user, and runs these with LIGHTBOX_URL, LIGHTBOX_USER, LIGHTBOX_PASSWORD and
LIGHTBOX_SCREENSHOTS set. Every check reads what the page shows: counts, titles, URLs, whether
images decoded; each test leaves screenshots in LIGHTBOX_SCREENSHOTS/TEST/, and fails on any
error in the browser's console.
"""

import json
import os
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
import zipfile

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

URL = os.environ["LIGHTBOX_URL"]
USER = os.environ["LIGHTBOX_USER"]
PASSWORD = os.environ["LIGHTBOX_PASSWORD"]
SCREENSHOTS = os.environ.get("LIGHTBOX_SCREENSHOTS", ".build/web-screenshots")


# The mean of an image's red, green and blue, read by the browser from a same-origin URL
# (the session's cookie goes with it): execute_async_script(MEAN_OF, url).
MEAN_OF = """
const done = arguments[arguments.length - 1];
const image = new Image();
image.onload = () => {
  const canvas = document.createElement('canvas');
  [canvas.width, canvas.height] = [image.naturalWidth, image.naturalHeight];
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let sum = 0;
  for (let i = 0; i < data.length; i += 4) sum += data[i] + data[i + 1] + data[i + 2];
  done(sum / (data.length / 4 * 3));
};
image.onerror = () => done(-1);
image.src = arguments[0];
"""


# Each tile of the grid, in the page's order (top to bottom, then left to right, days sharing a
# row side by side), with the text of the day heading it lies under: the nearest heading above
# it whose width spans it.
TILES_UNDER_HEADINGS = """
const headings = [...document.querySelectorAll('#grid h3.day')]
  .map(h => [h.getBoundingClientRect(), h.querySelector('span').innerText]);
return [...document.querySelectorAll('#grid > a')]
  .map(a => [a.getBoundingClientRect(), a.getAttribute('href').split('/').pop()])
  .sort((a, b) => Math.round(a[0].top) - Math.round(b[0].top) || a[0].left - b[0].left)
  .map(([rect, id]) => {
    const over = headings.filter(([h]) => h.top <= rect.top && h.left <= rect.left + 1 && rect.right <= h.right + 1)
      .sort((a, b) => a[0].top - b[0].top).pop();
    return [over ? over[1] : null, id];
  });
"""


# The day headings cut short on the page (each should read whole, though its day is one
# narrow photo).
CUT_HEADINGS = """
return [...document.querySelectorAll('#grid h3.day span')]
  .filter(s => s.scrollWidth > s.clientWidth + 1).map(s => s.textContent);
"""

# The rows of tiles on the page: each with its left and right edges (relative to the grid) and
# its tiles' heights, by the top they share.
ROWS_OF_TILES = """
const grid = document.getElementById('grid').getBoundingClientRect();
const rows = new Map();
for (const a of document.querySelectorAll('#grid > a')) {
  const r = a.getBoundingClientRect();
  const key = Math.round(r.top);
  const row = rows.get(key) || { left: Infinity, right: -Infinity, heights: [] };
  row.left = Math.min(row.left, r.left - grid.left);
  row.right = Math.max(row.right, r.right - grid.left);
  row.heights.push(r.height);
  rows.set(key, row);
}
return [...rows.values()];
"""


def make_driver(viewport):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    # A fake camera (a test pattern) that needs no permission prompt, for the camera's test.
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"):
        options.add_argument(argument)
    width, height, phone = viewport
    if phone:
        options.add_experimental_option(
            "mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 3.0, "touch": True}}
        )
    else:
        options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


class PageChecks:
    """The checks, run by a subclass for each viewport: (width, height, is a phone)."""

    viewport = None

    def setUp(self):
        self.driver = make_driver(self.viewport)
        # Every page records what its toast says, for toast_says.
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.lightboxToasts = [];
            addEventListener('DOMContentLoaded', () => {
              const toast = document.getElementById('toast');
              if (!toast) return;
              new MutationObserver(() => {
                if (!toast.hidden) window.lightboxToasts.push(toast.textContent);
              }).observe(toast, {subtree: true, childList: true, characterData: true, attributes: true});
            });
        """})
        # Waits read again what the page made anew meanwhile (the sidebar is rebuilt on changes).
        self.wait = WebDriverWait(self.driver, 20, ignored_exceptions=[StaleElementReferenceException])
        name = self.id().split(".")[-2] + "." + self.id().split(".")[-1]
        self.folder = os.path.join(SCREENSHOTS, name)
        self.expected_console = None
        os.makedirs(self.folder, exist_ok=True)
        self.shots = 0

    def tearDown(self):
        try:
            expected = self.expected_console or ()
            expected = (expected,) if isinstance(expected, str) else expected
            errors = [
                entry
                for entry in self.driver.get_log("browser")
                if entry["level"] == "SEVERE" and not any(text in entry["message"] for text in expected)
            ]
            self.assertEqual(errors, [], "errors in the browser's console")
        finally:
            self.driver.quit()

    def shot(self, step):
        self.shots += 1
        self.driver.save_screenshot(os.path.join(self.folder, f"{self.shots:02d}-{step}.png"))

    def delete_album(self, album):
        """Deletes an album the page may still show: a read of it the page began before (after
        the test's last change) may find it gone, a 404 of the test's making, not the page's."""
        self.api(f"/api/collections/{album}", "DELETE")
        expected = self.expected_console or ()
        expected = (expected,) if isinstance(expected, str) else tuple(expected)
        self.expected_console = expected + (f"/api/collections/{album}",)

    def api(self, path, method="GET", body=None):
        """A request from the page, with its session: the JSON answer, or its error."""
        script = """
            const [path, method, body, done] = arguments;
            fetch(path, {method, headers: body ? {'Content-Type': 'application/json'} : {},
                         body: body || undefined})
              .then(async r => done({status: r.status, body: r.status === 204 ? null : await r.json()}))
              .catch(e => done({status: 0, body: String(e)}));
        """
        answer = self.driver.execute_async_script(script, path, method, json.dumps(body) if body is not None else None)
        self.assertLess(answer["status"], 300, f"{method} {path}: {answer}")
        return answer["body"]

    def sign_in(self):
        self.driver.get(URL + "/")
        self.wait.until(lambda d: d.current_url.endswith("/signin"))
        self.shot("signin")
        form = self.driver.find_element(By.ID, "signin")
        form.find_element(By.NAME, "name").send_keys(USER)
        form.find_element(By.NAME, "password").send_keys(PASSWORD)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        self.wait.until(lambda d: d.current_url == URL + "/")

    def tiles(self):
        return self.driver.find_elements(By.CSS_SELECTOR, "#grid > a:not(.pending)")

    def tile_of(self, localIdentifier):
        found = self.driver.find_elements(By.CSS_SELECTOR, f'#grid > a[href="/api/assets/{localIdentifier}"]')
        return found[0] if found else None

    def image_of(self, localIdentifier):
        """The image of an asset's tile, once the grid shows it: tiles are made anew as the grid
        redraws (a chunk read, the aspect grid switched), and for a moment an asset has none."""
        def found(driver):
            tile = self.tile_of(localIdentifier)
            images = tile.find_elements(By.TAG_NAME, "img") if tile else []
            return images[0] if images else False
        return self.wait.until(found)

    def wait_for_image(self, element):
        self.wait.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", element))

    def open_info(self, localIdentifier):
        """The viewer opened on an asset, and its information panel once it holds all it will."""
        self.driver.get(URL + "/#view=" + localIdentifier)
        viewer = self.driver.find_element(By.ID, "viewer")
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        self.driver.find_element(By.ID, "info").click()
        panel = self.driver.find_element(By.ID, "info-panel")
        self.wait.until(lambda d: panel.get_attribute("data-complete") == localIdentifier)
        return panel

    def newest_first(self, offset, limit):
        return [a["localIdentifier"] for a in self.api(f"/api/assets?offset={offset}&limit={limit}")["assets"]]

    def month_title(self, day):
        """The page's own heading for the month of a yyyy-MM-dd day, as the browser formats it."""
        return self.driver.execute_script(
            "const [y, m] = arguments[0].split('-').map(Number);"
            "return new Intl.DateTimeFormat(undefined, {month: 'long', year: 'numeric', timeZone: 'UTC'})"
            ".format(new Date(Date.UTC(y, m - 1, 1)))",
            day,
        )

    def test_sign_in_shows_the_timeline_and_its_count(self):
        self.sign_in()
        timeline = self.api("/api/timeline?aspects=true")
        total = timeline["count"]
        self.assertGreater(total, 200, "the library has more than one chunk of the timeline")
        self.assertEqual(sum(day["count"] for day in timeline["days"]), total)
        # The whole library's count, not the loaded tiles' ("60+ photos" before).
        self.wait.until(lambda d: d.find_element(By.ID, "count").text == f"{total:,} items")
        self.wait.until(lambda d: len(self.tiles()) >= 20)
        # Newest first, under the month of the newest day.
        months = self.driver.find_elements(By.CSS_SELECTOR, "#grid h2.month")
        self.assertEqual(months[0].text, self.month_title(timeline["days"][0]["day"]))
        self.assertGreaterEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "#grid h3.day")), 1)
        newest = self.newest_first(0, 4)
        for identifier in newest:
            self.wait_for_image(self.image_of(identifier))
        # Laid out for everything at once: the page is as tall as the whole library needs, though
        # only what is near the screen is in it.
        height = self.driver.execute_script("return document.getElementById('grid').offsetHeight")
        self.assertGreater(height, self.driver.execute_script("return innerHeight") * 2)
        self.assertLess(len(self.driver.find_elements(By.CSS_SELECTOR, "#grid > a")), total)
        self.shot("timeline")
        # Justified rows: each tile the shape of its photo as shown (within a panorama's bound),
        # its image the whole photo; the tiles of a row one height, a full row the grid's width.
        grid_width = self.driver.execute_script("return document.getElementById('grid').clientWidth")
        rows = self.driver.execute_script(ROWS_OF_TILES)
        assets = self.api("/api/assets?offset=0&limit=30")["assets"]
        shapes = [aspect / 100 for day in timeline["days"] for aspect in day["aspects"]][:30]
        self.assertEqual(len(shapes), 30)
        for asset, shape in zip(assets, shapes):
            if asset["pixelWidth"] and asset["pixelHeight"]:
                self.assertAlmostEqual(shape, asset["pixelWidth"] / asset["pixelHeight"], delta=0.006)
            tile = self.tile_of(asset["localIdentifier"])
            if tile is None:
                continue
            self.assertAlmostEqual(tile.rect["width"] / tile.rect["height"], min(3, max(0.5, shape)),
                                   delta=0.02 + 2 / tile.rect["height"])
        self.assertGreater(len({round(s, 2) for s in shapes}), 1, "the newest photos are of one shape")
        full = [row for row in rows if row["right"] - row["left"] > grid_width - 2]
        self.assertTrue(full, rows)
        for row in full:
            self.assertLessEqual(max(row["heights"]) - min(row["heights"]), 1, row)
            self.assertAlmostEqual(row["right"] - row["left"], grid_width, delta=2)
        self.wait_for_image(self.image_of(assets[0]["localIdentifier"]))
        self.assertIn("mode=fit", self.image_of(assets[0]["localIdentifier"]).get_attribute("src"))
        self.assertEqual(self.driver.execute_script(CUT_HEADINGS), [])
        self.shot("justified")
        # Square crops (A): every tile a square, kept on reload; A again gives the rows back.
        self.driver.find_element(By.ID, "aspect").click()
        self.wait.until(lambda d: "mode=fill" in self.image_of(assets[0]["localIdentifier"]).get_attribute("src"))
        for asset in assets[:8]:
            rect = self.tile_of(asset["localIdentifier"]).rect
            self.assertAlmostEqual(rect["width"], rect["height"], delta=1)
        self.shot("square-crops")
        self.driver.refresh()
        self.wait.until(lambda d: self.tile_of(assets[0]["localIdentifier"]) is not None)
        self.assertIn("mode=fill", self.image_of(assets[0]["localIdentifier"]).get_attribute("src"))
        self.driver.find_element(By.TAG_NAME, "body").send_keys("a")
        self.wait.until(lambda d: "mode=fit" in self.image_of(assets[0]["localIdentifier"]).get_attribute("src"))

    def test_the_scrubber_jumps_to_the_oldest_month_and_back(self):
        self.sign_in()
        timeline = self.api("/api/timeline")
        self.wait.until(lambda d: len(self.tiles()) >= 20)
        scrubber = self.driver.find_element(By.ID, "scrubber")
        self.assertTrue(scrubber.is_displayed())
        # The years along it, newest at the top, each below the one before; where two would
        # overlap, the one with more photos keeps its label.
        labels = scrubber.find_elements(By.CLASS_NAME, "year")
        years = [label.text for label in labels]
        counts = {}
        for day in timeline["days"]:
            counts[day["day"][:4]] = counts.get(day["day"][:4], 0) + day["count"]
        self.assertIn(max(counts, key=counts.get), years)
        self.assertGreater(len(years), 2)
        self.assertEqual(years, sorted(set(years), reverse=True))
        tops = [label.location["y"] for label in labels]
        self.assertEqual(tops, sorted(tops))
        self.assertGreater(tops[-1], tops[0])
        scrubber.send_keys(Keys.END)
        oldest_month = self.month_title(timeline["days"][-1]["day"])
        self.wait.until(lambda d: scrubber.get_attribute("aria-valuetext") == oldest_month)
        # The oldest photos are on the screen, their thumbnails decoded.
        oldest = self.newest_first(timeline["count"] - 1, 1)[0]
        self.wait.until(lambda d: self.tile_of(oldest) is not None)
        self.wait_for_image(self.image_of(oldest))
        headings = [h.text for h in self.driver.find_elements(By.CSS_SELECTOR, "#grid h2.month") if h.is_displayed()]
        self.assertIn(oldest_month, headings)
        self.shot("oldest")
        # Pressing the top of the scrubber goes back to the newest month.
        ActionChains(self.driver).move_to_element_with_offset(scrubber, 0, -scrubber.size["height"] // 2 + 2).click().perform()
        newest_month = self.month_title(timeline["days"][0]["day"])
        self.wait.until(lambda d: scrubber.get_attribute("aria-valuetext") == newest_month)
        self.wait.until(lambda d: self.tile_of(self.newest_first(0, 1)[0]) is not None)
        self.shot("newest")

    def test_changes_made_elsewhere_show_without_a_reload(self):
        self.sign_in()
        total = self.api("/api/timeline")["count"]
        self.wait.until(lambda d: d.find_element(By.ID, "count").text == f"{total:,} items")
        newest = self.newest_first(0, 2)
        self.wait.until(lambda d: self.tile_of(newest[0]) is not None)
        # Deleted by another client (this request is the page's session, not the page's code).
        self.api("/api/assets/delete", "POST", {"assets": [newest[0]]})
        self.wait.until(lambda d: d.find_element(By.ID, "count").text == f"{total - 1:,} items")
        self.wait.until(lambda d: self.tile_of(newest[0]) is None)
        self.assertEqual(self.newest_first(0, 1)[0], newest[1])
        self.shot("deleted")
        self.api("/api/assets/restore", "POST", {"assets": [newest[0]]})
        self.wait.until(lambda d: d.find_element(By.ID, "count").text == f"{total:,} items")
        self.wait.until(lambda d: self.tile_of(newest[0]) is not None)
        self.wait_for_image(self.image_of(newest[0]))
        self.shot("restored")

    def test_seven_tabs_all_load_and_back_and_forward_keeps_loading(self):
        """Over HTTP/1.1 Chromium opens six connections to a host for all its tabs together: with
        a change stream held by each tab, the sixth showed grey squares and the seventh never
        loaded, and pages kept for Back held theirs."""
        self.sign_in()
        newest = self.newest_first(0, 1)[0]

        def loaded(driver):
            image = self.image_of(newest)
            return driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)

        self.wait.until(loaded)
        first = self.driver.current_window_handle
        for tab in range(2, 8):
            self.driver.switch_to.new_window("tab")
            self.driver.get(URL + "/")
            self.wait.until(loaded)
        self.shot("seventh-tab")
        # A change made here reaches every tab through the one stream.
        self.api("/api/assets/delete", "POST", {"assets": [newest]})
        for handle in self.driver.window_handles:
            self.driver.switch_to.window(handle)
            self.wait.until(lambda d: self.tile_of(newest) is None)
        self.api("/api/assets/restore", "POST", {"assets": [newest]})
        for handle in self.driver.window_handles:
            self.driver.switch_to.window(handle)
            self.wait.until(lambda d: self.tile_of(newest) is not None)
        for handle in self.driver.window_handles:
            if handle != first:
                self.driver.switch_to.window(handle)
                self.driver.close()
        self.driver.switch_to.window(first)
        # Twenty trips away and back: every page shows its photos, none waits for a connection
        # a page kept for Back holds.
        for trip in range(20):
            self.driver.get(URL + "/api/openapi.json")
            started = time.monotonic()
            self.driver.back()
            self.wait.until(loaded)
            took = time.monotonic() - started
            # Liveness, not speed: a load that waits for a held connection waited 16 to 33 s.
            self.assertLess(took, 5, f"trip {trip}: the page waited {took:.1f} s for its photos")
        self.shot("after-twenty-trips")

    def test_the_account_menu_says_who_is_signed_in_and_signs_out(self):
        self.sign_in()
        account = self.driver.find_element(By.ID, "account")
        self.wait.until(lambda d: account.is_displayed() and account.text == USER)
        # Another device signed in as the same person (an iPhone's Safari).
        phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Version/18.0 Safari/604.1"
        sign_in = urllib.request.Request(
            URL + "/api/session", json.dumps({"name": USER, "password": PASSWORD}).encode(),
            {"Content-Type": "application/json", "User-Agent": phone})
        with urllib.request.urlopen(sign_in) as answer:
            self.assertEqual(answer.status, 200)
        account.click()
        dialog = self.driver.find_element(By.ID, "account-dialog")
        self.wait.until(lambda d: dialog.is_displayed())
        self.assertIn(USER, dialog.find_element(By.ID, "account-who").text)
        items = lambda: dialog.find_elements(By.CSS_SELECTOR, "#account-sessions li")
        self.wait.until(lambda d: any("Safari on iPhone" in item.text for item in items()))
        self.assertEqual(len([item for item in items() if "this browser" in item.text]), 1)
        self.shot("account")
        before = len(self.api("/api/sessions")["sessions"])
        iphone = next(item for item in items() if "Safari on iPhone" in item.text)
        iphone.find_element(By.TAG_NAME, "button").click()
        self.wait.until(lambda d: not any("Safari on iPhone" in item.text for item in items()))
        self.assertEqual(len(self.api("/api/sessions")["sessions"]), before - 1)
        cookie = self.driver.get_cookie("lightbox_session")["value"]
        self.driver.find_element(By.ID, "sign-out").click()
        self.wait.until(lambda d: d.current_url.endswith("/signin"))
        self.shot("signed-out")
        # The session is over on the server, not only forgotten by the browser.
        again = urllib.request.Request(URL + "/api/authorization", headers={"Cookie": "lightbox_session=" + cookie})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(again)
        self.assertEqual(refused.exception.code, 401, "a cookie of an ended session names no one")
        self.driver.get(URL + "/")
        self.wait.until(lambda d: d.current_url.endswith("/signin"))

    def test_the_viewer_zooms_and_pans_and_a_click_never_closes_it(self):
        """A double click closed the viewer and opened the photo behind it with its second
        click, and nothing zoomed with a mouse; on a phone a zoomed photo could not be panned."""
        self.sign_in()
        # A photo of 600 pixels or more a side: a click on it lands on it, not beside it.
        newest = next(a["localIdentifier"] for a in self.api("/api/assets?offset=0&limit=200")["assets"]
                      if a["mediaType"] == 1 and min(a["pixelWidth"], a["pixelHeight"]) >= 600)
        self.driver.get(URL + "/#view=" + newest)
        viewer = self.driver.find_element(By.ID, "viewer")
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        picture = viewer.find_element(By.CSS_SELECTOR, "#stage img")
        self.wait_for_image(picture)
        matrix = lambda: self.driver.execute_script(
            "const m = new DOMMatrix(getComputedStyle(arguments[0]).transform); return [m.a, m.e, m.f]", picture)
        still_open = lambda: ("open" in viewer.get_attribute("class")
                              and self.driver.current_url.endswith("#view=" + newest))
        phone = self.viewport[2]
        if phone:
            # Zoomed (as a pinch does), then one finger drags the picture.
            self.driver.find_element(By.TAG_NAME, "body").send_keys("+")
            self.wait.until(lambda d: matrix()[0] > 1.4)
            before = matrix()
            touch = ActionBuilder(self.driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
            touch.pointer_action.move_to(picture, 0, 0).pointer_down().pause(0.05)
            touch.pointer_action.move_to(picture, -80, -40).pause(0.05).pointer_up()
            touch.perform()
            self.wait.until(lambda d: matrix()[1] < before[1] - 40)
            self.assertTrue(still_open(), "a drag of a zoomed photo pans it, it walks nowhere")
            self.shot("panned")
        else:
            # A double click zooms in where it points, and stays on this photo.
            ActionChains(self.driver).double_click(picture).perform()
            self.wait.until(lambda d: matrix()[0] > 2)
            self.assertTrue(still_open(), "the second click of a double click opened the photo behind")
            self.shot("double-clicked")
            # Dragged to pan.
            before = matrix()
            ActionChains(self.driver).click_and_hold(picture).move_by_offset(-120, -60).release().perform()
            self.wait.until(lambda d: abs(matrix()[1] - (before[1] - 120)) < 2)
            self.assertAlmostEqual(matrix()[2], before[2] - 60, delta=2)
            self.assertTrue(still_open(), "a drag is not a click that closes")
            # A double click again fits the photo.
            ActionChains(self.driver).double_click(picture).perform()
            self.wait.until(lambda d: matrix()[0] == 1)
            # The wheel zooms in around the pointer; 0 fits.
            ActionChains(self.driver).scroll_from_origin(ScrollOrigin.from_element(picture), 0, -300).perform()
            self.wait.until(lambda d: matrix()[0] > 1.3)
            self.shot("wheel")
            self.driver.find_element(By.TAG_NAME, "body").send_keys("0")
            self.wait.until(lambda d: matrix()[0] == 1)
            # A single click on the photo keeps the viewer open.
            picture.click()
            self.assertTrue(still_open(), "a click closed the viewer")
        close = self.driver.find_element(By.ID, "close")
        self.assertTrue(close.is_displayed())
        close.click()
        self.wait.until(lambda d: "open" not in viewer.get_attribute("class"))

    def test_a_bad_album_link_and_an_unknown_address_say_so(self):
        """A link to an album that is not there stayed on "Loading…" for ever, and an unknown
        address showed the API's raw JSON."""
        self.expected_console = "404"
        self.sign_in()
        self.driver.get(URL + "/#album=NO-SUCH-ALBUM")
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Album not found")
        status = self.driver.find_element(By.ID, "status")
        self.wait.until(lambda d: "No album has this link" in status.text)
        self.assertNotIn("Loading", status.text)
        self.assertEqual(self.tiles(), [])
        self.shot("album-not-found")
        # The library is one click away.
        if self.viewport[2]:
            self.driver.find_element(By.ID, "menu").click()
        self.driver.find_element(By.CSS_SELECTOR, '#sidebar a[data-collection=""]').click()
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Library")
        self.wait.until(lambda d: len(self.tiles()) > 0)
        self.driver.get(URL + "/photos/2024/no-such-page")
        self.wait.until(lambda d: d.find_element(By.TAG_NAME, "h1").text == "Not found")
        self.assertNotIn('"error"', self.driver.page_source)
        self.shot("unknown-address")
        self.driver.find_element(By.LINK_TEXT, "Go to the library").click()
        self.wait.until(lambda d: d.current_url == URL + "/")
        self.wait.until(lambda d: len(self.tiles()) > 0)

    def toast_says(self, text):
        """Waits for the toast to say `text`: shown now, or said since the page loaded (a toast
        shows for 4 s, which a loaded machine's next request can outlast)."""
        toast = self.driver.find_element(By.ID, "toast")
        self.wait.until(lambda d: (toast.is_displayed() and text in toast.text) or any(
            text in said for said in d.execute_script("return window.lightboxToasts || []")))
        return toast

    def test_the_viewer_rates_adds_deletes_and_hides_each_with_undo(self):
        """The viewer had no Delete, Hide, rating or Add to album, and no action said what it
        did or could be undone."""
        self.sign_in()
        title = "Picks " + str(int(time.time() * 1000) % 100000)
        album = self.api("/api/collections", "POST", {"title": title})["localIdentifier"]
        total = self.api("/api/timeline")["count"]
        first, second, third = self.newest_first(0, 3)
        try:
            self.driver.get(URL + "/#view=" + first)
            viewer = self.driver.find_element(By.ID, "viewer")
            self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
            keys = lambda *typed: ActionChains(self.driver).send_keys(*typed).perform()
            # Four stars by the keyboard, lit in the bar; undone from the toast.
            keys("4")
            self.wait.until(lambda d: self.api("/api/assets/" + first).get("rating") == 4)
            self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rating button.on")) == 4)
            self.toast_says("Rated ★★★★.").find_element(By.TAG_NAME, "button").click()
            self.wait.until(lambda d: not self.api("/api/assets/" + first).get("rating"))
            self.toast_says("Undone.")
            self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rating button.on")) == 0)
            # Into an album from the bar, and out again with Undo.
            # The album made above reaches the list with the change stream.
            self.wait.until(lambda d: title in [o.text for o in Select(d.find_element(By.ID, "viewer-add-to")).options])
            Select(self.driver.find_element(By.ID, "viewer-add-to")).select_by_visible_text(title)
            self.wait.until(lambda d: [a["localIdentifier"] for a in self.api(f"/api/collections/{album}/assets")["assets"]] == [first])
            self.toast_says(f"Added to “{title}”.")
            self.shot("added")
            self.driver.find_element(By.CSS_SELECTOR, "#toast button").click()
            self.wait.until(lambda d: self.api(f"/api/collections/{album}/assets")["assets"] == [])
            # Delete: the next photo takes its place; Ctrl+Z brings it back.
            keys(Keys.DELETE)
            self.wait.until(lambda d: self.api("/api/timeline")["count"] == total - 1)
            self.wait.until(lambda d: "view=" + second in d.current_url)
            self.toast_says("Moved to Recently Deleted.")
            self.shot("deleted")
            ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
            self.wait.until(lambda d: self.api("/api/timeline")["count"] == total)
            self.toast_says("Undone.")
            # Hide from the bar: gone from the library, then shown again.
            self.driver.find_element(By.ID, "hide-one").click()
            self.wait.until(lambda d: self.api("/api/timeline")["count"] == total - 1)
            shown = self.driver.current_url.split("view=")[-1]
            self.assertNotIn(shown, (first, ""))
            hidden = [a for a in (first, second, third) if self.api("/api/assets/" + a)["isHidden"]]
            self.assertEqual(len(hidden), 1)
            self.toast_says("Hidden").find_element(By.TAG_NAME, "button").click()
            self.wait.until(lambda d: self.api("/api/timeline")["count"] == total)
            self.assertFalse(self.api("/api/assets/" + hidden[0])["isHidden"])
            self.shot("unhidden")
        finally:
            self.delete_album(album)
            trashed = [a["localIdentifier"] for a in self.api("/api/trash?limit=500")["assets"]]
            left = [identifier for identifier in (first, second, third) if identifier in trashed]
            if left:
                self.api("/api/assets/restore", "POST", {"assets": left})
            for identifier in (first, second, third):
                self.api("/api/assets/" + identifier, "PATCH", {"hidden": False, "rating": 0})

    def test_a_day_or_everything_is_selected_at_once_and_made_an_album(self):
        """No select-all, no "select this day", no "New album…" in Add to."""
        self.sign_in()
        timeline = self.api("/api/timeline")
        newest = timeline["days"][0]
        self.wait.until(lambda d: len(self.tiles()) >= newest["count"])
        self.driver.find_element(By.ID, "select").click()
        count = self.driver.find_element(By.ID, "selected-count")
        choose = self.wait.until(lambda d: [b for b in d.find_elements(By.CSS_SELECTOR, "#grid h3.day .select-day")
                                            if b.is_displayed()])
        choose[0].click()
        self.wait.until(lambda d: count.text == f"{newest['count']:,} selected")
        self.shot("a-day")
        choose[0].click()
        self.wait.until(lambda d: count.text == "Choose photos")
        self.driver.find_element(By.ID, "select-all").click()
        self.wait.until(lambda d: count.text == f"{timeline['count']:,} selected")
        self.shot("everything")
        # Everything into a new album, named from Add to; undone, the album goes.
        title = "Everything " + str(int(time.time() * 1000) % 100000)
        Select(self.driver.find_element(By.ID, "add-to")).select_by_visible_text("New album…")
        name_dialog = self.driver.find_element(By.ID, "name-dialog")
        self.wait.until(lambda d: name_dialog.is_displayed())
        name_dialog.find_element(By.NAME, "name").send_keys(title)
        name_dialog.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
        self.toast_says(f"{timeline['count']:,} items added to the new album “{title}”.")
        albums = lambda: [a for a in self.api("/api/collections?type=album&limit=1000")["collections"]
                          if a["localizedTitle"] == title]
        made = albums()
        self.assertEqual(len(made), 1)
        self.assertEqual(made[0]["estimatedAssetCount"], timeline["count"])
        self.driver.find_element(By.CSS_SELECTOR, "#toast button").click()
        self.wait.until(lambda d: albums() == [])

    def test_recently_deleted_shows_days_left_and_restores_all_or_empties(self):
        """Recently Deleted showed no days left and had no Restore all or Empty."""
        self.sign_in()
        # Two photos of this test's own (a real photo's bytes, made unique), uploaded, deleted.
        folder = tempfile.mkdtemp()
        with open(".corpus/lomiri/backgrounds/Bridge_by_Sander_Klootwijk.jpg", "rb") as photo:
            source = photo.read()
        stamp = str(time.time()).encode()
        paths = []
        for number in (1, 2):
            path = os.path.join(folder, f"TRASHED_{number}.jpg")
            with open(path, "wb") as file:
                file.write(source + b"\0" + stamp + bytes([number]))
            paths.append(path)
        total = self.api("/api/timeline")["count"]
        self.driver.find_element(By.ID, "upload-input").send_keys("\n".join(paths))
        self.wait.until(lambda d: self.api("/api/timeline")["count"] == total + 2)
        ids = [self.api("/api/assets?predicate=" + urllib.parse.quote(f'filename == "TRASHED_{n}.jpg"'))["assets"][0]["localIdentifier"]
               for n in (1, 2)]
        self.api("/api/assets/delete", "POST", {"assets": ids})
        trash = self.api("/api/trash?limit=500")
        retention = trash["retentionDays"]
        in_trash = len(trash["assets"])
        self.assertGreaterEqual(in_trash, 2)
        self.open_sidebar()
        self.click_sidebar("Recently Deleted")
        self.wait.until(lambda d: all(self.tile_of(i) is not None for i in ids))
        for identifier in ids:
            def badges(driver):
                tile = self.tile_of(identifier)
                return tile is not None and [b.text for b in tile.find_elements(By.CLASS_NAME, "badge")]
            self.wait.until(lambda d: badges(d) == [f"{retention} days"])
        self.shot("days-left")
        # Restore all, and its undo.
        self.driver.find_element(By.ID, "restore-all").click()
        self.toast_says(f"{in_trash:,} items restored.")
        self.assertEqual(self.api("/api/trash")["assets"], [])
        self.driver.find_element(By.CSS_SELECTOR, "#toast button").click()
        self.wait.until(lambda d: len(self.api("/api/trash?limit=500")["assets"]) == in_trash)
        # Empty, asked first.
        self.driver.find_element(By.ID, "empty-trash").click()
        alert = WebDriverWait(self.driver, 20, ignored_exceptions=[NoAlertPresentException]).until(
            lambda d: d.switch_to.alert)
        self.assertIn(f"Delete {in_trash:,} items for good?", alert.text)
        alert.accept()
        self.toast_says(f"{in_trash:,} items deleted for good.")
        self.assertEqual(self.api("/api/trash")["assets"], [])
        for identifier in ids:
            self.wait.until(lambda d: self.tile_of(identifier) is None)
        self.shot("emptied")

    def test_viewer_walks_the_whole_timeline_and_closes_with_escape_or_back(self):
        self.sign_in()
        self.wait.until(lambda d: len(self.tiles()) >= 20)
        # A link to the last photo of the first chunk: the viewer opens on it, wherever it is.
        around = self.newest_first(199, 3)
        self.driver.get(URL + "/#view=" + around[0])
        viewer = self.driver.find_element(By.ID, "viewer")
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        self.wait_for_image(viewer.find_element(By.TAG_NAME, "img"))
        self.assertTrue(self.driver.current_url.endswith("#view=" + around[0]))
        self.shot("viewer")
        first = self.api("/api/assets?offset=199&limit=1")["assets"][0]
        # Download gives the photo's file, as imported when it has no edit.
        link = self.driver.find_element(By.ID, "download")
        # No edit: the current file is the original, and no second button offers it.
        self.assertFalse(first["hasAdjustments"])
        self.assertFalse(self.driver.find_element(By.ID, "download-original").is_displayed())
        self.assertTrue(link.get_attribute("href").endswith(f"/api/assets/{around[0]}/download?version=current"))
        sizes = self.driver.execute_async_script(
            """
            const [current, done] = arguments;
            const get = async url => { const r = await fetch(url); return [r.status, (await r.arrayBuffer()).byteLength,
                                                                          r.headers.get('Content-Disposition')]; };
            Promise.all([get(current), get(current.replace('/download?version=current', '/original'))]).then(done);
            """,
            link.get_attribute("href"),
        )
        self.assertEqual(sizes[0][0], 200)
        self.assertGreater(sizes[0][1], 0)
        self.assertEqual(sizes[0][1], sizes[1][1])
        self.assertTrue(sizes[0][2].startswith("attachment"), sizes[0][2])
        # On past the first chunk, into one no screen has asked for. (Keys go to what has the
        # focus, as a person's do: sending them to the body would move it.)
        for expected in around[1:]:
            self.driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
            self.wait.until(lambda d: d.current_url.endswith("#view=" + expected))
            self.wait_for_image(viewer.find_element(By.TAG_NAME, "img"))
        self.shot("next")
        # Focus is inside the viewer, and Tab keeps it there.
        inside = "return document.getElementById('viewer').contains(document.activeElement)"
        self.assertTrue(self.driver.execute_script(inside))
        for _ in range(5):
            self.driver.switch_to.active_element.send_keys(Keys.TAB)
            self.assertTrue(self.driver.execute_script(inside), "Tab left the viewer")
        self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        self.wait.until(lambda d: "open" not in viewer.get_attribute("class"))
        self.assertNotIn("#view=", self.driver.current_url)
        # The grid shows where the walk ended.
        self.wait.until(lambda d: self.tile_of(around[-1]) is not None)
        self.wait_for_image(self.image_of(around[-1]))
        self.shot("revealed")
        # Back closes the viewer and stays on the page.
        self.tile_of(around[-1]).click()
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        self.driver.back()
        self.wait.until(lambda d: "open" not in viewer.get_attribute("class"))
        self.assertEqual(self.driver.current_url, URL + "/")

    def open_sidebar(self):
        """The sidebar: always there on a desktop, behind the menu button on a phone."""
        menu = self.driver.find_element(By.ID, "menu")
        sidebar = self.driver.find_element(By.ID, "sidebar")
        if menu.is_displayed() and not sidebar.is_displayed():
            menu.click()
        self.wait.until(lambda d: sidebar.is_displayed())
        return sidebar

    def click_sidebar(self, label, count=None):
        """Clicks the sidebar's link whose label starts so (once its count is `count`), read
        afresh each try: the sidebar is made again whenever the library changes."""

        def attempt(driver):
            try:
                for link in self.open_sidebar().find_elements(By.TAG_NAME, "a"):
                    if link.text.startswith(label) and (
                        count is None or link.find_element(By.CLASS_NAME, "count").text == str(count)
                    ):
                        link.click()
                        return True
            except (StaleElementReferenceException, NoSuchElementException):
                pass
            return False

        self.wait.until(attempt)

    def drag(self, source, target):
        """The events a drag from `source` dropped on `target` makes (WebDriver's own drags do
        not make HTML drag and drop events in Chromium)."""
        self.driver.execute_script(
            """
            const [source, target] = arguments;
            const transfer = new DataTransfer();
            source.dispatchEvent(new DragEvent('dragstart', {dataTransfer: transfer, bubbles: true}));
            target.dispatchEvent(new DragEvent('dragover', {dataTransfer: transfer, bubbles: true, cancelable: true}));
            target.dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true, cancelable: true}));
            """,
            source,
            target,
        )

    def count_shown(self):
        return int(self.driver.find_element(By.ID, "count").text.split()[0].replace(",", ""))

    def select_tiles(self, identifiers, shift_to=None):
        """Selection mode, then a click on each tile (a shift-click on the last, when asked)."""
        self.driver.find_element(By.ID, "select").click()
        self.wait.until(lambda d: d.find_element(By.ID, "actions").is_displayed())
        for identifier in identifiers:
            self.wait.until(lambda d: self.tile_of(identifier) is not None)
            self.tile_of(identifier).click()
        if shift_to:
            ActionChains(self.driver).key_down(Keys.SHIFT).click(self.tile_of(shift_to)).key_up(Keys.SHIFT).perform()

    def test_an_album_deleted_elsewhere_returns_the_page_to_the_library(self):
        self.sign_in()
        newest = self.newest_first(0, 2)
        album = self.api("/api/collections", "POST", {"title": "Gone soon"})["localIdentifier"]
        self.api(f"/api/collections/{album}/assets", "POST", {"assets": newest})
        self.driver.get(URL + "/#album=" + album)
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Gone soon")
        self.wait.until(lambda d: self.count_shown() == 2)
        # Deleted by another client: the change reaches the page, which goes back to the
        # library and says why, instead of an error where the album's photos were.
        self.delete_album(album)
        self.toast_says('The album "Gone soon" was deleted.')
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Library")
        self.assertNotIn("#album=", self.driver.current_url)
        self.assertNotIn("Could not load", self.driver.find_element(By.ID, "status").text)
        self.shot("album-deleted-elsewhere")

    def test_an_album_is_made_filled_renamed_emptied_and_deleted(self):
        self.sign_in()
        newest = self.newest_first(0, 4)
        self.wait.until(lambda d: self.tile_of(newest[0]) is not None)
        sidebar = self.open_sidebar()
        sidebar.find_element(By.ID, "new-album").click()
        dialog = self.driver.find_element(By.ID, "name-dialog")
        self.wait.until(lambda d: dialog.get_attribute("open") is not None)
        dialog.find_element(By.NAME, "name").send_keys("Summer")
        dialog.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
        # The new album is shown, empty, and listed in the sidebar.
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Summer")
        self.wait.until(lambda d: "#album=" in d.current_url)
        album = self.driver.current_url.split("#album=")[1]
        self.wait.until(lambda d: self.count_shown() == 0)
        self.shot("empty-album")
        # A second album of that title, case aside, is refused and said so: the first stays alone.
        self.open_sidebar().find_element(By.ID, "new-album").click()
        self.wait.until(lambda d: dialog.get_attribute("open") is not None)
        dialog.find_element(By.NAME, "name").send_keys("SUMMER")
        dialog.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
        self.toast_says('an album titled "Summer" exists already')
        self.shot("title-taken")
        titles = [c["localizedTitle"] for c in self.api("/api/collections?type=album&limit=1000")["collections"]]
        self.assertEqual([t for t in titles if t.lower() == "summer"], ["Summer"])
        self.expected_console = ("/api/collections - Failed to load resource: the server responded with a status of 400",)
        # Back to the library; four photos chosen (one click, then a shift-click for a range of
        # three) and added to the album from the bar.
        self.click_sidebar("Library")
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Library")
        self.select_tiles([newest[0]], shift_to=newest[3])
        self.wait.until(lambda d: d.find_element(By.ID, "selected-count").text == "4 selected")
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "#grid a.selected")), 4)
        self.shot("selected")
        Select(self.driver.find_element(By.ID, "add-to")).select_by_visible_text("Summer")
        self.wait.until(lambda d: not d.find_element(By.ID, "actions").is_displayed())
        members = self.api(f"/api/collections/{album}/assets")["assets"]
        self.assertEqual(sorted(a["localIdentifier"] for a in members), sorted(newest))
        # One more dragged from the grid onto the album in the sidebar (the events a drag makes).
        fifth = self.newest_first(4, 1)[0]
        self.open_sidebar()
        # Read afresh each try: the album's filling remakes the sidebar, maybe between a find and the drag.
        def drag_fifth(driver):
            try:
                self.drag(self.tile_of(fifth), driver.find_element(By.CSS_SELECTOR, f'#sidebar a[data-collection="{album}"]'))
                return True
            except StaleElementReferenceException:
                return False
        self.wait.until(drag_fifth)
        self.wait.until(lambda d: len(self.api(f"/api/collections/{album}/assets")["assets"]) == 5)
        members = self.api(f"/api/collections/{album}/assets")["assets"]
        self.assertIn(fifth, [a["localIdentifier"] for a in members])
        self.api(f"/api/collections/{album}/assets/remove", "POST", {"assets": [fifth]})
        members = [a for a in members if a["localIdentifier"] != fifth]
        # The album's page shows them, in the album's order; renamed, the title and sidebar follow.
        self.driver.get(URL + "/#album=" + album)
        self.wait.until(lambda d: self.count_shown() == 4)
        for asset in members:
            self.wait_for_image(self.image_of(asset["localIdentifier"]))
        # In justified rows, each tile the shape its album's timeline gives, in the album's order.
        shapes = [aspect / 100 for day in self.api(f"/api/collections/{album}/timeline?aspects=true")["days"]
                  for aspect in day["aspects"]]
        self.assertEqual(len(shapes), 4)
        for asset, shape in zip(members, shapes):
            self.assertAlmostEqual(shape, asset["pixelWidth"] / asset["pixelHeight"], delta=0.006)
            rect = self.tile_of(asset["localIdentifier"]).rect
            self.assertAlmostEqual(rect["width"] / rect["height"], min(3, max(0.5, shape)), delta=0.02 + 2 / rect["height"])
        self.shot("album")
        self.driver.find_element(By.ID, "rename-album").click()
        field = dialog.find_element(By.NAME, "name")
        field.clear()
        field.send_keys("Summer 2024")
        dialog.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Summer 2024")
        self.assertEqual(self.api(f"/api/collections/{album}")["localizedTitle"], "Summer 2024")
        self.click_sidebar("Summer 2024", count=4)
        # Two taken out of the album: still in the library.
        self.select_tiles([members[0]["localIdentifier"], members[1]["localIdentifier"]])
        self.driver.find_element(By.CSS_SELECTOR, "#actions [data-action=remove]").click()
        self.wait.until(lambda d: self.count_shown() == 2)
        self.assertEqual(len(self.api(f"/api/collections/{album}/assets")["assets"]), 2)
        self.assertEqual(self.api("/api/assets?at=" + members[0]["localIdentifier"] + "&limit=1")["assets"][0]["localIdentifier"],
                         members[0]["localIdentifier"])
        # A folder, listed in the sidebar as one that opens.
        self.open_sidebar().find_element(By.ID, "new-folder").click()
        self.wait.until(lambda d: dialog.get_attribute("open") is not None)
        dialog.find_element(By.NAME, "name").send_keys("Trips")
        dialog.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
        self.wait.until(lambda d: "Trips" in [s.text for s in d.find_elements(By.CSS_SELECTOR, "#sidebar details summary")])
        folders = [f for f in self.api("/api/lists")["lists"] if f.get("localizedTitle") == "Trips"]
        self.assertEqual(len(folders), 1)
        folder = folders[0]["localIdentifier"]
        # The album dragged onto the folder moves into it.
        self.drag(
            self.driver.find_element(By.CSS_SELECTOR, f'#sidebar a[data-collection="{album}"]'),
            self.driver.find_element(By.CSS_SELECTOR, f'#sidebar summary[data-list="{folder}"]'),
        )
        self.wait.until(lambda d: [c["localIdentifier"] for c in self.api(f"/api/lists/{folder}/collections")["collections"]]
                        == [album])
        # A second album in the folder; dragged onto the first, it takes its place.
        second = self.api("/api/collections", "POST", {"title": "Autumn", "list": folder})["localIdentifier"]
        in_folder = lambda: [c["localIdentifier"] for c in self.api(f"/api/lists/{folder}/collections")["collections"]]
        self.assertEqual(in_folder(), [album, second])
        self.driver.get(URL + "/#album=" + album)
        self.driver.refresh()
        sidebar = self.open_sidebar()
        self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#sidebar summary[data-list="{folder}"]'))
        sidebar.find_element(By.CSS_SELECTOR, f'summary[data-list="{folder}"]').click()
        self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#sidebar a[data-collection="{second}"]'))
        self.shot("folder")
        self.drag(
            self.driver.find_element(By.CSS_SELECTOR, f'#sidebar a[data-collection="{second}"]'),
            self.driver.find_element(By.CSS_SELECTOR, f'#sidebar a[data-collection="{album}"]'),
        )
        self.wait.until(lambda d: in_folder() == [second, album])
        # Dragged onto the Albums heading, the first leaves the folder for the top level.
        # (The page read again, so that the sidebar is the one the order made.)
        self.driver.refresh()
        self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#sidebar summary[data-list="{folder}"]'))
        self.open_sidebar().find_element(By.CSS_SELECTOR, f'summary[data-list="{folder}"]').click()
        self.wait.until(lambda d: [a.get_attribute("data-collection") for a in d.find_elements(By.CSS_SELECTOR, "#sidebar details a")]
                        == [second, album])
        self.drag(
            self.driver.find_element(By.CSS_SELECTOR, f'#sidebar details a[data-collection="{album}"]'),
            self.driver.find_element(By.CSS_SELECTOR, "#sidebar h2"),
        )
        self.wait.until(lambda d: in_folder() == [second])
        top = [c["localIdentifier"] for c in self.api("/api/lists/top/collections")["collections"]]
        self.assertIn(album, top)
        self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#albums > a[data-collection="{album}"]'))
        # At the top level, dragged onto another album there, it takes its place (the top level's
        # order, as an array would move it).
        other = self.api("/api/collections", "POST", {"title": "Winter"})["localIdentifier"]
        top_level = lambda: [c["localIdentifier"] for c in self.api("/api/lists/top/collections")["collections"]]
        self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f'#albums > a[data-collection="{other}"]'))
        before = top_level()
        top_albums = [c["localIdentifier"] for c in self.api("/api/lists/top/collections")["collections"]
                      if c["kind"] == "album"]
        target = top_albums[0] if top_albums[0] != album else top_albums[-1]
        self.drag(
            self.driver.find_element(By.CSS_SELECTOR, f'#albums > a[data-collection="{album}"]'),
            self.driver.find_element(By.CSS_SELECTOR, f'#albums > a[data-collection="{target}"]'),
        )
        expected = [i for i in before if i != album]
        expected.insert(before.index(target), album)
        self.assertNotEqual(expected, before)
        self.wait.until(lambda d: top_level() == expected)
        self.wait.until(lambda d: [a.get_attribute("data-collection") for a in d.find_elements(By.CSS_SELECTOR, "#albums > a")]
                        == [i for i in expected if i in top_albums])
        self.shot("top-level")
        self.api("/api/collections/" + other, "DELETE")
        self.api("/api/collections/" + second, "DELETE")
        self.api("/api/lists/" + folder, "DELETE")
        # On a phone the menu covers the page: closed as a person would, with a tap beside it.
        if self.driver.find_element(By.ID, "menu").is_displayed():
            tap = ActionBuilder(self.driver)
            tap.pointer_action.move_to_location(370, 600).click()
            tap.perform()
            self.wait.until(lambda d: not d.find_element(By.ID, "sidebar").is_displayed())
        self.driver.find_element(By.ID, "delete-album").click()
        self.driver.switch_to.alert.accept()
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Library")
        # The page shows the library first and deletes the album after: the deletion lands in a
        # moment (the wait fails if it never does).
        albums = lambda: [c["localIdentifier"] for c in self.api("/api/collections?type=album")["collections"]]
        self.wait.until(lambda d: album not in albums())

    def test_favourite_hide_delete_and_restore_many_at_once(self):
        self.sign_in()
        total = self.api("/api/timeline")["count"]
        chosen = self.newest_first(5, 2)
        self.wait.until(lambda d: self.tile_of(chosen[0]) is not None)
        # Favourites: both in the Favourites smart album, with its count in the sidebar.
        self.select_tiles(chosen)
        self.wait.until(lambda d: d.find_element(By.ID, "selected-count").text == "2 selected")
        self.driver.find_element(By.CSS_SELECTOR, "#actions [data-action=favorite]").click()
        self.wait.until(lambda d: all(self.api(f"/api/assets/{i}")["isFavorite"] for i in chosen))
        self.click_sidebar("Favorites", count=2)
        self.wait.until(lambda d: self.count_shown() == 2)
        self.shot("favourites")
        # Deleted from there: gone from the library and in Recently Deleted, which restores them.
        self.select_tiles(chosen)
        self.driver.find_element(By.CSS_SELECTOR, "#actions [data-action=delete]").click()
        self.wait.until(lambda d: self.count_shown() == 0)
        self.assertEqual(self.api("/api/timeline")["count"], total - 2)
        self.click_sidebar("Recently Deleted", count=2)
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Recently Deleted")
        self.wait.until(lambda d: self.count_shown() == 2)
        self.select_tiles(chosen)
        self.assertTrue(self.driver.find_element(By.CSS_SELECTOR, "#actions [data-action=restore]").is_displayed())
        self.assertFalse(self.driver.find_element(By.CSS_SELECTOR, "#actions [data-action=favorite]").is_displayed())
        self.shot("recently-deleted")
        self.driver.find_element(By.CSS_SELECTOR, "#actions [data-action=restore]").click()
        self.wait.until(lambda d: self.count_shown() == 0)
        self.assertEqual(self.api("/api/timeline")["count"], total)
        # Unfavourited and hidden from the library: the Hidden album shows them, and unhides them.
        self.api("/api/assets", "PATCH", {"assets": chosen, "favorite": False})
        self.click_sidebar("Library")
        self.select_tiles(chosen)
        self.driver.find_element(By.CSS_SELECTOR, "#actions [data-action=hide]").click()
        self.wait.until(lambda d: self.count_shown() == total - 2)
        self.click_sidebar("Hidden", count=2)
        self.wait.until(lambda d: self.count_shown() == 2)
        self.select_tiles(chosen)
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, "#actions [data-action=hide]").text, "Unhide")
        self.driver.find_element(By.CSS_SELECTOR, "#actions [data-action=hide]").click()
        self.wait.until(lambda d: self.count_shown() == 0)
        self.assertEqual(self.api("/api/timeline")["count"], total)
        # On touch, a finger swept sideways from a tile chooses every tile up to the one under it.
        self.click_sidebar("Library")
        newest = self.newest_first(0, 12)
        self.wait.until(lambda d: all(self.tile_of(i) is not None for i in newest))
        self.driver.find_element(By.ID, "select").click()
        self.wait.until(lambda d: d.find_element(By.ID, "actions").is_displayed())
        # The longest row of them (sideways: a finger moved up or down first scrolls).
        rows = {}
        for index, identifier in enumerate(newest):
            rows.setdefault(self.tile_of(identifier).rect["y"], []).append(index)
        row = max(rows.values(), key=len)
        self.assertGreater(len(row), 1)
        first, last = self.tile_of(newest[row[0]]), self.tile_of(newest[row[-1]])
        finger = ActionBuilder(self.driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
        finger.pointer_action.move_to(first).pointer_down().pause(0.05)
        for step in range(1, 6):
            finger.pointer_action.move_to(first, int((last.rect["x"] - first.rect["x"]) * step / 5), 0).pause(0.03)
        finger.pointer_action.pointer_up()
        finger.perform()
        self.wait.until(lambda d: d.find_element(By.ID, "selected-count").text == f"{len(row)} selected")
        self.assertEqual([a.get_attribute("data-index") for a in self.driver.find_elements(By.CSS_SELECTOR, "#grid a.selected")],
                         [str(i) for i in row])
        self.shot("swept")
        self.driver.find_element(By.ID, "select").click()
        self.wait.until(lambda d: not d.find_element(By.ID, "actions").is_displayed())

    def test_the_viewer_shows_information_favourites_and_follows_a_swipe(self):
        self.sign_in()
        # A photo whose camera wrote its model and exposure (what the panel is for).
        chosen = None
        for identifier in self.newest_first(0, 200):
            details = self.api(f"/api/assets/{identifier}/details")
            if details.get("model") and details.get("iso") and details.get("exposureTime"):
                chosen = identifier
                break
        self.assertIsNotNone(chosen, "a photo with camera details in the library")
        asset = self.api(f"/api/assets/{chosen}")
        index = self.api(f"/api/assets?at={chosen}&limit=1")["offset"]
        self.driver.get(URL + "/#view=" + chosen)
        viewer = self.driver.find_element(By.ID, "viewer")
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        self.driver.find_element(By.ID, "info").click()
        panel = self.driver.find_element(By.ID, "info-panel")
        self.wait.until(lambda d: "Camera" in panel.text)
        self.assertIn(details["model"], panel.text)
        self.assertIn(f"ISO {details['iso']}", panel.text)
        self.assertIn(asset["resources"][0]["originalFilename"], panel.text)
        # The time as the camera's clock read it, with its zone: the hour and minute of the
        # creation date as written, whatever this browser's zone.
        clock = asset["creationDate"][11:16]
        shown = self.driver.execute_script(
            "return new Intl.DateTimeFormat(undefined, {timeStyle: 'short', timeZone: 'UTC'})"
            ".format(new Date(Date.UTC(2000, 0, 1, +arguments[0].slice(0, 2), +arguments[0].slice(3, 5))))", clock)
        self.assertIn(shown, panel.text)
        self.shot("info")
        # Favourite from the viewer, and back.
        favourite = self.driver.find_element(By.ID, "favorite")
        favourite.click()
        self.wait.until(lambda d: favourite.get_attribute("aria-pressed") == "true")
        self.assertTrue(self.api(f"/api/assets/{chosen}")["isFavorite"])
        favourite.click()
        self.wait.until(lambda d: favourite.get_attribute("aria-pressed") == "false")
        self.assertFalse(self.api(f"/api/assets/{chosen}")["isFavorite"])
        self.driver.find_element(By.ID, "info").click()
        self.wait.until(lambda d: not panel.is_displayed())
        if self.viewport[2]:
            # A swipe to the left: the next photo.
            following = self.newest_first(index + 1, 1)[0]
            stage = self.driver.find_element(By.ID, "stage")
            touch = ActionBuilder(self.driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
            touch.pointer_action.move_to(stage, 120, 0).pointer_down().pause(0.05)
            touch.pointer_action.move_to(stage, -120, 0).pause(0.05).pointer_up()
            touch.perform()
            self.wait.until(lambda d: d.current_url.endswith("#view=" + following))
            self.shot("swiped")

    def find_asset(self, name):
        for offset in range(0, 1000, 200):
            for asset in self.api(f"/api/assets?offset={offset}&limit=200")["assets"]:
                if asset["resources"] and asset["resources"][0]["originalFilename"] == name:
                    return asset
        self.fail(f"no {name} in the library")

    def test_an_iphones_hevc_movie_and_live_photo_play_in_chromium(self):
        self.sign_in()
        # What an iPhone records: Chromium decodes no HEVC, so the server gives it an H.264 copy.
        for name, is_live in (("HEVC_MOVIE.MOV", False), ("IMG_HEVC.JPG", True)):
            asset = self.find_asset(name)
            self.assertEqual(bool(asset["mediaSubtypes"] & 8), is_live, name)
            self.driver.get(URL + "/#view=" + asset["localIdentifier"])
            viewer = self.driver.find_element(By.ID, "viewer")
            self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
            if is_live:
                self.assertTrue(self.driver.find_element(By.ID, "live-badge").is_displayed())
                self.driver.find_element(By.ID, "play").click()
            video = viewer.find_element(By.TAG_NAME, "video")
            # A movie plays at once, muted (Play was not pressed); a Live Photo's motion, pressed,
            # with its sound.
            self.assertEqual(self.driver.execute_script("return arguments[0].muted", video), not is_live)
            # scripts/check-web's worker made the H.264 copy before serving (else the server's
            # job makes it as it starts, or at the first play: past 90 s once, beside the grid's
            # thumbnails), so the long wait is for a slow machine only.
            WebDriverWait(self.driver, 240).until(
                lambda d: d.execute_script("return arguments[0].videoWidth", video) > 0, f"{name}: no picture")
            start = self.driver.execute_script("return arguments[0].currentTime", video)
            self.wait.until(
                lambda d: d.execute_script("return arguments[0].currentTime", video) > start + 0.2,
                f"{name}: time does not advance")
            self.assertEqual(self.driver.find_element(By.ID, "movie-notice").text, "")
            self.shot("playing-" + name.split(".")[0].lower())
            self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
            self.wait.until(lambda d: "open" not in viewer.get_attribute("class"))

    def downloads(self):
        """A folder Chromium saves downloads in, and a wait for the ZIP archive to land there."""
        folder = tempfile.mkdtemp(prefix="lightbox-downloads-")
        self.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": folder})

        def archive():
            def landed(driver):
                names = os.listdir(folder)
                done = [n for n in names if n.endswith(".zip")]
                return os.path.join(folder, done[0]) if done and not any(n.endswith(".crdownload") for n in names) else False
            path = WebDriverWait(self.driver, 60).until(landed, "no archive was downloaded")
            with zipfile.ZipFile(path) as opened:
                self.assertIsNone(opened.testzip(), "a CRC in the archive is wrong")
                entries = {info.filename: opened.read(info) for info in opened.infolist()}
            os.remove(path)
            return entries
        return archive

    def test_a_selection_and_a_live_photo_download_as_zip_archives(self):
        self.sign_in()
        archive = self.downloads()
        chosen = self.newest_first(3, 3)
        self.wait.until(lambda d: self.tile_of(chosen[0]) is not None)
        self.select_tiles(chosen)
        self.wait.until(lambda d: d.find_element(By.ID, "selected-count").text == "3 selected")
        self.driver.find_element(By.ID, "download-selection").click()
        entries = archive()
        self.shot("selection-downloaded")
        expected = {}
        for identifier in chosen:
            asset = self.api(f"/api/assets/{identifier}")
            expected[asset["resources"][0]["originalFilename"]] = identifier
        self.assertEqual(sorted(entries), sorted(expected))
        for name, identifier in expected.items():
            original = self.driver.execute_async_script(
                "fetch(arguments[0]).then(r => r.arrayBuffer()).then(b => arguments[1](b.byteLength))",
                f"/api/assets/{identifier}/download?version=current")
            self.assertEqual(len(entries[name]), original, name)
        self.assertIn("Downloading 3 items", self.driver.find_element(By.ID, "toast").text)
        # A Live Photo from the viewer: its still and its movie, together.
        live = self.find_asset("IMG_HEVC.JPG")
        self.driver.get(URL + "/#view=" + live["localIdentifier"])
        viewer = self.driver.find_element(By.ID, "viewer")
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        self.driver.find_element(By.ID, "download").click()
        entries = archive()
        self.assertEqual(sorted(entries), ["IMG_HEVC.JPG", "IMG_HEVC.MOV"])
        self.assertEqual(entries["IMG_HEVC.JPG"][:2], b"\xff\xd8")
        self.assertEqual(entries["IMG_HEVC.MOV"][4:8], b"ftyp")
        self.shot("live-photo-downloaded")

    def test_the_viewer_shares_its_photo_in_a_new_album(self):
        self.sign_in()
        photo = self.newest_first(5, 1)[0]
        self.driver.get(URL + "/#view=" + photo)
        viewer = self.driver.find_element(By.ID, "viewer")
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        share = self.driver.find_element(By.ID, "share-one")
        self.wait.until(lambda d: share.is_displayed())
        share.click()
        name_dialog = self.driver.find_element(By.ID, "name-dialog")
        self.wait.until(lambda d: name_dialog.is_displayed())
        title = "One to share " + str(int(time.time() * 1000) % 10000000) + ("p" if self.viewport[2] else "d")
        field = name_dialog.find_element(By.NAME, "name")
        field.clear()
        field.send_keys(title)
        name_dialog.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
        dialog = self.driver.find_element(By.ID, "share-dialog")
        self.wait.until(lambda d: dialog.is_displayed())
        self.assertEqual(dialog.find_element(By.ID, "share-title").text, f"Share “{title}”")
        # The name typed went to the dialog alone: its "e" opened no editor, the viewer stays.
        self.assertNotIn("open", self.driver.find_element(By.ID, "editor").get_attribute("class"))
        self.shot("share-dialog")
        dialog.find_element(By.XPATH, ".//button[normalize-space()='Done']").click()
        self.wait.until(lambda d: not dialog.is_displayed())
        self.assertIn("open", viewer.get_attribute("class"))
        self.assertIn("view=" + photo, self.driver.current_url)
        made = [a for a in self.api("/api/collections?type=album&limit=1000")["collections"] if a["localizedTitle"] == title]
        self.assertEqual(len(made), 1)
        try:
            members = [a["localIdentifier"] for a in self.api(f"/api/collections/{made[0]['localIdentifier']}/assets")["assets"]]
            self.assertEqual(members, [photo])
        finally:
            self.delete_album(made[0]['localIdentifier'])

    def test_a_slideshow_walks_on_by_itself_and_a_key_stops_it(self):
        self.sign_in()
        first, second = self.newest_first(6, 2)
        self.driver.get(URL + "/#view=" + first)
        viewer = self.driver.find_element(By.ID, "viewer")
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        self.driver.find_element(By.ID, "slideshow").click()
        self.wait.until(lambda d: "slideshow" in viewer.get_attribute("class"))
        self.assertFalse(self.driver.find_element(By.ID, "favorite").is_displayed(), "the bar goes in a slideshow")
        self.shot("slideshow")
        self.wait.until(lambda d: ("view=" + second) in d.current_url, "the slideshow did not move on")
        self.driver.switch_to.active_element.send_keys("x")
        self.wait.until(lambda d: "slideshow" not in viewer.get_attribute("class"))
        stopped = self.driver.current_url
        time.sleep(5)
        self.assertEqual(self.driver.current_url, stopped, "a stopped slideshow walks no further")
        self.assertIn("open", viewer.get_attribute("class"), "a key stops the slideshow, not the viewer")
        self.shot("stopped")

    def test_a_movie_is_trimmed_and_edited_in_the_editor(self):
        self.sign_in()
        movie = self.find_asset("HEVC_MOVIE.MOV")
        identifier = movie["localIdentifier"]
        self.driver.get(URL + "/#edit=" + identifier)
        editor = self.driver.find_element(By.ID, "editor")
        self.wait.until(lambda d: "open" in editor.get_attribute("class"))
        start, end = self.driver.find_element(By.ID, "trim-start"), self.driver.find_element(By.ID, "trim-end")
        self.assertTrue(start.is_displayed())
        self.assertAlmostEqual(float(end.get_attribute("value")), movie["duration"], delta=0.01)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", start)
        for field, value in ((start, "0.3"), (end, "1.2")):
            field.click()
            field.send_keys(Keys.CONTROL, "a")
            field.send_keys(value, Keys.TAB)
        self.driver.find_element(By.ID, "tab-filters").click()
        Select(self.driver.find_element(By.ID, "effect")).select_by_value("mono")
        self.shot("trim")
        self.driver.find_element(By.ID, "save").click()
        # The whole movie is decoded and encoded again on the server's two cores.
        WebDriverWait(self.driver, 240).until(lambda d: "open" not in editor.get_attribute("class"))
        edited = self.api(f"/api/assets/{identifier}")
        self.assertTrue(edited["hasAdjustments"])
        self.assertAlmostEqual(edited["duration"], 0.9, delta=1 / 30)
        self.assertEqual(self.api(f"/api/assets/{identifier}/edits")["filters"], ["mono=1.0", "trim=0.3,1.2"])
        self.api(f"/api/assets/{identifier}/edits", "DELETE")
        self.assertAlmostEqual(self.api(f"/api/assets/{identifier}")["duration"], movie["duration"], delta=0.001)

    def test_upload_by_picker_and_by_drop_reports_added_and_duplicates(self):
        self.sign_in()
        total = self.api("/api/timeline")["count"]
        self.wait.until(lambda d: self.count_shown() == total)
        # A phone's HEIC the library lacks, and a photo it holds already: one added, one duplicate.
        new = os.path.abspath(".corpus/exiv2/data/2021-02-13-1929.heic")
        held = os.path.abspath(".corpus/lomiri/backgrounds/Dragonfly_by_Bolly.jpg")
        self.driver.find_element(By.ID, "upload-input").send_keys(new + "\n" + held)
        summary = self.driver.find_element(By.ID, "upload-summary")
        self.wait.until(lambda d: summary.text.startswith("Done"))
        self.assertIn("1 added", summary.text)
        self.assertIn("1 duplicate", summary.text)
        self.wait.until(lambda d: self.count_shown() == total + 1)
        self.shot("uploaded")
        # Dropped on the page (as a file manager's drag gives them): a file it cannot read is
        # reported with its name and reason, and the rest goes on.
        self.driver.execute_async_script(
            """
            const done = arguments[0];
            (async () => {
            const photo = await (await fetch('/api/assets?limit=1')).json();
            const bytes = await (await fetch('/api/assets/' + photo.assets[0].localIdentifier + '/image?w=64&h=64')).blob();
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], 'small-copy.jpg', {type: 'image/jpeg'}));
            transfer.items.add(new File([new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])], 'broken.jpg', {type: 'image/jpeg'}));
            document.body.dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true, cancelable: true}));
            })().then(() => done(), error => done(String(error)));
            """
        )
        self.wait.until(lambda d: summary.text.startswith("Done") and "1 failed" in summary.text)
        self.assertIn("1 added", summary.text)
        self.assertIn("broken.jpg", self.driver.find_element(By.ID, "upload-failures").text)
        self.wait.until(lambda d: self.count_shown() == total + 2)
        self.shot("dropped")
        # What this test added goes for good, so that the next run of it (the phone's, after
        # the desktop's: one library serves both) adds it again.
        added = [a["localIdentifier"] for a in self.api("/api/assets?limit=500")["assets"]
                 if a["resources"][0]["originalFilename"] in ("2021-02-13-1929.heic", "small-copy.jpg")]
        self.assertEqual(len(added), 2)
        self.api("/api/assets/delete", "POST", {"assets": added, "permanently": True})
        # The broken file is a rejected upload, reported; not an error of the page.
        self.expected_console = "the server responded with a status of"

    def test_search_filters_show_as_chips_and_select_what_the_api_does(self):
        self.sign_in()
        total = self.api("/api/timeline")["count"]
        self.wait.until(lambda d: self.count_shown() == total)
        counted = lambda predicate: self.api("/api/timeline?predicate=" + urllib.parse.quote(predicate))["count"]
        self.driver.find_element(By.ID, "search-toggle").click()
        form = self.driver.find_element(By.ID, "search")
        self.wait.until(lambda d: form.is_displayed())
        Select(form.find_element(By.NAME, "type")).select_by_visible_text("Photos")
        photos = counted("mediaType == image")
        self.assertLess(photos, total)
        self.wait.until(lambda d: self.count_shown() == photos)
        self.assertEqual([c.text for c in self.driver.find_elements(By.CSS_SELECTOR, "#chips .chip")], ["Photos ×"])
        form.find_element(By.NAME, "name").send_keys("exiv2" + Keys.ENTER)
        both = counted('mediaType == image AND filename CONTAINS[c] "exiv2"')
        self.assertGreater(both, 0)
        self.wait.until(lambda d: self.count_shown() == both)
        self.assertEqual(self.driver.find_element(By.ID, "title").text, "Search")
        self.shot("filtered")
        # The kind's chip removed: the name's filter alone.
        self.driver.find_element(By.CSS_SELECTOR, '#chips .chip[data-filter="type"]').click()
        self.wait.until(lambda d: self.count_shown() == counted('filename CONTAINS[c] "exiv2"'))
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "#chips .chip")), 1)
        # By camera, from the library's own cameras, the most used first.
        self.driver.find_element(By.CSS_SELECTOR, '#chips .chip[data-filter="name"]').click()
        self.wait.until(lambda d: self.count_shown() == total)
        cameras = [c for c in self.api("/api/cameras")["cameras"] if c.get("model")]
        self.assertGreater(len(cameras), 3)
        camera = Select(form.find_element(By.NAME, "camera"))
        self.wait.until(lambda d: len(camera.options) > 3)
        model = camera.options[1].get_attribute("value")
        self.assertEqual(model, cameras[0]["model"])
        camera.select_by_index(1)
        taken = counted(f'cameraModel == "{model}"')
        self.assertEqual(taken, sum(c["count"] for c in cameras if c["model"] == model))
        self.wait.until(lambda d: self.count_shown() == taken)
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, '#chips .chip[data-filter="camera"]').text,
                         f"Camera: {model} ×")
        self.shot("camera")
        self.driver.find_element(By.CSS_SELECTOR, '#chips .chip[data-filter="camera"]').click()
        self.wait.until(lambda d: self.count_shown() == total)
        # From a photo's place: its neighbours within about 11 km.
        placed = None
        for offset in range(0, 400, 200):
            placed = next((a for a in self.api(f"/api/assets?offset={offset}&limit=200")["assets"] if a.get("location")), None)
            if placed:
                break
        self.assertIsNotNone(placed, "a photo with a place")
        panel = self.open_info(placed["localIdentifier"])
        panel.find_element(By.CSS_SELECTOR, "button.near").click()
        self.wait.until(lambda d: "Near" in d.find_element(By.ID, "chips").text)
        lat, lon = round(placed["location"]["latitude"], 4), round(placed["location"]["longitude"], 4)
        nearby = counted(f"latitude BETWEEN {{{lat - 0.1}, {lat + 0.1}}} AND longitude BETWEEN {{{lon - 0.1}, {lon + 0.1}}}")
        self.assertGreaterEqual(nearby, 1)
        self.wait.until(lambda d: self.count_shown() == nearby)
        self.wait.until(lambda d: self.tile_of(placed["localIdentifier"]) is not None)
        self.shot("near")

    def test_the_viewer_names_a_photos_place_and_keeps_its_coordinates(self):
        """The information panel said only a photo's coordinates, never where that is."""
        self.sign_in()
        placed = place = None
        for offset in range(0, 400, 200):
            for asset in self.api(f"/api/assets?offset={offset}&limit=200")["assets"]:
                if asset.get("location"):
                    place = self.api(f"/api/assets/{asset['localIdentifier']}/place").get("place")
                    if place:
                        placed = asset
                        break
            if placed:
                break
        self.assertIsNotNone(placed, "the worker named no photo's place")
        names = []
        for name in (place.get("name"), place.get("city"), place.get("region"), place.get("country")):
            if name and name not in names:
                names.append(name)
        panel = self.open_info(placed["localIdentifier"])
        rows = {dt.text: dt.find_element(By.XPATH, "following-sibling::dd[1]").text
                for dt in panel.find_elements(By.CSS_SELECTOR, "dl dt") if dt.text}
        self.assertEqual(rows.get("Place"), ", ".join(names))
        latitude = placed["location"]["latitude"]
        self.assertIn(f"{latitude:.5f}", rows.get("Coordinates", ""))
        self.shot("place")

    def test_the_text_read_in_a_photo_is_selected_over_it_and_copied_from_the_panel(self):
        """The text job's lines lie over the photo where they are, selectable, and list in the
        information panel; a photo without text shows no Text button."""
        self.sign_in()
        found = self.api("/api/assets?predicate=" + urllib.parse.quote('text CONTAINS[c] "receipt"'))["assets"]
        self.assertEqual([a["resources"][0]["originalFilename"] for a in found], ["RECEIPT_TEXT.jpg"])
        receipt = found[0]["localIdentifier"]
        lines = self.api(f"/api/assets/{receipt}/text")["lines"]
        self.assertEqual(len(lines), 2, lines)
        panel = self.open_info(receipt)
        text = panel.find_element(By.ID, "info-text")
        self.wait.until(lambda d: text.is_displayed())
        self.assertEqual([p.text for p in text.find_elements(By.TAG_NAME, "p")], [line["text"] for line in lines])
        button = self.driver.find_element(By.ID, "live-text")
        self.assertTrue(button.is_displayed())
        button.click()
        self.assertEqual(button.get_attribute("aria-pressed"), "true")
        layer = self.driver.find_element(By.ID, "text-layer")
        spans = layer.find_elements(By.CSS_SELECTOR, ".text-line")
        self.assertEqual(len(spans), 2)
        picture = self.driver.find_element(By.CSS_SELECTOR, "#stage img")
        self.wait_for_image(picture)
        # Each line lies over its box in the picture as drawn, within two pixels.
        frame = picture.rect
        for span, line in zip(spans, lines):
            box = self.driver.execute_script("const r = arguments[0].getBoundingClientRect();"
                                             "return [r.left, r.top, r.width, r.height];", span)
            expected = [frame["x"] + line["x"] * frame["width"], frame["y"] + line["y"] * frame["height"],
                        line["width"] * frame["width"], line["height"] * frame["height"]]
            for got, want in zip(box, expected):
                self.assertLess(abs(got - want), 2, (box, expected, line))
        # Dragged across with a mouse, the first line is selected as text (a phone's finger
        # selects by pressing and holding, which the driver cannot do: there the line is
        # selected as the browser would, and its style lets it be).
        if self.viewport[2]:
            self.assertEqual(self.driver.execute_script("return getComputedStyle(arguments[0]).userSelect", spans[0]),
                             "text")
            self.driver.execute_script("getSelection().selectAllChildren(arguments[0])", spans[0])
        else:
            ActionChains(self.driver).move_to_element_with_offset(spans[0], -spans[0].rect["width"] // 2 + 1, 0) \
                .click_and_hold().move_to_element_with_offset(spans[0], spans[0].rect["width"] // 2 - 1, 0) \
                .release().perform()
        selected = self.driver.execute_script("return getSelection().toString()")
        self.assertGreater(len(selected), 3, "nothing selected")
        self.assertIn(selected.strip(), lines[0]["text"])
        self.assertTrue(self.driver.find_element(By.ID, "viewer").get_attribute("class").count("open"))
        self.shot("text")
        # T hides it again; the next photo (without text) shows no button.
        self.driver.find_element(By.ID, "viewer").send_keys("t")
        self.assertEqual(button.get_attribute("aria-pressed"), "false")
        self.assertFalse(layer.is_displayed())
        plain = self.find_asset("PARTY_CAMERA_1.jpg")["localIdentifier"]
        self.assertEqual(self.api(f"/api/assets/{plain}/text")["lines"], [])
        self.open_info(plain)
        self.assertFalse(self.driver.find_element(By.ID, "live-text").is_displayed())
        self.assertFalse(self.driver.find_element(By.ID, "info-text").is_displayed())

    def test_the_things_found_in_a_photo_show_its_kind_across_the_library(self):
        """Searching the web app for "dog" found nothing: the things job's labels list in the
        information panel, and one shows the library's photos of it, as a chip."""
        self.sign_in()
        dog = self.find_asset("friends_by_Aitzol_Berasategi.jpg")["localIdentifier"]
        things = self.api(f"/api/assets/{dog}/things")["things"]
        self.assertIn("dog", [thing["label"] for thing in things])
        panel = self.open_info(dog)
        section = panel.find_element(By.ID, "info-things")
        self.wait.until(lambda d: section.is_displayed())
        labels = [button.text for button in section.find_elements(By.TAG_NAME, "button")]
        self.assertEqual(labels, [thing["label"] for thing in things])
        self.shot("things")
        expected = self.api("/api/timeline?predicate=" + urllib.parse.quote('thing == "dog"'))["count"]
        self.assertGreaterEqual(expected, 1)
        button = next(b for b in section.find_elements(By.TAG_NAME, "button") if b.text == "dog")
        self.driver.execute_script("arguments[0].scrollIntoView()", button)
        button.click()
        self.wait.until(lambda d: "thing=dog" in d.current_url)
        self.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, '#chips [data-filter="thing"]').is_displayed())
        self.wait.until(lambda d: len(self.tiles()) == expected)
        self.assertIsNotNone(self.tile_of(dog))
        self.shot("dogs")

    def test_one_search_box_understands_a_date_and_searches_the_rest_as_words(self):
        """Searching for "receipt 2014" or "dog" in one box found nothing: the box's text is read
        by the server into a date chip and a words chip, the grid shows what both select, a
        chip's × searches again without it, and the page says what was searched."""
        self.sign_in()
        receipt = self.find_asset("RECEIPT_TEXT.jpg")["localIdentifier"]
        box = self.driver.find_element(By.CSS_SELECTOR, "#find input")
        self.assertTrue(box.is_displayed())
        box.send_keys("receipt 2014" + Keys.ENTER)
        self.wait.until(lambda d: "q=receipt" in d.current_url)
        understood = lambda: [(c.get_attribute("data-kind"), c.text) for c in
                              self.driver.find_elements(By.CSS_SELECTOR, "#chips .chip.understood")]
        self.wait.until(lambda d: understood() == [("date", "2014 ×"), ("words", "“receipt ×")])
        expected = self.api("/api/search?q=" + urllib.parse.quote("receipt 2014"))
        self.assertEqual([asset["localIdentifier"] for asset in expected["assets"]], [receipt])
        self.wait.until(lambda d: len(self.tiles()) == 1 and self.tile_of(receipt) is not None)
        notes = self.driver.find_element(By.ID, "search-notes")
        self.assertIn("Searched:", notes.text)
        self.assertIn("text in photos", notes.text)
        self.shot("search-receipt-2014")
        # The date's × leaves the words: the photo with the receipt, whenever it was taken.
        self.driver.find_element(By.CSS_SELECTOR, '#chips .chip[data-kind="date"]').click()
        self.wait.until(lambda d: understood() == [("words", "“receipt ×")])
        self.assertEqual(box.get_attribute("value"), "receipt")
        # Another word: the dog of the things job, found by a broader word.
        dog = self.find_asset("friends_by_Aitzol_Berasategi.jpg")["localIdentifier"]
        box.clear()
        box.send_keys("animals" + Keys.ENTER)
        self.wait.until(lambda d: understood() == [("words", "“animals ×")])
        self.wait.until(lambda d: self.tile_of(dog) is not None)
        self.assertIsNone(self.tile_of(receipt))
        self.shot("search-animals")
        # A search nothing matches says so by showing nothing, and clearing the box ends it.
        box.clear()
        box.send_keys("zebra crossing 1999" + Keys.ENTER)
        self.wait.until(lambda d: len(self.tiles()) == 0)
        box.clear()
        box.send_keys(Keys.ENTER)
        self.wait.until(lambda d: "q=" not in d.current_url)
        self.wait.until(lambda d: len(self.tiles()) > 1)

    def marker_counts(self):
        """What each marker the map shows says: its badge's count, 1 without one."""
        return self.driver.execute_script("""
            return [...document.querySelectorAll('#map .map-marker')].map(marker => {
              const badge = marker.querySelector('.map-count');
              return badge ? Number(badge.textContent.replace(/[^0-9]/g, '')) : 1;
            });""")

    def test_the_map_clusters_the_located_photos_and_opens_a_markers_photos(self):
        """Places had a list and no map: the map's markers hold every located photo once, over
        tiles of the operator's server, and a marker, the view and a city open their photos."""
        self.sign_in()
        counted = lambda predicate: self.api("/api/timeline?predicate=" + urllib.parse.quote(predicate))["count"]
        located = counted("latitude != nil")
        self.assertGreaterEqual(located, 5, "check-web's library has photos with a location")
        self.wait.until(lambda d: d.find_element(By.ID, "places-entry").get_attribute("hidden") is None)
        self.driver.get(URL + "/#places")
        self.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-ready") == "true")
        self.assertEqual(self.driver.find_element(By.ID, "title").text, "Places")
        # The first view holds them all: the markers' counts add up to every located photo.
        self.wait.until(lambda d: sum(self.marker_counts()) == located)
        self.assertEqual(int(self.driver.find_element(By.ID, "map").get_attribute("data-count")), located)
        self.assertGreater(len(self.marker_counts()), 1, "photos half the earth apart share one marker")
        self.wait.until(lambda d: d.execute_script(
            "return document.querySelectorAll('#map img.leaflet-tile-loaded').length") > 0)
        with urllib.request.urlopen(os.environ["LIGHTBOX_TILES"] + "/count", timeout=5) as answer:
            self.assertGreater(int(answer.read()), 0, "no tile came from the operator's tile server")
        self.assertIn("Lightbox's test tiles", self.driver.find_element(By.CSS_SELECTOR, ".leaflet-control-attribution").text)
        self.shot("map")
        # The list names the countries, each with its count.
        countries = self.api("/api/places")["countries"]
        self.assertTrue(countries, "the worker named places")
        # Read in one step: a change elsewhere (the other tests' on this server) draws the list anew.
        summaries = self.driver.execute_script(
            "return [...document.querySelectorAll('#place-list .place-country summary')].map(s => s.innerText)")
        self.assertEqual(len(summaries), len(countries))
        first = countries[0]
        self.assertEqual(summaries[0].split("\n")[0], first["name"] or "Elsewhere (far from any town)")
        # The view's photos in the timeline.
        self.driver.find_element(By.ID, "map-show").click()
        self.wait.until(lambda d: "On the map" in d.find_element(By.ID, "chips").text)
        self.wait.until(lambda d: self.count_shown() == located)
        # The southernmost marker (Canberra's photos, with those near) opens its own photos.
        self.driver.get(URL + "/#places")
        self.wait.until(lambda d: d.find_element(By.ID, "map").get_attribute("data-ready") == "true")
        self.wait.until(lambda d: sum(self.marker_counts()) == located)
        southernmost = """
            const markers = [...document.querySelectorAll('#map .map-marker')];
            return markers.length ? markers.reduce((a, b) =>
              b.getBoundingClientRect().top > a.getBoundingClientRect().top ? b : a) : null;"""
        south = self.driver.execute_script(southernmost)
        badge = south.find_elements(By.CSS_SELECTOR, ".map-count")
        expected = int(badge[0].text.replace(",", "")) if badge else 1
        self.assertEqual(expected, counted("latitude < -20"), "the southernmost marker holds the southern photos")
        # A cluster zooms in first; at the photos' own marker, the photos open in the timeline.
        for _ in range(10):
            if "On the map" in self.driver.find_element(By.ID, "chips").text:
                break
            marker = self.driver.execute_script(southernmost)
            if marker:
                self.driver.execute_script("arguments[0].click()", marker)
            time.sleep(1)
        self.wait.until(lambda d: "On the map" in d.find_element(By.ID, "chips").text)
        self.wait.until(lambda d: self.count_shown() == expected)
        self.shot("marker")
        # A city of the list: its photos, said as a chip.
        self.driver.get(URL + "/#places")
        first_link = """
            const link = document.querySelector('#place-list .place-link');
            return link ? [link.querySelector('.place-name').textContent, link.querySelector('.count').textContent] : null"""
        name, number = self.wait.until(lambda d: d.execute_script(first_link))
        name, number = name.removeprefix("All of "), int(number.replace(",", ""))
        code = first["countryCode"]
        self.assertEqual(number, counted(f'place == "{name}" AND countryCode == "{code}"'))
        self.driver.execute_script("document.querySelector('#place-list .place-link').click()")
        self.wait.until(lambda d: f"{name} ({code})" in d.find_element(By.ID, "chips").text)
        self.wait.until(lambda d: self.count_shown() == number)
        self.shot("city")
        # Settings says places are named (switching it off forgets them: the API's tests do that).
        self.driver.find_element(By.ID, "account").click()
        switch = self.driver.find_element(By.ID, "places-enabled")
        self.wait.until(lambda d: switch.is_displayed() and switch.is_selected())
        self.assertTrue(self.api("/api/analysis")["places"])

    def test_a_party_across_midnight_in_two_time_zones_keeps_its_two_days(self):
        """check-web's party: a phone at +02:00 (23:00, 23:40, 00:20) and a camera that records
        no zone (23:30, 00:10). By the instants the days would alternate; by each photo's own
        clock each day comes once, the camera's photos at the time their camera showed."""
        self.sign_in()
        days = [day["day"] for day in self.api("/api/timeline")["days"]]
        self.assertEqual(len(days), len(set(days)), "a day's heading repeats in the timeline")
        self.assertEqual(days, sorted(days, reverse=True))
        names = {}
        for name in ("PHONE_1", "CAMERA_1", "PHONE_2", "CAMERA_2", "PHONE_3"):
            predicate = urllib.parse.quote(f'filename == "PARTY_{name}.jpg"')
            found = self.api(f"/api/assets?predicate={predicate}")["assets"]
            self.assertEqual(len(found), 1, name)
            names[found[0]["localIdentifier"]] = name
        self.driver.get(URL + "/#name=PARTY_")
        self.wait.until(lambda d: len(self.tiles()) == 5)
        for identifier in names:
            self.wait_for_image(self.image_of(identifier))
        self.shot("party")
        # Each tile under its day's heading, in the page's order.
        shown = self.driver.execute_script(TILES_UNDER_HEADINGS)
        title = lambda day: self.driver.execute_script(
            "const [y, m, d] = arguments[0].split('-').map(Number);"
            "return new Intl.DateTimeFormat(undefined, {weekday: 'short', day: 'numeric', month: 'short',"
            " year: 'numeric', timeZone: 'UTC'}).format(new Date(Date.UTC(y, m - 1, d)))", day)
        fourth, third = title("2021-07-04"), title("2021-07-03")
        self.assertEqual([(heading, names[identifier]) for heading, identifier in shown], [
            (fourth, "PHONE_3"), (fourth, "CAMERA_2"), (third, "PHONE_2"), (third, "CAMERA_1"), (third, "PHONE_1")])
        headings = [h.text for h in self.driver.find_elements(By.CSS_SELECTOR, "#grid h3.day")]
        self.assertEqual(headings, [fourth, third])
        self.assertEqual([h.text for h in self.driver.find_elements(By.CSS_SELECTOR, "#grid h2.month")],
                         [self.month_title("2021-07-04")])
        # A day searched for is that day's clock too: both photos of the 4th, though the
        # phone's is the 3rd in UTC.
        self.driver.get(URL + "/#name=PARTY_&from=2021-07-04&to=2021-07-04")
        self.wait.until(lambda d: len(self.tiles()) == 2)
        self.assertEqual(sorted(names[t.get_attribute("href").split("/")[-1]] for t in self.tiles()),
                         ["CAMERA_2", "PHONE_3"])
        self.shot("one-day")

    def test_sparse_days_share_rows_each_under_its_own_heading(self):
        """Each day started a new row: a library of sparse days was a column of half-empty rows."""
        self.sign_in()
        timeline = self.api("/api/timeline")
        self.wait.until(lambda d: len(self.tiles()) >= 20)
        # The library's older years are the corpus's sparse days, a photo or two each.
        self.driver.execute_script("scrollTo(0, document.body.scrollHeight)")
        self.wait.until(lambda d: self.driver.execute_script(
            "return [...document.querySelectorAll('#grid > a:not(.pending)')]"
            ".some(a => a.getBoundingClientRect().bottom > innerHeight - 200)"))
        self.shot("packed")
        rows = self.driver.execute_script("""
            const tops = new Map();
            for (const h of document.querySelectorAll('#grid h3.day')) {
              const top = Math.round(h.getBoundingClientRect().top);
              tops.set(top, (tops.get(top) || 0) + 1);
            }
            return [...tops.values()];
        """)
        self.assertGreater(max(rows), 1, "no two days share a row")
        self.assertEqual(self.driver.execute_script(CUT_HEADINGS), [])
        # Every tile shown lies under its own day's heading, and the days come in the timeline's order.
        shown = self.driver.execute_script(TILES_UNDER_HEADINGS)
        self.assertNotIn(None, [heading for heading, _ in shown])
        days = [day["day"] for day in timeline["days"]]
        order = []
        for heading, _ in shown:
            if not order or order[-1] != heading:
                order.append(heading)
        self.assertEqual(len(order), len(set(order)), "a day's tiles are split by another day's")
        expected = self.driver.execute_script("""
            const thisYear = new Date().getFullYear();
            return arguments[0].map(day => {
              const [y, m, d] = day.split('-').map(Number);
              const date = new Date(Date.UTC(y, m - 1, d));
              const options = {weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC'};
              if (y !== thisYear) options.year = 'numeric';
              return new Intl.DateTimeFormat(undefined, options).format(date);
            });
        """, days)
        # The days shown are consecutive days of the timeline, in its order.
        start = expected.index(order[0])
        self.assertEqual(order, expected[start:start + len(order)])

    def test_the_scrubber_marks_the_screen_and_a_hover_names_a_month(self):
        self.sign_in()
        self.wait.until(lambda d: len(self.tiles()) >= 20)
        scrubber = self.driver.find_element(By.ID, "scrubber")
        marker = self.driver.find_element(By.ID, "scrubber-marker")
        where = lambda: self.driver.execute_script(
            "const s = arguments[0].getBoundingClientRect(), m = arguments[1].getBoundingClientRect();"
            "return (m.top - s.top) / s.height", scrubber, marker)
        self.assertLess(where(), 0.05)
        # Beside the photos, never over them.
        overlap = self.driver.execute_script("""
            const s = arguments[0].getBoundingClientRect();
            return [...document.querySelectorAll('#grid > a')].some(a => a.getBoundingClientRect().right > s.left);
        """, scrubber)
        self.assertFalse(overlap, "a tile lies under the scrubber")
        self.driver.execute_script("scrollTo(0, document.body.scrollHeight)")
        self.wait.until(lambda d: where() > 0.95)
        self.shot("marker-at-the-end")
        if self.viewport[2]:
            return
        # A mouse over the scrubber names the month there, and scrolls nothing.
        self.driver.execute_script("scrollTo(0, 0)")
        self.wait.until(lambda d: where() < 0.05)
        height = scrubber.size["height"]
        ActionChains(self.driver).move_to_element_with_offset(scrubber, 0, int(height * 0.4)).perform()
        bubble = self.driver.find_element(By.ID, "scrubber-label")
        self.wait.until(lambda d: bubble.is_displayed() and bubble.text)
        months = {self.month_title(day["day"]) for day in self.api("/api/timeline")["days"]}
        self.assertIn(bubble.text, months)
        self.assertEqual(self.driver.execute_script("return scrollY"), 0, "a hover scrolled the page")
        self.shot("hover")
        ActionChains(self.driver).move_by_offset(-300, 0).perform()
        self.wait.until(lambda d: not bubble.is_displayed())

    def test_albums_show_as_covers_and_move_to_a_folder_from_a_menu(self):
        """Albums were text lines, moved into folders only by HTML drag and drop (not on a phone)."""
        self.sign_in()
        suffix = str(int(time.time() * 1000) % 10000000) + ("p" if self.viewport[2] else "d")
        photos = self.newest_first(2, 2)
        album = self.api("/api/collections", "POST", {"title": "Covers " + suffix, "assets": photos})["localIdentifier"]
        folder = self.api("/api/lists", "POST", {"title": "Trips " + suffix})["localIdentifier"]
        try:
            self.driver.get(URL + "/#albums")
            page = self.driver.find_element(By.ID, "albums-page")
            self.wait.until(lambda d: page.is_displayed() and d.find_element(By.ID, "title").text == "Albums")
            cards = lambda: {card.find_element(By.CLASS_NAME, "title").text: card
                             for card in page.find_elements(By.CSS_SELECTOR, ".album-cover")}
            self.wait.until(lambda d: "Covers " + suffix in cards() and "Trips " + suffix in cards())
            card = cards()["Covers " + suffix]
            self.assertIn("2 items", card.text)
            self.wait_for_image(card.find_element(By.TAG_NAME, "img"))
            # Folders first.
            names = list(cards())
            self.assertLess(names.index("Trips " + suffix), names.index("Covers " + suffix))
            self.shot("covers")
            # The ⋯ menu moves it into the folder.
            card.find_element(By.CSS_SELECTOR, ".more").click()
            card.find_element(By.XPATH, ".//button[normalize-space()='Move to folder…']").click()
            dialog = self.driver.find_element(By.ID, "move-dialog")
            self.wait.until(lambda d: dialog.is_displayed())
            Select(dialog.find_element(By.TAG_NAME, "select")).select_by_visible_text("Trips " + suffix)
            self.shot("move-dialog")
            dialog.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
            self.wait.until(lambda d: "Covers " + suffix not in cards())
            inside = lambda: [m["localIdentifier"] for m in self.api(f"/api/lists/{folder}/collections")["collections"]]
            self.assertEqual(inside(), [album])
            # The folder opens on its own page of covers, and back to the top from there.
            cards()["Trips " + suffix].find_element(By.CSS_SELECTOR, "a.open").click()
            self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Trips " + suffix)
            self.wait.until(lambda d: list(cards()) == ["Covers " + suffix])
            self.assertTrue(self.driver.find_element(By.ID, "albums-up").is_displayed())
            self.shot("in-the-folder")
            card = cards()["Covers " + suffix]
            card.find_element(By.CSS_SELECTOR, ".more").click()
            card.find_element(By.XPATH, ".//button[normalize-space()='Move to folder…']").click()
            self.wait.until(lambda d: dialog.is_displayed())
            Select(dialog.find_element(By.TAG_NAME, "select")).select_by_visible_text("Top level (in no folder)")
            dialog.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
            self.wait.until(lambda d: not cards())
            self.assertEqual(inside(), [])
            self.driver.find_element(By.ID, "albums-up").click()
            self.wait.until(lambda d: "Covers " + suffix in cards())
            # A cover opens its album.
            cards()["Covers " + suffix].find_element(By.CSS_SELECTOR, "a.open").click()
            self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Covers " + suffix)
            self.wait.until(lambda d: len(self.tiles()) == 2)
        finally:
            self.delete_album(album)
            self.api(f"/api/lists/{folder}", "DELETE")

    def asset_named(self, filename):
        """The identifier of the asset imported from a file of this name."""
        predicate = urllib.parse.quote(f'filename == "{filename}"')
        found = self.api(f"/api/assets?predicate={predicate}&limit=2")["assets"]
        self.assertEqual(len(found), 1, filename)
        return found[0]["localIdentifier"]

    def test_people_are_named_found_in_search_told_apart_and_merged(self):
        """Faces were found by the analysis service before the page was served (check-web): the
        People page shows them, a name is given in place, a person's page and the search show their
        photos, the viewer outlines a photo's faces and says who one is, and two are merged."""
        self.sign_in()
        suffix = str(int(time.time() * 1000) % 10000000) + ("p" if self.viewport[2] else "d")
        barack, joe = "Barack " + suffix, "Joe " + suffix
        obama = self.asset_named("obama.jpg")
        biden = self.asset_named("biden.jpg")
        # Obama's photos made one person; whoever he is now (an earlier run named him).
        # biden.jpg's one face is nobody's: an earlier run's merge is taken back.
        biden_face = self.api(f"/api/assets/{biden}/faces")["faces"][0]["localIdentifier"]
        self.api("/api/faces/assign", "POST", {"faces": [biden_face], "person": None})
        faces = self.api(f"/api/assets/{obama}/faces")["faces"]
        person = faces[0]["personLocalIdentifier"]
        self.assertTrue(person, faces)
        photos = self.api(f"/api/people/{person}")["estimatedAssetCount"]
        self.assertGreaterEqual(photos, 5)

        self.driver.get(URL + "/#people")
        page = self.driver.find_element(By.ID, "people-page")
        self.wait.until(lambda d: page.is_displayed() and d.find_element(By.ID, "title").text == "People")
        cover = lambda who: page.find_element(By.CSS_SELECTOR, f'.person-cover[data-person="{who}"]')
        self.wait.until(lambda d: cover(person))
        self.wait_for_image(cover(person).find_element(By.TAG_NAME, "img"))
        self.assertIn(f"{photos} items", cover(person).text)
        if not self.viewport[2]:
            self.assertTrue(self.driver.find_element(By.ID, "people-entry").is_displayed())
        self.shot("people")
        # A name given in place.
        cover(person).find_element(By.CSS_SELECTOR, "button.name").click()
        dialog = self.driver.find_element(By.ID, "name-dialog")
        self.wait.until(lambda d: dialog.is_displayed())
        field = dialog.find_element(By.NAME, "name")
        field.clear()
        field.send_keys(barack + Keys.ENTER)
        self.wait.until(lambda d: cover(person).find_element(By.CSS_SELECTOR, "button.name").text == barack)
        self.assertEqual(self.api(f"/api/people/{person}")["localizedTitle"], barack)
        self.shot("named")
        # The person's page: their photos, with Name and Merge.
        cover(person).find_element(By.CSS_SELECTOR, "a.open").click()
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == barack)
        self.wait.until(lambda d: len(self.tiles()) == photos)
        self.assertTrue(self.driver.find_element(By.ID, "merge-person").is_displayed())
        self.assertFalse(self.driver.find_element(By.ID, "rename-album").is_displayed())
        self.shot("their-photos")
        # The search finds them by name.
        self.driver.get(URL + "/#")
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Library")
        self.driver.find_element(By.ID, "search-toggle").click()
        form = self.driver.find_element(By.ID, "search")
        self.wait.until(lambda d: any(o.text.startswith(barack) for o in Select(form.find_element(By.NAME, "person")).options))
        Select(form.find_element(By.NAME, "person")).select_by_value(barack)
        self.wait.until(lambda d: [c.text for c in d.find_elements(By.CSS_SELECTOR, "#chips .chip")] == [barack + " ×"])
        self.wait.until(lambda d: self.count_shown() == photos)
        self.shot("searched")

        # The viewer outlines Biden's face; "New person…" names him.
        self.driver.get(URL + "/#view=" + biden)
        self.wait.until(lambda d: d.find_element(By.ID, "viewer").is_displayed())
        self.driver.find_element(By.ID, "info").click()
        panel = self.driver.find_element(By.ID, "info-faces")
        self.wait.until(lambda d: panel.is_displayed() and len(panel.find_elements(By.CSS_SELECTOR, ".face-row")) == 1)
        self.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#face-boxes .face-box").is_displayed())
        box = self.driver.find_element(By.CSS_SELECTOR, "#face-boxes .face-box").rect
        picture = self.driver.find_element(By.CSS_SELECTOR, "#stage img").rect
        # Inside the picture, where the face is.
        self.assertGreaterEqual(box["x"], picture["x"] - 1)
        self.assertLessEqual(box["x"] + box["width"], picture["x"] + picture["width"] + 1)
        self.assertGreater(box["width"], 10)
        row = panel.find_element(By.CSS_SELECTOR, ".face-row")
        self.assertEqual(row.find_element(By.CLASS_NAME, "face-name").text, "Unknown")
        self.wait_for_image(row.find_element(By.TAG_NAME, "img"))
        self.shot("faces-outlined")
        Select(row.find_element(By.TAG_NAME, "select")).select_by_value("new")
        self.wait.until(lambda d: dialog.is_displayed())
        field = dialog.find_element(By.NAME, "name")
        field.clear()
        field.send_keys(joe + Keys.ENTER)
        self.wait.until(lambda d: panel.find_element(By.CLASS_NAME, "face-name").text == joe)
        self.shot("told-apart")
        new = self.api(f"/api/assets/{biden}/faces")["faces"][0]["personLocalIdentifier"]
        self.assertNotEqual(new, person)

        # Merged on the People page: Joe goes, Barack has one photo more.
        self.driver.get(URL + "/#people")
        self.wait.until(lambda d: page.is_displayed() and cover(new))
        cover(new).find_element(By.CSS_SELECTOR, ".more").click()
        cover(new).find_element(By.XPATH, ".//button[normalize-space()='Merge with…']").click()
        merge = self.driver.find_element(By.ID, "merge-dialog")
        self.wait.until(lambda d: merge.is_displayed())
        Select(merge.find_element(By.TAG_NAME, "select")).select_by_value(person)
        self.shot("merge-dialog")
        merge.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
        self.wait.until(lambda d: not page.find_elements(By.CSS_SELECTOR, f'.person-cover[data-person="{new}"]'))
        self.wait.until(lambda d: f"{photos + 1} items" in cover(person).text)
        self.assertEqual(self.api(f"/api/assets/{biden}/faces")["faces"][0]["personName"], barack)
        self.shot("merged")

        # Settings: finding faces is on; switching it off is asked first, and said no to, keeps
        # every face and person.
        self.driver.find_element(By.ID, "account").click()
        switch = self.driver.find_element(By.ID, "faces-enabled")
        self.wait.until(lambda d: switch.is_displayed() and switch.is_selected())
        self.shot("faces-setting")
        switch.click()
        alert = self.wait.until(lambda d: d.switch_to.alert)
        self.assertIn("deleted", alert.text)
        alert.dismiss()
        self.wait.until(lambda d: switch.is_selected() and switch.is_enabled())
        self.assertTrue(self.api("/api/analysis")["faces"])
        self.assertEqual(self.api(f"/api/people/{person}")["localizedTitle"], barack)

    def test_a_photo_dragged_onto_another_in_an_album_takes_its_place(self):
        """An album could not be reordered in the page."""
        self.sign_in()
        photos = self.newest_first(8, 3)
        title = "Order " + str(int(time.time() * 1000) % 10000000) + ("p" if self.viewport[2] else "d")
        album = self.api("/api/collections", "POST", {"title": title, "assets": photos})["localIdentifier"]
        order = lambda: [a["localIdentifier"] for a in self.api(f"/api/collections/{album}/assets")["assets"]]
        try:
            self.assertEqual(order(), photos)
            self.driver.get(URL + "/#album=" + album)
            self.wait.until(lambda d: len(self.tiles()) == 3)
            self.drag(self.tile_of(photos[2]), self.tile_of(photos[0]))
            self.wait.until(lambda d: order() == [photos[2], photos[0], photos[1]])
            # The grid shows the new order.
            self.wait.until(lambda d: [t.get_attribute("href").split("/")[-1] for t in sorted(
                self.tiles(), key=lambda t: (t.location["y"], t.location["x"]))] == order())
            self.toast_says(f"Moved in “{title}”.")
            self.shot("moved")
            self.driver.find_element(By.CSS_SELECTOR, "#toast button").click()
            self.wait.until(lambda d: order() == photos)
        finally:
            self.delete_album(album)

    def test_the_devices_camera_takes_a_photo_into_the_library(self):
        self.sign_in()
        total = self.api("/api/timeline")["count"]
        self.wait.until(lambda d: self.count_shown() == total)
        self.driver.find_element(By.ID, "camera-open").click()
        dialog = self.driver.find_element(By.ID, "camera")
        video = dialog.find_element(By.TAG_NAME, "video")
        self.wait.until(lambda d: d.execute_script("return arguments[0].videoWidth", video) > 0)
        width, height = self.driver.execute_script("return [arguments[0].videoWidth, arguments[0].videoHeight]", video)
        self.shot("camera")
        self.driver.find_element(By.ID, "camera-take").click()
        summary = self.driver.find_element(By.ID, "upload-summary")
        self.wait.until(lambda d: summary.text.startswith("Done") and "1 added" in summary.text)
        self.wait.until(lambda d: self.count_shown() == total + 1)
        taken = [a for a in self.api("/api/assets?limit=500")["assets"]
                 if a["resources"][0]["originalFilename"].startswith("Camera_")]
        self.assertEqual(len(taken), 1)
        # The camera's whole frame, as the browser gave it.
        self.assertEqual((taken[0]["pixelWidth"], taken[0]["pixelHeight"]), (width, height))
        dialog.find_element(By.CSS_SELECTOR, "form button:not([type])").click()
        self.wait.until(lambda d: dialog.get_attribute("open") is None)
        # The camera is let go (its stream stopped) once the dialog closes.
        self.wait.until(lambda d: d.execute_script("return arguments[0].srcObject === null", video))
        self.api("/api/assets/delete", "POST", {"assets": [taken[0]["localIdentifier"]], "permanently": True})

    def edit_a_photo(self, offset, wide_or_tall=False):
        """Signs in and opens the editor on a photo of the timeline from `offset` that has no
        edit and is 400 pixels wide or more (not square, with `wide_or_tall`): the photo, the
        editor and its decoded preview."""
        self.sign_in()
        chosen = next(a for a in self.api(f"/api/assets?offset={offset}&limit=50")["assets"]
                      if a["mediaType"] == 1 and not a["hasAdjustments"] and a["pixelWidth"] >= 400
                      and not (wide_or_tall and a["pixelWidth"] == a["pixelHeight"]))
        self.driver.get(URL + "/#edit=" + chosen["localIdentifier"])
        editor = self.driver.find_element(By.ID, "editor")
        self.wait.until(lambda d: "open" in editor.get_attribute("class"))
        preview = editor.find_element(By.CSS_SELECTOR, "figure img")
        self.wait_for_image(preview)
        return chosen, editor, preview

    def test_a_crop_drawn_on_the_picture_is_saved_in_the_recipe(self):
        chosen, editor, preview = self.edit_a_photo(30)
        identifier = chosen["localIdentifier"]
        crop = self.driver.find_element(By.ID, "crop")
        # The Crop tab shows the picture whole, ready to crop.
        self.driver.find_element(By.ID, "tab-crop").click()
        self.wait.until(lambda d: "cropping" in editor.get_attribute("class"))
        self.wait.until(lambda d: preview.get_attribute("src").startswith("blob:"))
        self.wait_for_image(preview)
        width, height = preview.size["width"], preview.size["height"]
        ActionChains(self.driver).move_to_element_with_offset(preview, int(-0.4 * width), int(-0.4 * height)) \
            .click_and_hold().move_by_offset(int(0.25 * width), int(0.3 * height)) \
            .move_to_element_with_offset(preview, int(0.1 * width), int(0.2 * height)).release().perform()
        self.assertTrue(self.driver.find_element(By.ID, "crop-box").is_displayed())
        self.shot("cropping")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", crop)
        crop.click()
        self.wait.until(lambda d: "cropping" not in editor.get_attribute("class"))
        self.driver.find_element(By.ID, "save").click()
        self.wait.until(lambda d: "open" not in editor.get_attribute("class"))
        filters = self.api(f"/api/assets/{identifier}/edits")["filters"]
        crops = [f for f in filters if f.startswith("crop=")]
        self.assertEqual(len(crops), 1, filters)
        x, y, w, h = (float(v) for v in crops[0][5:].split(","))
        for value, expected in ((x, 0.1), (y, 0.1), (w, 0.5), (h, 0.6)):
            self.assertAlmostEqual(value, expected, delta=0.03)
        edited = self.api(f"/api/assets/{identifier}")
        self.assertAlmostEqual(edited["pixelWidth"] / chosen["pixelWidth"], w, delta=0.01)
        self.assertAlmostEqual(edited["pixelHeight"] / chosen["pixelHeight"], h, delta=0.01)
        self.api(f"/api/assets/{identifier}/edits", "DELETE")

    def crop_rect(self):
        """The crop box on the picture, in the picture's unit coordinates."""
        return self.driver.execute_script("""
            const p = document.querySelector('#editor figure img').getBoundingClientRect();
            const b = document.getElementById('crop-box').getBoundingClientRect();
            return [(b.left + 2 - p.left) / p.width, (b.top + 2 - p.top) / p.height,
                    (b.width - 4) / p.width, (b.height - 4) / p.height];
        """)

    def test_a_crop_keeps_a_preset_ratio_and_its_handles_resize_and_move_it(self):
        """The crop was drawn freehand, without handles, presets or a grid, Crop below the fold."""
        chosen, editor, preview = self.edit_a_photo(40, wide_or_tall=True)
        identifier = chosen["localIdentifier"]
        # Tabs: the sliders on Adjust, the effects on Filters, the crop's tools on Crop.
        self.assertTrue(self.driver.find_element(By.ID, "sliders").is_displayed())
        self.assertFalse(self.driver.find_element(By.ID, "effect").is_displayed())
        self.driver.find_element(By.ID, "tab-filters").click()
        self.assertTrue(self.driver.find_element(By.ID, "effect").is_displayed())
        self.assertFalse(self.driver.find_element(By.ID, "sliders").is_displayed())
        self.driver.find_element(By.ID, "tab-crop").click()
        self.wait.until(lambda d: "cropping" in editor.get_attribute("class"))
        self.wait.until(lambda d: preview.get_attribute("src").startswith("blob:"))
        self.wait_for_image(preview)
        # Square: the largest square of the picture, centred.
        self.driver.find_element(By.CSS_SELECTOR, "#aspects [data-aspect='1']").click()
        box = self.driver.find_element(By.ID, "crop-box")
        self.wait.until(lambda d: box.is_displayed())
        x, y, w, h = self.crop_rect()
        self.assertAlmostEqual(w * chosen["pixelWidth"], h * chosen["pixelHeight"], delta=0.02 * chosen["pixelWidth"])
        self.assertAlmostEqual(max(w, h), 1, delta=0.02)
        self.shot("square")
        # The south-east handle drawn in keeps the square; the middle moves it.
        handle = box.find_element(By.CSS_SELECTOR, "[data-edge=se]")
        width, height = preview.size["width"], preview.size["height"]
        ActionChains(self.driver).click_and_hold(handle).move_by_offset(-int(0.2 * width), -int(0.2 * height)) \
            .move_by_offset(-2, -2).release().perform()
        x2, y2, w2, h2 = self.crop_rect()
        self.assertLess(w2, w - 0.1)
        self.assertAlmostEqual(w2 * chosen["pixelWidth"], h2 * chosen["pixelHeight"], delta=0.02 * chosen["pixelWidth"])
        self.assertAlmostEqual(x2, x, delta=0.01)
        self.assertAlmostEqual(y2, y, delta=0.01)
        ActionChains(self.driver).move_to_element(box).click_and_hold().move_by_offset(int(0.05 * width), int(0.05 * height)) \
            .move_by_offset(1, 1).release().perform()
        x3, y3, w3, h3 = self.crop_rect()
        self.assertAlmostEqual(w3, w2, delta=0.005)
        self.assertGreater(x3 + y3, x2 + y2 + 0.02)
        self.shot("resized-and-moved")
        # Done: saved as that square at full size.
        self.driver.find_element(By.ID, "crop").click()
        self.wait.until(lambda d: "cropping" not in editor.get_attribute("class"))
        self.driver.find_element(By.ID, "save").click()
        self.wait.until(lambda d: "open" not in editor.get_attribute("class"))
        edited = self.api(f"/api/assets/{identifier}")
        self.assertAlmostEqual(edited["pixelWidth"] / edited["pixelHeight"], 1, delta=0.02)
        self.assertAlmostEqual(edited["pixelWidth"] / chosen["pixelWidth"], w3, delta=0.02)
        self.api(f"/api/assets/{identifier}/edits", "DELETE")

    def test_an_installed_editor_is_offered_and_edits_at_full_size(self):
        self.sign_in()
        chosen = next(a for a in self.api("/api/assets?offset=60&limit=50")["assets"]
                      if a["mediaType"] == 1 and not a["hasAdjustments"] and a["pixelWidth"] >= 400)
        identifier = chosen["localIdentifier"]
        offered = [e["identifier"] for e in self.api(f"/api/assets/{identifier}/editors")]
        self.driver.get(URL + "/#edit=" + identifier)
        editor = self.driver.find_element(By.ID, "editor")
        self.wait.until(lambda d: "open" in editor.get_attribute("class"))
        box = self.driver.find_element(By.ID, "editors")
        self.wait.until(lambda d: box.is_displayed())
        choice = Select(self.driver.find_element(By.ID, "editor-choice"))
        self.assertEqual([o.get_attribute("value") for o in choice.options], offered)
        summary = box.find_element(By.TAG_NAME, "summary")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
        summary.click()
        choice.select_by_value("org.lightbox.example.negative")
        strength = self.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#editor-settings input[name=strength]"))
        self.assertEqual(float(strength.get_attribute("value")), 1)
        self.shot("installed-editor")
        apply = self.driver.find_element(By.ID, "editor-apply")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", apply)
        apply.click()
        self.wait.until(lambda d: "open" not in editor.get_attribute("class"))
        edited = self.api(f"/api/assets/{identifier}")
        self.assertEqual(edited["adjustmentFormatIdentifier"], "org.lightbox.example.negative")
        # The negative's render: its mean is 255 less the original's, by the grid's own thumbnails.
        before = self.driver.execute_async_script(MEAN_OF, f"{URL}/api/assets/{identifier}/image?w=64&h=64&version=original")
        after = self.driver.execute_async_script(MEAN_OF, f"{URL}/api/assets/{identifier}/image?w=64&h=64&t=1")
        self.assertAlmostEqual(before + after, 255, delta=12)
        self.api(f"/api/assets/{identifier}/edits", "DELETE")

    def test_the_viewer_in_recently_deleted_restores_and_does_not_edit(self):
        """Recently Deleted's viewer offered Edit and Favourite, not Restore."""
        self.sign_in()
        chosen = self.newest_first(3, 1)[0]
        self.api("/api/assets/delete", "POST", {"assets": [chosen]})
        trash = next(c["localIdentifier"] for c in self.api("/api/collections?type=smartAlbum")["collections"]
                     if c["assetCollectionSubtype"] == 1000000201)
        self.driver.get(URL + f"/#album={trash}&view={chosen}")
        viewer = self.driver.find_element(By.ID, "viewer")
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Recently Deleted")
        restore = self.driver.find_element(By.ID, "restore-one")
        self.wait.until(lambda d: restore.is_displayed())
        self.assertFalse(self.driver.find_element(By.ID, "edit").is_displayed())
        self.assertFalse(self.driver.find_element(By.ID, "favorite").is_displayed())
        self.shot("trash-viewer")
        restore.click()
        self.wait.until(lambda d: "open" not in viewer.get_attribute("class"))
        self.wait.until(lambda d: self.tile_of(chosen) is None)
        self.assertIn(chosen, self.newest_first(0, 10), "restored to the library, where it was")
        # Back in the library, the viewer offers Edit again.
        self.driver.get(URL + "/#view=" + chosen)
        self.wait.until(lambda d: "open" in viewer.get_attribute("class"))
        self.wait.until(lambda d: self.driver.find_element(By.ID, "edit").is_displayed())
        self.assertFalse(restore.is_displayed())

    def test_a_change_during_an_albums_first_read_leaves_its_photos_counted(self):
        """A link into an album opened nothing when a change arrived while its photos were first
        read: the refresh's read replaced the album's, which gave way and left the grid empty."""
        self.sign_in()
        chosen = self.newest_first(0, 3)
        album = self.api("/api/collections", "POST", {"title": "Read twice"})["localIdentifier"]
        try:
            self.api(f"/api/collections/{album}/assets", "POST", {"assets": chosen})
            # The album shown and, before its first read is back, the library changed (what the
            # change push does): once shown, the grid counts the album's photos.
            counted = self.driver.execute_async_script("""
                const [album, done] = arguments;
                import('/web/grid.js').then(async grid => {
                  const shown = grid.show({collection: album});
                  grid.refresh();
                  await shown;
                  done(grid.total());
                }).catch(error => done(String(error)));
            """, album)
            self.assertEqual(counted, len(chosen))
        finally:
            self.delete_album(album)

    def test_a_change_while_a_photo_is_read_still_opens_it(self):
        """A link to a photo in Recently Deleted opened no viewer when the deletion's change
        arrived while the photo was read: the refresh dropped that read, and the viewer got
        nothing for a photo that was there."""
        self.sign_in()
        chosen = self.newest_first(0, 1)[0]
        # The photo asked for and, before its chunk is back, the library changed (what the change
        # push does): the photo still arrives.
        read = self.driver.execute_async_script("""
            const done = arguments[0];
            import('/web/grid.js').then(async grid => {
              await grid.show();
              grid.refresh();
              const asked = grid.assetAt(0);
              grid.refresh();
              const asset = await asked;
              done(asset ? asset.localIdentifier : null);
            }).catch(error => done(String(error)));
        """)
        self.assertEqual(read, chosen)

    def test_search_chips_leave_when_an_album_is_shown(self):
        """A search's chip stayed over an album, and its × did nothing there."""
        self.sign_in()
        album = self.api("/api/collections", "POST", {"title": "Chips"})["localIdentifier"]
        try:
            self.driver.get(URL + "/#type=photo")
            chips = self.driver.find_element(By.ID, "chips")
            self.wait.until(lambda d: chips.is_displayed() and "Photos" in chips.text)
            self.click_sidebar("Chips")
            self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Chips")
            self.wait.until(lambda d: not chips.is_displayed())
            self.shot("album-without-chips")
            # Back to the search: its chip again, and its × takes the filter away.
            self.driver.get(URL + "/#type=photo")
            self.wait.until(lambda d: chips.is_displayed())
            chips.find_element(By.CSS_SELECTOR, "[data-filter=type]").click()
            self.wait.until(lambda d: not chips.is_displayed())
            self.wait.until(lambda d: d.find_element(By.ID, "title").text == "Library")
        finally:
            self.delete_album(album)

    def test_an_open_folder_stays_open_when_the_library_changes(self):
        """Any change anywhere made the sidebar again, closing every folder opened."""
        self.sign_in()
        folder = self.api("/api/lists", "POST", {"title": "Kept open"})["localIdentifier"]
        album = self.api("/api/collections", "POST", {"title": "Inside", "list": folder})["localIdentifier"]
        try:
            sidebar = self.open_sidebar()

            # Read afresh each try: the folder's making remakes the sidebar, maybe between a
            # find and its click.
            def open_folder(driver):
                try:
                    driver.find_element(By.CSS_SELECTOR, f'#sidebar summary[data-list="{folder}"]').click()
                    return True
                except (StaleElementReferenceException, NoSuchElementException):
                    return False
            self.wait.until(open_folder)
            inside = lambda d: [a for a in d.find_elements(By.CSS_SELECTOR, f'#sidebar a[data-collection="{album}"]')
                                if a.is_displayed()]
            self.wait.until(inside)
            # A change made elsewhere: the sidebar is made again, the folder stays open.
            other = self.api("/api/collections", "POST", {"title": "Elsewhere"})["localIdentifier"]
            self.wait.until(lambda d: "Elsewhere" in sidebar.text)
            self.wait.until(inside)
            details = self.driver.find_element(By.CSS_SELECTOR, f'#sidebar summary[data-list="{folder}"]')
            self.assertIsNotNone(details.find_element(By.XPATH, "..").get_attribute("open"))
            self.shot("still-open")
            self.api("/api/collections/" + other, "DELETE")
        finally:
            self.delete_album(album)
            self.api("/api/lists/" + folder, "DELETE")

    def test_a_server_out_of_reach_is_said_and_the_page_recovers(self):
        """With the server out of reach the page failed in silence."""
        self.expected_console = "ERR_INTERNET_DISCONNECTED"
        self.sign_in()
        self.wait.until(lambda d: len(self.tiles()) > 0)
        banner = self.driver.find_element(By.ID, "offline")
        self.assertFalse(banner.is_displayed())
        self.driver.execute_cdp_cmd("Network.enable", {})
        conditions = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, **conditions})
        # A search asks the server, which cannot be reached.
        self.driver.execute_script("location.hash = '#type=video'")
        self.wait.until(lambda d: banner.is_displayed())
        self.assertIn("cannot reach the server", banner.text)
        self.shot("out-of-reach")
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, **conditions})
        # Asked again on its own: the banner goes and the search shows what it selects.
        self.wait.until(lambda d: not banner.is_displayed())
        videos = self.api("/api/timeline?predicate=" + urllib.parse.quote("mediaType == video"))["count"]
        self.wait.until(lambda d: d.find_element(By.ID, "count").text == f"{videos:,} item" + ("" if videos == 1 else "s"))
        self.shot("back")

    def test_a_new_members_empty_library_says_how_to_add_photos(self):
        """A member was told to run a command, "lightbox import PATH", in a browser."""
        self.sign_in()
        name = "member" + str(int(time.time() * 1000) % 100000)
        self.api("/api/users", "POST", {"name": name, "password": "a member's password", "role": "member"})
        try:
            self.driver.delete_all_cookies()
            self.driver.get(URL + "/")
            self.wait.until(lambda d: d.current_url.endswith("/signin"))
            form = self.driver.find_element(By.ID, "signin")
            form.find_element(By.NAME, "name").send_keys(name)
            form.find_element(By.NAME, "password").send_keys("a member's password")
            form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            self.wait.until(lambda d: d.current_url == URL + "/")
            status = self.driver.find_element(By.ID, "status")
            self.wait.until(lambda d: "No photos yet" in status.text)
            self.assertNotIn("lightbox import", status.text)
            self.assertIn("Upload", status.text)
            self.shot("empty-library")
        finally:
            self.driver.delete_all_cookies()
            self.sign_in()
            self.api("/api/users/" + name, "DELETE")

    def test_the_editor_offers_a_trim_for_movies_only(self):
        """The trim row showed for every still photo: its `hidden` lost to the row's display."""
        self.sign_in()
        assets = self.api("/api/assets?offset=0&limit=200")["assets"]
        for asset in (next(a for a in assets if a["mediaType"] == 1), next(a for a in assets if a["mediaType"] == 2)):
            self.driver.get(URL + "/#edit=" + asset["localIdentifier"])
            editor = self.driver.find_element(By.ID, "editor")
            self.wait.until(lambda d: "open" in editor.get_attribute("class"))
            trim = self.driver.find_element(By.ID, "trim")
            self.wait.until(lambda d: trim.is_displayed() == (asset["mediaType"] == 2))
            self.shot("movie" if asset["mediaType"] == 2 else "still")
            self.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
            self.wait.until(lambda d: "open" not in editor.get_attribute("class"))

    def test_the_editor_shows_the_picture_and_keeps_save_in_sight(self):
        self.sign_in()
        self.wait.until(lambda d: len(self.tiles()) >= 1)
        self.tiles()[0].click()
        self.driver.find_element(By.ID, "edit").click()
        editor = self.driver.find_element(By.ID, "editor")
        self.wait.until(lambda d: "open" in editor.get_attribute("class"))
        preview = editor.find_element(By.CSS_SELECTOR, "figure img")
        self.wait_for_image(preview)
        width, height, _ = self.viewport
        box = lambda element: self.driver.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]", element
        )
        # The preview has most of the screen, not what a fixed sidebar leaves (90 px on a phone).
        left, top, right, bottom = box(editor.find_element(By.TAG_NAME, "figure"))
        self.assertGreater((right - left) * (bottom - top), width * height * 0.4)
        # Save is on the screen without scrolling, whatever the controls need.
        left, top, right, bottom = box(self.driver.find_element(By.ID, "save"))
        self.assertTrue(0 <= left and right <= width and 0 <= top and bottom <= height, (left, top, right, bottom))
        self.shot("editor")
        # A change, undone and redone; holding Before shows the photo as it was.
        exposure = editor.find_element(By.CSS_SELECTOR, "input[name=exposure]")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", exposure)
        exposure.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        self.wait.until(lambda d: float(exposure.get_attribute("value")) > 0)
        moved = exposure.get_attribute("value")
        self.wait.until(lambda d: preview.get_attribute("src").startswith("blob:"))
        undo = self.driver.find_element(By.ID, "undo")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", undo)
        self.assertTrue(undo.is_enabled())
        undo.click()
        undo.click()
        self.wait.until(lambda d: float(exposure.get_attribute("value")) == 0)
        self.driver.find_element(By.ID, "redo").click()
        self.driver.find_element(By.ID, "redo").click()
        self.wait.until(lambda d: exposure.get_attribute("value") == moved)
        self.wait.until(lambda d: preview.get_attribute("src").startswith("blob:"))
        compare = self.driver.find_element(By.ID, "compare")
        ActionChains(self.driver).click_and_hold(compare).perform()
        self.wait.until(lambda d: "/api/assets/" in preview.get_attribute("src"))
        self.assertIn("comparing", editor.get_attribute("class"))
        self.shot("before")
        ActionChains(self.driver).release(compare).perform()
        self.wait.until(lambda d: preview.get_attribute("src").startswith("blob:"))
        # Cancel with a change made asks first: kept when refused, closed when confirmed.
        self.driver.find_element(By.ID, "cancel").click()
        alert = WebDriverWait(self.driver, 20, ignored_exceptions=[NoAlertPresentException]).until(
            lambda d: d.switch_to.alert)
        self.assertIn("Discard your changes", alert.text)
        alert.dismiss()
        self.assertIn("open", editor.get_attribute("class"))
        self.driver.find_element(By.ID, "cancel").click()
        self.wait.until(lambda d: d.switch_to.alert).accept()
        self.wait.until(lambda d: "open" not in editor.get_attribute("class"))

    def test_shortcuts_are_listed_under_a_question_mark(self):
        self.sign_in()
        self.wait.until(lambda d: len(self.tiles()) >= 1)
        self.driver.find_element(By.TAG_NAME, "body").send_keys("?")
        dialog = self.driver.find_element(By.ID, "shortcuts")
        self.wait.until(lambda d: dialog.get_attribute("open") is not None)
        self.assertIn("Escape", dialog.text)
        self.shot("shortcuts")
        dialog.find_element(By.TAG_NAME, "button").click()
        self.wait.until(lambda d: dialog.get_attribute("open") is None)

    def test_the_sign_in_page_follows_the_systems_light_or_dark(self):
        backgrounds = {}
        for scheme in ("light", "dark"):
            self.driver.execute_cdp_cmd(
                "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
            )
            self.driver.get(URL + "/signin")
            backgrounds[scheme] = self.driver.execute_script(
                "return getComputedStyle(document.body).backgroundColor"
            )
            self.shot("signin-" + scheme)
        self.assertEqual(backgrounds["light"], "rgb(255, 255, 255)")
        self.assertEqual(backgrounds["dark"], "rgb(17, 17, 17)")

    def background(self):
        return self.driver.execute_script("return getComputedStyle(document.body).backgroundColor")

    def open_account(self):
        self.driver.find_element(By.ID, "account").click()
        dialog = self.driver.find_element(By.ID, "account-dialog")
        self.wait.until(lambda d: dialog.is_displayed())
        return dialog

    def test_the_library_follows_the_system_and_the_switch_keeps_a_choice(self):
        """The library was always dark; now light or dark as the system is, or as chosen."""
        self.driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]}
        )
        self.sign_in()
        self.wait.until(lambda d: self.tiles())
        self.assertEqual(self.background(), "rgb(255, 255, 255)")
        self.shot("light")
        dialog = self.open_account()
        automatic = dialog.find_element(By.CSS_SELECTOR, "#theme input[value=system]")
        self.assertTrue(automatic.is_selected())
        dialog.find_element(By.XPATH, ".//label[normalize-space()='Dark']").click()
        self.wait.until(lambda d: self.background() == "rgb(17, 17, 17)")
        self.shot("chosen-dark")
        # Kept in this browser: a reload (the system still light) stays dark, from its first paint.
        self.driver.refresh()
        self.assertEqual(self.driver.execute_script("return document.documentElement.dataset.theme"), "dark")
        self.wait.until(lambda d: self.tiles())
        self.assertEqual(self.background(), "rgb(17, 17, 17)")
        dialog = self.open_account()
        self.assertTrue(dialog.find_element(By.CSS_SELECTOR, "#theme input[value=dark]").is_selected())
        dialog.find_element(By.XPATH, ".//label[normalize-space()='Automatic']").click()
        self.wait.until(lambda d: self.background() == "rgb(255, 255, 255)")
        # Automatic follows the system as it changes.
        self.driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
        )
        self.wait.until(lambda d: self.background() == "rgb(17, 17, 17)")
        self.shot("automatic-dark")

    def new_member(self, prefix):
        """A member made by the admin (this test's user), with a name no other run has."""
        name = prefix + str(int(time.time() * 1000) % 10000000) + ("p" if self.viewport[2] else "d")
        self.api("/api/users", "POST", {"name": name, "password": "a member's password", "role": "member"})
        return name

    def session_of(self, name, password):
        """A session of another device: its cookie, or the HTTP status that refused it."""
        sign_in = urllib.request.Request(
            URL + "/api/session", json.dumps({"name": name, "password": password}).encode(),
            {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(sign_in) as answer:
                return answer.headers["Set-Cookie"].split(";")[0]
        except urllib.error.HTTPError as error:
            return error.code

    def status_with(self, headers, path="/api/authorization"):
        try:
            with urllib.request.urlopen(urllib.request.Request(URL + path, headers=headers)) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code

    def test_a_password_is_changed_in_the_account_menu_and_other_devices_sign_in_again(self):
        # The wrong current password is an answer (403), not an error of the page.
        self.expected_console = "status of 403"
        self.sign_in()
        name = self.new_member("pw")
        try:
            self.sign_in_as(name, "a member's password")
            other = self.session_of(name, "a member's password")
            self.assertEqual(self.status_with({"Cookie": other}), 200)
            dialog = self.open_account()
            dialog.find_element(By.XPATH, ".//summary[normalize-space()='Change password']").click()
            form = dialog.find_element(By.ID, "password-form")
            message = dialog.find_element(By.ID, "password-message")
            form.find_element(By.NAME, "current").send_keys("not my password")
            form.find_element(By.NAME, "new").send_keys("a new password")
            form.find_element(By.NAME, "again").send_keys("a new password")
            form.find_element(By.TAG_NAME, "button").click()
            self.wait.until(lambda d: "current password is wrong" in message.text)
            self.shot("wrong-current")
            self.assertEqual(self.status_with({"Cookie": other}), 200, "a refused change changes nothing")
            form.find_element(By.NAME, "current").clear()
            form.find_element(By.NAME, "current").send_keys("a member's password")
            form.find_element(By.NAME, "new").clear()
            form.find_element(By.NAME, "new").send_keys("a new password")
            form.find_element(By.NAME, "again").clear()
            form.find_element(By.NAME, "again").send_keys("a new password")
            form.find_element(By.TAG_NAME, "button").click()
            self.wait.until(lambda d: message.text.startswith("Changed"))
            self.shot("changed")
            # The other device is signed out; this browser goes on; the new password signs in.
            self.assertEqual(self.status_with({"Cookie": other}), 401)
            self.assertEqual(self.api("/api/authorization")["user"]["name"], name)
            self.assertEqual(self.session_of(name, "a member's password"), 401)
            self.assertIsInstance(self.session_of(name, "a new password"), str)
            # A member has no users page.
            self.assertFalse(self.driver.find_element(By.ID, "users-entry").is_displayed())
            self.assertFalse(dialog.find_element(By.ID, "account-users").is_displayed())
        finally:
            self.driver.delete_all_cookies()
            self.sign_in()
            self.api("/api/users/" + name, "DELETE")

    def test_a_token_is_made_shown_once_used_and_revoked(self):
        self.sign_in()
        dialog = self.open_account()
        dialog.find_element(By.XPATH, ".//summary[normalize-space()='Tokens for apps and scripts']").click()
        form = dialog.find_element(By.ID, "token-form")
        label = "backup script " + ("phone" if self.viewport[2] else "desktop") + str(int(time.time() * 1000) % 100000)
        form.find_element(By.NAME, "name").send_keys(label)
        form.find_element(By.TAG_NAME, "button").click()
        secret_field = dialog.find_element(By.CSS_SELECTOR, "#token-secret input")
        self.wait.until(lambda d: secret_field.is_displayed() and secret_field.get_attribute("value"))
        secret = secret_field.get_attribute("value")
        line = lambda: [item for item in dialog.find_elements(By.CSS_SELECTOR, "#token-list li") if label in item.text]
        self.wait.until(lambda d: line())
        self.assertIn("reads", line()[0].text)
        self.assertIn("never used", line()[0].text)
        self.shot("token-made")
        bearer = {"Authorization": "Bearer " + secret}
        self.assertEqual(self.status_with(bearer, "/api/assets?limit=1"), 200)
        # A read token cannot change the library.
        album = urllib.request.Request(
            URL + "/api/collections", b"{\"title\": \"x\"}", {**bearer, "Content-Type": "application/json"},
            method="POST")
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(album)
        self.assertEqual(refused.exception.code, 403)
        # The secret is never listed again.
        self.assertNotIn(secret, json.dumps(self.api("/api/tokens")))
        line()[0].find_element(By.TAG_NAME, "button").click()
        self.wait.until(lambda d: not line())
        self.assertIn("revoked", dialog.find_element(By.ID, "account-message").text)
        self.shot("token-revoked")
        self.assertEqual(self.status_with(bearer, "/api/assets?limit=1"), 401)

    def test_an_admin_adds_resets_and_removes_a_user_on_the_users_page(self):
        self.sign_in()
        if self.viewport[2]:
            self.open_account().find_element(By.ID, "account-users").click()
        else:
            self.driver.find_element(By.ID, "users-entry").click()
        page = self.driver.find_element(By.ID, "users-page")
        self.wait.until(lambda d: page.is_displayed() and d.find_element(By.ID, "title").text == "Users")
        lines = lambda: {item.find_element(By.CLASS_NAME, "who").text: item
                         for item in page.find_elements(By.CSS_SELECTOR, "li.user")}
        self.wait.until(lambda d: USER in lines())
        self.assertIn("(you)", lines()[USER].text)
        self.assertEqual(lines()[USER].find_elements(By.XPATH, ".//button[normalize-space()='Remove']"), [],
                         "an admin cannot remove themself")
        name = "added" + str(int(time.time() * 1000) % 10000000) + ("p" if self.viewport[2] else "d")
        form = page.find_element(By.ID, "user-form")
        form.find_element(By.NAME, "name").send_keys(name)
        form.find_element(By.NAME, "password").send_keys("their first password")
        form.find_element(By.TAG_NAME, "button").click()
        self.wait.until(lambda d: name in lines())
        self.assertIn("Member", lines()[name].text)
        self.shot("added")
        first = self.session_of(name, "their first password")
        self.assertIsInstance(first, str)
        # A password set anew: the old one and its sessions end.
        lines()[name].find_element(By.XPATH, ".//button[normalize-space()='Set password…']").click()
        field = lines()[name].find_element(By.CSS_SELECTOR, "input[type=password]")
        self.wait.until(lambda d: field.is_displayed())
        field.send_keys("their second password")
        lines()[name].find_element(By.XPATH, ".//button[normalize-space()='Set']").click()
        self.wait.until(lambda d: not field.is_displayed())
        self.assertEqual(self.status_with({"Cookie": first}), 401)
        self.assertEqual(self.session_of(name, "their first password"), 401)
        self.assertIsInstance(self.session_of(name, "their second password"), str)
        lines()[name].find_element(By.XPATH, ".//button[normalize-space()='Remove']").click()
        self.wait.until(lambda d: d.switch_to.alert).accept()
        self.wait.until(lambda d: name not in lines())
        self.shot("removed")
        self.assertEqual(self.session_of(name, "their second password"), 401)

    def sign_in_as(self, name, password):
        """Signs out whoever is signed in, then in as `name`."""
        self.driver.delete_all_cookies()
        self.driver.get(URL + "/")
        self.wait.until(lambda d: d.current_url.endswith("/signin"))
        form = self.driver.find_element(By.ID, "signin")
        form.find_element(By.NAME, "name").send_keys(name)
        form.find_element(By.NAME, "password").send_keys(password)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        self.wait.until(lambda d: d.current_url == URL + "/")

    def share_lines(self, container, album=None):
        """The lines of shares in `container`, of the album titled `album` on the Shared page."""
        if album is None:
            return [line.text for line in self.driver.find_elements(By.CSS_SELECTOR, container + " li.share")]
        return self.driver.execute_script("""
            const [container, album] = arguments;
            return [...document.querySelectorAll(container + ' section.shared-album')]
              .filter(section => section.querySelector('h3').textContent === album)
              .flatMap(section => [...section.querySelectorAll('li.share')].map(line => line.innerText));
        """, container, album)

    def test_an_album_shared_from_the_page_shows_on_the_members_shared_page(self):
        """A member was never shown what was shared with them, and shares were made only with
        the CLI or the API: here from the album's Share, and stopped from the Shared page."""
        self.sign_in()
        member = "friend" + str(int(time.time() * 1000) % 100000)
        self.api("/api/users", "POST", {"name": member, "password": "a friend's password", "role": "member"})
        ids = self.newest_first(0, 3)
        title = "Holiday " + member
        album = self.api("/api/collections", "POST", {"title": title, "assets": ids})["localIdentifier"]
        try:
            self.driver.get(URL + "/#album=" + album)
            share = self.driver.find_element(By.ID, "share-album")
            self.wait.until(lambda d: share.is_displayed())
            share.click()
            dialog = self.driver.find_element(By.ID, "share-dialog")
            self.wait.until(lambda d: dialog.is_displayed())
            self.assertEqual(dialog.find_element(By.ID, "share-title").text, f"Share “{title}”")
            person = dialog.find_element(By.ID, "share-person")
            person.find_element(By.NAME, "user").send_keys(member)
            Select(person.find_element(By.NAME, "permission")).select_by_visible_text("View and add photos")
            person.find_element(By.TAG_NAME, "button").click()
            self.wait.until(lambda d: any(member in line and "can view and add photos" in line
                                          for line in self.share_lines("#share-list")))
            # Someone who is not a user here: said, nothing shared.
            person.find_element(By.NAME, "user").send_keys("nobody-here")
            person.find_element(By.TAG_NAME, "button").click()
            self.wait.until(lambda d: d.find_element(By.ID, "share-error").text != "")
            link = dialog.find_element(By.ID, "share-link")
            link.find_element(By.NAME, "password").send_keys("a link's password")
            Select(link.find_element(By.NAME, "expires")).select_by_visible_text("Expires in a week")
            link.find_element(By.TAG_NAME, "button").click()
            self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#share-list input.link"))
            url = dialog.find_element(By.CSS_SELECTOR, "#share-list input.link").get_attribute("value")
            self.assertTrue(url.startswith(URL + "/s/"), url)
            self.assertTrue(any("with a password" in line and "expires" in line for line in self.share_lines("#share-list")))
            self.shot("share-dialog")
            made = self.api("/api/shares")["made"]
            self.assertEqual(sorted((m.get("user") or "", m["permission"], bool(m.get("link"))) for m in made if m["album"] == album),
                             [("", "view", True), (member, "contribute", False)])
            dialog.find_element(By.CSS_SELECTOR, "form[method=dialog] button").click()
            # The owner's Shared page: the album with its two shares.
            self.driver.get(URL + "/#shared")
            self.wait.until(lambda d: len(self.share_lines("#shared-made", title)) == 2)
            self.assertIn(title, self.driver.find_element(By.ID, "shared-made").text)
            self.assertEqual(self.driver.find_element(By.ID, "title").text, "Shared")
            # A change elsewhere: the page stays, and its album's new title shows (the grid it
            # hides once read a page's HTML as photos and said it could not).
            self.api(f"/api/collections/{album}", "PATCH", {"title": title + " renamed"})
            self.wait.until(lambda d: len(self.share_lines("#shared-made", title + " renamed")) == 2)
            self.assertEqual(self.driver.find_element(By.ID, "status").text, "")
            self.api(f"/api/collections/{album}", "PATCH", {"title": title})
            self.wait.until(lambda d: len(self.share_lines("#shared-made", title)) == 2)
            self.shot("owners-shared-page")

            # The member: an empty library that points to the Shared page, the album's cover
            # there with its owner and count, and its own page.
            self.sign_in_as(member, "a friend's password")
            pointer = self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#status a"))
            self.assertEqual(pointer[0].text, "One album is shared with you")
            pointer[0].click()
            self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#shared-received a.cover"))
            cover = self.driver.find_element(By.CSS_SELECTOR, "#shared-received a.cover")
            self.assertIn(title, cover.text)
            self.assertIn(f"From {USER} · 3 items · you can view and add photos", cover.text)
            self.wait_for_image(cover.find_element(By.TAG_NAME, "img"))
            self.shot("members-shared-page")
            cover.click()
            self.wait.until(lambda d: d.find_element(By.ID, "shared-title").text == title)
            self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#shared-grid .tile")) == 3)
            self.assertIn(f"3 items shared by {USER}", self.driver.find_element(By.ID, "shared-count").text)
            for image in self.driver.find_elements(By.CSS_SELECTOR, "#shared-grid img"):
                self.wait_for_image(image)
            shared_page = self.driver.current_url
            self.shot("members-album")
            self.driver.find_element(By.ID, "shared-back").click()
            self.wait.until(lambda d: d.current_url == URL + "/#shared")

            # The owner stops sharing with the member: gone from both pages at once.
            self.sign_in_as(USER, PASSWORD)
            self.driver.get(URL + "/#shared")
            stop = self.wait.until(lambda d: d.find_elements(
                By.CSS_SELECTOR, f'#shared-made button[aria-label="Stop sharing with {member}"]'))
            stop[0].click()
            self.wait.until(lambda d: len(self.share_lines("#shared-made", title)) == 1)
            self.sign_in_as(member, "a friend's password")
            self.driver.get(URL + "/#shared")
            self.wait.until(lambda d: "Nothing is shared with you yet." in d.find_element(By.ID, "shared-received").text)
            self.driver.get(shared_page)
            self.wait.until(lambda d: "not shared with you" in d.find_element(By.ID, "shared-message").text)
            self.shot("ended")
            # No such user (400), a share that ended (404) and the page's requests as cookies
            # were cleared to sign in as another (401) are answers, not errors of the page.
            self.expected_console = ("status of 400", "status of 404", "status of 401")
        finally:
            self.sign_in_as(USER, PASSWORD)
            self.api("/api/users/" + member, "DELETE")
            for share in self.api("/api/shares")["made"]:
                if share["album"] == album:
                    self.api("/api/shares/" + share["id"], "DELETE")
            self.delete_album(album)

    def test_a_selection_is_shared_as_a_new_album(self):
        self.sign_in()
        ids = self.newest_first(0, 2)
        self.wait.until(lambda d: len(self.tiles()) >= 2)
        self.select_tiles(ids)
        self.driver.find_element(By.ID, "share-selection").click()
        name_dialog = self.driver.find_element(By.ID, "name-dialog")
        self.wait.until(lambda d: name_dialog.is_displayed())
        field = name_dialog.find_element(By.NAME, "name")
        field.clear()
        field.send_keys("Two to share")
        name_dialog.find_element(By.CSS_SELECTOR, "button[value=ok]").click()
        dialog = self.driver.find_element(By.ID, "share-dialog")
        self.wait.until(lambda d: dialog.is_displayed())
        self.assertEqual(dialog.find_element(By.ID, "share-title").text, "Share “Two to share”")
        self.wait.until(lambda d: "Not shared yet." in d.find_element(By.ID, "share-list").text)
        self.shot("share-selection")
        albums = self.api("/api/collections?type=album&limit=1000")["collections"]
        album = next(a for a in albums if a["localizedTitle"] == "Two to share")
        members = self.api(f"/api/collections/{album['localIdentifier']}/assets")["assets"]
        self.assertEqual(sorted(a["localIdentifier"] for a in members), sorted(ids))
        self.api("/api/collections/" + album["localIdentifier"], "DELETE")

    def test_a_shared_link_shows_its_album_to_anyone_and_asks_its_password(self):
        self.sign_in()
        ids = [asset["localIdentifier"] for asset in self.api("/api/assets?limit=3")["assets"]]
        # Its own title: the desktop's and the phone's runs share one library, where a title is
        # one album's.
        title = "Weekend " + str(int(time.time() * 1000) % 100000)
        album = self.api("/api/collections", "POST", {"title": title, "assets": ids})["localIdentifier"]
        open_link = self.api(f"/api/collections/{album}/links", "POST", {})["path"]
        locked = self.api(f"/api/collections/{album}/links", "POST", {"password": "a link's password"})["path"]
        # A visitor: no session.
        self.driver.delete_all_cookies()
        self.driver.get(URL + open_link)
        self.wait.until(lambda d: d.find_element(By.ID, "shared-title").text == title)
        self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#shared-grid .tile")) == 3)
        self.assertIn("3 items", self.driver.find_element(By.ID, "shared-count").text)
        for image in self.driver.find_elements(By.CSS_SELECTOR, "#shared-grid img"):
            self.wait_for_image(image)
        self.shot("shared")
        self.driver.find_elements(By.CSS_SELECTOR, "#shared-grid .tile")[0].click()
        dialog = self.driver.find_element(By.ID, "shared-viewer")
        self.wait.until(lambda d: dialog.get_attribute("open") is not None)
        self.wait_for_image(dialog.find_element(By.TAG_NAME, "img"))
        self.shot("shared-viewer")

        self.driver.get(URL + locked)
        form = self.driver.find_element(By.ID, "shared-unlock")
        self.wait.until(lambda d: form.is_displayed())
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "#shared-grid .tile"), [])
        form.find_element(By.NAME, "password").send_keys("not the password")
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        self.wait.until(lambda d: d.find_element(By.ID, "shared-error").text != "")
        self.shot("locked")
        field = form.find_element(By.NAME, "password")
        field.clear()
        field.send_keys("a link's password")
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#shared-grid .tile")) == 3)
        self.shot("unlocked")
        # A guessed link: said so, not "Loading…".
        self.driver.get(URL + "/s/a-guessed-key")
        self.wait.until(lambda d: "does not exist" in d.find_element(By.ID, "shared-message").text)
        self.assertEqual(self.driver.find_element(By.ID, "shared-title").text, "Not shared")
        self.shot("guessed")
        # A locked link, a wrong password (401) and a guessed link (404) are answers, not errors
        # of the page.
        self.expected_console = ("status of 401", "status of 404")


class DesktopTests(PageChecks, unittest.TestCase):
    viewport = (1400, 900, False)


class PhoneTests(PageChecks, unittest.TestCase):
    viewport = (390, 844, True)


if __name__ == "__main__":
    unittest.main()
