// The page: the sidebar, and the grid showing the library's timeline or an album (#album=ID);
// #view=ID or #edit=ID opens that photo (wherever it is), or its edit view. Changes made
// anywhere (another tab, an import, the command line) arrive through the change push and show
// without a reload.
import { assetAt, indexOf, onOpen, refresh, total } from './grid.js';
import { onEdit, open } from './viewer.js';
import { onChange } from './changes.js';
import { openEditor } from './editor.js';
import { loadSidebar, showFromAddress } from './sidebar.js';
import { onAlbumsChanged } from './albums.js';
import { onPeopleChanged } from './people.js';
import { refreshPlaces } from './places.js';
import './select.js';
import './upload.js';
import './camera.js';
import './account.js';
import { showSharedPage } from './sharing.js';

// The modules import one way (main.js, then the pages, then the viewer, the grid, api.js);
// what goes back up is wired here.
onOpen(open);
onEdit(openEditor);
onAlbumsChanged(loadSidebar);
onPeopleChanged(loadSidebar);

// The page keeps its own place: the browser's restoring of the scroll on Back would undo the
// viewer's showing where its walk ended.
history.scrollRestoration = 'manual';

// Shows what the address names: the album (or the library), then the photo or its edit view.
// The newest address wins (a link followed while the first screen loads).
let following = 0;
async function follow() {
  const asked = ++following;
  await showFromAddress();
  if (asked !== following) return;
  const params = new URLSearchParams(location.hash.slice(1));
  const editing = params.has('edit');
  const id = params.get('view') || params.get('edit');
  if (!id || !total()) return;
  const index = await indexOf(id).catch(() => -1);
  if (index < 0 || asked !== following) return;
  // The link's own entry becomes the grid's, and the viewer a step after it: Back and Escape
  // show the grid, as after opening a photo from it.
  params.delete('view');
  params.delete('edit');
  history.replaceState(null, '', params.toString() ? '#' + params : location.pathname);
  await open(index);
  if (editing) openEditor(await assetAt(index));
}

// The photos first: the sidebar's counts (a pass over every asset for the smart albums) are
// asked for once the first screen's assets are read.
follow().then(() => total() ? assetAt(0) : null).catch(() => {}).then(() => loadSidebar()).catch(() => {});
// A link followed in this tab (the viewer's own steps change the address without this event).
addEventListener('hashchange', follow);

// Each committed change of the library (the server pushes them as they commit, to one tab of
// the browser, which tells the others: changes.js): the grid and the sidebar's counts are read
// again, once for a burst of them.
let pending = null;
function changed() {
  clearTimeout(pending);
  pending = setTimeout(() => {
    refresh();
    loadSidebar().catch(() => {});
    if (new URLSearchParams(location.hash.slice(1)).has('shared')) showSharedPage().catch(() => {});
    refreshPlaces().catch(() => {});
  }, 250);
}
onChange(changed);
// The server answers again after it could not be reached (api.js): what changed meanwhile.
addEventListener('lightbox-back', changed);

// "?" lists the keyboard's shortcuts (not while typing).
const shortcuts = document.getElementById('shortcuts');
addEventListener('keydown', event => {
  if (event.key !== '?' || event.target.closest('input, select, textarea')) return;
  if (shortcuts.open) shortcuts.close(); else shortcuts.showModal();
});
