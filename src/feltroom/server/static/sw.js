// The room's service worker (docs/web.md, "Installing the room"): it keeps the static client (the
// page, its scripts, styles, manifest and icons) so that the room opens from a phone's home
// screen. It never keeps game state: the API, the websocket and every other answer go to the
// network untouched. The client is fetched from the network first; the copy is for when the
// network fails.

const CACHE = "feltroom-client-v1";
const CLIENT = [
  "/",
  "/static/app.js",
  "/static/net.js",
  "/static/table.js",
  "/static/tourney.js",
  "/static/verify.js",
  "/static/style.css",
  "/static/manifest.webmanifest",
  "/static/icon-192.png",
  "/static/icon-512.png",
];

/** The static client's own files: the page and /static, nothing under /api or /ws. */
function isClient(url) {
  return url.origin === self.location.origin && (url.pathname === "/" || CLIENT.includes(url.pathname));
}

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(CLIENT)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || !isClient(url)) return; // the network's, as without a worker
  const key = url.pathname; // the page is one entry, whatever its #route
  event.respondWith(fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
    }
    return response;
  }).catch(() => caches.match(key).then((kept) => kept || Response.error())));
});
