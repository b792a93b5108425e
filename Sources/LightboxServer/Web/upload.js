// Adding photos from the browser: files or folders dropped on the page, or chosen with Upload
// (a phone's picker), sent two at a time to /api/uploads/whole with a progress bar; the server
// imports each as from a folder, pairs a Live Photo's halves whichever comes first, and says
// which were already in the library. Shown in an album, what is added goes into it too.
import { postJSON } from './api.js';
import { refresh } from './grid.js';
import { current, loadSidebar } from './sidebar.js';

const panel = document.getElementById('uploads');
const bar = panel.querySelector('progress');
const summary = document.getElementById('upload-summary');
const failures = document.getElementById('upload-failures');
const picker = document.getElementById('upload-input');
const PARALLEL = 2;

let queue = [], sending = 0, sentBytes = 0, totalBytes = 0, outcomes = null;

function sendOne(file) {
  return new Promise(resolve => {
    const request = new XMLHttpRequest();
    request.open('POST', '/api/uploads/whole?filename=' + encodeURIComponent(file.name));
    request.setRequestHeader('Content-Type', 'application/octet-stream');
    let reported = 0;
    request.upload.onprogress = event => {
      sentBytes += event.loaded - reported;
      reported = event.loaded;
      show();
    };
    request.onload = () => {
      sentBytes += file.size - reported;
      let body = null;
      try { body = JSON.parse(request.responseText); } catch { /* not JSON */ }
      if (request.status < 300 && body) resolve({ outcome: body.outcome, asset: body.asset });
      else resolve({ outcome: 'failed', reason: body && body.error ? body.error.message : request.statusText || 'no answer' });
    };
    request.onerror = () => resolve({ outcome: 'failed', reason: 'the connection failed' });
    request.send(file);
  });
}

function show() {
  const done = outcomes.imported + outcomes.paired + outcomes.duplicate + outcomes.failed.length;
  bar.max = Math.max(1, totalBytes);
  bar.value = Math.min(totalBytes, sentBytes);
  const parts = [done + ' of ' + outcomes.total];
  if (outcomes.imported) parts.push(outcomes.imported + ' added');
  if (outcomes.paired) parts.push(outcomes.paired + ' paired (Live Photo)');
  if (outcomes.duplicate) parts.push(outcomes.duplicate + (outcomes.duplicate === 1 ? ' duplicate' : ' duplicates') + ', already in the library');
  if (outcomes.failed.length) parts.push(outcomes.failed.length + ' failed');
  summary.textContent = (done === outcomes.total ? 'Done: ' : 'Uploading: ') + parts.join(' · ');
  failures.replaceChildren(...outcomes.failed.map(([name, reason]) => {
    const item = document.createElement('li');
    item.textContent = name + ': ' + reason;
    return item;
  }));
}

async function pump() {
  while (sending < PARALLEL && queue.length) {
    const file = queue.shift();
    sending++;
    sendOne(file).then(async result => {
      sending--;
      if (result.outcome === 'failed') outcomes.failed.push([file.name, result.reason]);
      else {
        outcomes[result.outcome] = (outcomes[result.outcome] || 0) + 1;
        if (current && current.isAlbum && result.asset) outcomes.added.push(result.asset.localIdentifier);
      }
      show();
      if (!queue.length && !sending) await finish();
      else pump();
    });
  }
}

async function finish() {
  if (outcomes.added.length && current && current.isAlbum) {
    await postJSON('/api/collections/' + encodeURIComponent(current.id) + '/assets',
                   { assets: [...new Set(outcomes.added)] }).catch(() => {});
  }
  panel.classList.add('finished');
  await Promise.all([refresh(), loadSidebar()]).catch(() => {});
}

// Queues files; a new batch while one is sending joins its count.
export function upload(files) {
  const wanted = files.filter(file => file.size > 0 && !file.name.startsWith('.'));
  if (!wanted.length) return;
  if (!outcomes || (!queue.length && !sending)) {
    outcomes = { total: 0, imported: 0, paired: 0, duplicate: 0, failed: [], added: [] };
    sentBytes = 0;
    totalBytes = 0;
  }
  outcomes.total += wanted.length;
  totalBytes += wanted.reduce((sum, file) => sum + file.size, 0);
  queue.push(...wanted);
  panel.hidden = false;
  panel.classList.remove('finished');
  show();
  pump();
}

// Every file in a dropped folder, however deep.
async function filesOf(entry) {
  if (entry.isFile) return [await new Promise((resolve, reject) => entry.file(resolve, reject))];
  if (!entry.isDirectory) return [];
  const reader = entry.createReader();
  const found = [];
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    for (const child of batch) found.push(...await filesOf(child));
  }
  return found;
}

let dragging = 0;
addEventListener('dragenter', event => {
  if (!event.dataTransfer || ![...event.dataTransfer.types].includes('Files')) return;
  dragging++;
  document.body.classList.add('dropping');
});
addEventListener('dragleave', () => { if (--dragging <= 0) { dragging = 0; document.body.classList.remove('dropping'); } });
addEventListener('dragover', event => { if (event.dataTransfer) event.preventDefault(); });
addEventListener('drop', async event => {
  // Files from outside; photos dragged within the page are the sidebar's.
  if (!event.dataTransfer || !event.dataTransfer.types.includes('Files')) return;
  event.preventDefault();
  dragging = 0;
  document.body.classList.remove('dropping');
  const entries = [...event.dataTransfer.items].map(item => item.webkitGetAsEntry && item.webkitGetAsEntry()).filter(Boolean);
  const files = entries.length
    ? (await Promise.all(entries.map(filesOf))).flat()
    : [...event.dataTransfer.files];
  upload(files);
});

document.getElementById('upload').addEventListener('click', () => picker.click());
picker.addEventListener('change', () => { upload([...picker.files]); picker.value = ''; });
document.getElementById('upload-close').addEventListener('click', () => { panel.hidden = true; });
