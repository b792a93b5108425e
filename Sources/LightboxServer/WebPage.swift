/// The web page at `/`: a grid of thumbnails, newest first, that loads the next page of
/// assets as the user scrolls, and shows a photo large with its details when clicked.
/// Tiles mark Live Photos, bursts and movies (with their length).
///
/// Images come from the image manager (`/api/assets/{id}/image`): tiles ask for the 360 px
/// square the import stored; the viewer shows the quick image resized from the stored preview
/// at once (`delivery=fast`) and swaps in the final one (`delivery=high`) when it arrives.
/// Each page of tiles, and the photos either side of the one in the viewer, are cached ahead
/// with `POST /api/cache`; closing the viewer stops that.
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
          #viewer img { max-width: 96vw; max-height: 86vh; object-fit: contain; }
          #viewer p { color: #bbb; margin: 10px; }
        </style>
        </head>
        <body>
        <header><h1>Lightbox</h1><span id="count"></span></header>
        <main id="grid" aria-label="Photos, newest first"></main>
        <div id="status">Loading…</div>
        <div id="viewer" role="dialog" aria-modal="true"><img alt=""><p></p></div>
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
          image.src = '/api/assets/' + id + '/image?' + TILE;
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
          const url = '/api/assets/' + id + '/image?w=' + side + '&h=' + side;
          const picture = viewer.querySelector('img');
          // At once the quick image, then the final one when it is ready.
          picture.src = url + '&delivery=fast';
          const final = new Image();
          final.onload = () => { if (current === index) picture.src = final.src; };
          final.src = url + '&delivery=high';
          const neighbours = [index - 2, index - 1, index + 1, index + 2].filter(i => i >= 0 && i < assets.length);
          cache('start', neighbours.map(i => assets[i].localIdentifier), { w: side, h: side });
          const name = asset.resources.length ? asset.resources[0].originalFilename : '';
          viewer.querySelector('p').textContent =
            [name, asset.pixelWidth + '×' + asset.pixelHeight, new Date(asset.creationDate).toLocaleString()].join(' · ');
          viewer.classList.add('open');
        }
        function close() {
          viewer.classList.remove('open');
          current = -1;
          cache('stopAll', []);
        }
        viewer.addEventListener('click', close);
        addEventListener('keydown', event => {
          if (current < 0) return;
          if (event.key === 'Escape') close();
          if (event.key === 'ArrowRight') open(current + 1);
          if (event.key === 'ArrowLeft') open(current - 1);
        });

        new IntersectionObserver(entries => { if (entries.some(e => e.isIntersecting)) loadPage(); },
                                 { rootMargin: '800px' }).observe(status);
        loadPage();
        </script>
        </body>
        </html>
        """#
}
