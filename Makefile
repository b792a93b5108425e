# Lightbox: `make run` and `make test` work on a fresh Debian 12 machine with Swift installed.
# They install the Debian packages Lightbox needs when missing, then build.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# libvips (pixels), libjpeg-turbo (camera JPEGs decoded from memory), Little CMS (ICC profiles
# to sRGB), libheif (HEIFs), FFmpeg's libraries (movies' poster frames, HEIF tiles; libavdevice:
# cameras, microphones and the synthetic camera), SQLite (GRDB), pkg-config (finds libvips), the ffmpeg command (the
# tests' oracle for video frames), the vips command (the tests' oracle for edit filters), and jq
# and Pillow, which the example editors use (examples/editors, tested), and WordNet, the words the
# analysis service names the things in photos with (docs/ANALYSIS.md): checked as Debian packages.
DEBIAN_PACKAGES := libvips-dev libjpeg62-turbo-dev liblcms2-dev libheif-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev \
	libavdevice-dev libsqlite3-dev pkg-config ffmpeg libvips-tools jq python3-pil wordnet-base
# Tools checked as commands, so that one installed another way (a pyenv Python) counts:
# exiftool is the tests' metadata oracle; Python and pip fetch the corpus's PyPI sources.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Our own C optimised in debug builds too (Package.swift, ownC): exported, so that every build
# of make's targets and of the scripts they run has the same flags, and none builds again.
export LIGHTBOX_OPTIMISE_C := 1

LIBRARY ?= Demo.lightbox
HOST ?= 127.0.0.1
PORT ?= 8080
# `make run` serves from the release build: the demo's import took 1.3 to 1.4 s with it and
# 4.5 to 5.0 s with the debug build, whose own C (resizing, colour, HEIF tiles) is unoptimised.
BIN := .build/release/lightbox

# A handful of real photos for the demo: phones, a DSLR, iPhone HEIC, wallpapers, a screenshot.
SAMPLES := \
	.corpus/forensics/original-files/pic1/IMG_1054.JPG \
	.corpus/forensics/original-files/pic1/IMG_20200827_231612.jpg \
	.corpus/forensics/original-files/pic2/IMG_20191224_234846.jpg \
	.corpus/forensics/original-files/pic2/IMG_20200124_231153.jpg \
	.corpus/forensics/original-files/pic2/IMG_20200608_111614.jpg \
	.corpus/digikam/body-background.jpg \
	.corpus/exiv2/data/2021-02-13-1929.heic \
	.corpus/exiv2/data/IMG_3578.heic \
	.corpus/exiv2/data/exiv2-nikon-d70.jpg \
	.corpus/lomiri/backgrounds

.PHONY: all deps web-deps service-deps corpus build release test fuzz format api-docs bench run clean

all: build

# Shell for the targets below: `missing_packages` adds to `missing` each Debian package of its
# list that is not installed; `install_missing` installs them, when there are any.
missing_packages = for package in $(1); do \
	dpkg-query -W -f='$${Status}' "$$package" 2>/dev/null | grep -q "ok installed" || missing="$$missing $$package"; \
	done
install_missing = if [ -n "$$missing" ]; then \
	echo "Installing Debian packages:$$missing"; \
	$(SUDO) apt-get update -q; \
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi

## deps: install the Debian packages Lightbox needs, when any is missing
deps:
	@missing=""; \
	$(call missing_packages,$(DEBIAN_PACKAGES)); \
	command -v exiftool >/dev/null || missing="$$missing libimage-exiftool-perl"; \
	command -v python3 >/dev/null || missing="$$missing python3"; \
	python3 -c "import pip" 2>/dev/null || missing="$$missing python3-pip"; \
	$(install_missing)

# The browser tests (scripts/check-web) drive Debian's Chromium through its matching
# chromium-driver with Selenium (from PyPI, in a venv of the check's own): `make test` only.
WEB_PACKAGES := chromium chromium-driver python3-venv

## web-deps: install Chromium and its driver for the browser tests, when missing
web-deps:
	@missing=""; \
	$(call missing_packages,$(WEB_PACKAGES)); \
	$(install_missing)

# The servers `make test` starts for the tests (scripts/services): Debian's PostgreSQL server,
# and a venv for moto's S3 server from PyPI.
SERVICE_PACKAGES := postgresql python3-venv

## service-deps: install the servers the tests start (PostgreSQL), when missing
service-deps:
	@missing=""; \
	$(call missing_packages,$(SERVICE_PACKAGES)); \
	$(install_missing)

## corpus: fetch the real photos the tests and the demo use into .corpus/
corpus:
	scripts/fetch-corpus

## build: build the lightbox command and the libraries
build: deps
	swift build

## release: build the lightbox command and the benchmarks optimised, with Swift's runtime linked in
# Linked in, Swift's runtime and Foundation need no dynamic linking at each start: `lightbox
# --version` takes 8 to 9 ms instead of 16 to 17 (docs/BENCHMARKS.md, Process start).
SWIFT_RELEASE := swift build -c release --static-swift-stdlib
release: deps
	$(SWIFT_RELEASE) --product lightbox
	$(SWIFT_RELEASE) --product lightbox-confine
	$(SWIFT_RELEASE) --product lightbox-bench

## test: build and run every test, on real photos
test: deps web-deps service-deps corpus
	scripts/step format scripts/check-format
	scripts/step imports scripts/check-imports
	scripts/step analysis scripts/check-analysis
	@log=$$(mktemp); start=$$(date +%s); \
	swift build --build-tests 2>&1 | tee "$$log"; \
	echo "step build: $$(($$(date +%s) - start)) s" >&2; \
	if grep -E "^$(CURDIR)/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning:" "$$log"; then \
		echo "Lightbox's own code has warnings (above); it must build without any." >&2; rm -f "$$log"; exit 1; \
	fi; \
	rm -f "$$log"
	rm -f $(LIBRARY_SUITES)
	LIGHTBOX_TEST_LIBRARY_SUITES=$(CURDIR)/$(LIBRARY_SUITES) scripts/step tests scripts/services swift test --skip-build
	LIGHTBOX_TEST_CATALOG=postgres scripts/step tests-postgres scripts/services swift test --skip-build \
		--filter "$$(scripts/library-suites $(LIBRARY_SUITES) '$(MODEL_SUITES)')"
	scripts/step cluster scripts/services scripts/check-cluster
	scripts/step api scripts/check-api --examples $(API_CHECK_EXAMPLES)
	scripts/step web scripts/check-web
	scripts/step hostile scripts/check-hostile --seconds $(HOSTILE_CHECK_SECONDS)
	scripts/step fuzz scripts/fuzz --replay

# make test runs these suites a second time with every library they make on PostgreSQL: the
# model's suites, parameterised over both stores (TemporaryDirectory.makeLibrary); of them, those
# that made a library in the first pass, which lists them in LIBRARY_SUITES (scripts/library-suites).
MODEL_SUITES ?= LightboxTests|LightboxServerTests
LIBRARY_SUITES := .build/library-suites.txt

# make test has schemathesis (scripts/check-api) try this many generated requests per operation
# of the OpenAPI document, against a served library.
API_CHECK_EXAMPLES ?= 25

# make test sends the hostile files and requests of issue 46 to a server this long, four at a
# time, watching its reads and memory (scripts/check-hostile).
HOSTILE_CHECK_SECONDS ?= 60

# make test replays each fuzz target's committed inputs with the debug build it has made (a
# sanitizer build is a release build of every dependency again); make fuzz fuzzes each with the
# sanitizers until it has used FUZZ_CPU_SECONDS of processor time (one CPU-hour:
# docs/SECURITY.md), FUZZ_JOBS at a time.
FUZZ_CPU_SECONDS ?= 3600
FUZZ_JOBS ?= 1

## format: format every Swift file with the repository's .swift-format (make test refuses one it would change)
format:
	swift format -i -r --parallel Sources Tests Package.swift

## api-docs: write docs/API.md's route reference again from the router's table (make test fails when they differ)
api-docs: deps
	LIGHTBOX_WRITE_API_DOCS=1 swift test --filter APIReferenceTests

## fuzz: fuzz every parser of untrusted bytes with libFuzzer (scripts/fuzz), an hour each
fuzz: deps corpus
	scripts/fuzz --cpu-seconds $(FUZZ_CPU_SECONDS) --jobs $(FUZZ_JOBS)

# The image benchmark's JPEGs: 12 MP phones, a 24 MP camera, a progressive worst case.
BENCH_JPEGS := \
	.corpus/forensics/original-files/pic1/IMG_20200827_231612.jpg \
	.corpus/forensics/original-files/pic2/IMG_20191224_234846.jpg \
	.corpus/forensics/original-files/pic2/IMG_20200124_231153.jpg \
	.corpus/forensics/original-files/pic2/IMG_20200608_111614.jpg \
	.corpus/digikam/body-background.jpg .corpus/exiv2/data/exiv2-bug922a.jpg \
	.corpus/lomiri/backgrounds/Dragonfly_by_Bolly.jpg

## bench: build in release mode (make release) and measure import, thumbnails, images, caches, metadata, edits, movie edits, capture, serving, the web page, PostgreSQL and several servers, and own C
bench: release corpus
	@missing=""; \
	command -v exiv2 >/dev/null || missing="$$missing exiv2"; \
	command -v vipsthumbnail >/dev/null || missing="$$missing libvips-tools"; \
	/usr/bin/python3 -c "import PIL" 2>/dev/null || missing="$$missing python3-pil"; \
	[ -x /usr/bin/convert ] || missing="$$missing imagemagick"; \
	command -v wrk >/dev/null || missing="$$missing wrk"; \
	command -v nginx >/dev/null || missing="$$missing nginx"; \
	command -v curl >/dev/null || missing="$$missing curl"; \
	if [ -n "$$missing" ]; then \
		echo "Installing the benchmarks' references:$$missing"; \
		$(SUDO) apt-get update -q; DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q --no-install-recommends $$missing; \
	fi
	.build/release/lightbox-bench import .corpus/lomiri/backgrounds .corpus/forensics/original-files/pic1 \
		.corpus/forensics/original-files/pic2 .corpus/exiv2/data/2021-02-13-1929.heic .corpus/exiv2/data/IMG_3578.heic
	.build/release/lightbox-bench metadata .corpus
	.build/release/lightbox-bench thumbnails --size 360 --mode fill .corpus/lomiri/backgrounds \
		.corpus/forensics/original-files/pic2 .corpus/exiv2/data/2021-02-13-1929.heic .corpus/exiv2/data/IMG_3578.heic
	.build/release/lightbox-bench images --rounds 3 $(BENCH_JPEGS)
	.build/release/lightbox-bench images --rounds 5 .corpus/exiv2/data/IMG_3578.heic .corpus/exiv2/data/2021-02-13-1929.heic
	# A hundred 256 px HEIC thumbnails: ten are mostly process start and library loading.
	.build/release/lightbox-bench images --size 256 --rounds 50 .corpus/exiv2/data/IMG_3578.heic \
		.corpus/exiv2/data/2021-02-13-1929.heic
	.build/release/lightbox-bench image-cache .corpus/forensics/original-files/pic2 .corpus/exiv2/data/IMG_3578.heic \
		.corpus/digikam/body-background.jpg
	.build/release/lightbox-bench edit .corpus/exiv2/data/exiv2-bug922a.jpg
	# A 10 s 1080p phone movie (a real one looped) edited with three filters, against ffmpeg.
	mkdir -p .build/bench
	ffmpeg -v error -y -stream_loop 6 -i .corpus/forensics/original-files/movie1/VID_20191220_170832.mp4 -t 10 \
		-c copy .build/bench/movie10.mp4
	.build/release/lightbox-bench movie-edit .build/bench/movie10.mp4 --rounds 3
	# Live Photo capture from the synthetic camera at 1920x1080, 30 frames a second (docs/BENCHMARKS.md, Capture).
	.build/release/lightbox-bench capture --captures 10 --interval 1 --format heic
	.build/release/lightbox-bench capture --captures 10 --interval 1 --format jpeg
	# Thumbnails served against nginx, uploads against cp (docs/BENCHMARKS.md, Serving and uploading).
	scripts/bench-server --seconds 10
	# The web page in Chromium over 100,000 assets (docs/BENCHMARKS.md, The web page).
	$(MAKE) web-deps
	scripts/bench-web --assets 100000 --runs 5
	# Beyond one machine: fetches over 1,000,000 assets on both stores, then servers and workers on
	# one PostgreSQL catalog and one bucket (docs/BENCHMARKS.md, Beyond one machine).
	$(MAKE) service-deps
	LIGHTBOX_SERVICES_DURABLE=1 scripts/services sh -c '.build/release/lightbox-bench fetch --assets 1000000 && \
		.build/release/lightbox-bench fetch --assets 1000000 --database "$$LIGHTBOX_TEST_POSTGRES" && scripts/bench-cluster'
	# Lightbox's own C against the library each piece replaces (docs/BENCHMARKS.md, Own code).
	.build/release/lightbox-bench own-code --rounds 11 $(BENCH_JPEGS) .corpus/exiv2/data/IMG_3578.heic \
		.corpus/exiv2/data/2021-02-13-1929.heic

## run: import the sample photos into Demo.lightbox and serve them at http://HOST:PORT
run: deps
	$(SWIFT_RELEASE) --product lightbox
	scripts/analysis-venv
	scripts/fetch-corpus --only forensics digikam exiv2 lomiri
	$(BIN) import --library "$(LIBRARY)" $(SAMPLES)
	@echo "Open http://$(HOST):$(PORT) in a browser"
	$(BIN) serve --library "$(LIBRARY)" --host "$(HOST)" --port "$(PORT)"

clean:
	swift package clean
	rm -rf "$(LIBRARY)"
