// The page: the timeline laid out from the library's days; a link to #view=ID or #edit=ID
// opens that photo (wherever it is in the library), or its edit view. Changes made anywhere
// (another tab, an import, the command line) arrive through the change push and show without
// a reload.
import { assetAt, indexOf, loadTimeline, refresh, total } from './grid.js';
import { open } from './viewer.js';
import { openEditor } from './editor.js';

// The page keeps its own place: the browser's restoring of the scroll on Back would undo the
// viewer's showing where its walk ended.
history.scrollRestoration = 'manual';

// Opens what the address names: #view=ID, #edit=ID.
async function openFromAddress() {
  const [, mode, id] = location.hash.match(/^#(view|edit)=(.+)$/) || [];
  if (!id || !total()) return;
  const index = await indexOf(decodeURIComponent(id)).catch(() => -1);
  if (index < 0) return;
  // The link's own entry becomes the timeline's, and the viewer a step after it: Back and
  // Escape show the timeline, as after opening a photo from it.
  history.replaceState(null, '', location.pathname);
  await open(index);
  if (mode === 'edit') openEditor(await assetAt(index));
}

loadTimeline().then(openFromAddress);
// A link followed in this tab (the viewer's own steps change the address without this event).
addEventListener('hashchange', openFromAddress);

// Each committed change of the library (the server pushes them as they commit): the timeline
// is read again, once for a burst of them.
let pending = null;
const changes = new EventSource('/api/changes/stream');
changes.addEventListener('change', () => {
  clearTimeout(pending);
  pending = setTimeout(refresh, 250);
});

// "?" lists the keyboard's shortcuts (not while typing).
const shortcuts = document.getElementById('shortcuts');
addEventListener('keydown', event => {
  if (event.key !== '?' || event.target.closest('input, select, textarea')) return;
  if (shortcuts.open) shortcuts.close(); else shortcuts.showModal();
});
