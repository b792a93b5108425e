// The grid: the whole library newest first under month and day headings (the timeline), or one
// album in its order, in justified rows (each photo its own shape, every full row the grid's
// width, as Immich and Photos lay them out) or in square crops (the A key). The timeline is laid
// out from the days alone (/api/timeline: each day, how many it holds and each one's shape)
// before any asset is read, so the scroll bar and the scrubber span the whole library at once
// and nothing moves as pages arrive. Only what is near the screen
// is in the page; the assets of a position are read a chunk at a time (?offset=), the chunks
// on screen first. In selection mode a click selects (shift-click: a range; on touch, a sweep)
// instead of opening.
import { TILE, WHOLE_TILE, assetPath, cache, clock, filename, items, request, version } from './api.js';

const grid = document.getElementById('grid');
const status = document.getElementById('status');
const scrubber = document.getElementById('scrubber');
const bubble = document.getElementById('scrubber-label');
const CHUNK = 200;
// The type of a drag of photos from the grid (to an album).
export const DRAGGED_ASSETS = 'application/x-lightbox-assets';
// A tile dragged onto another of the same album: its position (the album takes a new order).
const DRAGGED_POSITION = 'application/x-lightbox-position';
// What a click on a tile opens (the viewer, at its position): main.js wires it, so that the
// grid imports no module that imports it.
let openAt = () => {};
export function onOpen(action) {
  openAt = action;
}
// While an album of the user's is shown: called with the position dragged and where it was
// dropped (sidebar.js sets it, as it knows what is shown).
let reorder = null;
export function setReorder(action) {
  reorder = action;
}
// When the collection shown is gone (deleted elsewhere, in another tab or by another
// client): sidebar.js sets it, to go back to the library and say so.
let gone = () => {};
export function onGone(action) {
  gone = action;
}
const GAP = 3;
// Justified rows: the narrowest and widest shape a tile takes (a panorama is shown cropped to
// three times as wide as tall, not as a strip).
const NARROWEST = 0.5, WIDEST = 3;
const MONTH_HEIGHT = 56;
const DAY_HEIGHT = 34;
// Between two days that share a row.
const DAY_GAP = 14;
// Chunks kept in memory (12,000 assets), and read at once.
const KEPT_CHUNKS = 60;
const PARALLEL_READS = 3;

// Where everything is: the rows of tiles (each its top, height, left edge and first asset), the
// day headings and months with their positions in the grid, the whole height.
let layout = { rows: [], days: [], months: [], height: 0, count: 0 };
let timelineDays = [];
// Each asset's shape (width over height) by position, from the timeline, for the layout.
let shapes = new Float32Array(0);
// Chunk number -> its assets once read; the chunks being read. After a change, the chunks
// read before it show until their new reads arrive (no blank tiles for a moment).
let chunks = new Map();
let stale = new Map();
const reading = new Map();
// What the page holds now, by key: month and day headings, tiles by index.
const shown = new Map();
// Bumped when the library changes or another source is shown: answers to older reads are dropped.
let generation = 0;
// What the grid shows: where its assets are read, and whether it has days (the library's
// timeline) or is one run in its own order (an album).
let source = { assets: '/api/assets', timeline: '/api/timeline?aspects=true', days: true };
// The selection: asset identifiers, and the index a shift-click extends from.
export const selection = { active: false, ids: new Set(), anchor: -1, changed: () => {} };
let scheduled = false;

const monthName = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const dayName = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
const dayWithYear = new Intl.DateTimeFormat(undefined,
                                           { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

function utcDate(day) {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, date || 1));
}

// The assets' address with more of a query.
function assetsURL(query) {
  return source.assets + (source.assets.includes('?') ? '&' : '?') + query;
}

// The number of assets, all of the library's (not what is loaded).
export function total() {
  return layout.count;
}

// The asset at a position, if its chunk is read.
export function loadedAsset(index) {
  const chunk = chunks.get(Math.floor(index / CHUNK));
  return chunk ? chunk[index % CHUNK] : undefined;
}

// The asset at a position, reading its chunk when it is not. A refresh (a change pushed) while
// the chunk is read drops that read, and the chunk is read again from the refreshed library:
// whoever asked (the viewer opening a link's photo) never gets nothing for an asset that is there.
export async function assetAt(index) {
  const number = Math.floor(index / CHUNK);
  while (!chunks.has(number)) {
    const asked = generation, of = source;
    await readChunk(number);
    if (asked === generation || of !== source) break;
  }
  return loadedAsset(index);
}

// Where an asset is in the timeline (a link to it): the server finds it in the same fetch.
export async function indexOf(localIdentifier) {
  const page = await (await request(assetsURL('limit=1&at=' + encodeURIComponent(localIdentifier)))).json();
  return page.offset;
}

// Shows the library's timeline (no argument), its assets a predicate selects (newest first,
// under their days), or a collection's assets in its order; from the top.
export async function show({ collection = null, predicate = null } = {}) {
  const filter = predicate
    ? '?predicate=' + encodeURIComponent(predicate) + '&sort=' + encodeURIComponent('localCreationDate desc') : '';
  const collectionPath = collection && '/api/collections/' + encodeURIComponent(collection);
  source = collection
    ? { collection, assets: collectionPath + '/assets', timeline: collectionPath + '/timeline?aspects=true', days: false }
    : { assets: '/api/assets' + filter, timeline: '/api/timeline' + (filter ? filter + '&' : '?') + 'aspects=true', days: true };
  clear();
  scrollTo(0, 0);
  await loadTimeline();
}

// Forgets every asset read and every tile shown: a new source's, or none.
function clear() {
  generation++;
  chunks = new Map();
  stale = new Map();
  reading.clear();
  for (const [key, element] of shown) { element.remove(); shown.delete(key); }
  timelineDays = [];
  relayout();
}

// Shows no photos but `message` (an album a link names that does not exist).
export function showNothing(message) {
  source = { assets: '', timeline: null, days: false };
  clear();
  document.getElementById('count').textContent = '';
  status.textContent = message;
}

async function readChunk(number) {
  if (reading.has(number)) return reading.get(number);
  const asked = generation;
  const read = (async () => {
    const response = await request(assetsURL('offset=' + number * CHUNK + '&limit=' + CHUNK));
    const page = await response.json();
    if (asked !== generation) return;
    chunks.set(number, page.assets);
    cache('start', page.assets.map(a => a.localIdentifier), tileSize());
    forgetFarChunks(number);
    // Whoever asked (the grid, the viewer, a link), the grid shows what arrived.
    schedule();
  })().finally(() => reading.delete(number));
  reading.set(number, read);
  return read;
}

function forgetFarChunks(near) {
  if (chunks.size <= KEPT_CHUNKS) return;
  const far = [...chunks.keys()].sort((a, b) => Math.abs(b - near) - Math.abs(a - near));
  for (const number of far.slice(0, chunks.size - KEPT_CHUNKS)) chunks.delete(number);
}

// The newest read of the timeline (show, refresh): a change pushed while a source's first read
// is in flight begins another, and the first gives way to it.
let timelineRead = Promise.resolve();

// Reads the days and lays the timeline out; again when the library changes. Resolves once the
// newest read has, not the one a later refresh replaced: whoever waits (a link to a photo in an
// album) counts the photos the newest read laid out, never the none of a read that gave way.
async function loadTimeline() {
  timelineRead = readTimeline();
  let awaited;
  do {
    awaited = timelineRead;
    await awaited;
  } while (awaited !== timelineRead);
}

async function readTimeline() {
  const asked = generation;
  try {
    const timeline = await (await request(source.timeline)).json();
    if (asked !== generation) return;
    const count = timeline.count;
    // A collection is one run in its own order, without headings.
    timelineDays = !source.days ? (count ? [{ day: null, count }] : []) : timeline.days;
    shapes = new Float32Array(count);
    let at = 0;
    for (const day of timeline.days) {
      for (let i = 0; i < day.count; i++) shapes[at + i] = (day.aspects && day.aspects[i] || 100) / 100;
      at += day.count;
    }
    document.getElementById('count').textContent = items(count);
    status.textContent = count ? ''
      : source.assets.includes('predicate=') ? 'Nothing matches these filters.'
      : source.days ? 'No photos yet. Add some with Upload, or drop them on this page.' : 'Nothing here yet.';
    // An empty library: the Shared page may point to albums others share (sharing.js).
    if (!count && source.days && !source.assets.includes('predicate=')) dispatchEvent(new Event('lightbox-empty'));
    relayout();
  } catch (error) {
    if (asked !== generation) return;
    if (error.status === 404 && source.collection) gone(source.collection);
    else status.textContent = 'Could not load photos: ' + error.message;
  }
}

// The library changed elsewhere (the change push): read the days and the chunks again.
export async function refresh() {
  // Nothing shown (the Shared page, an album not found): nothing to read again.
  if (!source.assets) return;
  generation++;
  stale = chunks;
  chunks = new Map();
  reading.clear();
  await loadTimeline();
}

// The layout: months under their headings, and in a month its days, each under its heading,
// newest first. A day's photos are justified rows: as many as fit at the row height the screen
// asks for, then the row scaled to the grid's width (its height nearest that asked for); its
// last row keeps that height. Days short enough for one row share rows, side by side (as in
// Immich and Photos): a library of sparse days is not a column of half-empty rows. In square
// crops every shape is 1 and every row a whole number of columns. An album is one run without
// headings.
function relayout() {
  const width = grid.clientWidth;
  const square = document.body.classList.contains('square');
  const target = width < 500 ? (square ? 90 : 100) : width < 900 ? 140 : (square ? 180 : 190);
  const columns = Math.max(1, Math.floor((width + GAP) / (target + GAP)));
  const side = (width - GAP * (columns - 1)) / columns;
  const shapeOf = square ? () => 1 : index => Math.min(WIDEST, Math.max(NARROWEST, shapes[index] || 1));
  const rowHeight = square ? side : target;
  // The narrowest a day's place in a shared row is: its heading with a year and, selecting, its
  // Select.
  const minimumDay = width < 500 ? 150 : 170;
  const rows = [], days = [], months = [];
  let top = 0, start = 0, month = null;
  // The band days are being packed into: its top, and where the next day would start.
  let band = null;
  // The rows of `count` assets from `first`, from `y` down: the height they take.
  function justify(first, count, y) {
    const end = first + count;
    let at = first, height = 0;
    while (at < end) {
      let n = 0, sum = 0, overflow = false;
      if (square) {
        n = Math.min(columns, end - at);
      } else {
        // Photos until the row at the height asked for is wider than the grid; the last one
        // stays when that leaves the row's height nearer the one asked for.
        while (at + n < end) {
          const next = sum + shapeOf(at + n);
          if (n > 0 && next * rowHeight + GAP * n > width) {
            const without = (width - GAP * (n - 1)) / sum, including = (width - GAP * n) / next;
            if (Math.abs(including - rowHeight) < Math.abs(without - rowHeight)) { n++; sum = next; }
            overflow = true;
            break;
          }
          n++;
          sum = next;
        }
      }
      // A full row is scaled to the grid's width; a day's last row keeps the height asked for.
      const full = overflow || sum * rowHeight + GAP * (n - 1) >= width;
      const h = square ? side : full ? (width - GAP * (n - 1)) / sum : rowHeight;
      rows.push({ top: y + height, height: h, left: 0, start: at, count: n });
      height += h + GAP;
      at += n;
    }
    return height;
  }
  // The width of `count` assets from `first` in one row at the row height.
  function extentOf(first, count) {
    if (square) return count * (side + GAP) - GAP;
    let sum = 0;
    for (let i = first; i < first + count; i++) sum += shapeOf(i);
    return sum * rowHeight + GAP * (count - 1);
  }
  for (const { day, count } of timelineDays) {
    if (day === null) {
      // An album: one run, no headings.
      top += justify(start, count, top);
      start += count;
      continue;
    }
    if (day.slice(0, 7) !== month) {
      month = day.slice(0, 7);
      months.push({ key: month, top, start });
      top += MONTH_HEIGHT;
      band = null;
    }
    const extent = extentOf(start, count);
    // A day of one narrow photo still has room for its heading.
    const box = Math.min(width, Math.max(extent, minimumDay));
    if (extent <= width + 0.5 && band && band.next + box <= width + 0.5) {
      days.push({ day, count, start, top: band.top, left: band.next, width: box });
      rows.push({ top: band.top + DAY_HEIGHT, height: rowHeight, left: band.next, start, count });
      band.next += box + DAY_GAP;
    } else if (extent <= width + 0.5) {
      days.push({ day, count, start, top, left: 0, width: box });
      rows.push({ top: top + DAY_HEIGHT, height: rowHeight, left: 0, start, count });
      band = { top, next: box + DAY_GAP };
      top += DAY_HEIGHT + rowHeight + GAP;
    } else {
      days.push({ day, count, start, top, left: 0, width });
      top += DAY_HEIGHT + justify(start, count, top + DAY_HEIGHT);
      band = null;
    }
    start += count;
  }
  layout = { rows, days, months, height: top, count: start, shapeOf };
  grid.style.height = top + 'px';
  drawScrubber();
  schedule();
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => { scheduled = false; render(); });
}

// The grid's top in the document, and the header's height (what hides the top of the grid).
function gridTop() {
  return grid.getBoundingClientRect().top + scrollY;
}

function headerHeight() {
  return document.querySelector('header').getBoundingClientRect().height;
}

// The index of the last of `items` (in order of `top`) that starts at or above `y`, or 0.
function lastStartingAbove(items, y) {
  let low = 0, high = items.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (items[middle].top <= y) low = middle; else high = middle - 1;
  }
  return low;
}

// The first day of the band of days that holds `y` (the first when above them all).
function dayAt(y) {
  let index = lastStartingAbove(layout.days, y);
  while (index > 0 && layout.days[index - 1].top === layout.days[index].top) index--;
  return index;
}

// The first row that reaches down to `y` or below (rows side by side share a top).
function rowAt(y) {
  const rows = layout.rows;
  let index = lastStartingAbove(rows, y);
  while (index > 0 && rows[index - 1].top + rows[index - 1].height >= y) index--;
  return index;
}

// The row that holds the asset at `index`.
function rowOf(index) {
  const rows = layout.rows;
  let low = 0, high = rows.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (rows[middle].start <= index) low = middle; else high = middle - 1;
  }
  return rows[low];
}

// Puts in the page what lies within a screen of the visible part, and takes out the rest.
function render() {
  const { rows, days, months } = layout;
  const offset = scrollY - gridTop();
  const from = offset - innerHeight, to = offset + 2 * innerHeight;
  const wanted = new Set();
  const needed = new Set();
  for (const month of months) {
    if (month.top + MONTH_HEIGHT < from || month.top > to) continue;
    const key = 'm' + month.key;
    wanted.add(key);
    (shown.get(key) || add(key, heading('h2', 'month', monthName.format(utcDate(month.key))))).style.top = month.top + 'px';
  }
  const thisYear = new Date().getFullYear();
  for (let i = days.length ? dayAt(from) : 0; i < days.length && days[i].top < to; i++) {
    const day = days[i];
    // A day's heading stands for its run: the same day at another place is another heading.
    const key = 'd' + day.day + '@' + day.start;
    wanted.add(key);
    if (!shown.has(key)) {
      const date = utcDate(day.day);
      const made = add(key, heading('h3', 'day', ''));
      const name = document.createElement('span');
      name.textContent = (date.getUTCFullYear() === thisYear ? dayName : dayWithYear).format(date);
      made.title = name.textContent;
      made.append(name);
      // Selecting, a day's heading chooses the whole day (or, all chosen, none of it).
      const choose = document.createElement('button');
      choose.type = 'button';
      choose.className = 'select-day';
      choose.textContent = 'Select';
      choose.setAttribute('aria-label', 'Select ' + name.textContent);
      choose.addEventListener('click', () => {
        const start = Number(made.dataset.start);
        selectRange(start, start + Number(made.dataset.count) - 1);
      });
      made.append(choose);
    }
    shown.get(key).dataset.start = String(day.start);
    shown.get(key).dataset.count = String(day.count);
    Object.assign(shown.get(key).style, { top: day.top + 'px', left: day.left + 'px', width: day.width + 'px' });
  }
  for (let r = rows.length ? rowAt(from) : 0; r < rows.length && rows[r].top < to; r++) {
    const row = rows[r];
    if (row.top + row.height < from) continue;
    let left = row.left;
    for (let index = row.start; index < row.start + row.count; index++) {
      const tileWidth = layout.shapeOf(index) * row.height;
      wanted.add(index);
      let asset = loadedAsset(index);
      if (!asset) {
        needed.add(Math.floor(index / CHUNK));
        asset = (stale.get(Math.floor(index / CHUNK)) || [])[index % CHUNK];
      }
      let element = shown.get(index);
      if (!element || (element.dataset.id || '') !== (asset ? asset.localIdentifier + asset.modificationDate : '')
          || element.dataset.index !== String(index)) {
        const made = tile(asset, index);
        if (element) { element.replaceWith(made); shown.set(index, made); } else add(index, made);
        element = made;
      }
      element.classList.toggle('selected', !!asset && selection.ids.has(asset.localIdentifier));
      Object.assign(element.style, { top: row.top + 'px', left: left + 'px',
                                     width: tileWidth + 'px', height: row.height + 'px' });
      left += tileWidth + GAP;
    }
  }
  for (const [key, element] of shown) if (!wanted.has(key)) { element.remove(); shown.delete(key); }
  // The chunks on screen, nearest the middle first, a few at a time.
  const middle = Math.floor(positionAt(offset + innerHeight / 2) / CHUNK);
  for (const number of [...needed].sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle))) {
    if (reading.size >= PARALLEL_READS) break;
    if (!reading.has(number)) readChunk(number).catch(error => { status.textContent = error.message; });
  }
  markScrubber(offset);
}

function add(key, element) {
  shown.set(key, element);
  grid.appendChild(element);
  return element;
}

function heading(tag, className, text) {
  const element = document.createElement(tag);
  element.className = className;
  element.textContent = text;
  return element;
}

// The index of the asset at `y` of the grid (the first of its row), for the chunk to read first.
function positionAt(y) {
  const row = layout.rows[rowAt(y)];
  return row ? row.start : 0;
}

// How many days Recently Deleted keeps an item (trash.js says, when it is shown): its tiles
// show the days each has left.
let retentionDays = null;
export function setRetention(days) {
  const known = Number.isFinite(days) ? days : null;
  if (known === retentionDays) return;
  retentionDays = known;
  remakeTiles();
}

// Every tile made again (its badge or its image's size changed).
function remakeTiles() {
  for (const [key, element] of shown) if (typeof key === 'number') { element.remove(); shown.delete(key); }
  schedule();
}

function daysLeft(asset) {
  const left = Math.max(0, Math.ceil(retentionDays - (Date.now() - Date.parse(asset.trashedDate)) / 86400000));
  return left === 1 ? '1 day' : left + ' days';
}

function tile(asset, index) {
  const link = document.createElement('a');
  if (!asset) {
    // Its place, until its chunk is read.
    link.className = 'pending';
    link.setAttribute('aria-hidden', 'true');
    link.dataset.index = String(index);
    return link;
  }
  link.dataset.id = asset.localIdentifier + asset.modificationDate;
  link.href = assetPath(asset);
  const image = new Image();
  image.decoding = 'async';
  image.src = assetPath(asset) + '/image?' + new URLSearchParams(tileSize()) + version(asset);
  const name = filename(asset) || asset.localIdentifier;
  image.alt = name;
  link.title = name + ' · ' + asset.creationDate;
  link.appendChild(image);
  // A file with nothing to show (a RAW without a preview, a movie FFmpeg cannot
  // decode): say what it is.
  image.onerror = () => {
    const placeholder = document.createElement('span');
    placeholder.className = 'placeholder';
    placeholder.textContent = (asset.mediaType === 2 ? '▶ ' + clock(asset.duration) + ' · ' : '') + name;
    link.replaceChild(placeholder, image);
  };
  const badge = asset.trashedDate && retentionDays !== null ? daysLeft(asset)
    : asset.mediaType === 2 ? clock(asset.duration)
    : (asset.mediaSubtypes & 8) ? 'LIVE' : (asset.burstIdentifier ? 'BURST' : '');
  if (badge) {
    const label = document.createElement('span');
    label.className = 'badge';
    label.textContent = badge;
    link.appendChild(label);
  }
  link.dataset.index = String(index);
  // Dragged onto an album of the sidebar: this photo, or all those selected with it. In an
  // album, dropped on another of its tiles, it takes that one's place.
  link.addEventListener('dragstart', event => {
    const ids = selection.ids.has(asset.localIdentifier) ? [...selection.ids] : [asset.localIdentifier];
    event.dataTransfer.setData(DRAGGED_ASSETS, JSON.stringify(ids));
    if (reorder) event.dataTransfer.setData(DRAGGED_POSITION, String(index));
    event.dataTransfer.effectAllowed = reorder ? 'copyMove' : 'copy';
  });
  link.addEventListener('dragover', event => {
    if (!reorder || !event.dataTransfer.types.includes(DRAGGED_POSITION)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    link.classList.add('drop-here');
  });
  link.addEventListener('dragleave', () => link.classList.remove('drop-here'));
  link.addEventListener('drop', event => {
    link.classList.remove('drop-here');
    const from = Number(event.dataTransfer.getData(DRAGGED_POSITION));
    if (!reorder || !Number.isInteger(from) || from === index) return;
    event.preventDefault();
    reorder(from, index);
  });
  link.addEventListener('click', event => {
    event.preventDefault();
    if (sweep && sweep.moved) return;
    if (selection.active) select(index, event.shiftKey); else openAt(index);
  });
  return link;
}

// Selecting by sweeping on touch, as in Photos: in selection mode a finger pressed on a tile
// and moved sideways chooses every tile from that one to the one under the finger (or, started
// on a chosen one, unchooses them), moving back gives back what it passed; a finger moved up
// or down first scrolls the page (the grid's touch-action is pan-y while selecting).
let sweep = null;

grid.addEventListener('pointerdown', event => {
  if (!selection.active || event.pointerType === 'mouse') return;
  const start = event.target.closest('a[data-index]');
  const asset = start && loadedAsset(+start.dataset.index);
  if (!asset) return;
  sweep = { pointer: event.pointerId, x: event.clientX, start: +start.dataset.index, last: -1, moved: false,
            adding: !selection.ids.has(asset.localIdentifier), before: new Set(selection.ids) };
});

grid.addEventListener('pointermove', event => {
  if (!sweep || event.pointerId !== sweep.pointer) return;
  if (!sweep.moved) {
    if (Math.abs(event.clientX - sweep.x) < 12) return;
    sweep.moved = true;
  }
  const under = document.elementFromPoint(event.clientX, event.clientY);
  const tileUnder = under && under.closest('#grid a[data-index]');
  if (!tileUnder || +tileUnder.dataset.index === sweep.last) return;
  const index = +tileUnder.dataset.index;
  sweep.last = index;
  selection.ids.clear();
  for (const id of sweep.before) selection.ids.add(id);
  for (let i = Math.min(sweep.start, index); i <= Math.max(sweep.start, index); i++) {
    const each = loadedAsset(i);
    if (!each) continue;
    if (sweep.adding) selection.ids.add(each.localIdentifier); else selection.ids.delete(each.localIdentifier);
  }
  selection.anchor = index;
  selection.changed();
  schedule();
});

// The click a lifted finger makes is not a tap once it swept.
for (const type of ['pointerup', 'pointercancel']) {
  grid.addEventListener(type, event => {
    if (!sweep || event.pointerId !== sweep.pointer) return;
    const ended = sweep;
    setTimeout(() => { if (sweep === ended) sweep = null; }, 0);
  });
}

// Justified rows of whole photos, or square crops (Photos' default): the choice is kept in the
// browser. Switching keeps the photo at the top of the screen there.
const aspectButton = document.getElementById('aspect');

function tileSize() {
  return document.body.classList.contains('square') ? TILE : WHOLE_TILE;
}

function showSquares(square) {
  const first = positionAt(scrollY - gridTop() + headerHeight());
  document.body.classList.toggle('square', square);
  aspectButton.setAttribute('aria-pressed', String(!square));
  try { localStorage.setItem('lightbox.grid', square ? 'square' : ''); } catch { /* private mode */ }
  // Every tile made again with its image at the new size, where the new layout puts it.
  remakeTiles();
  relayout();
  if (layout.rows.length) scrollTo(0, gridTop() + rowOf(first).top - headerHeight());
}

try { document.body.classList.toggle('square', localStorage.getItem('lightbox.grid') === 'square'); } catch { /* private mode */ }
aspectButton.setAttribute('aria-pressed', String(!document.body.classList.contains('square')));
aspectButton.addEventListener('click', () => showSquares(!document.body.classList.contains('square')));
addEventListener('keydown', event => {
  if (event.key !== 'a' || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest('input, select, textarea') || document.querySelector('#viewer.open, #editor.open, dialog[open]')) return;
  showSquares(!document.body.classList.contains('square'));
});

// Selects or unselects the asset at `index`; with `range`, everything from the last one
// clicked to it takes that one's new state.
async function select(index, range) {
  const from = range && selection.anchor >= 0 ? Math.min(selection.anchor, index) : index;
  const to = range && selection.anchor >= 0 ? Math.max(selection.anchor, index) : index;
  const asset = await assetAt(index);
  const adding = !selection.ids.has(asset.localIdentifier);
  for (let i = from; i <= to; i++) {
    const each = await assetAt(i);
    if (adding) selection.ids.add(each.localIdentifier); else selection.ids.delete(each.localIdentifier);
  }
  selection.anchor = index;
  selection.changed();
  schedule();
}

// Selects every asset from `from` to `to`, or, when all are already, none of them: a day
// from its heading, or everything (Select all).
export async function selectRange(from, to) {
  const assets = [];
  for (let i = from; i <= to; i++) assets.push(await assetAt(i));
  const all = assets.every(asset => selection.ids.has(asset.localIdentifier));
  for (const asset of assets) {
    if (all) selection.ids.delete(asset.localIdentifier); else selection.ids.add(asset.localIdentifier);
  }
  selection.changed();
  schedule();
}

// Redraws the tiles (the selection changed).
export function redraw() {
  schedule();
}

// Puts an asset the server changed (an edit) in its tile; its index, or -1 when not read.
export function replace(asset) {
  for (const [number, assets] of chunks) {
    const at = assets.findIndex(a => a.localIdentifier === asset.localIdentifier);
    if (at < 0) continue;
    assets[at] = asset;
    schedule();
    return number * CHUNK + at;
  }
  return -1;
}

// Scrolls so that the asset at `index` is in sight (the viewer closing on another photo).
export function reveal(index) {
  if (!layout.rows.length) return;
  const row = rowOf(index);
  const top = gridTop() + row.top;
  if (top < scrollY + headerHeight() || top + row.height > scrollY + innerHeight) {
    scrollTo(0, top - headerHeight() - innerHeight / 3);
  }
}

// The scrubber: the years along the screen's edge, beside the photos, each where its photos
// are; a marker says where the screen is; a mouse over it shows the month it would jump to;
// pressing or dragging jumps to the month under the finger, the keys move a month or a year.
const marker = document.createElement('span');
marker.id = 'scrubber-marker';
scrubber.append(marker);

function drawScrubber() {
  scrubber.querySelectorAll('.year').forEach(label => label.remove());
  // Shown before it is measured: a hidden scrubber has no height to place years along.
  scrubber.hidden = layout.months.length < 2;
  // Each year at its newest month. Where two would overlap, the one with more of the
  // library keeps its label.
  const years = [];
  for (const month of layout.months) {
    const year = month.key.slice(0, 4);
    if (years.length && years[years.length - 1].year === year) continue;
    if (years.length) years[years.length - 1].size = month.top - years[years.length - 1].top;
    years.push({ year, top: month.top, size: layout.height - month.top });
  }
  const scale = layout.height ? scrubber.clientHeight / layout.height : 0;
  const placed = [];
  for (const year of [...years].sort((a, b) => b.size - a.size)) {
    if (placed.some(other => Math.abs(other.top - year.top) * scale < 18)) continue;
    placed.push(year);
  }
  for (const year of placed.sort((a, b) => a.top - b.top)) {
    const label = document.createElement('span');
    label.className = 'year';
    label.textContent = year.year;
    label.style.top = (layout.height ? year.top / layout.height * 100 : 0) + '%';
    scrubber.appendChild(label);
  }
}

function markScrubber(offset) {
  if (!layout.months.length) return;
  // At the bottom, the oldest month, though it is too short to reach the top of the screen.
  const bottom = scrollY + innerHeight >= document.documentElement.scrollHeight - 2;
  const at = bottom ? layout.months.length - 1 : monthIndexAt(offset + headerHeight());
  const scrollable = document.documentElement.scrollHeight - innerHeight;
  marker.style.top = (scrollable > 0 ? Math.min(1, Math.max(0, scrollY / scrollable)) * 100 : 0) + '%';
  scrubber.setAttribute('aria-valuenow', String(at));
  scrubber.setAttribute('aria-valuemax', String(layout.months.length - 1));
  scrubber.setAttribute('aria-valuetext', monthName.format(utcDate(layout.months[at].key)));
}

function monthIndexAt(y) {
  return lastStartingAbove(layout.months, y);
}

// Scrolls to the month with this index (0: the newest).
export function jumpToMonth(index) {
  const month = layout.months[Math.max(0, Math.min(layout.months.length - 1, index))];
  if (!month) return;
  scrollTo(0, gridTop() + month.top - headerHeight());
  bubble.textContent = monthName.format(utcDate(month.key));
  schedule();
}

function scrub(event) {
  const box = scrubber.getBoundingClientRect();
  const fraction = Math.max(0, Math.min(1, (event.clientY - box.top) / box.height));
  bubble.style.top = (event.clientY - box.top) + 'px';
  bubble.hidden = false;
  jumpToMonth(monthIndexAt(fraction * layout.height));
}

scrubber.addEventListener('pointerdown', event => {
  // A pointer the browser no longer knows (gone before the event ran) cannot be captured.
  try { scrubber.setPointerCapture(event.pointerId); } catch { /* then no dragging */ }
  scrubber.classList.add('scrubbing');
  scrub(event);
});
scrubber.addEventListener('pointermove', event => {
  if (scrubber.hasPointerCapture(event.pointerId)) { scrub(event); return; }
  // A mouse hovering: the month it would jump to, where it points, nothing scrolled.
  if (event.pointerType !== 'mouse' || !layout.months.length) return;
  const box = scrubber.getBoundingClientRect();
  const fraction = Math.max(0, Math.min(1, (event.clientY - box.top) / box.height));
  bubble.textContent = monthName.format(utcDate(layout.months[monthIndexAt(fraction * layout.height)].key));
  bubble.style.top = (event.clientY - box.top) + 'px';
  bubble.hidden = false;
  scrubber.classList.add('hovering');
});
scrubber.addEventListener('pointerleave', () => {
  scrubber.classList.remove('hovering');
  if (!scrubber.classList.contains('scrubbing')) bubble.hidden = true;
});
for (const type of ['pointerup', 'pointercancel']) {
  scrubber.addEventListener(type, () => { scrubber.classList.remove('scrubbing'); bubble.hidden = true; });
}
scrubber.addEventListener('keydown', event => {
  const now = monthIndexAt(scrollY - gridTop() + headerHeight() + 1);
  const step = { ArrowDown: 1, ArrowUp: -1, PageDown: 12, PageUp: -12 }[event.key];
  if (step) jumpToMonth(now + step);
  else if (event.key === 'Home') jumpToMonth(0);
  else if (event.key === 'End') jumpToMonth(layout.months.length - 1);
  else return;
  event.preventDefault();
});

addEventListener('scroll', schedule, { passive: true });
let width = 0;
addEventListener('resize', () => { if (grid.clientWidth !== width) { width = grid.clientWidth; relayout(); } else schedule(); });
// The grid's width changes without the window's too: the page's scroll bar appears once the
// timeline is taller than the screen (the tiles laid out before it ran under the scrubber).
new ResizeObserver(() => { if (grid.clientWidth !== width) { width = grid.clientWidth; relayout(); } }).observe(grid);
