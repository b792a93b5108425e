// Sharing in the page. The Shared page (#shared): the albums others share with the user, each
// with its owner, count and what the user may do, opened on their own page (/shared/ID); and
// the albums the user shares, with whom or by which link, each share stopped from here. The
// Share dialog, from an album's page or from a selection (made into a new album first): with a
// user of this server, to view or to add photos, or by a link, with a password and an expiry;
// it lists the album's shares, each with its Stop. Only for a user signed in: a library served
// without users has no one to share with.
import { element, items, postJSON, request } from './api.js';
import { signedIn } from './account.js';

const page = document.getElementById('shared-page');
const received = document.getElementById('shared-received');
const made = document.getElementById('shared-made');
const dialog = document.getElementById('share-dialog');
const list = document.getElementById('share-list');
const error = document.getElementById('share-error');
const personForm = document.getElementById('share-person');
const linkForm = document.getElementById('share-link');

// The album the dialog shares: {id, title}.
let sharing = null;

signedIn.then(user => {
  document.getElementById('shared-entry').hidden = !user;
  document.body.classList.toggle('can-share', !!user);
});

async function shares() {
  return (await request('/api/shares')).json();
}

function button(label, action, ariaLabel) {
  const made = element('button', '', label);
  made.type = 'button';
  if (ariaLabel) made.setAttribute('aria-label', ariaLabel);
  made.addEventListener('click', () => action().catch(failure => { error.textContent = failure.message; }));
  return made;
}

function may(permission) {
  return permission === 'contribute' ? 'can view and add photos' : 'can view';
}

// A share as a line: with whom (or the link, to copy), what they may do, and Stop.
function madeLine(share, after) {
  const line = element('li', 'share');
  if (share.link) {
    const url = element('input', 'link');
    url.readOnly = true;
    url.value = location.origin + share.path;
    url.setAttribute('aria-label', 'The link');
    url.addEventListener('focus', () => url.select());
    const notes = ['link'];
    if (share.hasPassword) notes.push('with a password');
    notes.push(share.expirationDate ? 'expires ' + new Date(share.expirationDate).toLocaleDateString() : 'never expires');
    line.append(url, button('Copy', async () => {
      await navigator.clipboard.writeText(url.value).catch(() => { url.select(); document.execCommand('copy'); });
    }, 'Copy the link'), element('span', 'note', notes.join(', ')));
  } else {
    line.append(element('span', 'who', share.user || 'a user no longer here'), element('span', 'note', may(share.permission)));
  }
  line.append(button('Stop sharing', async () => {
    await request('/api/shares/' + encodeURIComponent(share.id), { method: 'DELETE' });
    await after();
  }, share.link ? 'Stop sharing by this link' : 'Stop sharing with ' + share.user));
  return line;
}

// The Shared page: what others share with the user, then what the user shares.
export async function showSharedPage() {
  page.hidden = false;
  const answer = await shares();
  received.replaceChildren(...answer.received.map(share => {
    const card = element('a', 'cover');
    card.href = '/shared/' + encodeURIComponent(share.id);
    const album = share.collection;
    const image = element('img');
    image.alt = '';
    image.loading = 'lazy';
    if (album && album.keyAssetIdentifier) {
      image.src = '/api/assets/' + encodeURIComponent(album.keyAssetIdentifier)
        + '/image?w=360&h=360&mode=fill&resize=exact&share=' + encodeURIComponent(share.id);
    }
    card.append(image, element('span', 'title', album ? album.localizedTitle || 'Untitled' : 'An album no longer there'),
                element('span', 'note', 'From ' + share.owner + (album ? ' · ' + items(album.estimatedAssetCount) : '')
                        + ' · you ' + may(share.permission)));
    return card;
  }));
  if (!answer.received.length) received.replaceChildren(element('p', 'empty', 'Nothing is shared with you yet.'));

  // What the user shares, by album, the albums' titles read once each.
  const byAlbum = new Map();
  for (const share of answer.made) {
    if (!byAlbum.has(share.album)) byAlbum.set(share.album, []);
    byAlbum.get(share.album).push(share);
  }
  // The albums' titles, read at once; an album deleted since is null (its shares are still
  // listed, to be stopped).
  const collections = await Promise.all([...byAlbum.keys()].map(album =>
    request('/api/collections/' + encodeURIComponent(album)).then(response => response.json(), () => null)));
  const groups = [];
  for (const [index, [album, sharesOfAlbum]] of [...byAlbum].entries()) {
    const collection = collections[index];
    const group = element('section', 'shared-album');
    const heading = element('h3');
    const link = element('a', '', collection ? collection.localizedTitle || 'Untitled' : 'An album no longer there');
    link.href = '#album=' + encodeURIComponent(album);
    heading.append(link);
    const lines = element('ul');
    lines.append(...sharesOfAlbum.map(share => madeLine(share, showSharedPage)));
    group.append(heading, lines);
    groups.push(group);
  }
  made.replaceChildren(...groups);
  if (!groups.length) made.replaceChildren(element('p', 'empty', 'You share nothing yet: open an album and choose Share.'));
}

export function hideSharedPage() {
  page.hidden = true;
}

// The dialog's list: the album's shares now.
async function listShares() {
  const answer = await shares();
  const mine = answer.made.filter(share => share.album === sharing.id);
  list.replaceChildren(...mine.map(share => madeLine(share, listShares)));
  if (!mine.length) list.replaceChildren(element('li', 'empty', 'Not shared yet.'));
}

// Opens the Share dialog for an album: {id, title}.
export async function openShareDialog(album) {
  sharing = album;
  document.getElementById('share-title').textContent = 'Share “' + album.title + '”';
  error.textContent = '';
  personForm.reset();
  linkForm.reset();
  dialog.showModal();
  await listShares();
}

personForm.addEventListener('submit', async event => {
  event.preventDefault();
  error.textContent = '';
  try {
    await postJSON('/api/collections/' + encodeURIComponent(sharing.id) + '/shares', {
      user: personForm.elements.user.value.trim(), permission: personForm.elements.permission.value });
    personForm.reset();
    await listShares();
  } catch (failure) {
    error.textContent = failure.message;
  }
});

linkForm.addEventListener('submit', async event => {
  event.preventDefault();
  error.textContent = '';
  const body = {};
  if (linkForm.elements.password.value) body.password = linkForm.elements.password.value;
  if (linkForm.elements.expires.value) body.expiresInDays = Number(linkForm.elements.expires.value);
  try {
    await postJSON('/api/collections/' + encodeURIComponent(sharing.id) + '/links', body);
    linkForm.reset();
    await listShares();
    // The new link, ready to copy.
    const links = list.querySelectorAll('input.link');
    if (links.length) links[links.length - 1].focus();
  } catch (failure) {
    error.textContent = failure.message;
  }
});

// An empty library: albums others share are not far.
addEventListener('lightbox-empty', async () => {
  if (!(await signedIn)) return;
  const count = (await shares().catch(() => ({ received: [] }))).received.length;
  if (!count) return;
  const status = document.getElementById('status');
  const link = element('a', '', count === 1 ? 'One album is shared with you' : count + ' albums are shared with you');
  link.href = '#shared';
  status.append(document.createElement('br'), link, '.');
});
