// The viewer: one photo large, the quick image first and the final one when it arrives;
// a Live Photo's motion or a movie played from /movie.
import { address, assetPath, cache, filename, version } from './api.js';
import { assetAt, loadedAsset, reveal, total } from './grid.js';
import { openEditor } from './editor.js';

const viewer = document.getElementById('viewer');
const picture = viewer.querySelector('img');
const movie = viewer.querySelector('video');
let current = -1;
// The asset shown (current's), for the buttons.
let shownAsset = null;
let returnFocus = null;
viewer.tabIndex = -1;

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
    [filename(asset), asset.pixelWidth + '×' + asset.pixelHeight, new Date(asset.creationDate).toLocaleString()].join(' · ');
  stopMovie();
  // A Live Photo's motion (edited with its still) or a movie: played from /movie.
  document.getElementById('play').hidden = !(asset.mediaType === 2 || (asset.mediaSubtypes & 8));
  // Lightbox edits photos and Live Photos, not movies.
  document.getElementById('edit').hidden = asset.mediaType === 2;
  // The file as it is now (an edit's render), and, for an edited asset, as imported.
  document.getElementById('download').href = assetPath(asset) + '/download?version=current';
  const original = document.getElementById('download-original');
  original.href = assetPath(asset) + '/download?version=original';
  original.hidden = !asset.hasAdjustments;
  if (!viewer.classList.contains('open')) {
    // Focus moves into the viewer, and back to where it was when the viewer closes.
    returnFocus = document.activeElement;
    viewer.classList.add('open');
    viewer.focus();
  }
}

function playMovie() {
  const asset = shownAsset;
  movie.controls = asset.mediaType === 2;
  movie.src = assetPath(asset) + '/movie' + version(asset).replace('&', '?');
  viewer.classList.add('playing');
  movie.play().catch(stopMovie);
}

function stopMovie() {
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
movie.addEventListener('click', event => event.stopPropagation());
document.getElementById('play').addEventListener('click', event => { event.stopPropagation(); playMovie(); });
document.getElementById('edit').addEventListener('click', event => { event.stopPropagation(); openEditor(shownAsset); });
for (const link of viewer.querySelectorAll('a[download]')) link.addEventListener('click', event => event.stopPropagation());
viewer.addEventListener('click', close);
addEventListener('keydown', event => {
  if (current < 0 || document.getElementById('editor').classList.contains('open')) return;
  if (event.key === 'Escape') close();
  if (event.key === 'ArrowRight') open(current + 1);
  if (event.key === 'ArrowLeft') open(current - 1);
  if (event.key === 'e' && !document.getElementById('edit').hidden && shownAsset) openEditor(shownAsset);
  if (event.key === 'p' && !document.getElementById('play').hidden) playMovie();
});
