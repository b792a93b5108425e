// The sidebar (a menu on a phone): the library, the smart albums that hold something (and
// Favourites, Hidden and Recently Deleted always), and the albums and folders, each with its
// count; a folder opens in place. Choosing one shows it in the grid (#album=ID); an album's
// page can be renamed or deleted, and the buttons make an album or a folder. Albums and folders
// are dragged into folders, out of them (onto the Albums heading) and into another place in
// their folder.
import { askName, inBatches, items, postJSON, request } from './api.js';
import { DRAGGED_ASSETS, onGone, refresh, setReorder, show, showNothing } from './grid.js';
import { filtersFromAddress, hideChips } from './search.js';
import { hideSharedPage, openShareDialog, showSharedPage } from './sharing.js';
import { signedIn } from './account.js';
import { showTrashActions } from './trash.js';
import { hideUsersPage, showUsersPage } from './users.js';
import { hideAlbumsPage, showAlbumsPage } from './albums.js';
import { hidePeoplePage, showPeoplePage } from './people.js';
import { hidePlacesPage, showPlacesPage } from './places.js';
import { said, toast } from './toast.js';

const sidebar = document.getElementById('sidebar');
const menu = document.getElementById('menu');
const smartList = document.getElementById('smart-albums');
const albumList = document.getElementById('albums');
const title = document.getElementById('title');

// A person's collection type (Lightbox's own, beside albums 1, smart albums 2, moments 3).
export const PERSON = 4;
export const SMART = { favorites: 203, hidden: 205, library: 209, recentlyDeleted: 1000000201 };
const ALWAYS = new Set([SMART.favorites, SMART.hidden, SMART.recentlyDeleted]);

// What the grid shows: null for the library, else the collection (its identifier, title,
// whether it is an album of the user's, its smart album subtype).
export let current = null;
// Called when what the grid shows changes (the selection's actions depend on it).
export const shownChanged = { listeners: [] };
// The user's albums, for "Add to album".
export let albums = [];

// The type of a drag of an album or folder in the sidebar: {id, parent, index}.
const DRAGGED_ALBUM = 'application/x-lightbox-album';

// `target` takes drops of drags of `type`, lit while one is over it: `send` gets the dragged
// data (of the type `read`, `type`'s own by default), and the sidebar is read again after.
function acceptsDrops(target, type, effect, send, read = type) {
  target.addEventListener('dragover', event => {
    if (!event.dataTransfer.types.includes(type)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = effect;
    target.classList.add('drop-target');
  });
  target.addEventListener('dragleave', () => target.classList.remove('drop-target'));
  target.addEventListener('drop', async event => {
    target.classList.remove('drop-target');
    const data = event.dataTransfer.getData(read);
    if (!data) return;
    event.preventDefault();
    event.stopPropagation();
    await send(data);
    await loadSidebar();
  });
}

// Albums and folders dragged onto a folder move into it (out of the folder they were in); a
// folder is not moved into itself.
function acceptsAlbums(summary, folder) {
  acceptsDrops(summary, DRAGGED_ALBUM, 'move', async data => {
    const dragged = JSON.parse(data);
    if (dragged.id === folder) return;
    await postJSON('/api/lists/' + encodeURIComponent(folder) + '/collections', { collections: [dragged.id] });
  });
}

// An album or folder dragged onto an album of the same folder (or both in none) takes its place
// (the others move up or down one; onto a folder, it goes inside); dragged onto the Albums
// heading, it leaves its folder.
function reorderable(element, member, parent, index, isFolder) {
  element.draggable = true;
  // Which folder a drag comes from, as a type of its own: dragover cannot read the data.
  const fromHere = DRAGGED_ALBUM + '-from-' + parent.toLowerCase();
  element.addEventListener('dragstart', event => {
    event.stopPropagation();
    event.dataTransfer.setData(DRAGGED_ALBUM, JSON.stringify({ id: member, parent, index }));
    event.dataTransfer.setData(fromHere, '');
    event.dataTransfer.effectAllowed = 'move';
  });
  if (isFolder) return;
  acceptsDrops(element, fromHere, 'move', async data => {
    const dragged = JSON.parse(data);
    if (dragged.index === index) return;
    await postJSON('/api/lists/' + encodeURIComponent(parent) + '/collections/move', { from: [dragged.index], to: index });
  }, DRAGGED_ALBUM);
}

acceptsDrops(document.querySelector('#sidebar h2'), DRAGGED_ALBUM, 'move', async data => {
  const dragged = JSON.parse(data);
  if (dragged.parent === 'top') return;
  await postJSON('/api/lists/' + encodeURIComponent(dragged.parent) + '/collections/remove', { collections: [dragged.id] });
});

// Photos dragged from the grid onto an album go into it.
function acceptsPhotos(link, album) {
  acceptsDrops(link, DRAGGED_ASSETS, 'copy', ids =>
    postJSON('/api/collections/' + encodeURIComponent(album) + '/assets', { assets: JSON.parse(ids) }));
}

function entry(label, count, collection) {
  const link = document.createElement('a');
  link.href = collection ? '#album=' + encodeURIComponent(collection) : '#';
  link.dataset.collection = collection || '';
  link.textContent = label;
  if (count !== undefined) {
    const number = document.createElement('span');
    number.className = 'count';
    number.textContent = count.toLocaleString();
    link.appendChild(number);
  }
  return link;
}

async function listed(path) {
  return (await (await request(path)).json());
}

// Reads the smart albums and the albums again (after a change anywhere).
export async function loadSidebar() {
  const smart = (await listed('/api/collections?type=smartAlbum&limit=1000')).collections;
  smartList.replaceChildren(...smart
    .filter(c => c.assetCollectionSubtype !== SMART.library && (c.estimatedAssetCount > 0 || ALWAYS.has(c.assetCollectionSubtype)))
    .map(c => entry(c.localizedTitle, c.estimatedAssetCount, c.localIdentifier)));
  // People, once the library has someone (a limited view has no one); Places, once a photo has
  // a location, asked only until one has (the question walks the timeline, and every change
  // reads the sidebar again). Asked beside the albums.
  const placesShown = !document.getElementById('places-entry').hidden;
  const entries = Promise.all([
    listed('/api/people?limit=1').catch(() => ({ people: [] })),
    placesShown ? { assets: [true] }
      : listed('/api/assets?limit=1&predicate=' + encodeURIComponent('latitude != nil')).catch(() => ({ assets: [] })),
  ]);
  // The albums are gathered apart and listed at once: a second reading under way at the same
  // time (changes come in bursts) never empties the list the viewer's Add to is made from.
  const found = [];
  const made = await members('top', found);
  albums = found;
  albumList.replaceChildren(...made);
  const [someone, located] = await entries;
  document.getElementById('people-entry').hidden = !someone.people.length;
  document.getElementById('places-entry').hidden = !located.assets.length;
  markCurrent();
  // The viewer's "Add to album" lists them.
  dispatchEvent(new Event('lightbox-albums'));
}

// The folders opened in this tab: kept open when the sidebar is made again (any change
// anywhere remakes it, which closed them all) and when the page is loaded again.
const openFolders = new Set(JSON.parse(sessionStorage.getItem('lightbox-open-folders') || '[]'));
function keepOpen(id, open) {
  if (open) openFolders.add(id); else openFolders.delete(id);
  sessionStorage.setItem('lightbox-open-folders', JSON.stringify([...openFolders]));
}

// A folder's albums and folders, as links (albums) and disclosure widgets (folders); its
// albums are added to `into` (the list the albums menus show).
async function members(list, into = albums) {
  const found = (await listed('/api/lists/' + encodeURIComponent(list) + '/collections')).collections;
  const elements = [];
  for (const [index, member] of found.entries()) {
    if (member.kind === 'folder') {
      const folder = document.createElement('details');
      const summary = document.createElement('summary');
      summary.textContent = member.localizedTitle || 'Folder';
      summary.dataset.list = member.localIdentifier;
      acceptsAlbums(summary, member.localIdentifier);
      reorderable(summary, member.localIdentifier, list, index, true);
      folder.appendChild(summary);
      folder.addEventListener('toggle', async () => {
        keepOpen(member.localIdentifier, folder.open);
        if (folder.open && folder.children.length === 1) folder.append(...await members(member.localIdentifier));
      });
      if (openFolders.has(member.localIdentifier)) {
        folder.append(...await members(member.localIdentifier, into));
        folder.open = true;
      }
      elements.push(folder);
    } else if (member.kind === 'album') {
      into.push({ id: member.localIdentifier, title: member.localizedTitle || 'Untitled' });
      const link = entry(member.localizedTitle || 'Untitled', member.estimatedAssetCount, member.localIdentifier);
      acceptsPhotos(link, member.localIdentifier);
      reorderable(link, member.localIdentifier, list, index, false);
      elements.push(link);
    }
  }
  return elements;
}

// The pages that are not a grid of photos, by their address (#albums, #shared, #users): their title,
// and how each is shown and hidden.
const PAGES = {
  albums: { title: 'Albums', show: showAlbumsPage, hide: hideAlbumsPage },
  shared: { title: 'Shared', show: showSharedPage, hide: hideSharedPage },
  users: { title: 'Users', show: showUsersPage, hide: hideUsersPage },
  people: { title: 'People', show: showPeoplePage, hide: hidePeoplePage },
  places: { title: 'Places', show: showPlacesPage, hide: hidePlacesPage },
};
// The header's buttons of an album's page and of a person's.
const ALBUM_BUTTONS = ['rename-album', 'delete-album', 'share-album'];
const PERSON_BUTTONS = ['name-person', 'merge-person', 'hide-person'];
// The one shown, or null.
let pageShown = null;

function markCurrent() {
  const shown = pageShown ? '#' + pageShown : current ? current.id : '';
  for (const link of sidebar.querySelectorAll('a')) {
    if (link.dataset.collection === shown) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

// Shows what the address names: #album=ID, a page of PAGES, or the library. The newest address
// wins: a link followed while the first screen still loads is not undone by it.
// An address already being shown (another photo of the album it names) waits for that showing.
let shownOnce = false, shownKey = '', addressRead = 0, showing = Promise.resolve(false);

export async function showFromAddress() {
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get('album');
  const predicate = id ? null : await filtersFromAddress();
  if (id) hideChips();
  const named = Object.keys(PAGES).find(name => params.has(name)) || null;
  const key = named ? '#' + named + '=' + params.get(named) : (id || '') + '|' + (predicate || '');
  if (shownOnce && key === shownKey && !named) {
    await showing.catch(() => {});
    return false;
  }
  shownOnce = true;
  shownKey = key;
  showing = showAddress(++addressRead, named, id, predicate);
  return showing;
}

async function showAddress(asked, named, id, predicate) {
  for (const [name, page] of Object.entries(PAGES)) if (name !== named) page.hide();
  pageShown = named;
  if (named) {
    hideChips();
    current = null;
    closeMenu();
    title.textContent = PAGES[named].title;
    document.title = PAGES[named].title + ' · Lightbox';
    for (const name of [...ALBUM_BUTTONS, ...PERSON_BUTTONS]) document.getElementById(name).hidden = true;
    showTrashActions(false);
    markCurrent();
    shownChanged.listeners.forEach(listener => listener());
    showNothing('');
    await PAGES[named].show();
    return true;
  }
  let missing = false;
  if (id) {
    try {
      const collection = await (await request('/api/collections/' + encodeURIComponent(id))).json();
      if (asked !== addressRead) return false;
      const isPerson = collection.assetCollectionType === PERSON;
      current = { id, title: collection.localizedTitle || (isPerson ? 'No name' : 'Untitled'),
                  isAlbum: collection.assetCollectionType === 1, isPerson, isHidden: !!collection.isHidden,
                  subtype: collection.assetCollectionSubtype };
    } catch {
      // A link to an album that was deleted, or never was: said, not "Loading…" for ever.
      if (asked !== addressRead) return false;
      current = null;
      missing = true;
    }
  } else {
    current = null;
  }
  closeMenu();
  title.textContent = missing ? 'Album not found' : current ? current.title : predicate ? 'Search' : 'Library';
  document.title = (missing ? 'Album not found · ' : current ? current.title + ' · ' : '') + 'Lightbox';
  document.getElementById('rename-album').hidden = !(current && current.isAlbum);
  document.getElementById('delete-album').hidden = !(current && current.isAlbum);
  for (const name of PERSON_BUTTONS) document.getElementById(name).hidden = !(current && current.isPerson);
  document.getElementById('hide-person').textContent = current && current.isHidden ? 'Show in People' : 'Hide person';
  // Before the grid: its tiles say the days each item has left.
  await showTrashActions(!!current && current.subtype === SMART.recentlyDeleted).catch(() => {});
  if (asked !== addressRead) return false;
  // Only a signed-in user shares (a library served without users has no one to share with).
  const shown = current;
  document.getElementById('share-album').hidden = true;
  signedIn.then(user => {
    if (shown === current) document.getElementById('share-album').hidden = !(user && current && current.isAlbum);
  });
  markCurrent();
  // An album of the user's takes a new order from a tile dragged onto another.
  setReorder(current && current.isAlbum ? moveInAlbum(current) : null);
  shownChanged.listeners.forEach(listener => listener());
  if (missing) {
    showNothing('No album has this link: it may have been deleted. The albums are in the sidebar (☰).');
    return true;
  }
  await show({ collection: current ? current.id : null, predicate });
  return true;
}

// Moves the photo at position `from` of `album` to `to`; said, with Undo (back to `from`).
function moveInAlbum(album) {
  const path = '/api/collections/' + encodeURIComponent(album.id) + '/assets/move';
  const move = async (from, to) => {
    await postJSON(path, { from: [from], to });
    await refresh();
  };
  return (from, to) => move(from, to).then(
    () => toast('Moved in “' + album.title + '”.', () => move(to, from)),
    failure => toast(failure.message));
}

// A new album named `name` holding `ids` (a thousand a request, the most one takes); the
// sidebar read again. Answers its identifier.
export async function makeAlbum(name, ids) {
  const album = (await (await postJSON('/api/collections', { title: name, assets: ids.slice(0, 1000) })).json())
    .localIdentifier;
  await inBatches(ids.slice(1000), batch =>
    postJSON('/api/collections/' + encodeURIComponent(album) + '/assets', { assets: batch }));
  await loadSidebar();
  return album;
}

// "New album…" in the selection's and the viewer's Add to: a new album of `ids`, named
// first; undone by deleting it. False when the naming was cancelled.
export const NEW_ALBUM = '+new';
export async function addToNewAlbum(ids) {
  const name = await askName('New album', '');
  if (!name) return false;
  const album = await makeAlbum(name, ids);
  const path = '/api/collections/' + encodeURIComponent(album);
  toast(items(ids.length) + ' added to the new album “' + name + '”.', async () => {
    await request(path, { method: 'DELETE' });
    await loadSidebar();
  });
  return true;
}

function closeMenu() {
  document.body.classList.remove('menu-open');
  menu.setAttribute('aria-expanded', 'false');
}

menu.addEventListener('click', () => {
  const open = document.body.classList.toggle('menu-open');
  menu.setAttribute('aria-expanded', String(open));
});
sidebar.addEventListener('click', event => { if (event.target.closest('a')) closeMenu(); });
// On a phone the menu covers the page: a tap beside it or Escape closes it.
addEventListener('click', event => {
  if (document.body.classList.contains('menu-open') && !event.target.closest('#sidebar, #menu, dialog')) closeMenu();
});
addEventListener('keydown', event => {
  if (event.key === 'Escape' && document.body.classList.contains('menu-open')) closeMenu();
});

document.getElementById('new-album').addEventListener('click', said(async () => {
  const name = await askName('New album', '');
  if (!name) return;
  const album = await (await postJSON('/api/collections', { title: name })).json();
  await loadSidebar();
  location.hash = 'album=' + encodeURIComponent(album.localIdentifier);
}));

document.getElementById('new-folder').addEventListener('click', said(async () => {
  const name = await askName('New folder', '');
  if (!name) return;
  await postJSON('/api/lists', { title: name });
  await loadSidebar();
}));

document.getElementById('rename-album').addEventListener('click', said(async () => {
  if (!current) return;
  const shown = current;
  const name = await askName('Album name', shown.title);
  if (!name) return;
  await request('/api/collections/' + encodeURIComponent(shown.id), {
    method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title: name }) });
  shown.title = name;
  if (current === shown) title.textContent = name;
  await loadSidebar();
}));

// Fills an album menu (the viewer's and the selection's Add to): `first`, New album… and the
// albums. Only a list that changed is built again: a rebuild closes a menu the person has
// open, and every change (a rating) has the sidebar read the albums.
export function listAlbumsIn(select, first) {
  const listed = JSON.stringify(albums.map(album => [album.id, album.title]));
  if (listed === select.dataset.listed) return;
  select.dataset.listed = listed;
  select.replaceChildren(new Option(first, ''), new Option('New album…', NEW_ALBUM),
                         ...albums.map(album => new Option(album.title, album.id)));
}

// A title for a new album no album has (titles are one album's, case aside): `base`, or
// `base` with the first number that makes it free ("Shared 29/11/2026 2"). Every album is
// read, those in closed folders too; unread (the server away), `base` is offered, and the
// album's making says what fails.
export async function freeTitle(base) {
  const taken = new Set();
  let after = null;
  try {
    do {
      const page = await listed('/api/collections?type=album&limit=1000' + (after ? '&after=' + encodeURIComponent(after) : ''));
      for (const album of page.collections) if (album.localizedTitle) taken.add(album.localizedTitle.toLocaleLowerCase());
      after = page.next;
    } while (after);
  } catch {
    return base;
  }
  let title = base;
  for (let number = 2; taken.has(title.toLocaleLowerCase()); number++) title = base + ' ' + number;
  return title;
}

document.getElementById('share-album').addEventListener('click', () => {
  if (current) openShareDialog({ id: current.id, title: current.title }).catch(() => {});
});

// The album shown was deleted elsewhere (another tab, another client): back to the library,
// and said, rather than an error where its photos were.
onGone(async id => {
  if (!current || current.id !== id) return;
  const name = current.title;
  history.replaceState(null, '', location.pathname);
  await showFromAddress();
  await loadSidebar();
  toast('The album "' + name + '" was deleted.');
});

document.getElementById('delete-album').addEventListener('click', async () => {
  if (!current || !confirm('Delete the album "' + current.title + '"? Its photos stay in the library.')) return;
  const album = current.id;
  // The library first, so that nothing reads the album once it is gone.
  history.pushState(null, '', location.pathname);
  await showFromAddress();
  await request('/api/collections/' + encodeURIComponent(album), { method: 'DELETE' });
  await loadSidebar();
});
