// The library's change push, one stream for the whole browser however many tabs show the page.
//
// Over HTTP/1.1 (what `make run` and a home network give) a browser opens at most six
// connections to a host for all its tabs together, and a stream held by every tab left the
// sixth tab no connection for its photos; pages kept in the back/forward cache held theirs too.
// So one tab at a time keeps the stream: the tab holding the Web Lock `lightbox-changes`, which
// passes each change on to the others over a BroadcastChannel. A page lets go of the stream, and
// of its place in the lock's line, whenever it is hidden (another tab in front, a minimised
// window, the page kept in the back/forward cache), and reads the library again when it shows:
// what changed meanwhile is on the screen at once. Where Web Locks are missing (a page served
// over plain HTTP to another machine is not a secure context), each visible tab keeps a stream
// of its own while it is visible: only one tab of a window is, so a window's tabs still share
// one connection.

const channel = new BroadcastChannel('lightbox-changes');
const listeners = [];
let stream = null;
let lease = null; // { abort, release } while this tab waits for the lock or holds it

/// Calls `listener` for each change committed to the library, from any tab's stream.
export function onChange(listener) {
  listeners.push(listener);
}

function changed() {
  for (const listener of listeners) listener();
}

channel.addEventListener('message', changed);

function openStream() {
  stream = new EventSource('/api/changes/stream');
  stream.addEventListener('change', () => {
    changed();
    channel.postMessage('change');
  });
}

// Takes the stream, or a place in line for it.
function lead() {
  if (lease || stream) return;
  if (!navigator.locks) {
    openStream();
    return;
  }
  const abort = new AbortController();
  const current = { abort, release: null };
  lease = current;
  navigator.locks
    .request('lightbox-changes', { signal: abort.signal }, () => new Promise(release => {
      current.release = release;
      if (lease !== current) { release(); return; }
      openStream();
    }))
    .catch(() => {}); // aborted while waiting in line
}

// Lets go of the stream and of the place in line.
function stepDown() {
  stream?.close();
  stream = null;
  if (lease) {
    lease.abort.abort();
    lease.release?.();
    lease = null;
  }
}

let hidden = false;
function hide() {
  hidden = true;
  stepDown();
}
function show() {
  lead();
  // What changed while the page was hidden came to no one here: read the library again.
  if (hidden) changed();
  hidden = false;
}

addEventListener('visibilitychange', () => (document.visibilityState === 'hidden' ? hide() : show()));
addEventListener('pagehide', hide);
addEventListener('pageshow', () => { if (document.visibilityState !== 'hidden') show(); });
if (document.visibilityState !== 'hidden') lead();
