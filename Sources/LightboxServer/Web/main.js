// The page: the grid loads as the user scrolls; a link to #view=ID or #edit=ID opens that
// photo, or its edit view, once it is loaded.
import { assets, loadAsScrolled, loadPage } from './grid.js';
import { open } from './viewer.js';
import { openEditor } from './editor.js';

loadAsScrolled();
loadPage().then(() => {
  const [, mode, id] = location.hash.match(/^#(view|edit)=(.+)$/) || [];
  const index = assets.findIndex(a => a.localIdentifier === decodeURIComponent(id || ''));
  if (index < 0) return;
  open(index);
  if (mode === 'edit') openEditor(assets[index]);
});

// "?" lists the keyboard's shortcuts (not while typing).
const shortcuts = document.getElementById('shortcuts');
addEventListener('keydown', event => {
  if (event.key !== '?' || event.target.closest('input, select, textarea')) return;
  if (shortcuts.open) shortcuts.close(); else shortcuts.showModal();
});
