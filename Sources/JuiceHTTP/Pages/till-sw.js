// The till's service worker, served at `/till-sw.js` and registered by the till with scope
// `/till`: it keeps the page (its scripts are inline, so the page is all there is) so that a
// reload with the server away opens the till from the cache. Network first: a server that
// answers always gets to serve the page, so a new version is never hidden behind the cache.
// Everything else (`/state`, `/events`, `POST /orders`) goes to the network untouched: the
// orders keep their keys and their queue in the page (till/till.js), and the last known
// stock is the page's to keep and to mark stale.

"use strict";
const CACHE = "juice-till-v1", PAGE = "/till";
self.addEventListener("install", ev => {
  ev.waitUntil(caches.open(CACHE).then(c => c.add(new Request(PAGE, { cache: "no-store" }))).then(() => self.skipWaiting()));
});
self.addEventListener("activate", ev => {
  ev.waitUntil(caches.keys()
    .then(keys => Promise.all(keys.filter(k => k.startsWith("juice-till-") && k !== CACHE).map(k => caches.delete(k))))
    .then(() => self.clients.claim()));
});
self.addEventListener("fetch", ev => {
  const url = new URL(ev.request.url);
  if (ev.request.method !== "GET" || url.origin !== self.location.origin || url.pathname !== PAGE) return;
  ev.respondWith(fetch(ev.request, { cache: "no-store" }).then(response => {
    if (response.ok) { const copy = response.clone(); caches.open(CACHE).then(c => c.put(PAGE, copy)); }
    return response;
  }).catch(() => caches.match(PAGE).then(hit => hit || Response.error())));
});
