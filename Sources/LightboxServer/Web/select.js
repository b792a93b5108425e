// Selecting many: "Select" turns clicks into choosing (shift-click a range), and a bar acts on
// everything chosen at once: favourite, hide or show, add to an album or take out of the one
// shown, download as a ZIP archive, delete, or, in Recently Deleted, restore. Each action is one request per thousand.
import { askName, downloadZip, inBatches, items as counted, postJSON, request } from './api.js';
import { redraw, refresh, selectRange, selection, total } from './grid.js';
import {
  NEW_ALBUM, SMART, addToNewAlbum, current, freeTitle, listAlbumsIn, loadSidebar, makeAlbum, shownChanged,
} from './sidebar.js';
import { openShareDialog } from './sharing.js';
import { toast } from './toast.js';
import { signedIn } from './account.js';

const bar = document.getElementById('actions');
const button = document.getElementById('select');
const addTo = document.getElementById('add-to');
const shareButton = document.getElementById('share-selection');
const downloadButton = document.getElementById('download-selection');
let canShare = false;
signedIn.then(user => { canShare = !!user; });

function setActive(active) {
  selection.active = active;
  selection.ids.clear();
  selection.anchor = -1;
  document.body.classList.toggle('selecting', active);
  button.textContent = active ? 'Cancel' : 'Select';
  bar.hidden = !active;
  update();
  // The toast stands above the bar, however many rows it takes.
  document.body.style.setProperty('--actions-height', bar.offsetHeight + 'px');
  redraw();
}

// The bar says how many are chosen and offers what applies where the user is.
function update() {
  const count = selection.ids.size;
  document.getElementById('selected-count').textContent =
    count ? count.toLocaleString() + ' selected' : 'Choose photos';
  const trash = current && current.subtype === SMART.recentlyDeleted;
  const hidden = current && current.subtype === SMART.hidden;
  const show = (action, visible) => { bar.querySelector('[data-action=' + action + ']').hidden = !visible; };
  show('favorite', !trash); show('unfavorite', !trash);
  show('hide', !trash && !hidden);
  bar.querySelector('[data-action=hide]').textContent = 'Hide';
  show('remove', !!(current && current.isAlbum));
  show('restore', trash);
  bar.querySelector('[data-action=delete]').textContent = trash ? 'Delete for good' : 'Delete';
  if (hidden) { show('hide', true); bar.querySelector('[data-action=hide]').textContent = 'Unhide'; }
  addTo.parentElement.hidden = !!trash;
  shareButton.hidden = !!trash || !canShare;
  listAlbumsIn(addTo, 'album…');
  downloadButton.hidden = !!trash;
  for (const control of bar.querySelectorAll('button[data-action], select, #share-selection, #download-selection')) {
    control.disabled = count === 0;
  }
}

selection.changed = update;
shownChanged.listeners.push(() => { if (selection.active) setActive(false); });

async function act(action) {
  const ids = [...selection.ids];
  const patch = body => inBatches(ids, batch => request('/api/assets', {
    method: 'PATCH', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(Object.assign({ assets: batch }, body)) }));
  const post = path => inBatches(ids, batch => postJSON(path, { assets: batch }));
  const trash = current && current.subtype === SMART.recentlyDeleted;
  const album = current && current.isAlbum ? current : null;
  // What was done, and how to take it back where the model can.
  let message = '', undo = null;
  switch (action) {
  case 'favorite':
    await patch({ favorite: true });
    [message, undo] = [counted(ids.length) + ' added to Favourites.', () => patch({ favorite: false })];
    break;
  case 'unfavorite':
    await patch({ favorite: false });
    [message, undo] = [counted(ids.length) + ' removed from Favourites.', () => patch({ favorite: true })];
    break;
  case 'hide': {
    const hidden = !(current && current.subtype === SMART.hidden);
    await patch({ hidden });
    [message, undo] = [counted(ids.length) + (hidden ? ' hidden.' : ' shown again.'), () => patch({ hidden: !hidden })];
    break;
  }
  case 'remove': {
    const path = '/api/collections/' + encodeURIComponent(album.id) + '/assets';
    await post(path + '/remove');
    [message, undo] = [counted(ids.length) + ' taken out of “' + album.title + '”.', () => post(path)];
    break;
  }
  case 'restore':
    await post('/api/assets/restore');
    [message, undo] = [counted(ids.length) + ' restored.', () => post('/api/assets/delete')];
    break;
  case 'delete':
    if (trash && !confirm('Delete ' + ids.length + ' for good? This cannot be undone.')) return;
    await inBatches(ids, batch => postJSON('/api/assets/delete', { assets: batch, permanently: !!trash }));
    message = counted(ids.length) + (trash ? ' deleted for good.' : ' moved to Recently Deleted.');
    if (!trash) undo = () => post('/api/assets/restore');
    break;
  }
  setActive(false);
  await Promise.all([refresh(), loadSidebar()]);
  toast(message, undo && (async () => { await undo(); await Promise.all([refresh(), loadSidebar()]); }));
}

button.addEventListener('click', () => setActive(!selection.active));
document.getElementById('select-done').addEventListener('click', () => setActive(false));
for (const control of bar.querySelectorAll('button[data-action]')) {
  control.addEventListener('click', () => act(control.dataset.action).catch(error => toast(error.message)));
}
// Sharing a selection: a new album of it (named, the day's date offered), then its Share dialog.
shareButton.addEventListener('click', async () => {
  const ids = [...selection.ids];
  const name = await askName('Share in a new album', await freeTitle('Shared ' + new Date().toLocaleDateString()));
  if (!name) return;
  try {
    const album = await makeAlbum(name, ids);
    setActive(false);
    await openShareDialog({ id: album, title: name });
  } catch (failure) {
    toast(failure.message);
  }
});

// Downloading a selection: one ZIP archive, streamed by the server as the browser saves it.
downloadButton.addEventListener('click', async () => {
  const ids = [...selection.ids];
  try {
    const name = await downloadZip(ids);
    setActive(false);
    toast('Downloading ' + counted(ids.length) + ' as ' + name);
  } catch (failure) {
    toast(failure.message);
  }
});

document.getElementById('select-all').addEventListener('click', () => {
  if (total()) selectRange(0, total() - 1).catch(error => toast(error.message));
});

addTo.addEventListener('change', async () => {
  const album = addTo.value;
  if (!album) return;
  if (album === NEW_ALBUM) {
    const ids = [...selection.ids];
    addTo.value = '';
    try {
      if (await addToNewAlbum(ids)) setActive(false);
    } catch (error) {
      toast(error.message);
    }
    return;
  }
  const ids = [...selection.ids];
  const title = addTo.selectedOptions[0].textContent;
  const path = '/api/collections/' + encodeURIComponent(album) + '/assets';
  try {
    await inBatches(ids, batch => postJSON(path, { assets: batch }));
  } catch (error) {
    toast(error.message);
    return;
  }
  setActive(false);
  await loadSidebar();
  toast(counted(ids.length) + ' added to “' + title + '”.', async () => {
    await inBatches(ids, batch => postJSON(path + '/remove', { assets: batch }));
    await Promise.all([refresh(), loadSidebar()]);
  });
});
addEventListener('keydown', event => {
  if (event.key === 'Escape' && selection.active && !document.querySelector('#viewer.open, dialog[open]')) setActive(false);
});
