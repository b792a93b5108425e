// What an action did, said for a few seconds at the bottom of the page, with Undo where the
// model can take it back (a favourite, a hide, a delete to Recently Deleted, an album's new
// photos). One at a time: a new one replaces the last, whose undo is then no longer offered.
const box = document.getElementById('toast');
const text = box.querySelector('span');
const undoButton = box.querySelector('button');
let undoing = null;
let timer = null;

function dismiss() {
  clearTimeout(timer);
  box.hidden = true;
  undoing = null;
}

// Says `message`; with `undo` (an async function), offers to take the action back.
export function toast(message, undo = null) {
  clearTimeout(timer);
  text.textContent = message;
  undoing = undo;
  undoButton.hidden = !undo;
  box.hidden = false;
  timer = setTimeout(dismiss, undo ? 8000 : 4000);
}

// An action whose failure (the server away, a refusal) is said in a toast, not lost.
export const said = action => (...args) => action(...args).catch(failure => toast(failure.message));

undoButton.addEventListener('click', async () => {
  const undo = undoing;
  dismiss();
  if (!undo) return;
  try {
    await undo();
    toast('Undone.');
  } catch (failure) {
    toast('Could not undo: ' + failure.message);
  }
});

// Ctrl+Z (Cmd+Z) takes the last action back while its toast shows (not in the editor, which
// has its own undo, nor while typing).
addEventListener('keydown', event => {
  if (box.hidden || !undoing || event.key.toLowerCase() !== 'z' || !(event.ctrlKey || event.metaKey) || event.shiftKey) return;
  if (event.target.closest('input, textarea, select') || document.querySelector('#editor.open')) return;
  event.preventDefault();
  undoButton.click();
});
