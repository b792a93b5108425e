// Faces and people, as the People page and the viewer show them: a face's crop, the people
// named, and the choices made of faces ("this is Anna", "not Anna", "not a face"), each said
// with Undo where it can be taken back.
import { element, postJSON, request } from './api.js';
import { onChange } from './changes.js';

// The square crop of a face's photo around it, `side` pixels: its box grown by half on each
// side (a face with its hair and chin), kept inside the photo.
export function faceCrop(face, side) {
  const grow = Math.max(face.width, face.height) * 0.5;
  const x = Math.max(0, face.x - grow), y = Math.max(0, face.y - grow);
  const w = Math.min(1 - x, face.width + 2 * grow), h = Math.min(1 - y, face.height + 2 * grow);
  const crop = [x, y, w, h].map(v => v.toFixed(4)).join(',');
  return '/api/assets/' + encodeURIComponent(face.assetLocalIdentifier) + '/image?w=' + side + '&h=' + side +
    '&mode=fill&resize=exact&crop=' + crop;
}

// A round picture of a face, or a placeholder for none.
export function faceImage(face, side, label) {
  const holder = element('span', 'face-picture');
  if (face) {
    const image = element('img');
    image.alt = label || '';
    image.loading = 'lazy';
    image.src = faceCrop(face, side);
    holder.append(image);
  } else {
    holder.append(element('span', 'glyph', '☺'));
  }
  return holder;
}

// Named people first, then those in the most photos.
export function namedFirst(a, b) {
  return (!a.localizedTitle - !b.localizedTitle) || (b.estimatedAssetCount - a.estimatedAssetCount);
}

// Every person (at most 500), named first: read once, and again after a change anywhere, not
// for each photo the viewer shows.
let known = null;
onChange(() => { known = null; });
export function people() {
  if (!known) {
    known = request('/api/people?limit=500').then(answer => answer.json()).then(page => page.people.sort(namedFirst));
    known.catch(() => { known = null; });
  }
  return known;
}

export function personName(person) {
  return person.localizedTitle || 'No name';
}

// Each write of this page forgets the people read: the change push comes a moment later.
export function patchPerson(id, body) {
  known = null;
  return request('/api/people/' + encodeURIComponent(id), {
    method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

// The people (identifiers) become `into`'s.
export function mergePeople(into, people) {
  known = null;
  return postJSON('/api/people/' + encodeURIComponent(into) + '/merge', { people });
}

// The faces are `person`'s (an identifier), or nobody's known (null).
export function assignFaces(faces, person) {
  known = null;
  return postJSON('/api/faces/assign', { faces, person });
}

export function rejectFaces(faces) {
  known = null;
  return postJSON('/api/faces/reject', { faces });
}

// A new person of these faces, named: answers them.
export async function newPerson(name, faces) {
  known = null;
  return (await postJSON('/api/people', { name, faces })).json();
}
