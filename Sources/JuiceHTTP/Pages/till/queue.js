// A classic script run before the till's own: the global `tillQueue`, the waiting orders
// (see till/till.js for the rule they serve), oldest first, one `localStorage` item
// each (`juice-till-order:<key>`), written once and removed once answered: no tab ever
// rewrites a list another tab may be adding to. `localStorage` may be refused (a private
// window): then they live in this page only.
//
// **At most `MAX` (50) orders wait.** It is a contract with the server (PROTOCOL.md "Keys"):
// a paired till's own key namespace keeps its newest 1000 keys (`Limits.keysPerTill`), and
// a till must retry only keys among its newest 1000, or a retry of a forgotten key could sell
// twice. A till that holds far fewer waiting orders than that can never retry a key the
// server has pushed out; a tap beyond 50 is refused on the till, visibly, and sells nothing.

"use strict";
const tillQueue = (function () {
  const ORDER = "juice-till-order:", OLD_QUEUE = "juice-till-queue";
  let memory = [];
  function load() {
    try {
      const q = [];
      for (let i = 0; i < localStorage.length; i++) {
        const name = localStorage.key(i);
        if (!name || !name.startsWith(ORDER)) continue;
        try { const o = JSON.parse(localStorage.getItem(name)); if (o && o.key) q.push(o); } catch (e) {}
      }
      return q.sort((a, b) => (a.at || 0) - (b.at || 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    } catch (e) { return memory.slice(); }
  }
  function add(o) {
    try { localStorage.setItem(ORDER + o.key, JSON.stringify(o)); } catch (e) { memory.push(o); }
  }
  function remove(key) {
    memory = memory.filter(o => o.key !== key);
    try { localStorage.removeItem(ORDER + key); } catch (e) {}
  }
  // A queue an older version kept as one list: its orders become items (same keys).
  try {
    const old = JSON.parse(localStorage.getItem(OLD_QUEUE) || "null");
    if (Array.isArray(old)) for (const o of old) if (o && o.key) add(o);
    localStorage.removeItem(OLD_QUEUE);
  } catch (e) {}
  return { PREFIX: ORDER, MAX: 50, load, add, remove };
})();
