// The viewer: one photo large, the quick image first and the final one when it arrives;
// a Live Photo's motion or a movie played from /movie.
import { address, askName, assetPath, cache, downloadZip, filename, postJSON, request, version } from './api.js';
import { assetAt, indexOf, loadedAsset, refresh, replace, reveal, total } from './grid.js';
import { searchNear } from './search.js';
import {
  NEW_ALBUM, SMART, addToNewAlbum, albums, freeTitle, listAlbumsIn, makeAlbum, current as shownCollection,
} from './sidebar.js';
import { openShareDialog } from './sharing.js';
import { assignFaces, faceImage, newPerson, people, personName, rejectFaces } from './faces.js';
import { hideText, onText, placeText, showText, toggleText } from './livetext.js';
import { showThings } from './things.js';
import { said, toast } from './toast.js';

// What Edit opens (the editor, which imports the viewer): main.js wires it, so that the
// modules import one way.
let editAsset = () => {};
export function onEdit(action) {
  editAsset = action;
}

const viewer = document.getElementById('viewer');
const picture = viewer.querySelector('img');
const movie = viewer.querySelector('video');
let current = -1;
// The asset shown (current's), for the buttons.
let shownAsset = null;
let returnFocus = null;
viewer.tabIndex = -1;
const infoPanel = document.getElementById('info-panel');
const stage = document.getElementById('stage');
// A drag pans a zoomed picture: the browser's own drag of an image would take it instead.
picture.draggable = false;

// The image the viewer shows now: the edit view starts from it.
export function shownImage() {
  return picture.src;
}

function viewerSide() {
  return Math.min(8192, Math.ceil(Math.max(innerWidth, innerHeight) * (devicePixelRatio || 1)));
}

// Shows the asset at a position of the timeline, reading it first when it is not loaded.
export async function open(index) {
  if (index < 0 || index >= total()) return;
  current = index;
  const asset = await assetAt(index);
  if (current !== index || !asset) return;
  shownAsset = asset;
  const side = viewerSide();
  const url = assetPath(asset) + '/image?w=' + side + '&h=' + side + version(asset);
  // At once the quick image, then the final one when it is ready.
  picture.src = url + '&delivery=fast';
  const final = new Image();
  final.onload = () => { if (current === index) picture.src = final.src; };
  final.src = url + '&delivery=high';
  const neighbours = [index - 2, index - 1, index + 1, index + 2].map(loadedAsset).filter(Boolean);
  cache('start', neighbours.map(a => a.localIdentifier), { w: side, h: side });
  // Opening from the grid is a step in the browser's history, so that Back closes the viewer;
  // walking from photo to photo is not.
  const hash = address({ view: asset.localIdentifier });
  if (history.state && history.state.viewer) history.replaceState({ viewer: true }, '', hash);
  else history.pushState({ viewer: true }, '', hash);
  viewer.querySelector('p').textContent =
    [filename(asset), asset.pixelWidth + '×' + asset.pixelHeight, wallClock(asset.creationDate)].join(' · ');
  stopMovie();
  resetZoom();
  const live = !!(asset.mediaSubtypes & 8);
  document.getElementById('live-badge').hidden = !live;
  showFavorite(asset);
  showText(asset, picture);
  if (!infoPanel.hidden) showInfo(asset);
  // A Live Photo's motion (edited with its still) or a movie: played from /movie.
  document.getElementById('play').hidden = !(asset.mediaType === 2 || (asset.mediaSubtypes & 8));
  // In Recently Deleted a photo is restored, not edited or favoured.
  const trashed = !!shownCollection && shownCollection.subtype === SMART.recentlyDeleted;
  document.getElementById('edit').hidden = trashed;
  document.getElementById('favorite').hidden = trashed;
  document.getElementById('restore-one').hidden = !trashed;
  for (const id of ['rating', 'hide-one', 'delete-one', 'viewer-add-to']) document.getElementById(id).hidden = trashed;
  // Sharing is a signed-in user's (sharing.js marks the page).
  document.getElementById('share-one').hidden = trashed || !document.body.classList.contains('can-share');
  showRating(asset);
  document.getElementById('hide-one').textContent = inHidden() ? 'Unhide' : 'Hide';
  listAlbums();
  // The file as it is now (an edit's render), and, for an edited asset, as imported. A Live
  // Photo's are its still and its movie together, in a ZIP archive (the two paired again by
  // one content identifier, so that a phone or Photos shows a Live Photo).
  document.getElementById('download').href = assetPath(asset) + '/download?version=current';
  const original = document.getElementById('download-original');
  original.href = assetPath(asset) + '/download?version=original';
  original.hidden = !asset.hasAdjustments && !live;
  document.getElementById('download').title = live ? 'The still and its movie, in a ZIP archive' : '';
  original.title = live ? 'The still and its movie as imported, in a ZIP archive' : '';
  if (!viewer.classList.contains('open')) {
    // Focus moves into the viewer, and back to where it was when the viewer closes.
    returnFocus = document.activeElement;
    viewer.classList.add('open');
    viewer.focus();
  }
  // A movie plays at once, muted (its controls unmute it), as in Photos and Immich.
  if (asset.mediaType === 2) playMovie(true);
  if (slideshow) slideshow.shown();
}

// The slideshow: from the photo shown, the next every few seconds (a movie plays to its end,
// muted, for at most half a minute), full screen where the browser allows; any key, the
// button or the end of the timeline stops it.
const SLIDE_SECONDS = 4;
let slideshow = null;
function startSlideshow() {
  if (slideshow || current < 0) return;
  let timer = null;
  const next = () => {
    if (current + 1 >= total()) { stopSlideshow(); return; }
    open(current + 1);
  };
  slideshow = {
    // Called as each slide shows: how long it stays.
    shown() {
      clearTimeout(timer);
      const seconds = shownAsset && shownAsset.mediaType === 2 ? Math.min(30, shownAsset.duration || SLIDE_SECONDS) : SLIDE_SECONDS;
      timer = setTimeout(next, seconds * 1000);
    },
    stop() { clearTimeout(timer); },
  };
  viewer.classList.add('slideshow');
  document.getElementById('slideshow').textContent = 'Stop slideshow';
  viewer.requestFullscreen?.().catch(() => {});
  slideshow.shown();
}
function stopSlideshow() {
  if (!slideshow) return;
  slideshow.stop();
  slideshow = null;
  viewer.classList.remove('slideshow');
  document.getElementById('slideshow').textContent = 'Slideshow';
  if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
}

// "2024-05-03T14:05:09+02:00" as the clock read where the photo was taken, with its zone.
function wallClock(text, withZone) {
  const parts = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d+)?(Z|[+-]\d\d:?\d\d)?$/.exec(text || '');
  if (!parts) return text || '';
  const [, y, mo, d, h, mi, se, zone] = parts;
  const shown = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
    .format(new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +se)));
  return withZone && zone ? shown + ' (UTC' + (zone === 'Z' ? '' : zone) + ')' : shown;
}

function showFavorite(asset) {
  const button = document.getElementById('favorite');
  button.setAttribute('aria-pressed', String(asset.isFavorite));
  button.textContent = asset.isFavorite ? '♥ Favourite' : '♡ Favourite';
}

// Changes the asset shown (favourite, hidden, rating) and shows what it became.
async function patch(asset, body) {
  const response = await request(assetPath(asset), {
    method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const changed = await response.json();
  replace(changed);
  if (shownAsset && shownAsset.localIdentifier === changed.localIdentifier) {
    shownAsset = changed;
    showFavorite(changed);
    showRating(changed);
  }
  return changed;
}

async function toggleFavorite() {
  const asset = shownAsset;
  if (!asset) return;
  const favorite = !asset.isFavorite;
  await patch(asset, { favorite });
  toast(favorite ? 'Added to Favourites.' : 'Removed from Favourites.', () => patch(asset, { favorite: !favorite }));
}

function showRating(asset) {
  const stars = asset.rating > 0 ? asset.rating : 0;
  for (const star of document.querySelectorAll('#rating button')) {
    const number = Number(star.dataset.stars);
    star.classList.toggle('on', number <= stars);
    star.setAttribute('aria-pressed', String(number === stars));
  }
}

// Rates the photo shown 1 to 5 stars; its own rating again takes the rating away.
async function rate(stars) {
  const asset = shownAsset;
  if (!asset) return;
  const before = asset.rating || 0;
  const rating = before === stars ? 0 : stars;
  await patch(asset, { rating });
  toast(rating ? 'Rated ' + '★'.repeat(rating) + '.' : 'Rating removed.', () => patch(asset, { rating: before }));
}

// The albums "Add to album" offers: again when the sidebar has read them (after the first
// screen, or a change).
const listAlbums = () => listAlbumsIn(document.getElementById('viewer-add-to'), 'Add to album…');
addEventListener('lightbox-albums', listAlbums);

function inHidden() {
  return !!shownCollection && shownCollection.subtype === SMART.hidden;
}

// The photo shown keeps its place in the viewer's walk when an undo brings a photo back before
// it: its position is read again (else the next action took the wrong photo).
async function followShown() {
  const asset = shownAsset;
  if (!asset || current < 0) return;
  const index = await indexOf(asset.localIdentifier).catch(() => -1);
  if (index >= 0 && shownAsset === asset) current = index;
}

// The photo shown left what the grid shows (hidden, deleted): the grid is read again, and the
// viewer shows the photo that took its place, or closes on an empty grid.
async function leftTheGrid() {
  const at = current;
  await refresh();
  if (current !== at) return;
  if (total() === 0) close();
  else await open(Math.min(at, total() - 1));
}

async function toggleHidden() {
  const asset = shownAsset;
  if (!asset) return;
  const hidden = !inHidden();
  await patch(asset, { hidden });
  await leftTheGrid();
  toast(hidden ? 'Hidden: it is in the Hidden album.' : 'Shown again in the library.', async () => {
    await patch(asset, { hidden: !hidden });
    await refresh();
    await followShown();
  });
}

async function deleteShown() {
  const asset = shownAsset;
  if (!asset) return;
  await postJSON('/api/assets/delete', { assets: [asset.localIdentifier] });
  await leftTheGrid();
  toast('Moved to Recently Deleted.', async () => {
    await postJSON('/api/assets/restore', { assets: [asset.localIdentifier] });
    await refresh();
    await followShown();
  });
}

async function addShownTo(album) {
  const asset = shownAsset;
  const target = albums.find(a => a.id === album);
  if (!asset || !target) return;
  const path = '/api/collections/' + encodeURIComponent(album) + '/assets';
  await postJSON(path, { assets: [asset.localIdentifier] });
  toast('Added to “' + target.title + '”.', () => postJSON(path + '/remove', { assets: [asset.localIdentifier] }));
}

// The information panel: what the catalog knows, then what the original's metadata says.
async function showInfo(asset) {
  const list = infoPanel.querySelector('dl');
  const rows = [];
  const add = (term, value, link) => { if (value) rows.push([term, value, link]); };
  const resource = asset.resources[0];
  add('File', filename(asset));
  add('Taken', wallClock(asset.creationDate, true));
  add('Size', asset.pixelWidth + ' × ' + asset.pixelHeight + ' (' +
      (asset.pixelWidth * asset.pixelHeight / 1e6).toFixed(1) + ' MP)' +
      (resource ? ' · ' + (resource.fileSize / 1e6).toFixed(1) + ' MB' : ''));
  if (asset.location) {
    const { latitude, longitude } = asset.location;
    add('Place', latitude.toFixed(5) + ', ' + longitude.toFixed(5),
        'https://www.openstreetmap.org/?mlat=' + latitude + '&mlon=' + longitude + '#map=15/' + latitude + '/' + longitude);
    rows.push(['', 'Photos taken near here', null, () => { hide(); searchNear(latitude, longitude); }]);
  }
  const render = () => list.replaceChildren(...rows.flatMap(([term, value, link, action]) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    if (action) {
      const button = document.createElement('button');
      Object.assign(button, { type: 'button', textContent: value, className: 'near' });
      button.addEventListener('click', action);
      dd.appendChild(button);
    } else if (link) {
      const a = document.createElement('a');
      Object.assign(a, { href: link, textContent: value, target: '_blank', rel: 'noopener' });
      dd.appendChild(a);
    } else dd.textContent = value;
    return [dt, dd];
  }));
  render();
  delete infoPanel.dataset.complete;
  try {
    const details = await (await request(assetPath(asset) + '/details')).json();
    if (shownAsset !== asset) return;
    const camera = details.model && details.make && !details.model.startsWith(details.make)
      ? details.make + ' ' + details.model : details.model || details.make;
    const exposure = [
      details.exposureTime && (details.exposureTime >= 1 ? details.exposureTime + ' s'
                               : '1/' + Math.round(1 / details.exposureTime) + ' s'),
      details.fNumber && 'ƒ/' + details.fNumber.toFixed(1),
      details.iso && 'ISO ' + details.iso,
      details.focalLength && (Math.round(details.focalLength * 10) / 10) + ' mm' +
        (details.focalLengthIn35mmFormat ? ' (' + details.focalLengthIn35mmFormat + ' mm equivalent)' : ''),
    ].filter(Boolean).join(' · ');
    rows.splice(2, 0, ...[['Camera', camera], ['Lens', details.lensModel], ['Exposure', exposure]].filter(r => r[1]));
    render();
  } catch { /* the catalog's part stays */ }
  // The place's names, once the places job named them: they stand for the coordinates, which
  // stay beneath.
  if (asset.location) {
    try {
      const { place } = await (await request(assetPath(asset) + '/place')).json();
      if (shownAsset !== asset) return;
      const names = place && [place.name, place.city, place.region, place.country]
        .filter((name, index, all) => name && all.indexOf(name) === index);
      const row = rows.find(r => r[0] === 'Place');
      if (names && names.length && row) {
        const coordinates = row[1];
        row[1] = names.join(', ');
        rows.splice(rows.indexOf(row) + 1, 0, ['Coordinates', coordinates]);
        render();
      }
    } catch { /* the coordinates stay */ }
  }
  await Promise.all([showFaces(asset), showThings(asset)]);
  // Said when the panel holds all it will (the file's part comes a moment after the catalog's).
  if (shownAsset === asset) infoPanel.dataset.complete = asset.localIdentifier;
}

// The faces found in the photo, in the information panel (each with its person, and what can
// be said of it: who it is, not them, not a face) and outlined on the photo while the panel
// is open.
const facesPanel = document.getElementById('info-faces');
const faceBoxes = document.getElementById('face-boxes');

function placeFaceBoxes() {
  Object.assign(faceBoxes.style, {
    left: picture.offsetLeft + 'px', top: picture.offsetTop + 'px', width: picture.offsetWidth + 'px',
    height: picture.offsetHeight + 'px', transform: picture.style.transform,
  });
  placeText(picture);
}
picture.addEventListener('load', placeFaceBoxes);
addEventListener('resize', placeFaceBoxes);

async function showFaces(asset) {
  let faces = [];
  try {
    faces = (await (await request(assetPath(asset) + '/faces')).json()).faces;
  } catch { /* no faces shown */ }
  if (shownAsset !== asset) return;
  const known = faces.length ? await people().catch(() => []) : [];
  if (shownAsset !== asset) return;
  facesPanel.hidden = !faces.length;
  faceBoxes.hidden = !faces.length || infoPanel.hidden;
  facesPanel.querySelector('ul').replaceChildren(...faces.map((face, index) => faceRow(asset, face, index, known)));
  faceBoxes.replaceChildren(...faces.map((face, index) => {
    const box = document.createElement('span');
    box.className = 'face-box';
    box.dataset.face = String(index);
    Object.assign(box.style, { left: face.x * 100 + '%', top: face.y * 100 + '%', width: face.width * 100 + '%',
                               height: face.height * 100 + '%' });
    box.title = face.personName || 'Unknown';
    return box;
  }));
  placeFaceBoxes();
}

// One face of the panel: its crop, whose it is, and a menu of what to say of it.
function faceRow(asset, face, index, known) {
  const row = document.createElement('li');
  row.className = 'face-row';
  row.dataset.face = face.localIdentifier;
  const name = document.createElement('span');
  name.className = 'face-name';
  name.textContent = face.personName || (face.personLocalIdentifier ? 'No name' : 'Unknown');
  const menu = document.createElement('select');
  menu.setAttribute('aria-label', 'Who is this?');
  const others = known.filter(person => person.localIdentifier !== face.personLocalIdentifier);
  menu.replaceChildren(new Option(face.personLocalIdentifier ? 'Change…' : 'Who is this?', ''),
    ...others.map(person => new Option(personName(person), 'person:' + person.localIdentifier)),
    new Option('New person…', 'new'),
    ...(face.personLocalIdentifier ? [new Option('Not ' + (face.personName || 'this person'), 'nobody')] : []),
    new Option('Not a face', 'reject'));
  menu.addEventListener('change', said(async () => {
    const choice = menu.value;
    menu.value = '';
    const before = face.personLocalIdentifier || null;
    const undo = () => assignFaces([face.localIdentifier], before).then(() => showFaces(asset));
    if (choice.startsWith('person:')) {
      const person = known.find(p => 'person:' + p.localIdentifier === choice);
      await assignFaces([face.localIdentifier], person.localIdentifier);
      toast('This is ' + personName(person) + '.', undo);
    } else if (choice === 'new') {
      const chosen = await askName('Name', '');
      if (!chosen) return;
      await newPerson(chosen, [face.localIdentifier]);
      toast('This is ' + chosen + '.', undo);
    } else if (choice === 'nobody') {
      await assignFaces([face.localIdentifier], null);
      toast('Not ' + (face.personName || 'this person') + '.', undo);
    } else if (choice === 'reject') {
      await rejectFaces([face.localIdentifier]);
      toast('Not a face: it is no longer shown.');
    } else {
      return;
    }
    await showFaces(asset);
  }));
  const lit = on => faceBoxes.querySelector('[data-face="' + index + '"]')?.classList.toggle('lit', on);
  row.addEventListener('mouseenter', () => lit(true));
  row.addEventListener('mouseleave', () => lit(false));
  row.append(faceImage(face, 96, name.textContent), name, menu);
  return row;
}

function toggleInfo() {
  infoPanel.hidden = !infoPanel.hidden;
  if (infoPanel.hidden) faceBoxes.hidden = true;
  viewer.classList.toggle('with-info', !infoPanel.hidden);
  document.getElementById('info').setAttribute('aria-expanded', String(!infoPanel.hidden));
  if (!infoPanel.hidden && shownAsset) showInfo(shownAsset);
}

// Zoom and pan, as Photos' and Immich's viewers do: a double click (or double tap) zooms in where
// it points and out again, the wheel zooms around the pointer, + and - zoom about the middle,
// 0 fits, and a zoomed picture is dragged (a mouse, or one finger) to pan; two fingers pinch.
// A click never closes the viewer (the close button, Escape and Back do): a double click used to
// close it and land its second click on the photo behind. Touch: a swipe walks to the next or
// previous photo, and pressing and holding a Live Photo plays its motion until let go.
const pointers = new Map();
let gesture = null, pressTimer = null, pressedPlay = false;
// The picture's scale and its shift, in screen pixels, from where it sits unzoomed.
let zoom = 1, shiftX = 0, shiftY = 0;
const MOST_ZOOM = 8;

function applyZoom() {
  if (zoom <= 1) { zoom = 1; shiftX = 0; shiftY = 0; }
  picture.style.transform = zoom === 1 ? '' : `translate(${shiftX}px, ${shiftY}px) scale(${zoom})`;
  viewer.classList.toggle('zoomed', zoom > 1);
  if (zoom > 1) hideText();
  placeFaceBoxes();
}

function resetZoom() {
  zoom = 1;
  applyZoom();
}

// Zooms to `next` keeping the picture's point under (x, y) on the screen where it is.
function zoomAt(next, x, y) {
  const box = picture.getBoundingClientRect();
  // The picture's centre as laid out, before its transform.
  const centreX = box.left + box.width / 2 - shiftX, centreY = box.top + box.height / 2 - shiftY;
  const to = Math.max(1, Math.min(MOST_ZOOM, next));
  const ratio = to / zoom;
  shiftX = x - centreX - ratio * (x - centreX - shiftX);
  shiftY = y - centreY - ratio * (y - centreY - shiftY);
  zoom = to;
  applyZoom();
}

function zoomAtMiddle(next) {
  const box = stage.getBoundingClientRect();
  zoomAt(next, box.left + box.width / 2, box.top + box.height / 2);
}

stage.addEventListener('wheel', event => {
  if (viewer.classList.contains('playing')) return;
  event.preventDefault();
  // A wheel's notch is about 100 pixels of deltaY: a fifth more or less a notch.
  zoomAt(zoom * Math.exp(-event.deltaY * 0.0018), event.clientX, event.clientY);
}, { passive: false });

stage.addEventListener('dblclick', event => {
  event.stopPropagation();
  if (zoom > 1) resetZoom(); else zoomAt(2.5, event.clientX, event.clientY);
});

stage.addEventListener('pointerdown', event => {
  if (onText(event)) return;
  pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
  if (pointers.size === 2) {
    const [a, b] = [...pointers.values()];
    gesture = { pinch: Math.hypot(a.x - b.x, a.y - b.y), zoom };
    clearTimeout(pressTimer);
    return;
  }
  gesture = { x: event.clientX, y: event.clientY, time: event.timeStamp, shiftX, shiftY };
  if (zoom > 1) {
    // Dragged to pan: the pointer is kept even when it leaves the stage.
    stage.setPointerCapture?.(event.pointerId);
    return;
  }
  if (shownAsset && (shownAsset.mediaSubtypes & 8)) {
    pressTimer = setTimeout(() => { pressedPlay = true; playMovie(); }, 300);
  }
});
stage.addEventListener('pointermove', event => {
  if (!pointers.has(event.pointerId)) return;
  pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
  if (pointers.size === 2 && gesture && gesture.pinch) {
    const [a, b] = [...pointers.values()];
    zoomAt(gesture.zoom * Math.hypot(a.x - b.x, a.y - b.y) / gesture.pinch, (a.x + b.x) / 2, (a.y + b.y) / 2);
  } else if (gesture && !gesture.pinch && zoom > 1) {
    shiftX = gesture.shiftX + event.clientX - gesture.x;
    shiftY = gesture.shiftY + event.clientY - gesture.y;
    applyZoom();
  } else if (gesture && Math.hypot(event.clientX - gesture.x, event.clientY - gesture.y) > 10) {
    clearTimeout(pressTimer);
  }
});
function release(event) {
  pointers.delete(event.pointerId);
  clearTimeout(pressTimer);
  if (pressedPlay) { stopMovie(); return; }
  if (!gesture || gesture.pinch || zoom > 1 || event.type !== 'pointerup') {
    if (!pointers.size) gesture = null;
    return;
  }
  const dx = event.clientX - gesture.x, dy = event.clientY - gesture.y;
  if (Math.abs(dx) > 60 && Math.abs(dx) > 2 * Math.abs(dy) && event.timeStamp - gesture.time < 800) {
    if (dx < 0) open(current + 1); else open(current - 1);
  }
  gesture = null;
}
stage.addEventListener('pointerup', release);
stage.addEventListener('pointercancel', release);
stage.addEventListener('click', () => { pressedPlay = false; });

// Plays the movie as a browser can: the server answers an H.264 copy of what Chromium cannot
// decode (an iPhone's HEVC), says when the copy is still being made, and says when a movie
// cannot be played at all; the viewer tells which.
function playMovie(muted = false) {
  const asset = shownAsset;
  if (!asset) return;
  movie.controls = asset.mediaType === 2;
  movie.muted = muted;
  movie.src = assetPath(asset) + '/movie?playable=true' + version(asset);
  viewer.classList.add('playing');
  say('');
  movie.play().catch(() => {});
}

const notice = document.getElementById('movie-notice');
function say(text) {
  notice.textContent = text;
  notice.hidden = !text;
}

movie.addEventListener('error', async () => {
  const asked = movie.getAttribute('src');
  if (!asked) return;
  const answer = await fetch(asked, { headers: { Range: 'bytes=0-0' } }).catch(() => null);
  if (movie.getAttribute('src') !== asked) return;
  if (answer && answer.status === 503) {
    say('Preparing this movie for the browser…');
    setTimeout(() => { if (movie.getAttribute('src') === asked) { movie.src = asked; movie.play().catch(() => {}); } }, 2000);
    return;
  }
  let reason = 'This browser cannot play this movie.';
  if (answer && !answer.ok) reason = await answer.json().then(body => body.error.message, () => reason);
  viewer.classList.remove('playing');
  say(reason);
});
movie.addEventListener('playing', () => say(''));

function stopMovie() {
  say('');
  viewer.classList.remove('playing');
  movie.pause();
  movie.removeAttribute('src');
}

// Closes the viewer: Back when its opening was a step of the history, else the grid's URL.
function close() {
  if (history.state && history.state.viewer) {
    history.back();
    return;
  }
  hide();
  history.replaceState(null, '', address({ view: null }));
}

function hide() {
  stopSlideshow();
  stopMovie();
  viewer.classList.remove('open');
  // The grid shows where the walk ended.
  if (current >= 0) reveal(current);
  current = -1;
  shownAsset = null;
  cache('stopAll', []);
  if (returnFocus && returnFocus.isConnected) returnFocus.focus();
  returnFocus = null;
}

// Tab stays inside the viewer while it is open: its buttons, and the movie's controls.
viewer.addEventListener('keydown', event => {
  if (event.key !== 'Tab') return;
  const stops = [...viewer.querySelectorAll('button, a[href], video[controls]')].filter(e => e.offsetParent !== null);
  if (!stops.length) { event.preventDefault(); return; }
  const at = stops.indexOf(document.activeElement);
  const next = event.shiftKey ? (at <= 0 ? stops.length - 1 : at - 1) : (at + 1) % stops.length;
  event.preventDefault();
  stops[next].focus();
});

// Back (the browser's, a phone's gesture, or close above) leaves the viewer.
addEventListener('popstate', () => {
  if (current >= 0 && !(history.state && history.state.viewer)) hide();
});

// A Live Photo plays once, then shows its still again.
movie.addEventListener('ended', () => { if (!movie.controls) stopMovie(); });
document.getElementById('play').addEventListener('click', () => playMovie());
document.getElementById('favorite').addEventListener('click', said(toggleFavorite));
document.getElementById('hide-one').addEventListener('click', said(toggleHidden));
document.getElementById('delete-one').addEventListener('click', said(deleteShown));
for (const star of document.querySelectorAll('#rating button')) {
  star.addEventListener('click', said(() => rate(Number(star.dataset.stars))));
}
document.getElementById('viewer-add-to').addEventListener('change', said(async () => {
  const select = document.getElementById('viewer-add-to');
  const album = select.value;
  select.value = '';
  if (album === NEW_ALBUM) { if (shownAsset) await addToNewAlbum([shownAsset.localIdentifier]); } else if (album) await addShownTo(album);
}));
document.getElementById('info').addEventListener('click', toggleInfo);
document.getElementById('live-text').addEventListener('click', () => toggleText(picture));
document.getElementById('edit').addEventListener('click', () => editAsset(shownAsset));
// Restored, the photo leaves Recently Deleted: the viewer closes on the list without it.
document.getElementById('restore-one').addEventListener('click', async () => {
  if (!shownAsset) return;
  await postJSON('/api/assets/restore', { assets: [shownAsset.localIdentifier] });
  close();
});
document.getElementById('close').addEventListener('click', close);
// Share…: the photo in a new album (named, the day's date offered), then its Share dialog, as
// a selection is shared.
document.getElementById('share-one').addEventListener('click', async () => {
  const asset = shownAsset;
  if (!asset) return;
  const name = await askName('Share in a new album', await freeTitle('Shared ' + new Date().toLocaleDateString()));
  if (!name) return;
  try {
    await openShareDialog({ id: await makeAlbum(name, [asset.localIdentifier]), title: name });
  } catch (failure) {
    toast(failure.message);
  }
});
document.getElementById('slideshow').addEventListener('click', () => (slideshow ? stopSlideshow() : startSlideshow()));
// A Live Photo's download is its pair, in one archive.
for (const [id, which] of [['download', 'current'], ['download-original', 'original']]) {
  document.getElementById(id).addEventListener('click', event => {
    if (!shownAsset || !(shownAsset.mediaSubtypes & 8)) return;
    event.preventDefault();
    downloadZip([shownAsset.localIdentifier], which)
      .then(name => toast('Downloading the Live Photo as ' + name), error => toast(error.message));
  });
}
addEventListener('keydown', event => {
  if (current < 0 || document.getElementById('editor').classList.contains('open')) return;
  // A dialog over the viewer (Share…'s album name, the share dialog) takes its own keys: typing
  // "e" there opened the editor, Escape closed the viewer with the dialog.
  if (document.querySelector('dialog[open]')) return;
  // Any key stops a slideshow, and does nothing else.
  if (slideshow) { event.preventDefault(); stopSlideshow(); return; }
  if (event.key === 'Escape') close();
  if (event.key === '+' || event.key === '=') zoomAtMiddle(zoom * 1.5);
  if (event.key === '-') zoomAtMiddle(zoom / 1.5);
  if (event.key === '0') resetZoom();
  if (event.key === 'ArrowRight') open(current + 1);
  if (event.key === 'ArrowLeft') open(current - 1);
  if (event.key === 'e' && !document.getElementById('edit').hidden && shownAsset) editAsset(shownAsset);
  if (event.key === 'p' && !document.getElementById('play').hidden) playMovie();
  if (event.key === 'i') toggleInfo();
  if (event.key === 't' && !event.target.closest('input, select, textarea')) toggleText(picture);
  if (event.key === 's' && !event.target.closest('input, select, textarea')) startSlideshow();
  if (event.target.closest('input, select, textarea')) return;
  if (event.key === 'f' && !document.getElementById('favorite').hidden) said(toggleFavorite)();
  if (document.getElementById('rating').hidden) return;
  if (event.key >= '1' && event.key <= '5' && !event.ctrlKey && !event.metaKey) said(rate)(Number(event.key));
  if (event.key === 'h') said(toggleHidden)();
  if (event.key === 'Delete' || event.key === 'Backspace') { event.preventDefault(); said(deleteShown)(); }
});
