// What every part of the page asks the server, and the small helpers they share.

// A square crop's tile, and a justified row's: the whole photo, its longer side 360.
export const TILE = { w: 360, h: 360, mode: 'fill', resize: 'exact' };
export const WHOLE_TILE = { w: 360, h: 360, mode: 'fit', resize: 'exact' };

export function assetPath(asset) {
  return '/api/assets/' + encodeURIComponent(asset.localIdentifier);
}

// Image URLs name the asset's state: an edit changes them, the browser's cache never serves a stale one.
export function version(asset) {
  return '&v=' + encodeURIComponent(asset.modificationDate);
}

// Asks the image manager to start (or stop) caching images ahead of the user.
export function cache(action, ids, size) {
  fetch('/api/cache', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                        body: JSON.stringify(Object.assign({ action, assets: ids }, size)) }).catch(() => {});
}

// Whether the server answers. When a request cannot reach it (the server stopped, the network
// gone) a banner says so, where before the page failed in silence; the page asks again every
// few seconds, and once the server answers the banner goes and the page reads what changed
// meanwhile (the event `lightbox-back`).
const banner = document.getElementById('offline');
let away = false;
function reachable(yes) {
  if (!banner || yes === !away) return;
  away = !yes;
  banner.hidden = yes;
  if (yes) dispatchEvent(new Event('lightbox-back'));
  else setTimeout(probe, 3000);
}
async function probe() {
  if (!away) return;
  try {
    await fetch('/api/authorization', { cache: 'no-store' });
    reachable(true);
  } catch {
    setTimeout(probe, 3000);
  }
}

// A JSON request whose failure becomes an error carrying the server's message. A session that
// ended (401) goes back to the sign-in page.
export async function request(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    reachable(false);
    throw new Error('the server cannot be reached');
  }
  reachable(true);
  if (response.status === 401) location.assign('/signin');
  if (!response.ok) {
    const error = new Error((await response.json()).error.message);
    error.status = response.status;
    throw error;
  }
  return response;
}

export function postJSON(path, body, method = 'POST') {
  return request(path, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

// A new element, with its class and its text when given.
export function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

// "1 item", "2,345 items".
export function items(count) {
  return count === 1 ? '1 item' : count.toLocaleString() + ' items';
}

export function clock(seconds) {
  const whole = Math.round(seconds || 0);
  return Math.floor(whole / 60) + ':' + String(whole % 60).padStart(2, '0');
}

export function filename(asset) {
  return asset.resources.length ? asset.resources[0].originalFilename : '';
}

// The page's address (#album=ID&view=ID) with parameters set, or taken out where null.
export function address(changes) {
  const params = new URLSearchParams(location.hash.slice(1));
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name); else params.set(name, value);
  }
  const text = params.toString();
  return text ? '#' + text : location.pathname + location.search;
}

// Changes many assets, a thousand at a time (the most one request takes).
export async function inBatches(ids, send) {
  for (let start = 0; start < ids.length; start += 1000) await send(ids.slice(start, start + 1000));
}

// Downloads assets as one ZIP archive (their current version, or their originals): the server
// prepares it (POST /api/downloads) and the browser's own downloads fetch it, with their
// progress, while the server streams it as it is made. Answers the archive's name.
export async function downloadZip(ids, version = 'current') {
  const made = await (await postJSON('/api/downloads', { assets: ids, version })).json();
  const link = document.createElement('a');
  link.href = made.path;
  link.download = made.name;
  document.body.append(link);
  link.click();
  link.remove();
  return made.name;
}

// Asks for a name (a new album's, or an album's new one); null when cancelled.
export function askName(label, value) {
  const nameDialog = document.getElementById('name-dialog');
  document.getElementById('name-label').textContent = label;
  const input = nameDialog.querySelector('input');
  input.value = value || '';
  nameDialog.showModal();
  return new Promise(resolve => nameDialog.addEventListener('close', () => {
    resolve(nameDialog.returnValue === 'ok' && input.value.trim() ? input.value.trim() : null);
  }, { once: true }));
}
