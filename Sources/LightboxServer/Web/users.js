// The users page (#users), for an admin: everyone with an account on this server, with their
// role and since when; someone added with a password and a role (a member gets a library of
// their own); a password set anew for someone who forgot theirs (it signs them out
// everywhere); someone removed, with their sessions and tokens (their library's folder stays on
// the server's disk). The server refuses all of it to anyone but an admin.
import { element, postJSON, request } from './api.js';
import { signedIn } from './account.js';
import { toast } from './toast.js';

const page = document.getElementById('users-page');
const list = document.getElementById('user-list');
const form = document.getElementById('user-form');
const message = document.getElementById('users-message');

function button(label, ariaLabel, action) {
  const made = element('button', '', label);
  made.type = 'button';
  made.setAttribute('aria-label', ariaLabel);
  made.addEventListener('click', () => action().catch(failure => { message.textContent = failure.message; }));
  return made;
}

// A user's line: name, role, since when; Set password… (a field opens beside it) and Remove.
function line(user, me) {
  const item = element('li', 'user');
  const isMe = me && me.name.toLowerCase() === user.name.toLowerCase();
  item.append(element('span', 'who', user.name),
              element('span', 'note', (user.role === 'admin' ? 'Admin' : 'Member') + (isMe ? ' (you)' : '')
                      + ' · since ' + new Date(user.creationDate).toLocaleDateString()));
  const reset = element('form', 'reset');
  reset.hidden = true;
  const field = element('input');
  Object.assign(field, { type: 'password', required: true, minLength: 8, maxLength: 1024, autocomplete: 'new-password',
                         placeholder: 'New password' });
  field.setAttribute('aria-label', `New password for ${user.name}`);
  const set = element('button', '', 'Set');
  reset.append(field, set);
  reset.addEventListener('submit', async event => {
    event.preventDefault();
    try {
      await postJSON('/api/users/' + encodeURIComponent(user.name) + '/password', { password: field.value }, 'PUT');
      reset.hidden = true;
      toast(`${user.name}'s password is set: they are signed out everywhere`);
    } catch (failure) {
      message.textContent = failure.message;
    }
  });
  item.append(button('Set password…', `Set a new password for ${user.name}`, async () => {
    reset.hidden = !reset.hidden;
    if (!reset.hidden) field.focus();
  }));
  if (!isMe) {
    item.append(button('Remove', `Remove ${user.name}`, async () => {
      if (!confirm(`Remove ${user.name}? They can no longer sign in; their photos stay on the server's disk.`)) return;
      await request('/api/users/' + encodeURIComponent(user.name), { method: 'DELETE' });
      toast(`${user.name} removed`);
      await showUsersPage();
    }));
  }
  item.append(reset);
  return item;
}

export async function showUsersPage() {
  page.hidden = false;
  message.textContent = '';
  const me = await signedIn;
  const { users } = await (await request('/api/users')).json();
  list.replaceChildren(...users.map(user => line(user, me)));
}

export function hideUsersPage() {
  page.hidden = true;
}

form.addEventListener('submit', async event => {
  event.preventDefault();
  const fields = form.elements;
  message.textContent = '';
  try {
    const user = await (await postJSON('/api/users', {
      name: fields.name.value.trim(), password: fields.password.value, role: fields.role.value })).json();
    form.reset();
    toast(`${user.name} added: they sign in with the password you chose`);
    await showUsersPage();
  } catch (failure) {
    message.textContent = failure.message;
  }
});
