// The Albums page (#albums, or #albums=FOLDER for a folder's): the albums and folders as a page
// of covers, as Photos and Immich show them, folders first. A cover opens its album or folder;
// its ⋯ menu (a tap on a phone, where dragging in the sidebar is not to be had) renames it,
// moves it to another folder or to the top, or deletes it. New album and New folder make one
// here, in the folder shown.
import { askName, element, items, postJSON, request } from './api.js';
import { toast } from './toast.js';

// What else shows the albums (the sidebar), read again after a change made here: main.js
// wires it, as the sidebar imports this page.
let changed = async () => {};
export function onAlbumsChanged(action) {
  changed = action;
}

const page = document.getElementById('albums-page');
const covers = document.getElementById('album-covers');
const up = document.getElementById('albums-up');
const moveDialog = document.getElementById('move-dialog');
const moveSelect = moveDialog.querySelector('select');
// The folder shown: null for the top level.
let folder = null;

async function json(path) {
  return (await request(path)).json();
}

function patch(path, body) {
  return request(path, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

// Asks where to move a member: the top level or a folder (not itself). Null when cancelled.
async function askFolder(member) {
  const { lists } = await json('/api/lists?type=folder');
  moveSelect.replaceChildren(new Option('Top level (in no folder)', 'top'),
    ...lists.filter(list => list.localIdentifier !== member.localIdentifier)
      .map(list => new Option(list.localizedTitle || 'Folder', list.localIdentifier)));
  moveSelect.value = folder || 'top';
  document.getElementById('move-title').textContent = `Move “${member.localizedTitle || 'Untitled'}” to`;
  moveDialog.showModal();
  return new Promise(resolve => moveDialog.addEventListener('close', () => {
    resolve(moveDialog.returnValue === 'ok' ? moveSelect.value : null);
  }, { once: true }));
}

async function move(member) {
  const target = await askFolder(member);
  if (!target || target === (folder || 'top')) return;
  if (target === 'top') {
    await postJSON('/api/lists/' + encodeURIComponent(folder) + '/collections/remove', {
      collections: [member.localIdentifier] });
  } else {
    await postJSON('/api/lists/' + encodeURIComponent(target) + '/collections', { collections: [member.localIdentifier] });
  }
  const where = target === 'top' ? 'the top level' : '“' + moveSelect.selectedOptions[0].textContent + '”';
  toast(`“${member.localizedTitle || 'Untitled'}” moved to ${where}.`);
}

async function rename(member) {
  const isFolder = member.kind === 'folder';
  const name = await askName(isFolder ? 'Folder name' : 'Album name', member.localizedTitle);
  if (!name) return;
  await patch((isFolder ? '/api/lists/' : '/api/collections/') + encodeURIComponent(member.localIdentifier), { title: name });
}

async function remove(member) {
  const isFolder = member.kind === 'folder';
  const title = member.localizedTitle || 'Untitled';
  if (!confirm(isFolder ? `Delete the folder “${title}”?` : `Delete the album “${title}”? Its photos stay in the library.`)) return;
  await request((isFolder ? '/api/lists/' : '/api/collections/') + encodeURIComponent(member.localIdentifier),
    { method: 'DELETE' });
  toast(`“${title}” deleted.`);
}

// A cover's ⋯ menu (the Albums page's and the People page's): a small list of actions under
// the button, each given `subject`, then `done` with what it answered; a failure is said.
export function coverMenu(name, subject, actions, done) {
  const holder = element('div', 'cover-menu');
  const button = element('button', 'more', '⋯');
  button.type = 'button';
  button.setAttribute('aria-label', `More for ${name}`);
  button.setAttribute('aria-haspopup', 'menu');
  const list = element('div', 'menu');
  list.setAttribute('role', 'menu');
  list.hidden = true;
  for (const [label, action] of actions) {
    const item = element('button', '', label);
    item.type = 'button';
    item.setAttribute('role', 'menuitem');
    item.addEventListener('click', async () => {
      list.hidden = true;
      try {
        await done(await action(subject));
      } catch (failure) {
        toast(failure.message);
      }
    });
    list.append(item);
  }
  button.addEventListener('click', event => {
    event.preventDefault();
    event.stopPropagation();
    const open = list.hidden;
    document.querySelectorAll('.cover-menu .menu').forEach(other => { other.hidden = true; });
    list.hidden = !open;
  });
  holder.append(button, list);
  return holder;
}

function menuFor(member) {
  return coverMenu(member.localizedTitle || 'Untitled', member,
                   [['Rename…', rename], ['Move to folder…', move], ['Delete', remove]],
                   () => Promise.all([showAlbumsPage(), changed()]));
}

function cover(member) {
  const isFolder = member.kind === 'folder';
  const card = element('div', 'album-cover' + (isFolder ? ' folder' : ''));
  const link = element('a', 'open');
  link.href = isFolder ? '#albums=' + encodeURIComponent(member.localIdentifier)
    : '#album=' + encodeURIComponent(member.localIdentifier);
  const picture = element('div', 'picture');
  if (!isFolder && member.keyAssetIdentifier) {
    const image = element('img');
    image.alt = '';
    image.loading = 'lazy';
    image.src = '/api/assets/' + encodeURIComponent(member.keyAssetIdentifier) + '/image?w=360&h=360&mode=fill&resize=exact';
    picture.append(image);
  } else {
    picture.append(element('span', 'glyph', isFolder ? '▭' : '♡'));
  }
  const count = isFolder ? (member.count === 0 ? 'Empty' : member.count === 1 ? '1 album or folder' : `${member.count} albums and folders`)
    : items(member.estimatedAssetCount || 0);
  link.append(picture, element('span', 'title', member.localizedTitle || (isFolder ? 'Folder' : 'Untitled')),
              element('span', 'note', count));
  card.append(link, menuFor(member));
  return card;
}

// Shows the folder named by the address (#albums=ID), or the top level.
export async function showAlbumsPage() {
  page.hidden = false;
  const named = new URLSearchParams(location.hash.slice(1)).get('albums');
  folder = named || null;
  const list = folder || 'top';
  const [{ collections }, info] = await Promise.all([
    json('/api/lists/' + encodeURIComponent(list) + '/collections'),
    folder ? json('/api/lists?type=folder').then(answer => answer.lists.find(l => l.localIdentifier === folder)) : null,
  ]);
  if (folder) document.getElementById('title').textContent = info ? info.localizedTitle || 'Folder' : 'Folder not found';
  up.hidden = !folder;
  const members = collections.filter(member => member.kind !== 'moment');
  const ordered = [...members.filter(m => m.kind === 'folder'), ...members.filter(m => m.kind !== 'folder')];
  covers.replaceChildren(...ordered.map(cover));
  if (!ordered.length) covers.replaceChildren(element('p', 'empty', folder ? 'This folder is empty.' : 'No albums yet: make one with New album.'));
}

export function hideAlbumsPage() {
  page.hidden = true;
}

document.getElementById('albums-new-album').addEventListener('click', async () => {
  const name = await askName('New album', '');
  if (!name) return;
  try {
    const album = await (await postJSON('/api/collections', { title: name })).json();
    if (folder) await postJSON('/api/lists/' + encodeURIComponent(folder) + '/collections', { collections: [album.localIdentifier] });
    await Promise.all([showAlbumsPage(), changed()]);
  } catch (failure) {
    toast(failure.message);
  }
});
document.getElementById('albums-new-folder').addEventListener('click', async () => {
  const name = await askName('New folder', '');
  if (!name) return;
  try {
    await postJSON('/api/lists', folder ? { title: name, list: folder } : { title: name });
    await Promise.all([showAlbumsPage(), changed()]);
  } catch (failure) {
    toast(failure.message);
  }
});
// A tap elsewhere closes an open ⋯ menu.
addEventListener('click', event => {
  if (!event.target.closest('.cover-menu')) document.querySelectorAll('.cover-menu .menu').forEach(m => { m.hidden = true; });
});
