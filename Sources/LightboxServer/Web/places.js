// The Places page (#places): a map of the library's located photos, and their countries and
// cities beside it, each with its count, as Photos' Places and Immich's map show them.
//
// The server groups the photos of the view into cells of a grid about 64 pixels square at its
// zoom (GET /api/map), so a million located photos cost a few hundred markers; Leaflet's marker
// cluster (Debian's, loaded with this page the first time it opens) gathers the markers that
// touch on the screen, each showing one photo and how many lie there. A marker or a cluster
// zooms in; at the deepest zoom, or for a single photo, it opens those photos in the timeline
// (#area=S,W,N,E), the photo itself in the viewer. "Show these photos" does the same for the
// whole view. A city or a country of the list opens its photos (#place=NAME&cc=CODE).
import { address, element, items, request } from './api.js';
import { toast } from './toast.js';

const page = document.getElementById('places-page');
const mapElement = document.getElementById('map');
const countLine = document.getElementById('map-count');
const showButton = document.getElementById('map-show');
const list = document.getElementById('place-list');

// The map once made, its cluster layer, the newest read (an older one answering late is
// dropped), and the view's area as the server was asked for it.
let map = null, layer = null, reading = 0, shownArea = null;

function loaded(tag, attributes) {
  return new Promise((resolve, reject) => {
    const made = Object.assign(document.createElement(tag), attributes);
    made.addEventListener('load', resolve, { once: true });
    made.addEventListener('error', () => reject(new Error('the map could not be loaded')), { once: true });
    document.head.append(made);
  });
}

// Leaflet and its marker cluster, as classic scripts (they define the global L), once.
let leafletLoaded = null;
function leaflet() {
  leafletLoaded ||= Promise.all([
    loaded('link', { rel: 'stylesheet', href: '/web/leaflet.css' }),
    loaded('link', { rel: 'stylesheet', href: '/web/markercluster.css' }),
    loaded('script', { src: '/web/leaflet.js' }).then(() => loaded('script', { src: '/web/markercluster.js' })),
  ]).catch(failure => {
    leafletLoaded = null;
    throw failure;
  });
  return leafletLoaded;
}

// The area the view shows, as the server takes it: latitudes within ±90, longitudes within
// ±180 (west beyond east where the view crosses the antimeridian), the whole earth when the view
// is wider than it.
export function viewArea(bounds) {
  const south = Math.max(-90, bounds.getSouth()), north = Math.min(90, bounds.getNorth());
  let west = bounds.getWest(), east = bounds.getEast();
  if (east - west >= 360) {
    west = -180;
    east = 180;
  } else {
    const wrap = longitude => ((longitude + 180) % 360 + 360) % 360 - 180;
    west = wrap(west);
    east = wrap(east);
    if (east === -180) east = 180;
  }
  return { south, west, north, east };
}

function areaParameter(area) {
  return [area.south, area.west, area.north, area.east].map(value => +value.toFixed(5)).join(',');
}

// Opens the photos of `area` in the timeline, and `asset` in the viewer when given.
function openArea(area, asset) {
  const target = address({ places: null, album: null, place: null, cc: null, near: null,
                           area: areaParameter(area), view: asset || null });
  location.hash = target.startsWith('#') ? target.slice(1) : '';
}

function escaped(text) {
  return String(text).replace(/[&<>"']/g, c => '&#' + c.charCodeAt(0) + ';');
}

// A marker's picture: one photo of the cell (or cluster), and how many it holds.
function photoIcon(asset, count) {
  const source = '/api/assets/' + encodeURIComponent(asset) + '/image?w=120&h=120&mode=fill&resize=exact';
  const badge = count > 1 ? '<span class="map-count">' + escaped(count.toLocaleString()) + '</span>' : '';
  return L.divIcon({ className: 'map-marker', iconSize: [52, 52], iconAnchor: [26, 26],
                     html: '<img alt="" loading="lazy" src="' + escaped(source) + '">' + badge });
}

function cellMarker(cell) {
  const marker = L.marker([cell.latitude, cell.longitude], {
    icon: photoIcon(cell.asset, cell.count), cell, title: items(cell.count), alt: items(cell.count) });
  marker.on('click', () => {
    const single = cell.count === 1 || (cell.south === cell.north && cell.west === cell.east);
    if (single || map.getZoom() >= map.getMaxZoom()) {
      const pad = 0.0005;
      openArea({ south: Math.max(-90, cell.south - pad), west: Math.max(-180, cell.west - pad),
                 north: Math.min(90, cell.north + pad), east: Math.min(180, cell.east + pad) },
               cell.count === 1 ? cell.asset : null);
    } else {
      map.fitBounds([[cell.south, cell.west], [cell.north, cell.east]], { padding: [40, 40] });
    }
  });
  return marker;
}

// OpenStreetMap's tile policy asks for the page's origin as the referrer, which the page's own
// policy (same-origin) would not send; only the origin, never the page's address.
function tileLayer(tiles) {
  const Tiles = L.TileLayer.extend({
    createTile(coords, done) {
      const tile = document.createElement('img');
      L.DomEvent.on(tile, 'load', L.Util.bind(this._tileOnLoad, this, done, tile));
      L.DomEvent.on(tile, 'error', L.Util.bind(this._tileOnError, this, done, tile));
      tile.alt = '';
      tile.setAttribute('role', 'presentation');
      tile.referrerPolicy = 'strict-origin';
      tile.src = this.getTileUrl(coords);
      return tile;
    },
  });
  return new Tiles(tiles.url, { maxZoom: tiles.maxZoom, attribution: escaped(tiles.attribution) });
}

// The cells of `area` at `zoom`.
async function cells(area, zoom) {
  const query = new URLSearchParams({ south: area.south, west: area.west, north: area.north, east: area.east, zoom });
  return (await request('/api/map?' + query)).json();
}

async function makeMap() {
  await leaflet();
  const tiles = await (await request('/api/map/tiles')).json();
  // The first view holds every photo.
  const earth = await cells({ south: -90, west: -180, north: 90, east: 180 }, 1);
  map = L.map(mapElement, { worldCopyJump: true, minZoom: 0, maxZoom: tiles.maxZoom, zoomControl: true });
  if (tiles.url) tileLayer(tiles).addTo(map);
  else L.control.attribution({ prefix: 'No map tiles (the server names none)' }).addTo(map);
  layer = L.markerClusterGroup({
    maxClusterRadius: 56, showCoverageOnHover: false, spiderfyOnMaxZoom: true, animate: true,
    iconCreateFunction(cluster) {
      const children = cluster.getAllChildMarkers();
      const count = children.reduce((sum, child) => sum + child.options.cell.count, 0);
      const fullest = children.reduce((a, b) => (b.options.cell.count > a.options.cell.count ? b : a));
      return photoIcon(fullest.options.cell.asset, count);
    },
  }).addTo(map);
  map.on('moveend', () => readCells().catch(failure => toast(failure.message)));
  if (earth.cells.length) {
    const south = Math.min(...earth.cells.map(c => c.south)), north = Math.max(...earth.cells.map(c => c.north));
    const west = Math.min(...earth.cells.map(c => c.west)), east = Math.max(...earth.cells.map(c => c.east));
    map.fitBounds([[south, west], [north, east]], { padding: [30, 30], maxZoom: 12 });
  } else {
    map.setView([20, 0], 2);
  }
}

async function readCells() {
  if (!map || page.hidden) return;
  const asked = ++reading;
  const area = viewArea(map.getBounds());
  const answer = await cells(area, Math.max(0, Math.min(22, Math.round(map.getZoom()))));
  if (asked !== reading) return;
  shownArea = area;
  layer.clearLayers();
  layer.addLayers(answer.cells.map(cellMarker));
  countLine.textContent = answer.count ? items(answer.count) + ' in this view'
    : 'No photos with a location in this view.';
  showButton.disabled = !answer.count;
  mapElement.dataset.cells = String(answer.cells.length);
  mapElement.dataset.count = String(answer.count);
  mapElement.dataset.ready = 'true';
}

showButton.addEventListener('click', () => {
  if (shownArea) openArea(shownArea);
});

function placeLink(label, count, name, code) {
  const link = element('a', 'place-link');
  link.href = address({ places: null, album: null, area: null, near: null, view: null, place: name,
                        cc: code || null });
  link.append(element('span', 'place-name', label), element('span', 'count', count.toLocaleString()));
  return link;
}

// The countries, the most photographed first, each opening onto its cities.
async function showList() {
  const [places, analysis] = await Promise.all([
    request('/api/places').then(answer => answer.json()),
    request('/api/analysis').then(answer => answer.json()).catch(() => ({ places: true })),
  ]);
  if (!places.countries.length) {
    list.replaceChildren(element('p', 'empty', analysis.places
      ? 'No places yet: a photo’s place is named from its location once the places job has run (lightbox serve or lightbox worker runs it).'
      : 'Naming places is switched off for this library: the map shows the photos’ locations, and no place names.'));
    return;
  }
  list.replaceChildren(...places.countries.map((country, index) => {
    const block = element('details', 'place-country');
    block.open = index < 3;
    const summary = element('summary');
    const name = country.name || 'Elsewhere (far from any town)';
    summary.append(element('span', 'place-name', name), element('span', 'count', country.count.toLocaleString()));
    const cities = element('div', 'place-cities');
    if (country.name) cities.append(placeLink('All of ' + country.name, country.count, country.name, country.countryCode));
    for (const city of country.cities) {
      const label = city.name || city.region;
      if (label) cities.append(placeLink(label, city.count, label, country.countryCode));
    }
    block.append(summary, cities);
    return block;
  }));
}

export async function showPlacesPage() {
  page.hidden = false;
  mapElement.dataset.ready = 'false';
  const listed = showList().catch(failure => list.replaceChildren(element('p', 'empty', failure.message)));
  if (!map) await makeMap();
  else {
    map.invalidateSize();
    await readCells();
  }
  await listed;
}

// A change of the library (an upload, a deletion elsewhere) while the page shows: its markers
// and its list read again, the view kept.
export async function refreshPlaces() {
  if (page.hidden || !map) return;
  await Promise.all([readCells(), showList()]);
}

export function hidePlacesPage() {
  page.hidden = true;
}
