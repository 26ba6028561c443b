// The page's service worker: every file of the page (listed by web/build)
// cached on install, then served from the cache first, so that the page,
// its modules and the .wasm open with no network.
// web/build writes the version (a hash of the files) and the file list.
const VERSION = '@VERSION@';
const FILES = ['./', ...'@FILES@'.split(' ')];
const CACHE = `snowflake-c-decoder-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(request, { ignoreSearch: true }))
      .then((hit) => hit ?? fetch(request)),
  );
});
