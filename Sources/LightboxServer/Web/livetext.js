// Text in the photo (docs/ANALYSIS.md, Text): the lines the text job read, laid over the
// picture where they are, to be selected and copied as Live Text is in Photos (the Text button,
// or T), and listed in the information panel with a Copy button.
import { assetPath, request } from './api.js';
import { toast } from './toast.js';

const layer = document.getElementById('text-layer');
const button = document.getElementById('live-text');
const panel = document.getElementById('info-text');
let shownFor = null;
let read = [];

// The text of the photo shown: none until its answer comes, and none for a movie or a photo
// the job has not read (or that holds no text).
export async function showText(asset, picture) {
  shownFor = asset.localIdentifier;
  read = [];
  layer.replaceChildren();
  layer.hidden = true;
  button.hidden = true;
  button.setAttribute('aria-pressed', 'false');
  panel.hidden = true;
  if (asset.mediaType !== 1) return;
  let answer;
  try {
    answer = await (await request(assetPath(asset) + '/text')).json();
  } catch {
    return;
  }
  if (shownFor !== asset.localIdentifier || !answer.lines || !answer.lines.length) return;
  read = answer.lines;
  layer.replaceChildren(...read.map(line => {
    const span = document.createElement('span');
    span.className = 'text-line';
    span.textContent = line.text;
    Object.assign(span.style, { left: line.x * 100 + '%', top: line.y * 100 + '%' });
    return span;
  }));
  // Each line its own paragraph, so that a selection copies them a line each.
  panel.querySelector('div').replaceChildren(...read.map(line => {
    const p = document.createElement('p');
    p.textContent = line.text;
    return p;
  }));
  button.hidden = false;
  panel.hidden = false;
  placeText(picture);
}

// Lays the layer over the picture as it is drawn (zoomed, the layer hides: selecting would
// fight panning), each line's letters sized to its box's height and pressed to its width.
export function placeText(picture) {
  if (layer.hidden) return;
  Object.assign(layer.style, {
    left: picture.offsetLeft + 'px', top: picture.offsetTop + 'px', width: picture.offsetWidth + 'px',
    height: picture.offsetHeight + 'px',
  });
  const spans = [...layer.children];
  spans.forEach((span, index) => {
    const line = read[index];
    span.style.transform = '';
    span.style.fontSize = Math.max(6, line.height * picture.offsetHeight * 0.8) + 'px';
    span.style.height = line.height * picture.offsetHeight + 'px';
    span.style.lineHeight = span.style.height;
  });
  // Measured once all are sized: one layout, not one a line.
  const natural = spans.map(span => span.scrollWidth || 1);
  spans.forEach((span, index) => {
    span.style.transform = `scaleX(${(read[index].width * picture.offsetWidth) / natural[index]})`;
  });
}

// Shows or hides the lines over the picture.
export function toggleText(picture) {
  if (button.hidden) return;
  layer.hidden = !layer.hidden;
  button.setAttribute('aria-pressed', String(!layer.hidden));
  placeText(picture);
}

export function hideText() {
  layer.hidden = true;
  button.setAttribute('aria-pressed', 'false');
}

// Whether a pointer went down on a line: it selects text there, and neither pans nor swipes.
export function onText(event) {
  return !!event.target.closest('.text-line');
}

panel.querySelector('button').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(read.map(line => line.text).join('\n'));
    toast('Text copied.');
  } catch {
    // Without the clipboard (a page not served securely), the text is selected to copy by hand.
    getSelection().selectAllChildren(panel.querySelector('div'));
    toast('Press Ctrl+C to copy the selected text.');
  }
});
