// Faces and people, as the People page and the viewer show them: a face's crop, the people
// named, and the choices made of faces ("this is Anna", "not Anna", "not a face"), each said
// with Undo where it can be taken back.
import { element, postJSON, request } from './api.js';

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

// Every person, named ones first, then by how many photos they are in (at most 500).
export async function people() {
  const page = await (await request('/api/people?limit=500')).json();
  return page.people.sort((a, b) => (!a.localizedTitle - !b.localizedTitle) || (b.estimatedAssetCount - a.estimatedAssetCount));
}

export function personName(person) {
  return person.localizedTitle || 'No name';
}

export function patchPerson(id, body) {
  return request('/api/people/' + encodeURIComponent(id), {
    method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

// The faces are `person`'s (an identifier), or nobody's known (null).
export function assignFaces(faces, person) {
  return postJSON('/api/faces/assign', { faces, person });
}

export function rejectFaces(faces) {
  return postJSON('/api/faces/reject', { faces });
}

// A new person of these faces, named: answers them.
export async function newPerson(name, faces) {
  return (await postJSON('/api/people', { name, faces })).json();
}
