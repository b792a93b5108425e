// The grid: tiles newest first, a page of assets at a time as the user scrolls.
import { TILE, assetPath, cache, clock, filename, request, version } from './api.js';
import { open } from './viewer.js';

const grid = document.getElementById('grid');
const status = document.getElementById('status');
let next = null, loading = null, done = false;

// Every asset loaded so far, in the grid's order: the viewer walks it.
export const assets = [];

// The next page; while one is loading, that one (the viewer waits for it as the grid does).
export function loadPage() {
  if (done) return Promise.resolve();
  if (!loading) loading = fetchPage();
  return loading;
}

async function fetchPage() {
  try {
    const response = await request('/api/assets?limit=60' + (next ? '&after=' + encodeURIComponent(next) : ''));
    const page = await response.json();
    for (const asset of page.assets) grid.appendChild(tile(asset, assets.push(asset) - 1));
    cache('start', page.assets.map(a => a.localIdentifier), TILE);
    // The library's count, whatever is loaded yet.
    document.getElementById('count').textContent =
      page.count.toLocaleString() + (page.count === 1 ? ' item' : ' items');
    next = page.next || null;
    done = !next;
    status.textContent = done ? (assets.length ? '' : 'No photos yet: lightbox import PATH') : 'Loading…';
  } catch (error) {
    status.textContent = 'Could not load photos: ' + error.message;
  } finally {
    loading = null;
  }
  if (!done && status.getBoundingClientRect().top < innerHeight * 2) loadPage();
}

// Loads the next page whenever the end of the grid comes near.
export function loadAsScrolled() {
  new IntersectionObserver(entries => { if (entries.some(e => e.isIntersecting)) loadPage(); },
                           { rootMargin: '800px' }).observe(status);
}

// Puts an asset the server changed (an edit) in its tile.
export function replace(asset) {
  const index = assets.findIndex(a => a.localIdentifier === asset.localIdentifier);
  if (index < 0) return -1;
  assets[index] = asset;
  grid.replaceChild(tile(asset, index), grid.children[index]);
  return index;
}

function tile(asset, index) {
  const link = document.createElement('a');
  link.href = assetPath(asset);
  const image = new Image();
  image.loading = 'lazy';
  image.decoding = 'async';
  image.src = assetPath(asset) + '/image?' + new URLSearchParams(TILE) + version(asset);
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
  const badge = asset.mediaType === 2 ? clock(asset.duration)
    : (asset.mediaSubtypes & 8) ? 'LIVE' : (asset.burstIdentifier ? 'BURST' : '');
  if (badge) {
    const label = document.createElement('span');
    label.className = 'badge';
    label.textContent = badge;
    link.appendChild(label);
  }
  link.addEventListener('click', event => { event.preventDefault(); open(index); });
  return link;
}
