/// The web page at `/`: a grid of thumbnails, newest first, that loads the next page of
/// assets as the user scrolls, and shows a photo large with its details when clicked.
/// Tiles mark Live Photos, bursts and movies (with their length).
///
/// Images come from the image manager (`/api/assets/{id}/image`): tiles ask for the 360 px
/// square the import stored; the viewer shows the quick image resized from the stored preview
/// at once (`delivery=fast`) and swaps in the final one (`delivery=high`) when it arrives.
/// Each page of tiles, and the photos either side of the one in the viewer, are cached ahead
/// with `POST /api/cache`; closing the viewer stops that.
///
/// The viewer's Play button plays a Live Photo's motion (once, then the still again) or a
/// movie, from `/api/assets/{id}/movie`. The viewer's Edit button opens an edit view: sliders and effects build a Lightbox recipe,
/// previewed on the display-size image (`POST /api/assets/{id}/edits/preview`, one request in
/// flight, the latest settings sent when it returns), saved at full size (`POST .../edits`) or
/// reverted (`DELETE .../edits`). Saving keeps the saved recipe's order and every filter the
/// view has no control for (a crop made with the CLI), changing only what the user moved.
/// Image URLs carry the asset's modification date, so an edit shows at once everywhere.
enum WebPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Lightbox</title>
        <style>
          :root { color-scheme: dark; --gap: 3px; }
          * { box-sizing: border-box; }
          body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: #111; color: #eee; }
          header { position: sticky; top: 0; z-index: 1; display: flex; align-items: baseline; gap: 1em;
                   padding: 12px 16px; background: rgba(17,17,17,.92); border-bottom: 1px solid #222; }
          header h1 { margin: 0; font-size: 18px; font-weight: 600; }
          header span { color: #999; }
          #grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: var(--gap);
                  padding: var(--gap); }
          #grid a { position: relative; display: block; aspect-ratio: 1; background: #222; overflow: hidden;
                    text-decoration: none; }
          #grid .placeholder { display: flex; width: 100%; height: 100%; align-items: center; justify-content: center;
                               color: #999; font-size: 13px; text-align: center; padding: 8px; }
          #grid .badge { position: absolute; top: 6px; left: 6px; padding: 1px 5px; border-radius: 3px;
                         background: rgba(0,0,0,.55); color: #fff; font-size: 11px; letter-spacing: .04em; }
          #grid img { width: 100%; height: 100%; object-fit: cover; display: block; }
          #status { padding: 24px; text-align: center; color: #888; }
          #viewer { position: fixed; inset: 0; display: none; background: rgba(0,0,0,.95); z-index: 2;
                    flex-direction: column; align-items: center; justify-content: center; }
          #viewer.open { display: flex; }
          #viewer img, #viewer video { max-width: 96vw; max-height: 86vh; object-fit: contain; }
          #viewer video, #viewer.playing img, #viewer button[hidden] { display: none; }
          #viewer.playing video { display: block; }
          #viewer p { color: #bbb; margin: 10px; }
          #viewer button, #editor button { font: inherit; color: #eee; background: #333; border: 1px solid #555;
                                           border-radius: 4px; padding: 4px 12px; cursor: pointer; }
          #editor { position: fixed; inset: 0; display: none; z-index: 3; background: #0b0b0b; }
          #editor.open { display: flex; }
          #editor figure { flex: 1; margin: 0; display: flex; align-items: center; justify-content: center; min-width: 0; }
          #editor figure img { max-width: 100%; max-height: 100vh; object-fit: contain; }
          #editor aside { width: 300px; overflow-y: auto; padding: 16px; background: #161616; border-left: 1px solid #222; }
          #editor label { display: block; margin: 10px 0 2px; color: #ccc; }
          #editor label output { float: right; color: #888; }
          #editor input[type=range], #editor select { width: 100%; }
          #editor .row { display: flex; gap: 8px; margin: 14px 0; flex-wrap: wrap; }
          #editor .note { color: #999; font-size: 12px; min-height: 1.4em; }
        </style>
        </head>
        <body>
        <header><h1>Lightbox</h1><span id="count"></span></header>
        <main id="grid" aria-label="Photos, newest first"></main>
        <div id="status">Loading…</div>
        <div id="viewer" role="dialog" aria-modal="true"><img alt=""><video playsinline></video><p></p><div><button id="play" type="button">Play</button> <button id="edit" type="button">Edit</button></div></div>
        <div id="editor" role="dialog" aria-modal="true" aria-label="Edit">
          <figure><img alt="Preview"></figure>
          <aside>
            <div id="sliders"></div>
            <label>Effect <select id="effect">
              <option value="">None</option><option value="mono">Mono</option><option value="noir">Noir</option>
              <option value="sepia">Sepia</option><option value="comic">Comic</option>
            </select></label>
            <div class="row"><button type="button" id="rotate">Rotate ↻</button><button type="button" id="flip">Flip ⇆</button></div>
            <p class="note" id="edit-kept"></p>
            <p class="note" id="edit-note"></p>
            <div class="row"><button type="button" id="save">Save</button><button type="button" id="cancel">Cancel</button>
              <button type="button" id="revert">Revert to original</button></div>
          </aside>
        </div>
        <script>
        const grid = document.getElementById('grid');
        const status = document.getElementById('status');
        const viewer = document.getElementById('viewer');
        let next = null, loading = false, done = false, shown = 0;
        const assets = [];
        let current = -1;
        const TILE = 'w=360&h=360&mode=fill&resize=exact';

        function cache(action, ids, size) {
          fetch('/api/cache', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                body: JSON.stringify(Object.assign({ action, assets: ids }, size)) }).catch(() => {});
        }

        async function loadPage() {
          if (loading || done) return;
          loading = true;
          try {
            const url = '/api/assets?limit=60' + (next ? '&after=' + encodeURIComponent(next) : '');
            const response = await fetch(url);
            if (!response.ok) throw new Error((await response.json()).error.message);
            const page = await response.json();
            for (const asset of page.assets) grid.appendChild(tile(asset, assets.push(asset) - 1));
            cache('start', page.assets.map(a => a.localIdentifier), { w: 360, h: 360, mode: 'fill', resize: 'exact' });
            shown += page.assets.length;
            document.getElementById('count').textContent = shown + (page.next ? '+' : '') + ' photos';
            next = page.next || null;
            done = !next;
            status.textContent = done ? (shown ? '' : 'No photos yet: lightbox import PATH') : 'Loading…';
          } catch (error) {
            status.textContent = 'Could not load photos: ' + error.message;
          } finally {
            loading = false;
          }
          if (!done && status.getBoundingClientRect().top < innerHeight * 2) loadPage();
        }

        function tile(asset, index) {
          const link = document.createElement('a');
          const id = encodeURIComponent(asset.localIdentifier);
          link.href = '/api/assets/' + id;
          const image = new Image();
          image.loading = 'lazy';
          image.decoding = 'async';
          image.src = '/api/assets/' + id + '/image?' + TILE + version(asset);
          const name = asset.resources.length ? asset.resources[0].originalFilename : asset.localIdentifier;
          image.alt = name;
          link.title = name + ' · ' + asset.creationDate;
          link.appendChild(image);
          // A file with nothing to show (a RAW without a preview, a movie FFmpeg cannot
          // decode): say what it is.
          image.onerror = () => {
            const placeholder = document.createElement('span');
            placeholder.className = 'placeholder';
            placeholder.textContent = (asset.mediaType === 2 ? '▶ ' + clock(asset.duration) + ' · ' : '') + name;
            link.replaceChild(placeholder, image);
          };
          const badge = asset.mediaType === 2 ? clock(asset.duration)
            : (asset.mediaSubtypes & 8) ? 'LIVE' : (asset.burstIdentifier ? 'BURST' : '');
          if (badge) {
            const label = document.createElement('span');
            label.className = 'badge';
            label.textContent = badge;
            link.appendChild(label);
          }
          link.addEventListener('click', event => { event.preventDefault(); open(index); });
          return link;
        }

        // Image URLs name the asset's state: an edit changes them, the browser's cache never serves a stale one.
        function version(asset) { return '&v=' + encodeURIComponent(asset.modificationDate); }

        function clock(seconds) {
          const whole = Math.round(seconds || 0);
          return Math.floor(whole / 60) + ':' + String(whole % 60).padStart(2, '0');
        }

        function viewerSide() {
          return Math.min(8192, Math.ceil(Math.max(innerWidth, innerHeight) * (devicePixelRatio || 1)));
        }

        function open(index) {
          if (index < 0 || index >= assets.length) return;
          current = index;
          const asset = assets[index];
          const id = encodeURIComponent(asset.localIdentifier);
          const side = viewerSide();
          const url = '/api/assets/' + id + '/image?w=' + side + '&h=' + side + version(asset);
          const picture = viewer.querySelector('img');
          // At once the quick image, then the final one when it is ready.
          picture.src = url + '&delivery=fast';
          const final = new Image();
          final.onload = () => { if (current === index) picture.src = final.src; };
          final.src = url + '&delivery=high';
          const neighbours = [index - 2, index - 1, index + 1, index + 2].filter(i => i >= 0 && i < assets.length);
          cache('start', neighbours.map(i => assets[i].localIdentifier), { w: side, h: side });
          const name = asset.resources.length ? asset.resources[0].originalFilename : '';
          history.replaceState(null, '', '#view=' + id);
          viewer.querySelector('p').textContent =
            [name, asset.pixelWidth + '×' + asset.pixelHeight, new Date(asset.creationDate).toLocaleString()].join(' · ');
          stopMovie();
          // A Live Photo's motion (edited with its still) or a movie: played from /movie.
          document.getElementById('play').hidden = !(asset.mediaType === 2 || (asset.mediaSubtypes & 8));
          // Lightbox edits photos and Live Photos, not movies.
          document.getElementById('edit').hidden = asset.mediaType === 2;
          viewer.classList.add('open');
        }
        const movie = viewer.querySelector('video');
        function playMovie() {
          const asset = assets[current];
          movie.controls = asset.mediaType === 2;
          movie.src = '/api/assets/' + encodeURIComponent(asset.localIdentifier) + '/movie' + version(asset).replace('&', '?');
          viewer.classList.add('playing');
          movie.play().catch(stopMovie);
        }
        function stopMovie() {
          viewer.classList.remove('playing');
          movie.pause();
          movie.removeAttribute('src');
        }
        // A Live Photo plays once, then shows its still again.
        movie.addEventListener('ended', () => { if (!movie.controls) stopMovie(); });
        movie.addEventListener('click', event => event.stopPropagation());
        document.getElementById('play').addEventListener('click', event => { event.stopPropagation(); playMovie(); });
        function close() {
          stopMovie();
          viewer.classList.remove('open');
          history.replaceState(null, '', location.pathname);
          current = -1;
          cache('stopAll', []);
        }
        viewer.addEventListener('click', close);
        addEventListener('keydown', event => {
          if (current < 0 || editor.classList.contains('open')) return;
          if (event.key === 'Escape') close();
          if (event.key === 'ArrowRight') open(current + 1);
          if (event.key === 'ArrowLeft') open(current - 1);
        });

        // The edit view: sliders and effects make a recipe; the preview follows them.
        const editor = document.getElementById('editor');
        const SLIDERS = [
          ['exposure', 'Exposure', -2, 2], ['brightness', 'Brightness', -1, 1], ['contrast', 'Contrast', -1, 1],
          ['highlights', 'Highlights', -1, 1], ['shadows', 'Shadows', -1, 1], ['saturation', 'Saturation', -1, 1],
          ['vibrance', 'Vibrance', -1, 1], ['temperature', 'Warmth', -1, 1], ['tint', 'Tint', -1, 1],
          ['vignette', 'Vignette', -1, 1], ['sharpen', 'Sharpen', 0, 3], ['straighten', 'Straighten', -15, 15],
        ];
        const sliders = document.getElementById('sliders');
        for (const [name, title, min, max] of SLIDERS) {
          const label = document.createElement('label');
          label.innerHTML = title + ' <output></output><input type="range" step="any">';
          const input = label.querySelector('input');
          Object.assign(input, { min, max, value: 0, name });
          input.addEventListener('input', () => {
            label.querySelector('output').textContent = (+input.value).toFixed(2);
            if (editing) { touched.add(name); preview(); }
          });
          input.addEventListener('dblclick', () => { input.value = 0; input.dispatchEvent(new Event('input')); });
          sliders.appendChild(label);
        }
        const EFFECTS = ['mono', 'noir', 'sepia', 'comic'];
        let turns = 0, flip = null, editing = null, previewing = false, stale = false, saving = false;
        // The recipe as saved, [name, value] in order, and the controls the user has moved.
        let saved = [], touched = new Set();
        const note = document.getElementById('edit-note');

        // What the controls the user moved say: a value, or null to leave the filter out.
        function controls() {
          const values = {};
          for (const input of sliders.querySelectorAll('input'))
            values[input.name] = +input.value !== 0 ? (+input.value).toFixed(3) : null;
          const effect = document.getElementById('effect').value;
          for (const name of EFFECTS) {
            const before = saved.find(([n]) => n === name);
            values[name] = effect === name ? (before ? before[1] : '1') : null;
          }
          values.rotate = turns ? String(turns * 90) : null;
          values.flip = flip;
          for (const name of Object.keys(values)) if (!touched.has(name)) delete values[name];
          return values;
        }

        // The saved recipe in its order, with what the user changed; filters the view has no
        // control for (a crop, a blur made elsewhere) stay as they were.
        function recipe() {
          const values = controls(), filters = [], done = new Set();
          for (const [name, value] of saved) {
            if (!(name in values)) { filters.push(name + '=' + value); continue; }
            if (done.has(name)) continue;
            done.add(name);
            if (values[name] !== null) filters.push(name + '=' + values[name]);
          }
          for (const [name, value] of Object.entries(values))
            if (!done.has(name) && value !== null) filters.push(name + '=' + value);
          return filters;
        }

        // The preview fits the view, in device pixels.
        function previewSide() {
          const figure = editor.querySelector('figure');
          return Math.min(2048, Math.ceil(Math.max(figure.clientWidth, figure.clientHeight) * (devicePixelRatio || 1)));
        }

        async function post(path, filters, maximumSide) {
          const response = await fetch('/api/assets/' + encodeURIComponent(editing.localIdentifier) + path, {
            method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ filters, maximumSide }) });
          if (!response.ok) throw new Error((await response.json()).error.message);
          return response;
        }

        // One preview in flight; settings changed meanwhile are sent when it returns.
        async function preview() {
          if (!editing) return;
          if (previewing) { stale = true; return; }
          previewing = true;
          try {
            const blob = await (await post('/edits/preview', recipe(), previewSide())).blob();
            const picture = editor.querySelector('img');
            if (picture.src.startsWith('blob:')) URL.revokeObjectURL(picture.src);
            picture.src = URL.createObjectURL(blob);
            note.textContent = '';
          } catch (error) {
            note.textContent = error.message;
          } finally {
            previewing = false;
            if (stale) { stale = false; preview(); }
          }
        }

        async function openEditor() {
          const asset = assets[current];
          const id = encodeURIComponent(asset.localIdentifier);
          history.replaceState(null, '', '#edit=' + id);
          // Not editing until the saved recipe is loaded: setting the controls moves nothing.
          editing = null;
          for (const input of sliders.querySelectorAll('input')) { input.value = 0; input.previousSibling.textContent = ''; }
          document.getElementById('effect').value = '';
          turns = 0; flip = null; saved = []; touched = new Set();
          editor.querySelector('img').src = viewer.querySelector('img').src;
          editor.classList.add('open');
          const state = await (await fetch('/api/assets/' + id + '/edits')).json();
          document.getElementById('edit-kept').textContent = state.hasAdjustments && !state.canContinue
            ? 'Edited with ' + state.adjustmentFormatIdentifier + ': this edit builds on it.' : '';
          saved = (state.filters || []).map(filter => [filter.slice(0, filter.indexOf('=')), filter.slice(filter.indexOf('=') + 1)]);
          for (const [name, value] of saved) {
            const input = sliders.querySelector('input[name=' + name + ']');
            if (input) { input.value = value; input.dispatchEvent(new Event('input')); }
            else if (name === 'rotate') turns = ((+value / 90) % 4 + 4) % 4;
            else if (name === 'flip') flip = value;
            else if (EFFECTS.includes(name)) document.getElementById('effect').value = name;
          }
          const controlled = new Set([...SLIDERS.map(([name]) => name), ...EFFECTS, 'rotate', 'flip']);
          const kept = saved.filter(([name]) => !controlled.has(name)).map(([name, value]) => name + ' ' + value);
          if (kept.length) document.getElementById('edit-kept').textContent = 'Kept as saved: ' + kept.join(', ') + '.';
          editing = asset;
          preview();
        }

        function closeEditor() {
          editor.classList.remove('open');
          if (editing) history.replaceState(null, '', '#view=' + encodeURIComponent(editing.localIdentifier));
          editing = null;
        }

        async function finish(request) {
          if (saving) return;
          saving = true;
          note.textContent = 'Saving at full size…';
          try {
            const response = await request();
            if (!response.ok) throw new Error((await response.json()).error.message);
            const asset = await response.json();
            const index = assets.findIndex(a => a.localIdentifier === asset.localIdentifier);
            assets[index] = asset;
            const old = grid.children[index];
            grid.replaceChild(tile(asset, index), old);
            closeEditor();
            open(index);
          } catch (error) {
            note.textContent = error.message;
          } finally {
            saving = false;
          }
        }

        document.getElementById('edit').addEventListener('click', event => { event.stopPropagation(); openEditor(); });
        document.getElementById('effect').addEventListener('change', () => { EFFECTS.forEach(n => touched.add(n)); preview(); });
        document.getElementById('rotate').addEventListener('click', () => { turns = (turns + 1) % 4; touched.add('rotate'); preview(); });
        document.getElementById('flip').addEventListener('click', () => { flip = flip ? null : 'horizontal'; touched.add('flip'); preview(); });
        document.getElementById('cancel').addEventListener('click', closeEditor);
        document.getElementById('save').addEventListener('click', () => finish(() =>
          fetch('/api/assets/' + encodeURIComponent(editing.localIdentifier) + '/edits', {
            method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ filters: recipe() }) })));
        document.getElementById('revert').addEventListener('click', () => finish(() =>
          fetch('/api/assets/' + encodeURIComponent(editing.localIdentifier) + '/edits', { method: 'DELETE' })));
        addEventListener('keydown', event => { if (event.key === 'Escape' && editing) closeEditor(); });

        new IntersectionObserver(entries => { if (entries.some(e => e.isIntersecting)) loadPage(); },
                                 { rootMargin: '800px' }).observe(status);
        // A link to #view=ID or #edit=ID opens that photo, or its edit view, once it is loaded.
        loadPage().then(() => {
          const [, mode, id] = location.hash.match(/^#(view|edit)=(.+)$/) || [];
          const index = assets.findIndex(a => a.localIdentifier === decodeURIComponent(id || ''));
          if (index < 0) return;
          open(index);
          if (mode === 'edit') openEditor();
        });
        </script>
        </body>
        </html>
        """#
}
