// Search: the one box (#q=dog in Lisbon 2019), which the server reads (/api/search) into the
// model's predicates and words, each part a chip; and filters on the library (kind, favourites,
// rating, dates, file name, a person, a place or an area of the map, camera and lens) that build
// a predicate of the model's fetch language, kept in the address (#type=video&fav=1...) and
// shown as chips, each removed with its ×. The grid shows what the predicate selects, newest
// first under its days.
import { address, request } from './api.js';

const form = document.getElementById('search');
const chips = document.getElementById('chips');
const toggle = document.getElementById('search-toggle');
const find = document.getElementById('find');
const notes = document.getElementById('search-notes');

const KINDS = {
  photo: ['Photos', 'mediaType == image'],
  video: ['Videos', 'mediaType == video'],
  live: ['Live Photos', 'mediaSubtypes & photoLive != 0'],
  screenshot: ['Screenshots', 'mediaSubtypes & photoScreenshot != 0'],
  panorama: ['Panoramas', 'mediaSubtypes & photoPanorama != 0'],
  hdr: ['HDR', 'mediaSubtypes & photoHDR != 0'],
  portrait: ['Portraits', 'mediaSubtypes & photoDepthEffect != 0'],
  slomo: ['Slo-mo', 'mediaSubtypes & videoHighFrameRate != 0'],
  timelapse: ['Time-lapse', 'mediaSubtypes & videoTimelapse != 0'],
  burst: ['Bursts', 'burstIdentifier != nil'],
};
const FIELDS = ['type', 'rating', 'from', 'to', 'name', 'person', 'camera', 'lens'];

// Goes to the address with these changes (a hash change: the page follows it).
function go(changes) {
  const target = address(changes);
  location.hash = target.startsWith('#') ? target.slice(1) : '';
}

// Text as a string of the fetch language: quotes and backslashes are not in file names people
// search for, and are left out rather than escaped.
function quoted(text) {
  return '"' + text.replace(/["\\]/g, '') + '"';
}

function day(text) {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : null;
}

function nextDay(text) {
  const date = new Date(text + 'T00:00:00Z');
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

// The filters the address holds, each with its chip's label and its part of the predicate.
function filters() {
  const params = new URLSearchParams(location.hash.slice(1));
  const found = [];
  const kind = KINDS[params.get('type')];
  if (kind) found.push(['type', kind[0], kind[1]]);
  if (params.get('fav') === '1') found.push(['fav', 'Favourites', 'favorite == true']);
  const rating = +params.get('rating');
  if (rating >= 1 && rating <= 5) found.push(['rating', '★'.repeat(rating) + ' or more', 'rating >= ' + rating]);
  const from = day(params.get('from') || ''), to = day(params.get('to') || '');
  // Days as the timeline shows them: by the clock where each photo was taken.
  if (from) found.push(['from', 'From ' + from, 'localCreationDate >= ' + from]);
  if (to) found.push(['to', 'Until ' + to, 'localCreationDate < ' + nextDay(to)]);
  const name = (params.get('name') || '').trim().slice(0, 100);
  if (name) found.push(['name', 'Name: ' + name, 'filename CONTAINS[c] ' + quoted(name)]);
  const thing = (params.get('thing') || '').trim().slice(0, 100);
  if (thing) found.push(['thing', thing, 'thing == ' + quoted(thing)]);
  const text = (params.get('text') || '').trim().slice(0, 200);
  if (text) found.push(['text', 'Text: ' + text, 'text CONTAINS[c] ' + quoted(text)]);
  const person = (params.get('person') || '').trim().slice(0, 200);
  if (person) found.push(['person', person, 'person == ' + quoted(person)]);
  const camera = (params.get('camera') || '').slice(0, 200);
  if (camera) found.push(['camera', 'Camera: ' + camera, 'cameraModel == ' + quoted(camera)]);
  const lens = (params.get('lens') || '').slice(0, 200);
  if (lens) found.push(['lens', 'Lens: ' + lens, 'lensModel == ' + quoted(lens)]);
  const place = (params.get('place') || '').trim().slice(0, 200);
  const code = (params.get('cc') || '').trim().toUpperCase();
  if (place) {
    // A city of the places' list is named with its country: Paris, FR and not Paris, Texas.
    const country = /^[A-Z]{2}$/.test(code) ? code : null;
    found.push(['place', place + (country ? ' (' + country + ')' : ''),
                'place == ' + quoted(place) + (country ? ' AND countryCode == ' + quoted(country) : '')]);
  }
  const area = (params.get('area') || '').split(',').map(Number);
  if (area.length === 4 && area.every(Number.isFinite) && Math.abs(area[0]) <= 90 && Math.abs(area[2]) <= 90 &&
      area[0] <= area[2] && Math.abs(area[1]) <= 180 && Math.abs(area[3]) <= 180) {
    // From the map: its view, or one marker's photos; west beyond east crosses the antimeridian.
    const [south, west, north, east] = area;
    const longitude = west <= east ? 'longitude BETWEEN {' + west + ', ' + east + '}'
      : '(longitude >= ' + west + ' OR longitude <= ' + east + ')';
    found.push(['area', 'On the map', 'latitude BETWEEN {' + south + ', ' + north + '} AND ' + longitude]);
  }
  const near = (params.get('near') || '').split(',').map(Number);
  if (near.length === 2 && near.every(Number.isFinite) && Math.abs(near[0]) <= 90 && Math.abs(near[1]) <= 180) {
    // About 11 km each way.
    const [lat, lon] = near;
    found.push(['near', 'Near ' + lat.toFixed(3) + ', ' + lon.toFixed(3),
                'latitude BETWEEN {' + (lat - 0.1) + ', ' + (lat + 0.1) + '} AND longitude BETWEEN {' +
                (lon - 0.1) + ', ' + (lon + 0.1) + '}']);
  }
  return found;
}

// What the box's text says, as the server reads it (the last one asked, kept): its chips, its
// predicate with the photos CLIP found beside the words' (those the grid shows too), and what a
// person should know of it.
let understood = { q: null, answer: null };
async function readQuery(q) {
  if (understood.q === q) return understood.answer;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const answer = await (await request('/api/search?' + new URLSearchParams({ q, limit: '1000', tz: zone || 'UTC' }))).json();
  understood = { q, answer };
  return answer;
}

// The box's text without a chip's words (its first occurrence, whatever the case).
function without(q, text) {
  const at = q.toLowerCase().indexOf(text.toLowerCase());
  const rest = at < 0 ? q : q.slice(0, at) + q.slice(at + text.length);
  return rest.replace(/\s+/g, ' ').trim();
}

function chip(label, title, remove, className) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = className ? 'chip ' + className : 'chip';
  button.textContent = label + ' ×';
  button.setAttribute('aria-label', 'Remove ' + title);
  button.addEventListener('click', remove);
  return button;
}

// The predicate of the address's search and filters, or null for none; the chips and the form
// follow it.
export async function filtersFromAddress() {
  const params = new URLSearchParams(location.hash.slice(1));
  const q = (params.get('q') || '').trim().slice(0, 500);
  if (find.elements.q !== document.activeElement) find.elements.q.value = q;
  let searched = null, parts = [];
  if (q) {
    try {
      searched = await readQuery(q);
    } catch {
      searched = null;
    }
  }
  if (searched) {
    let predicate = searched.predicate;
    if (searched.foundByContent.length) {
      // The nearest 200: the grid's address holds them.
      const ids = 'SELF IN {' + searched.foundByContent.slice(0, 200).map(quoted).join(', ') + '}';
      predicate = predicate ? '(' + predicate + ') OR ' + ids : ids;
    }
    // Nothing understood and no words (only small words): nothing is found.
    parts.push(predicate || 'FALSEPREDICATE');
    parts = parts.map(part => '(' + part + ')');
  }
  const found = filters();
  const boxChips = (searched ? searched.understood : []).map(({ kind, label, text }) => {
    const made = chip(label, (kind === 'words' ? 'the words ' : '') + label, () => go({ q: without(q, text) || null }),
                      'understood');
    made.dataset.kind = kind;
    if (kind === 'words') {
      const marker = document.createElement('span');
      marker.className = 'kind';
      marker.textContent = '“';
      made.prepend(marker);
    }
    return made;
  });
  const said = searched ? [...searched.notes, 'Searched: ' + searched.covers.join(', ') + '.'] : [];
  notes.textContent = said.join(' ');
  notes.hidden = !said.length;
  chips.replaceChildren(...boxChips, ...found.map(([name, label]) => {
    const made = chip(label, 'the filter ' + label, () => go(name === 'place' ? { place: null, cc: null } : { [name]: null }));
    made.dataset.filter = name;
    return made;
  }));
  chips.hidden = !found.length && !boxChips.length;
  for (const name of ['person', 'camera', 'lens']) offer(form.elements[name], params.get(name) || '');
  for (const name of FIELDS) form.elements[name].value = params.get(name) || '';
  form.elements.fav.checked = params.get('fav') === '1';
  parts.push(...found.map(([, , predicate]) => predicate));
  return parts.length ? parts.join(' AND ') : null;
}

// No chips: an album is shown, which the filters do not search (they stayed over it, and their
// × changed nothing there).
export function hideChips() {
  chips.replaceChildren();
  chips.hidden = true;
  notes.hidden = true;
}

// The box: its text into the address (the library, not an album: search searches the library).
find.addEventListener('submit', event => {
  event.preventDefault();
  go({ q: find.elements.q.value.trim().slice(0, 500) || null, album: null, view: null });
});
// Cleared with the field's own ×: the search goes.
find.elements.q.addEventListener('search', () => {
  if (!find.elements.q.value) go({ q: null });
});

// The form's values into the address (the library, not an album: filters search the library).
form.addEventListener('submit', event => {
  event.preventDefault();
  const changes = { album: null, view: null };
  for (const name of FIELDS) changes[name] = form.elements[name].value.trim() || null;
  changes.fav = form.elements.fav.checked ? '1' : null;
  go(changes);
});
for (const control of form.querySelectorAll('select, input[type=checkbox], input[type=date]')) {
  control.addEventListener('change', () => form.requestSubmit());
}
toggle.addEventListener('click', () => {
  form.hidden = !form.hidden;
  toggle.setAttribute('aria-expanded', String(!form.hidden));
  if (!form.hidden) {
    form.elements.name.focus();
    loadCameras();
    loadPeople();
  }
});

// A select keeps the value the address names even before the library's cameras are read.
function offer(select, value) {
  if (value && ![...select.options].some(option => option.value === value)) select.add(new Option(value, value));
}

// The cameras and lenses of the library, most used first, as the selects' choices: a camera by
// its model (with its make when the model does not start with it), a lens by its model. Read
// each time the form opens: an upload may have brought a camera.
let readingCameras = false;
async function loadCameras() {
  if (readingCameras) return;
  readingCameras = true;
  let cameras;
  try {
    cameras = (await (await request('/api/cameras')).json()).cameras;
  } catch {
    return;
  } finally {
    readingCameras = false;
  }
  const models = new Map(), lenses = new Map();
  for (const { make, model, lensModel, count } of cameras) {
    if (model) {
      const label = make && !model.toLowerCase().startsWith(make.toLowerCase()) ? make + ' ' + model : model;
      const seen = models.get(model) || [label, 0];
      models.set(model, [seen[0], seen[1] + count]);
    }
    if (lensModel) lenses.set(lensModel, (lenses.get(lensModel) || 0) + count);
  }
  const fill = (select, entries, anyLabel) => {
    const current = select.value;
    select.replaceChildren(new Option(anyLabel, ''),
      ...entries.map(([value, label, count]) => new Option(label + ' (' + count + ')', value)));
    offer(select, current);
    select.value = current;
  };
  fill(form.elements.camera, [...models].map(([model, [label, count]]) => [model, label, count]), 'Any camera');
  fill(form.elements.lens, [...lenses].map(([lens, count]) => [lens, lens, count]), 'Any lens');
}

// The people with a name, most faces first, as the person select's choices (by name: the
// predicate names them as people say them). Read each time the form opens.
async function loadPeople() {
  let people;
  try {
    people = (await (await request('/api/people?named=true&limit=500')).json()).people;
  } catch {
    return;
  }
  const select = form.elements.person;
  const current = select.value;
  select.replaceChildren(new Option('Anyone', ''),
    ...people.map(person => new Option(person.localizedTitle + ' (' + person.estimatedAssetCount + ')', person.localizedTitle)));
  offer(select, current);
  select.value = current;
}

// A thing's photos: from the viewer's information panel.
export function searchThing(word) {
  go({ album: null, view: null, thing: word });
}

// "Photos near here": from the viewer's information panel.
export function searchNear(latitude, longitude) {
  go({ album: null, view: null, near: latitude.toFixed(4) + ',' + longitude.toFixed(4) });
}
