// The script the board, the till, the stock editor and the reports share to know the menu and
// the stock, live: `/state` first (retried with backoff while the server is away), then `/events`
// through shared/base.js's `followEvents`. It runs after the base script and before the page's own
// (a classic script: these are globals there).
//
// The rules: a message listing every fruit is the whole state, any other message is one change,
// applied only if its seq is newer; `/state` from another store (its `store`) replaces the state,
// unless the stream has sent the whole state since it last opened: that is the same server's, so
// the newer of the two stands (an answer from before a sale the stream already showed is older);
// a fruit the page does not know means the server came back with another menu, so `/state` is read
// again. After a dropped stream `/state` is read again too (the server may have restarted with
// another menu).

"use strict";
// A big number with its small label ("4 left", "10 in stock"): [the box, the number in it].
function countBox(tag, cls, label) {
  const box = el(tag, cls), number = el("b", "", "0");
  box.appendChild(number);
  box.appendChild(el("small", "", label));
  return [box, number];
}
// can_make = min over the recipe of floor(stock / amount), as the server computes it.
function canMake(juice, stock) {
  let best = Infinity;
  for (const r of juice.recipe) best = Math.min(best, Math.floor((stock[r.fruit] || 0) / r.amount));
  return best === Infinity ? 0 : best;
}
// Low stock, the one rule of the board and the stock editor: some left, but under a quarter of
// the fruit's par when the menu gives it one (a shelf that should open with 40 kiwis is low at 9,
// and at 1), or, par or not, fewer than the most any single recipe takes (some juice can no longer
// be made of it: the terminal board's rule, juice-board, whose MENU carries no par). Zero is
// "none left" instead. `most`: mostPerRecipe(menu.juices)[fruit].
function isLowStock(count, par, most) {
  return count > 0 && ((typeof par === "number" && count * 4 < par) || count < (most || 0));
}
// The most of each fruit any single recipe takes: {fruit: amount}.
function mostPerRecipe(juices) {
  const most = {};
  for (const j of juices) for (const r of j.recipe) most[r.fruit] = Math.max(most[r.fruit] || 0, r.amount);
  return most;
}
// on.menu(feed) when a menu is (re)built, on.stock(feed) after every change, on.live(bool);
// feed.retry() reads /state at once when it is waiting to try again.
// Returns the feed: {menu: {fruits, juices, currency}, stock: {fruit: count}, seq}; `currency` is
// /state's `{code, minor_digits}`, or null for a menu without prices (each juice then has no `price`).
function followStock(on) {
  const feed = { menu: null, stock: {}, seq: -1, store: null };
  let menuKey = "", loading = null, lost = false, delay = 1000;
  // Whether the stock came whole from the stream since it last (re)opened: it is then the state of
  // the server `/state` answers from, whatever its store, and the two are ordered by seq.
  let whole = false;
  function applyState(s) {
    const key = JSON.stringify([s.fruits, s.juices, s.currency || null]);
    const changed = key !== menuKey;
    if (changed) { feed.menu = { fruits: s.fruits, juices: s.juices, currency: s.currency || null }; menuKey = key; on.menu(feed); }
    // Another store's seq says nothing about this one's (a restored backup, a swapped box).
    const otherStore = s.store !== feed.store && !whole;
    if (changed || otherStore || s.seq >= feed.seq) { feed.stock = Object.assign({}, s.stock); feed.seq = s.seq; }
    feed.store = s.store;
    on.stock(feed);
  }
  function load() {
    if (loading) return loading;
    loading = fetch("/state", { cache: "no-store" })
      .then(r => { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(applyState)
      .finally(() => { loading = null; });
    return loading;
  }
  function onStock(ev) {
    let data;
    try { data = JSON.parse(ev.data); } catch (e) { return; }
    if (!data || typeof data.seq !== "number" || !data.stock || !feed.menu) return;
    const known = new Set(feed.menu.fruits.map(f => f.name));
    if (Object.keys(data.stock).some(n => !known.has(n))) { load().catch(() => {}); return; }
    const full = feed.menu.fruits.every(f => Object.prototype.hasOwnProperty.call(data.stock, f.name));
    if (!full && data.seq <= feed.seq) return;
    if (full) { feed.stock = Object.assign({}, data.stock); whole = true; } else Object.assign(feed.stock, data.stock);
    feed.seq = data.seq;
    on.stock(feed);
  }
  let retry = null;
  function start() {
    retry = null;
    load().then(() => followEvents({
      stock: onStock,
      open: () => { if (lost) load().catch(() => {}); lost = false; on.live(true); },
      drop: () => { lost = true; whole = false; on.live(false); },
    }, () => feed.store), () => {
      on.live(false);
      retry = setTimeout(start, delay);
      delay = Math.min(delay * 2, 10000);
    });
  }
  start();
  // The page heard the server answer another way (the till's probe): a wait to read /state again
  // is cut short.
  feed.retry = () => { if (retry !== null) { clearTimeout(retry); start(); } };
  return feed;
}
