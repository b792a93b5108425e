// The account menu (the header's last button): the theme, for everyone; for a user signed in,
// who they are (their name is the button, so a family computer says whose library this is),
// the browsers and devices signed in as them (each but this one signed out from here), their
// password, their tokens for apps and scripts, and signing out; an admin finds the users page
// from here. A person also switches finding faces in their own library here. A library served without users to whoever reaches it on this machine has no
// account: the button is a ⚙ with the theme alone.
import { postJSON, request } from './api.js';

const button = document.getElementById('account');
const dialog = document.getElementById('account-dialog');
const who = document.getElementById('account-who');
const list = document.getElementById('account-sessions');
const passwordForm = document.getElementById('password-form');
const passwordMessage = document.getElementById('password-message');
const tokenList = document.getElementById('token-list');
const tokenForm = document.getElementById('token-form');
const tokenSecret = document.getElementById('token-secret');
const tokenMessage = document.getElementById('token-message');
// What an action in the dialog did (a toast would be under the dialog).
const message = document.getElementById('account-message');

function ago(date) {
  const minutes = Math.round((Date.now() - new Date(date).getTime()) / 60000);
  if (minutes < 2) return 'just now';
  if (minutes < 120) return `${minutes} minutes ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} hours ago`;
  return new Date(date).toLocaleDateString();
}

// "Chrome on Linux" from a user agent, or the agent itself when it names neither.
function browser(agent) {
  const name = ['Edg', 'Firefox', 'Chrome', 'Chromium', 'Safari'].find(n => agent.includes(n + '/'));
  const system = ['Android', 'iPhone', 'iPad', 'Windows', 'Mac OS', 'Linux'].find(s => agent.includes(s));
  if (!name && !system) return agent || 'An unknown browser';
  return `${name === 'Edg' ? 'Edge' : name || 'A browser'} on ${system === 'Mac OS' ? 'macOS' : system || 'an unknown system'}`;
}

function line(text, action, label, ariaLabel) {
  const item = document.createElement('li');
  const words = document.createElement('span');
  words.textContent = text;
  item.append(words);
  if (action) {
    const end = document.createElement('button');
    end.type = 'button';
    end.textContent = label;
    end.setAttribute('aria-label', ariaLabel);
    end.addEventListener('click', () => action().then(() => item.remove(), error => { message.textContent = error.message; }));
    item.append(end);
  }
  return item;
}

async function showSessions() {
  const { sessions } = await (await request('/api/sessions')).json();
  list.replaceChildren(...sessions.map(session => {
    const name = browser(session.userAgent);
    return line(`${name} · ${session.address} · ${session.current ? 'this browser' : ago(session.lastSeenDate)}`,
      session.current ? null : () => request('/api/sessions/' + encodeURIComponent(session.id), { method: 'DELETE' }),
      'Sign out', `Sign out ${name} at ${session.address}`);
  }));
}

function tokenText(token) {
  const parts = [token.name, token.scope === 'write' ? 'reads and changes' : 'reads'];
  if (token.limitedTo) parts.push(`${token.limitedTo.length} chosen items only`);
  parts.push(token.expirationDate ? 'expires ' + new Date(token.expirationDate).toLocaleDateString() : 'never expires');
  parts.push(token.lastUsedDate ? 'used ' + ago(token.lastUsedDate) : 'never used');
  return parts.join(' · ');
}

async function showTokens() {
  const { tokens } = await (await request('/api/tokens')).json();
  tokenList.replaceChildren(...tokens.map(token => line(tokenText(token),
    async () => {
      await request('/api/tokens/' + encodeURIComponent(token.id), { method: 'DELETE' });
      message.textContent = `Token “${token.name}” revoked: what uses it is refused from now on.`;
    }, 'Revoke', `Revoke the token ${token.name}`)));
  if (!tokens.length) tokenList.replaceChildren(line('No tokens yet.'));
}

// Who the caller is (a session, a token, the owner on this machine), asked once.
const authorization = request('/api/authorization').then(response => response.json());

async function load() {
  const answer = await authorization;
  if (answer.credential !== 'session' || !answer.user) return null;
  button.textContent = answer.user.name;
  button.title = `Signed in as ${answer.user.name}`;
  button.setAttribute('aria-label', `Account: ${answer.user.name}`);
  who.textContent = `Signed in as ${answer.user.name}${answer.user.role === 'admin' ? ', an admin' : ''}`;
  passwordForm.elements.username.value = answer.user.name;
  document.getElementById('account-signed-in').hidden = false;
  document.getElementById('sign-out').hidden = false;
  const admin = answer.user.role === 'admin';
  document.getElementById('account-users').hidden = !admin;
  document.getElementById('users-entry').hidden = !admin;
  return answer.user;
}

// The user signed in with a session, or null (a token, or a library without users).
export const signedIn = load().catch(() => null);

// Finding faces, naming places, reading text, finding things and CLIP, for a person (signed in, or the owner on this machine) in
// their own library. The change push brings the People and Places pages and the sidebar up to
// date.
const facesSetting = document.getElementById('faces-setting');
const facesEnabled = document.getElementById('faces-enabled');
const placesEnabled = document.getElementById('places-enabled');
const textEnabled = document.getElementById('text-enabled');
const thingsEnabled = document.getElementById('things-enabled');
const clipEnabled = document.getElementById('clip-enabled');

async function showFacesSetting() {
  const { credential } = await authorization;
  if (credential !== 'session' && credential !== 'local') return;
  const analysis = await (await request('/api/analysis')).json();
  facesEnabled.checked = analysis.faces;
  placesEnabled.checked = analysis.places;
  textEnabled.checked = analysis.text;
  thingsEnabled.checked = analysis.things;
  clipEnabled.checked = analysis.clip;
  facesSetting.hidden = false;
}

// A switch of PATCH /api/analysis's `kind`, saying what it did: `askOff`, when given, is asked
// before switching off.
function analysisSwitch(checkbox, kind, said, askOff) {
  checkbox.addEventListener('change', async () => {
    const on = checkbox.checked;
    if (!on && askOff && !confirm(askOff)) {
      checkbox.checked = true;
      return;
    }
    checkbox.disabled = true;
    try {
      await postJSON('/api/analysis', { [kind]: on }, 'PATCH');
      message.textContent = said[on ? 1 : 0];
    } catch (error) {
      checkbox.checked = !on;
      message.textContent = error.message;
    } finally {
      checkbox.disabled = false;
    }
  });
}

// Faces: off deletes every face and person at once, names included, so it is asked first.
analysisSwitch(facesEnabled, 'faces', [
  'Faces switched off: every face and person is deleted, and no photo is analysed for faces.',
  'Faces are being found in your photos again: people appear as they are grouped.',
], 'Stop finding faces? Every face and person found in your photos, with the names you gave them, is deleted '
  + 'now. Switching it on again finds the faces again, without the names.');
// Places: off forgets the names (the locations are the files' and stay), which naming them
// again brings back, so it is not asked.
analysisSwitch(placesEnabled, 'places', [
  'Places switched off: every place name is forgotten, and no location is sent for naming.',
  'Places are being named from your photos’ locations.',
]);
// Text: off forgets the lines read, which reading again brings back.
analysisSwitch(textEnabled, 'text', [
  'Text switched off: every line read is forgotten, and no photo is sent to be read.',
  'The text in your photos is being read.',
]);
analysisSwitch(thingsEnabled, 'things', [
  'Things switched off: every thing found is forgotten, and no photo is sent to be looked at.',
  'The things in your photos are being found.',
]);
analysisSwitch(clipEnabled, 'clip', [
  'Content search switched off: every embedding is forgotten, and no photo is sent to be embedded.',
  'Your photos are being embedded for content search, where the server has a CLIP model.',
]);

// The theme: theme.js keeps it; the switch shows and changes the choice.
for (const radio of document.querySelectorAll('#theme input')) {
  radio.addEventListener('change', () => window.lightboxTheme.choose(radio.value));
}

button.addEventListener('click', async () => {
  const chosen = window.lightboxTheme.choice();
  for (const radio of document.querySelectorAll('#theme input')) radio.checked = radio.value === chosen;
  passwordMessage.textContent = '';
  tokenMessage.textContent = '';
  message.textContent = '';
  tokenSecret.hidden = true;
  dialog.showModal();
  showFacesSetting().catch(() => {});
  if (!(await signedIn)) return;
  showSessions().catch(error => { list.textContent = error.message; });
  showTokens().catch(error => { tokenMessage.textContent = error.message; });
});
// The users page is a page of its own: the dialog goes as its link is followed.
document.getElementById('account-users').addEventListener('click', () => dialog.close());

passwordForm.addEventListener('submit', async event => {
  event.preventDefault();
  const fields = passwordForm.elements;
  if (fields.new.value !== fields.again.value) {
    passwordMessage.textContent = 'The new password and its repetition differ.';
    return;
  }
  passwordMessage.textContent = 'Changing…';
  try {
    await postJSON('/api/password', { currentPassword: fields.current.value, newPassword: fields.new.value }, 'PUT');
    passwordForm.reset();
    passwordMessage.textContent = 'Changed. Other browsers and devices must sign in again.';
    showSessions().catch(() => {});
  } catch (error) {
    passwordMessage.textContent = error.message.charAt(0).toUpperCase() + error.message.slice(1) + '.';
  }
});

tokenForm.addEventListener('submit', async event => {
  event.preventDefault();
  const fields = tokenForm.elements;
  const body = { name: fields.name.value.trim(), scope: fields.scope.value };
  if (fields.expires.value) body.expiresInDays = Number(fields.expires.value);
  try {
    const token = await (await postJSON('/api/tokens', body)).json();
    tokenForm.reset();
    const secret = tokenSecret.querySelector('input');
    secret.value = token.secret;
    tokenSecret.hidden = false;
    secret.focus();
    secret.select();
    tokenMessage.textContent = '';
    await showTokens();
  } catch (error) {
    tokenMessage.textContent = error.message;
  }
});
tokenSecret.querySelector('button').addEventListener('click', async () => {
  const secret = tokenSecret.querySelector('input');
  await navigator.clipboard.writeText(secret.value).catch(() => { secret.select(); document.execCommand('copy'); });
  message.textContent = 'Token copied.';
});

document.getElementById('sign-out').addEventListener('click', async () => {
  await fetch('/api/session', { method: 'DELETE' });
  location.assign('/signin');
});
