// The account menu (the header's last button): who is signed in, the browsers and devices
// signed in as them (each but this one can be signed out from here), and signing out. On a
// family computer the name in the header says whose library this is. A library served without
// users to whoever reaches it on this machine has no account: the button is not shown.
import { request } from './api.js';

const button = document.getElementById('account');
const dialog = document.getElementById('account-dialog');
const who = document.getElementById('account-who');
const list = document.getElementById('account-sessions');

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

async function showSessions() {
  const { sessions } = await (await request('/api/sessions')).json();
  list.replaceChildren(...sessions.map(session => {
    const item = document.createElement('li');
    const text = document.createElement('span');
    text.textContent = `${browser(session.userAgent)} · ${session.address} · ${session.current ? 'this browser' : ago(session.lastSeenDate)}`;
    item.append(text);
    if (!session.current) {
      const end = document.createElement('button');
      end.type = 'button';
      end.textContent = 'Sign out';
      end.setAttribute('aria-label', `Sign out ${browser(session.userAgent)} at ${session.address}`);
      end.addEventListener('click', async () => {
        await request('/api/sessions/' + encodeURIComponent(session.id), { method: 'DELETE' });
        item.remove();
      });
      item.append(end);
    }
    return item;
  }));
}

async function load() {
  const answer = await (await request('/api/authorization')).json();
  if (answer.credential !== 'session' || !answer.user) return null;
  button.textContent = answer.user.name;
  button.title = `Signed in as ${answer.user.name}`;
  button.hidden = false;
  who.textContent = `Signed in as ${answer.user.name}${answer.user.role === 'admin' ? ', an admin' : ''}`;
  return answer.user;
}

button.addEventListener('click', () => {
  dialog.showModal();
  showSessions().catch(error => { list.textContent = error.message; });
});

document.getElementById('sign-out').addEventListener('click', async () => {
  await fetch('/api/session', { method: 'DELETE' });
  location.assign('/signin');
});

// The user signed in with a session, or null (a token, or a library without users).
export const signedIn = load().catch(() => null);
