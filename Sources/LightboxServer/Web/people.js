// The People page (#people): everyone the library's faces were grouped into, as round covers
// with their names and counts, as Photos and Immich show them; named people first. A cover
// opens the person's photos (#album=ID, a collection like an album's); its name is given or
// changed in place, and its ⋯ menu merges them into another person or hides them. A person's
// own page has Name, Merge and Hide in its header. Hidden people are listed on request.
import { askName, element, items, request } from './api.js';
import { coverMenu } from './albums.js';
import { faceImage, mergePeople, namedFirst, patchPerson, people, personName } from './faces.js';
import { toast } from './toast.js';

const page = document.getElementById('people-page');
const covers = document.getElementById('people-covers');
const showHidden = document.getElementById('people-hidden');
const mergeDialog = document.getElementById('merge-dialog');
const mergeSelect = mergeDialog.querySelector('select');

// What else shows people (the sidebar's entry), read again after a change here: main.js
// wires it.
let changed = async () => {};
export function onPeopleChanged(action) {
  changed = action;
}

async function rename(person) {
  const name = await askName('Name', person.localizedTitle || '');
  if (!name || name === person.localizedTitle) return false;
  await patchPerson(person.localIdentifier, { name });
  toast(`Named “${name}”.`);
  return true;
}

// Asks whom to merge `person` into: another person, named ones first. Null when cancelled.
async function askInto(person) {
  const others = (await people()).filter(p => p.localIdentifier !== person.localIdentifier);
  if (!others.length) {
    toast('There is no one else to merge with.');
    return null;
  }
  mergeSelect.replaceChildren(...others.map(p =>
    new Option(personName(p) + ' (' + items(p.estimatedAssetCount) + ')', p.localIdentifier)));
  document.getElementById('merge-title').textContent = `“${personName(person)}” is the same person as`;
  mergeDialog.showModal();
  return new Promise(resolve => mergeDialog.addEventListener('close', () => {
    resolve(mergeDialog.returnValue === 'ok' ? others.find(p => p.localIdentifier === mergeSelect.value) : null);
  }, { once: true }));
}

// Merges `person` into another, chosen; answers the one they became, or null.
export async function mergePerson(person) {
  const into = await askInto(person);
  if (!into) return null;
  await mergePeople(into.localIdentifier, [person.localIdentifier]);
  toast(`“${personName(person)}” merged into “${personName(into)}”.`);
  return into;
}

async function hide(person) {
  const hidden = !person.isHidden;
  await patchPerson(person.localIdentifier, { hidden });
  toast(hidden ? `“${personName(person)}” hidden from People.` : `“${personName(person)}” shown in People.`,
        () => patchPerson(person.localIdentifier, { hidden: !hidden }).then(refreshAll));
  return true;
}

async function refreshAll() {
  await Promise.all([page.hidden ? null : showPeoplePage(), changed()]);
}

function menuFor(person) {
  return coverMenu(personName(person), person,
                   [['Name…', rename], ['Merge with…', mergePerson], [person.isHidden ? 'Show in People' : 'Hide', hide]],
                   done => (done ? refreshAll() : null));
}

function cover(person) {
  const card = element('div', 'person-cover' + (person.isHidden ? ' hidden-person' : ''));
  card.dataset.person = person.localIdentifier;
  const link = element('a', 'open');
  link.href = '#album=' + encodeURIComponent(person.localIdentifier);
  link.append(faceImage(person.keyFace, 240, personName(person)));
  const name = element('button', 'name' + (person.localizedTitle ? '' : ' unnamed'), person.localizedTitle || 'Add a name');
  name.type = 'button';
  name.addEventListener('click', async () => {
    try {
      if (await rename(person)) await refreshAll();
    } catch (failure) {
      toast(failure.message);
    }
  });
  card.append(link, name, element('span', 'note', items(person.estimatedAssetCount)), menuFor(person));
  return card;
}

export async function showPeoplePage() {
  page.hidden = false;
  const answer = await (await request('/api/people?limit=500' + (showHidden.checked ? '&hidden=true' : ''))).json();
  const listed = answer.people.sort(namedFirst);
  covers.replaceChildren(...listed.map(cover));
  if (!listed.length) {
    covers.replaceChildren(element('p', 'empty', answer.facesEnabled
      ? 'No one yet: people appear as the photos’ faces are found and grouped (lightbox worker, or lightbox serve, finds them).'
      : 'Finding faces is switched off for this library.'));
  }
}

export function hidePeoplePage() {
  page.hidden = true;
}

showHidden.addEventListener('change', () => showPeoplePage().catch(failure => toast(failure.message)));

// A person's own page (#album=ID of a person): its header's Name, Merge and Hide.
function shownPerson() {
  return new URLSearchParams(location.hash.slice(1)).get('album');
}

async function personShown() {
  const id = shownPerson();
  return id ? (await request('/api/people/' + encodeURIComponent(id))).json() : null;
}

document.getElementById('name-person').addEventListener('click', async () => {
  try {
    const person = await personShown();
    if (person && await rename(person)) {
      document.getElementById('title').textContent = (await personShown()).localizedTitle;
      await changed();
    }
  } catch (failure) {
    toast(failure.message);
  }
});

document.getElementById('merge-person').addEventListener('click', async () => {
  try {
    const person = await personShown();
    const into = person && await mergePerson(person);
    if (into) location.hash = 'album=' + encodeURIComponent(into.localIdentifier);
  } catch (failure) {
    toast(failure.message);
  }
});

document.getElementById('hide-person').addEventListener('click', async () => {
  try {
    const person = await personShown();
    if (person && await hide(person)) await changed();
  } catch (failure) {
    toast(failure.message);
  }
});
