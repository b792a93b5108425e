// The edit view: sliders and effects build a Lightbox recipe, previewed at the view's size
// and saved at full size. Saving keeps the saved recipe's order and every filter the view
// has no control for (a crop made with the CLI), changing only what the user moved.
import { address, assetPath, postJSON, request } from './api.js';
import { replace } from './grid.js';
import { open, shownImage } from './viewer.js';

const editor = document.getElementById('editor');
const sliders = document.getElementById('sliders');
const effectMenu = document.getElementById('effect');
const note = document.getElementById('edit-note');
// A movie's part kept, in seconds: saved as trim=START,END when it is less than the whole.
const trimRow = document.getElementById('trim');
const trimStart = document.getElementById('trim-start'), trimEnd = document.getElementById('trim-end');
let duration = 0;
const SLIDERS = [
  ['exposure', 'Exposure', -2, 2], ['brightness', 'Brightness', -1, 1], ['contrast', 'Contrast', -1, 1],
  ['highlights', 'Highlights', -1, 1], ['shadows', 'Shadows', -1, 1], ['saturation', 'Saturation', -1, 1],
  ['vibrance', 'Vibrance', -1, 1], ['temperature', 'Warmth', -1, 1], ['tint', 'Tint', -1, 1],
  ['vignette', 'Vignette', -1, 1], ['sharpen', 'Sharpen', 0, 3], ['straighten', 'Straighten', -15, 15],
];
const EFFECTS = ['mono', 'noir', 'sepia', 'comic'];
let turns = 0, flip = null, editing = null, previewing = false, stale = false, saving = false;
// The recipe as saved, [name, value] in order, and the controls the user has moved.
let saved = [], touched = new Set();
// Undo within the session: each step the controls' state before a change, and the steps undone.
let undoStack = [], redoStack = [], beforeImage = '', previewImage = '';
// The crop drawn on the picture: undefined while untouched (a saved one stays where it is),
// null when taken off, else [x, y, width, height] in unit coordinates of the picture the other
// filters make, so that it goes last in the recipe. While cropping, the picture is shown whole.
let crop, cropping = false;
const figure = editor.querySelector('figure');
const cropBox = document.getElementById('crop-box');

for (const [name, title, min, max] of SLIDERS) {
  const label = document.createElement('label');
  label.innerHTML = title + ' <output></output><input type="range" step="any">';
  const input = label.querySelector('input');
  Object.assign(input, { min, max, value: 0, name });
  input.addEventListener('input', () => {
    label.querySelector('output').textContent = (+input.value).toFixed(2);
    if (editing) { touched.add(name); preview(); }
  });
  // A drag of the slider is one step: its state from before the drag began.
  input.addEventListener('pointerdown', () => remember());
  input.addEventListener('keydown', () => remember());
  input.addEventListener('dblclick', () => { remember(); input.value = 0; input.dispatchEvent(new Event('input')); });
  sliders.appendChild(label);
}

// The controls' whole state, to go back to.
function snapshot() {
  return { values: [...sliders.querySelectorAll('input')].map(input => input.value), effect: effectMenu.value,
           turns, flip, crop, touched: new Set(touched), trim: [trimStart.value, trimEnd.value] };
}

function restore(state) {
  sliders.querySelectorAll('input').forEach((input, index) => {
    input.value = state.values[index];
    input.previousSibling.textContent = +input.value ? (+input.value).toFixed(2) : '';
  });
  effectMenu.value = state.effect;
  [trimStart.value, trimEnd.value] = state.trim;
  turns = state.turns;
  flip = state.flip;
  crop = state.crop;
  touched = new Set(state.touched);
  preview();
}

// Called before a change: the state it changes is a step to undo.
function remember() {
  if (!editing) return;
  const state = snapshot();
  const last = undoStack[undoStack.length - 1];
  if (last && JSON.stringify({ ...last, touched: [...last.touched] }) === JSON.stringify({ ...state, touched: [...state.touched] })) return;
  undoStack.push(state);
  redoStack = [];
  steps();
}

function steps() {
  document.getElementById('undo').disabled = !undoStack.length;
  document.getElementById('redo').disabled = !redoStack.length;
}

function undo() {
  if (!undoStack.length) return;
  redoStack.push(snapshot());
  restore(undoStack.pop());
  steps();
}

function redo() {
  if (!redoStack.length) return;
  undoStack.push(snapshot());
  restore(redoStack.pop());
  steps();
}

// Holding Before (or B) shows the photo as it was when the editor opened.
function compare(holding) {
  const picture = editor.querySelector('img');
  if (holding) {
    if (!previewImage) previewImage = picture.src;
    picture.src = beforeImage;
    editor.classList.add('comparing');
  } else if (previewImage) {
    picture.src = previewImage;
    previewImage = '';
    editor.classList.remove('comparing');
  }
}

// What the controls the user moved say: a value, or null to leave the filter out.
function controls() {
  const values = {};
  for (const input of sliders.querySelectorAll('input'))
    values[input.name] = +input.value !== 0 ? (+input.value).toFixed(3) : null;
  const effect = effectMenu.value;
  for (const name of EFFECTS) {
    const before = saved.find(([n]) => n === name);
    values[name] = effect === name ? (before ? before[1] : '1') : null;
  }
  values.rotate = turns ? String(turns * 90) : null;
  values.flip = flip;
  // An end left empty, or at the movie's length, keeps it to its end.
  const from = Math.max(0, +trimStart.value || 0);
  let to = trimEnd.value === '' ? Infinity : +trimEnd.value;
  if (to >= duration) to = Infinity;
  values.trim = to > from && (from > 0 || isFinite(to)) ? from.toFixed(3) + ',' + (isFinite(to) ? to.toFixed(3) : '86400') : null;
  for (const name of Object.keys(values)) if (!touched.has(name)) delete values[name];
  return values;
}

// The saved recipe in its order, with what the user changed; filters the view has no
// control for (a blur made elsewhere) stay as they were. A crop drawn here goes last, as it
// was drawn on the picture the rest make; while cropping, the picture has no crop.
function recipe() {
  const values = controls(), filters = [], done = new Set();
  const ownCrop = crop !== undefined || cropping;
  for (const [name, value] of saved) {
    if (name === 'crop' && ownCrop) continue;
    if (!(name in values)) { filters.push(name + '=' + value); continue; }
    if (done.has(name)) continue;
    done.add(name);
    if (values[name] !== null) filters.push(name + '=' + values[name]);
  }
  for (const [name, value] of Object.entries(values))
    if (!done.has(name) && value !== null) filters.push(name + '=' + value);
  if (!cropping && crop) filters.push('crop=' + crop.map(v => v.toFixed(4)).join(','));
  return filters;
}

// Cropping: the picture whole, a rectangle drawn on it with the pointer.
function startCropping() {
  if (!editing || cropping) return;
  remember();
  cropping = true;
  editor.classList.add('cropping');
  document.getElementById('crop').textContent = 'Done cropping';
  showCropBox(crop || null);
  preview();
}

function stopCropping() {
  if (!cropping) return;
  cropping = false;
  editor.classList.remove('cropping');
  document.getElementById('crop').textContent = 'Crop';
  cropBox.hidden = true;
  preview();
}

function showCropBox(rect) {
  const picture = editor.querySelector('img').getBoundingClientRect(), frame = figure.getBoundingClientRect();
  cropBox.hidden = !rect;
  if (!rect) return;
  Object.assign(cropBox.style, {
    left: picture.left - frame.left + rect[0] * picture.width + 'px', top: picture.top - frame.top + rect[1] * picture.height + 'px',
    width: rect[2] * picture.width + 'px', height: rect[3] * picture.height + 'px' });
}

// The crop's aspect ratio (width over height, in pixels): null when free; `tall` turns it.
let aspect = null, tall = false;

// The ratio in the picture's unit coordinates (a unit square is the whole picture), or null.
function unitRatio() {
  const picture = editor.querySelector('img');
  if (!aspect || !picture.naturalWidth) return null;
  const ratio = aspect === 'original' ? picture.naturalWidth / picture.naturalHeight : aspect;
  return (tall ? 1 / ratio : ratio) / (picture.naturalWidth / picture.naturalHeight);
}

// The largest rectangle of the ratio inside `within` ([x, y, w, h]), centred on it.
function fitted(within, ratio) {
  let [x, y, w, h] = within;
  if (w / h > ratio) { const narrower = h * ratio; x += (w - narrower) / 2; w = narrower; }
  else { const lower = w / ratio; y += (h - lower) / 2; h = lower; }
  return [x, y, w, h];
}

const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
const SMALLEST = 0.02;

// Cropping with the pointer: drawn anew on the picture, or the box's edges and corners dragged
// (its handles), or the whole box moved from its middle. Kept inside the picture and to the
// ratio chosen.
let drawing = null;
figure.addEventListener('pointerdown', event => {
  if (!cropping) return;
  const box = editor.querySelector('img').getBoundingClientRect();
  const at = [(event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height];
  const edge = event.target.dataset ? event.target.dataset.edge : undefined;
  const current = crop || null;
  if (edge && current) drawing = { box, at, mode: 'resize', edge, from: [...current] };
  else if (event.target === cropBox && current) drawing = { box, at, mode: 'move', from: [...current] };
  else if (at.some(v => v < 0 || v > 1)) return;
  else drawing = { box, at, mode: 'draw' };
  remember();
  figure.setPointerCapture(event.pointerId);
  event.preventDefault();
});
figure.addEventListener('pointermove', event => {
  if (!drawing) return;
  const { box, at, mode, from, edge } = drawing;
  const to = [(event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height];
  const ratio = unitRatio();
  let rect;
  if (mode === 'draw') {
    const end = [clamp(to[0], 0, 1), clamp(to[1], 0, 1)];
    let w = Math.abs(end[0] - at[0]), h = Math.abs(end[1] - at[1]);
    if (ratio) {
      // The larger of the two sides leads; the other follows the ratio, inside the picture.
      if (w / h > ratio) h = w / ratio; else w = h * ratio;
      const roomX = end[0] >= at[0] ? 1 - at[0] : at[0], roomY = end[1] >= at[1] ? 1 - at[1] : at[1];
      const scale = Math.min(1, roomX / w, roomY / h);
      w *= scale; h *= scale;
    }
    rect = [end[0] >= at[0] ? at[0] : at[0] - w, end[1] >= at[1] ? at[1] : at[1] - h, w, h];
  } else if (mode === 'move') {
    const [x, y, w, h] = from;
    rect = [clamp(x + to[0] - at[0], 0, 1 - w), clamp(y + to[1] - at[1], 0, 1 - h), w, h];
  } else {
    let [left, top, right, bottom] = [from[0], from[1], from[0] + from[2], from[1] + from[3]];
    if (edge.includes('w')) left = clamp(to[0], 0, right - SMALLEST);
    if (edge.includes('e')) right = clamp(to[0], left + SMALLEST, 1);
    if (edge.includes('n')) top = clamp(to[1], 0, bottom - SMALLEST);
    if (edge.includes('s')) bottom = clamp(to[1], top + SMALLEST, 1);
    let w = right - left, h = bottom - top;
    if (ratio) {
      // An edge moves the other side to keep the ratio; a corner follows the wider move.
      if (edge === 'n' || edge === 's') w = h * ratio;
      else if (edge === 'e' || edge === 'w') h = w / ratio;
      else if (w / h > ratio) h = w / ratio; else w = h * ratio;
      const maxW = edge.includes('w') ? right : 1 - left, maxH = edge.includes('n') ? bottom : 1 - top;
      const scale = Math.min(1, maxW / w, maxH / h);
      w *= scale; h *= scale;
      if (edge.includes('w')) left = right - w;
      if (edge.includes('n')) top = bottom - h;
      if (edge === 'n' || edge === 's') left = clamp(from[0] + (from[2] - w) / 2, 0, 1 - w);
      if (edge === 'e' || edge === 'w') top = clamp(from[1] + (from[3] - h) / 2, 0, 1 - h);
    }
    rect = [left, top, w, h];
  }
  drawing.rect = rect;
  showCropBox(rect);
});
figure.addEventListener('pointerup', () => {
  if (!drawing) return;
  // A click without a drag, or a sliver, is not a crop.
  if (drawing.rect && drawing.rect[2] > SMALLEST && drawing.rect[3] > SMALLEST) { crop = drawing.rect; touched.add('crop'); }
  else if (drawing.mode !== 'draw') showCropBox(crop);
  drawing = null;
});

// The aspect presets: the crop becomes the largest of the ratio inside the one there (or the
// whole picture), and keeps the ratio as it is dragged.
const aspectButtons = [...document.querySelectorAll('#aspects button')];
function showAspect() {
  for (const button of aspectButtons) {
    const value = button.dataset.aspect;
    button.setAttribute('aria-pressed', String(value === 'portrait' ? tall
      : value === 'free' ? aspect === null : value === 'original' ? aspect === 'original' : Number(value) === aspect));
  }
}
for (const button of aspectButtons) {
  button.addEventListener('click', () => {
    const value = button.dataset.aspect;
    if (value === 'portrait') tall = !tall;
    else aspect = value === 'free' ? null : value === 'original' ? 'original' : Number(value);
    showAspect();
    const ratio = unitRatio();
    if (!ratio) return;
    if (!cropping) startCropping();
    remember();
    crop = fitted(crop || [0, 0, 1, 1], ratio);
    touched.add('crop');
    showCropBox(crop);
  });
}

// The tabs: Adjust, Filters, Crop. Crop shows the picture whole with the crop on it; leaving it
// shows the crop made.
const tabs = [...document.querySelectorAll('#editor-tabs [role=tab]')];
function selectTab(chosen) {
  for (const tab of tabs) {
    const on = tab === chosen;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    document.getElementById(tab.getAttribute('aria-controls')).hidden = !on;
  }
  if (chosen.id === 'tab-crop') startCropping(); else stopCropping();
}
for (const tab of tabs) {
  tab.addEventListener('click', () => selectTab(tab));
  tab.addEventListener('keydown', event => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
    next.focus();
    selectTab(next);
  });
}

// Installed editors (docs/EDITORS.md): those that can edit the asset, each with its settings
// as sliders. They run at full size on the server: no preview, Apply saves.
const editorsBox = document.getElementById('editors');
const editorChoice = document.getElementById('editor-choice');
const editorSettings = document.getElementById('editor-settings');
let installed = [];

async function loadEditors(asset) {
  editorsBox.hidden = true;
  installed = [];
  try { installed = await (await request(assetPath(asset) + '/editors')).json(); } catch { return; }
  if (editing !== asset) return;
  editorChoice.replaceChildren(...installed.map(item => {
    const option = document.createElement('option');
    option.value = item.identifier;
    option.textContent = item.name + (item.mayContinue ? ' (continues this edit)' : '');
    return option;
  }));
  editorsBox.hidden = !installed.length;
  showEditorSettings();
}

function showEditorSettings() {
  const chosen = installed.find(item => item.identifier === editorChoice.value);
  document.getElementById('editor-summary').textContent = chosen ? chosen.summary + ' (version ' + chosen.version + ')' : '';
  editorSettings.replaceChildren(...(chosen ? chosen.settings : []).map(setting => {
    const label = document.createElement('label');
    label.append(setting.label + ' ');
    const output = document.createElement('output');
    const input = document.createElement('input');
    Object.assign(input, { type: 'range', name: setting.name, min: setting.minimum, max: setting.maximum,
                           step: setting.step || 'any', value: setting.default });
    output.textContent = (+input.value).toFixed(2);
    input.addEventListener('input', () => { output.textContent = (+input.value).toFixed(2); });
    label.append(output, input);
    return label;
  }));
}

editorChoice.addEventListener('change', showEditorSettings);
document.getElementById('editor-apply').addEventListener('click', () => {
  const chosen = installed.find(item => item.identifier === editorChoice.value);
  if (!chosen) return;
  const filters = [...editorSettings.querySelectorAll('input')].map(input => input.name + '=' + input.value);
  finish(path => postJSON(path, { editor: chosen.identifier, filters }), chosen.name + ' is editing at full size…');
});

// The preview fits the view, in device pixels.
function previewSide() {
  const figure = editor.querySelector('figure');
  return Math.min(2048, Math.ceil(Math.max(figure.clientWidth, figure.clientHeight) * (devicePixelRatio || 1)));
}

// One preview in flight; settings changed meanwhile are sent when it returns.
async function preview() {
  if (!editing) return;
  if (previewing) { stale = true; return; }
  previewing = true;
  try {
    const response = await postJSON(assetPath(editing) + '/edits/preview', { filters: recipe(), maximumSide: previewSide() });
    const blob = await response.blob();
    const picture = editor.querySelector('img');
    const shown = previewImage || picture.src;
    if (shown.startsWith('blob:')) URL.revokeObjectURL(shown);
    // While Before is held, the new preview waits to be shown when it is let go.
    if (previewImage) previewImage = URL.createObjectURL(blob);
    else picture.src = URL.createObjectURL(blob);
    note.textContent = '';
  } catch (error) {
    note.textContent = error.message;
  } finally {
    previewing = false;
    if (stale) { stale = false; preview(); }
  }
}

export async function openEditor(asset) {
  history.replaceState(history.state, '', address({ view: null, edit: asset.localIdentifier }));
  // Not editing until the saved recipe is loaded: setting the controls moves nothing.
  editing = null;
  for (const input of sliders.querySelectorAll('input')) { input.value = 0; input.previousSibling.textContent = ''; }
  effectMenu.value = '';
  turns = 0; flip = null; saved = []; touched = new Set();
  undoStack = []; redoStack = []; previewImage = '';
  crop = undefined; cropping = false; editor.classList.remove('cropping'); cropBox.hidden = true;
  aspect = null; tall = false; showAspect();
  selectTab(tabs[0]);
  // The asset's duration is the trimmed one when it was trimmed: the untrimmed length is then unknown here.
  duration = asset.mediaType === 2 ? asset.duration : 0;
  trimRow.hidden = asset.mediaType !== 2;
  trimStart.value = 0; trimEnd.value = duration ? (Math.ceil(duration * 100) / 100).toFixed(2) : '';
  document.getElementById('crop').textContent = 'Crop';
  steps();
  beforeImage = shownImage();
  editor.querySelector('img').src = beforeImage;
  editor.classList.add('open');
  const state = await (await request(assetPath(asset) + '/edits')).json();
  document.getElementById('edit-kept').textContent = state.hasAdjustments && !state.canContinue
    ? 'Edited with ' + state.adjustmentFormatIdentifier + ': this edit builds on it.' : '';
  saved = (state.filters || []).map(filter => [filter.slice(0, filter.indexOf('=')), filter.slice(filter.indexOf('=') + 1)]);
  for (const [name, value] of saved) {
    const input = sliders.querySelector('input[name=' + name + ']');
    if (input) { input.value = value; input.dispatchEvent(new Event('input')); }
    else if (name === 'rotate') turns = ((+value / 90) % 4 + 4) % 4;
    else if (name === 'flip') flip = value;
    else if (name === 'trim') { [trimStart.value, trimEnd.value] = value.split(','); duration = Infinity; }
    else if (EFFECTS.includes(name)) effectMenu.value = name;
  }
  const controlled = new Set([...SLIDERS.map(([name]) => name), ...EFFECTS, 'rotate', 'flip', 'crop', 'trim']);
  const kept = saved.filter(([name]) => !controlled.has(name)).map(([name, value]) => name + ' ' + value);
  if (kept.length) document.getElementById('edit-kept').textContent = 'Kept as saved: ' + kept.join(', ') + '.';
  editing = asset;
  preview();
  loadEditors(asset);
}

// Closing with changes made (a step to undo) asks first, as Photos asks before it discards an
// edit; saving or reverting closes without asking.
function closeEditor(ask = true) {
  if (ask && editing && undoStack.length &&
      !confirm('Discard your changes to this ' + (editing.mediaType === 2 ? 'movie' : 'photo') + '?')) return;
  editor.classList.remove('open');
  if (editing) history.replaceState(history.state, '', address({ edit: null, view: editing.localIdentifier }));
  editing = null;
}

// Saves or reverts at full size, then shows the result in the grid and the viewer.
async function finish(send, message = 'Saving at full size…') {
  if (saving) return;
  saving = true;
  note.textContent = message;
  try {
    const asset = await (await send(assetPath(editing) + '/edits')).json();
    const index = replace(asset);
    closeEditor(false);
    open(index);
  } catch (error) {
    note.textContent = error.message;
  } finally {
    saving = false;
  }
}

for (const input of [trimStart, trimEnd]) {
  input.addEventListener('focus', () => remember());
  input.addEventListener('change', () => touched.add('trim'));
}
effectMenu.addEventListener('focus', () => remember());
effectMenu.addEventListener('change', () => { EFFECTS.forEach(n => touched.add(n)); preview(); });
document.getElementById('rotate').addEventListener('click', () => {
  remember(); turns = (turns + 1) % 4; touched.add('rotate'); preview();
});
document.getElementById('flip').addEventListener('click', () => {
  remember(); flip = flip ? null : 'horizontal'; touched.add('flip'); preview();
});
document.getElementById('crop').addEventListener('click', () => (cropping ? stopCropping() : startCropping()));
document.getElementById('crop-reset').addEventListener('click', () => {
  remember(); crop = null; cropBox.hidden = true; if (!cropping) preview();
});
document.getElementById('undo').addEventListener('click', undo);
document.getElementById('redo').addEventListener('click', redo);
const compareButton = document.getElementById('compare');
compareButton.addEventListener('pointerdown', () => compare(true));
for (const type of ['pointerup', 'pointerleave', 'pointercancel']) compareButton.addEventListener(type, () => compare(false));
addEventListener('keydown', event => {
  if (!editing || event.target.closest('input[type=text], select, textarea')) return;
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'z') {
    event.preventDefault();
    if (event.shiftKey) redo(); else undo();
  } else if (event.key === 'b' && !event.repeat) compare(true);
});
addEventListener('keyup', event => { if (event.key === 'b') compare(false); });
document.getElementById('cancel').addEventListener('click', () => closeEditor());
document.getElementById('save').addEventListener('click', () => {
  cropping = false;
  editor.classList.remove('cropping');
  finish(path => postJSON(path, { filters: recipe() }));
});
document.getElementById('revert').addEventListener('click', () => finish(path => request(path, { method: 'DELETE' })));
addEventListener('keydown', event => { if (event.key === 'Escape' && editing) closeEditor(); });
