// The things found in the photo (docs/ANALYSIS.md, Things), in the information panel: each
// label a button that shows the library's photos of it, as a search by its word.
import { assetPath, request } from './api.js';
import { searchThing } from './search.js';

const panel = document.getElementById('info-things');
let shownFor = null;

export async function showThings(asset) {
  shownFor = asset.localIdentifier;
  panel.hidden = true;
  if (asset.mediaType !== 1) return;
  let answer;
  try {
    answer = await (await request(assetPath(asset) + '/things')).json();
  } catch {
    return;
  }
  if (shownFor !== asset.localIdentifier || !answer.things || !answer.things.length) return;
  panel.querySelector('div').replaceChildren(...answer.things.map(thing => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'chip';
    button.textContent = thing.label;
    button.title = 'Photos of ' + thing.label + ' (' + Math.round(thing.confidence * 100) + '% sure); also found as '
      + thing.terms.slice(1, 6).join(', ');
    button.addEventListener('click', () => searchThing(thing.label));
    return button;
  }));
  panel.hidden = false;
}
