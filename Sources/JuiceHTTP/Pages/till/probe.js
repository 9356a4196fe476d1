// A classic script run before the till's own: the global `tillProbe`, which tells the till the
// moment the server answers again after an order got no answer (see till/till.js).
//
// - `start(back)`: the server is away. Every second, `GET /healthz` (public, answered and closed,
//   never cached: the service worker keeps only `/till`) is asked; the first answer from a server
//   that takes orders (`200`, or `503 read-only`, which answers orders with `READ_ONLY`) calls
//   `back()` once and stops. A probe is started a second after the one before, answered or not,
//   and given up after `PATIENCE`, so a network that swallows requests still gets one a second
//   and never more than a few at once. Calling `start` while probing keeps the running cadence.
// - `stop()`: the server answered some other way (the event stream came back, an order was
//   answered): no more probes.
// - `probing`: whether it is probing, and `EVERY`, its period (test hook: the till's `#pending`
//   shows it as `data-retry-ms`).
//
// A server that is shutting down answers `503` ("shutting down"): not back yet, probed again.

"use strict";
const tillProbe = (function () {
  const EVERY = 1000, PATIENCE = 3000;
  let timer = null, back = null, round = 0;
  function probe() {
    const mine = round;
    timer = setTimeout(probe, EVERY);
    const abort = new AbortController(), giveUp = setTimeout(() => abort.abort(), PATIENCE);
    fetch("/healthz", { cache: "no-store", signal: abort.signal })
      .then(r => r.text().then(text => {
        if (mine !== round || !back) return;          // stopped (or started anew) meanwhile
        if (r.ok || (r.status === 503 && /^read-only/.test(text))) { const call = back; stop(); call(); }
      }))
      .catch(() => {})
      .finally(() => clearTimeout(giveUp));
  }
  function start(onBack) {
    back = onBack;
    if (timer === null) timer = setTimeout(probe, EVERY);
  }
  function stop() {
    round++;
    back = null;
    clearTimeout(timer);
    timer = null;
  }
  return { EVERY, start, stop, get probing() { return timer !== null; } };
})();
