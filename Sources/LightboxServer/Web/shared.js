// A shared album's page, for whoever holds its link (/s/KEY), or for a user it is shared with
// (/shared/SHARE, from the Shared page): the album's photos as a grid, one at a time in a
// viewer, and a password form when the link has one. Every request names the link (or the
// share) in its query, so that images load; a password's unlocking is a cookie the server sets.

import { items } from './api.js';

const key = decodeURIComponent(location.pathname.split('/').pop());
const byLink = location.pathname.startsWith('/s/');
const link = (byLink ? 'link=' : 'share=') + encodeURIComponent(key);
if (!byLink) document.getElementById('shared-back').hidden = false;
const grid = document.getElementById('shared-grid');
const message = document.getElementById('shared-message');
const unlock = document.getElementById('shared-unlock');
const viewer = document.getElementById('shared-viewer');
const assets = [];
let album = null;
let next = null;
let loading = false;
let shown = -1;

async function get(path) {
  const response = await fetch(path + (path.includes('?') ? '&' : '?') + link);
  const body = await response.json();
  if (!response.ok) throw Object.assign(new Error(body.error.message), { code: body.error.code, status: response.status });
  return body;
}

async function open() {
  try {
    const authorization = await get('/api/authorization');
    album = authorization.sharedAlbum.album;
    const collection = await get('/api/collections/' + encodeURIComponent(album));
    document.title = (collection.localizedTitle || 'Shared album') + ' · Lightbox';
    document.getElementById('shared-title').textContent = collection.localizedTitle || 'Shared album';
    const count = collection.estimatedAssetCount;
    document.getElementById('shared-count').textContent =
      items(count) + ' shared by ' + authorization.sharedAlbum.owner;
    document.title = document.getElementById('shared-title').textContent + ' · Lightbox';
    unlock.hidden = true;
    await more();
  } catch (failure) {
    if (failure.code === 'linkLocked') {
      unlock.hidden = false;
      unlock.elements.password.focus();
    } else if (failure.status === 401 || failure.status === 404) {
      // A guessed, ended or expired link, or a share that ended: said, not "Loading…".
      document.getElementById('shared-title').textContent = 'Not shared';
      message.textContent = byLink
        ? 'This link does not exist, or its album is no longer shared. Ask whoever sent it for a new one.'
        : 'This album is not shared with you, or no longer.';
    } else {
      message.textContent = failure.message;
    }
  }
}

async function more() {
  if (loading || (next === null && assets.length > 0)) return;
  loading = true;
  try {
    const page = await get('/api/collections/' + encodeURIComponent(album) + '/assets?limit=120'
                           + (next ? '&after=' + encodeURIComponent(next) : ''));
    for (const asset of page.assets) tile(asset);
    next = page.next || null;
    if (assets.length === 0) message.textContent = 'This album is empty.';
  } catch (failure) {
    message.textContent = failure.message;
  } finally {
    loading = false;
  }
}

function imageURL(asset, side, mode) {
  return '/api/assets/' + encodeURIComponent(asset.localIdentifier) + '/image?w=' + side + '&h=' + side
    + (mode ? '&mode=' + mode + '&resize=exact' : '') + '&v=' + encodeURIComponent(asset.modificationDate) + '&' + link;
}

function tile(asset) {
  const index = assets.push(asset) - 1;
  const button = document.createElement('button');
  button.className = 'tile';
  const image = document.createElement('img');
  image.loading = 'lazy';
  image.alt = '';
  image.src = imageURL(asset, 360, 'fill');
  button.append(image);
  button.addEventListener('click', () => show(index));
  grid.append(button);
}

function show(index) {
  if (index < 0 || index >= assets.length) return;
  shown = index;
  const asset = assets[index];
  const side = Math.ceil(Math.max(innerWidth, innerHeight) * (devicePixelRatio || 1));
  const image = viewer.querySelector('img');
  const movie = viewer.querySelector('video');
  image.src = imageURL(asset, Math.min(side, 2048));
  // A movie plays (as a browser can: an iPhone's HEVC as its H.264 copy), where it showed
  // its poster frame alone.
  const isMovie = asset.mediaType === 2;
  movie.hidden = !isMovie;
  image.hidden = isMovie;
  if (isMovie) {
    movie.poster = image.src;
    movie.src = '/api/assets/' + encodeURIComponent(asset.localIdentifier) + '/movie?playable=true&' + link;
  } else {
    movie.removeAttribute('src');
    movie.load();
  }
  if (!viewer.open) viewer.showModal();
  if (index >= assets.length - 5) more();
}

viewer.querySelector('button').addEventListener('click', () => viewer.close());
viewer.addEventListener('close', () => viewer.querySelector('video').pause());
addEventListener('keydown', (event) => {
  if (!viewer.open) return;
  if (event.key === 'ArrowRight') show(shown + 1);
  if (event.key === 'ArrowLeft') show(shown - 1);
});
addEventListener('scroll', () => {
  if (innerHeight + scrollY > document.body.scrollHeight - 800) more();
});

unlock.addEventListener('submit', async (event) => {
  event.preventDefault();
  const error = document.getElementById('shared-error');
  error.textContent = '';
  const response = await fetch('/api/links/unlock', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ link: key, password: unlock.elements.password.value }),
  });
  if (response.ok) {
    open();
  } else {
    error.textContent = (await response.json()).error.message;
  }
});

open();
