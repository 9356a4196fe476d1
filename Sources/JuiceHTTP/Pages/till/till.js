// The till's script. The rule it exists for: **a tap is one sale, never two, never none.**
//
// - A tap makes an order `{key, juice, count, till}` with a fresh idempotency key: this
//   device's id (random, kept in `localStorage`), this page load's id (so two tabs or a
//   reload never reuse a key) and a counter. It goes into the queue (`tillQueue`, at most 50)
//   *before* anything is sent, so a reload or a crash of the tab does not lose it.
// - Orders are sent one at a time, oldest first, as `POST /orders` with `Idempotency-Key`
//   and, once paired, `Juice-Till` (`tillPairing`). No answer (a network error, a timeout, a
//   5xx other than `READ_ONLY`, a server restarting) keeps the order and retries it with the
//   **same key** (1 s, 2 s, 4 s, then every 5 s, and at once when the event stream comes
//   back): the server applies a key once and answers a repeat with the original result.
// - An answer (200, or a refusal: 4xx, or 503 `READ_ONLY`) takes the order out of the queue.
//   A 401 means the till is not (or no longer) paired: see `unpaired`.
// - A second tap on the same juice within `DEBOUNCE` ms is the same tap (a double tap).
// - Offline start: the last menu and stock seen live are kept in `localStorage`; a page
//   opened while the server is away shows them, marked stale, and takes taps into the queue.
// - An out-of-stock refusal offers the seeds' choice: "Restock" opens `/stock` on the short
//   fruit, "Cancel" leaves the till as it was.
// - Money (`tillSales`, till/sales.js): each button's price at the count picked, the sale's
//   amount once answered, this till's takings today and "Undo last sale".

"use strict";
(function () {
  const ORDER = tillQueue.PREFIX, TILL = "juice-till-id";
  const STATE = "juice-till-state", HTTPS_NOTE = "juice-till-https-note";
  const TIMEOUT = 8000, DEBOUNCE = 600, MAX_COUNT = 99;
  const T = TILL_TEXT, $ = id => document.getElementById(id);
  $("count-label").textContent = T.how;
  $("fruits-title").textContent = T.fruits;

  // The waiting orders (`tillQueue`, at most tillQueue.MAX of them: see its contract).
  const loadQueue = tillQueue.load, addOrder = tillQueue.add, removeOrder = tillQueue.remove;
  const randomHex = n => Array.from(crypto.getRandomValues(new Uint8Array(n)), b => b.toString(16).padStart(2, "0")).join("");
  let tillId = null;
  try { tillId = localStorage.getItem(TILL); } catch (e) {}
  if (!tillId || !/^[0-9a-f]{8}$/.test(tillId)) {
    tillId = randomHex(4);
    try { localStorage.setItem(TILL, tillId); } catch (e) {}
  }
  // Key grammar (PROTOCOL.md, ORDER): 1-64 of A-Z a-z 0-9 . _ : -
  const loadId = randomHex(3);
  let counter = 0;
  const nextKey = () => "till-" + tillId + "." + loadId + "-" + (++counter);
  $("till-id").textContent = T.till + " " + tillId;

  let count = 1, feed = null, nodes = {}, cached = null;
  // What the page shows: the live feed once /state answered, else the last state seen live.
  const view = () => (feed && feed.menu ? feed : cached);
  const lastTap = {};
  function setCount(n) {
    count = Math.max(1, Math.min(MAX_COUNT, n));
    $("count").textContent = String(count);
    document.body.classList.toggle("many", count > 1);
    render();
  }
  $("count-minus").addEventListener("click", () => setCount(count - 1));
  $("count-plus").addEventListener("click", () => setCount(count + 1));

  function fruitLabel(name) {
    const v = view(), f = v && v.menu && v.menu.fruits.find(x => x.name === name);
    return f ? naming(f).main : name;
  }
  function juiceLabel(name) {
    const v = view(), j = v && v.menu && v.menu.juices.find(x => x.name === name);
    return j ? naming(j).main : name;
  }

  function build(f) {
    nodes = {};
    fillList($("juices"), f.menu.juices, j => {
      const b = el("button", "juice");
      b.type = "button";
      b.dataset.juice = j.name;
      const n = naming(j);
      b.appendChild(el("span", "name", n.main));
      if (n.alias) b.appendChild(el("span", "alias", n.alias));
      b.appendChild(el("span", "recipe", j.recipe.map(r => fruitLabel(r.fruit) + " \u00d7" + r.amount).join(" + ")));
      const price = el("span", "price");
      b.appendChild(price);
      const [left, number] = countBox("span", "left", T.left);
      b.appendChild(left);
      b.appendChild(el("span", "soldout", T.soldOut));
      const queued = el("span", "queued");
      b.appendChild(queued);
      b.addEventListener("click", () => tap(j.name, b));
      nodes[j.name] = { b, number, queued, price, juice: j };
      return b;
    });
    fillList($("fruits"), f.menu.fruits, fr => {
      const chip = el("span", "fruit");
      chip.dataset.fruit = fr.name;
      chip.appendChild(el("span", "", naming(fr).main));
      chip.appendChild(el("b", "", "0"));
      return chip;
    });
  }

  function render() {
    const f = view();
    if (!f || !f.menu) return;
    if (f === feed) saveState();
    const waiting = {};
    for (const o of loadQueue()) waiting[o.juice] = (waiting[o.juice] || 0) + o.count;
    for (const name in nodes) {
      const n = nodes[name], can = canMake(n.juice, f.stock);
      n.b.dataset.canMake = String(can);
      n.number.textContent = String(can);
      // Greyed and not tappable when the stock cannot make the count picked (sold out at 1).
      n.b.disabled = can < count;
      const total = tillSales.showPrice(n.price, n.juice, count);
      n.b.setAttribute("aria-label", n.juice.name + (total ? " " + total : "") + ": " + (can > 0 ? can + " " + T.left : T.soldOut));
      n.queued.textContent = waiting[name] ? T.queued(waiting[name]) : "";
      n.queued.classList.toggle("some", !!waiting[name]);
    }
    for (const chip of document.querySelectorAll("#fruits .fruit")) {
      const c = f.stock[chip.dataset.fruit] || 0;
      chip.dataset.stock = String(c);
      chip.lastChild.textContent = String(c);
      chip.classList.toggle("out", c <= 0);
    }
    $("seq").textContent = f.seq >= 0 ? "#" + f.seq : "";
    tillSales.render();
  }

  // The last state seen live, for a start with the server away.
  function saveState() {
    try { localStorage.setItem(STATE, JSON.stringify({ menu: feed.menu, stock: feed.stock, seq: feed.seq, at: Date.now() })); } catch (e) {}
  }
  function setStale(at) {
    document.body.dataset.stale = at ? "true" : "false";
    $("stale").textContent = at ? T.stale(new Date(at).toLocaleTimeString()) : "";
  }

  // A tap: one order, queued before it is sent. A second tap on the same juice while the
  // button still flashes is the same tap.
  function tap(juice, button) {
    const now = Date.now();
    if (button.disabled || tillPairing.shown || now - (lastTap[juice] || 0) < DEBOUNCE) return;
    lastTap[juice] = now;
    const waiting = loadQueue().length;
    if (waiting >= tillQueue.MAX) {
      say(T.notSold + ": " + T.full(waiting), "refused");
      alertBox(T.notSold, T.full(waiting), "QUEUE_FULL");
      return;
    }
    button.classList.add("tapped");
    setTimeout(() => button.classList.remove("tapped"), DEBOUNCE);
    // `till`: the paired till the key belongs to (null: none), for `pump`.
    addOrder({ key: nextKey(), juice: juice, count: count, at: Date.now(), till: tillPairing.till });
    setCount(1);
    pump();
  }

  let sending = false, offline = false, retryTimer = null, retryDelay = 1000;
  function showPending() {
    const n = loadQueue().length, p = $("pending");
    p.dataset.waiting = String(n);
    p.dataset.state = n === 0 ? "idle" : offline ? "offline" : "sending";
    p.textContent = n === 0 ? "" : offline ? T.waiting(n) : T.sending(n);
    render();
  }
  function say(text, kind) { const m = $("message"); m.textContent = text; m.dataset.kind = kind; }
  // `restockFruit`: the short fruit of an out-of-stock, for the seeds' "edit the stock?" choice.
  let restockFruit = null;
  function alertBox(title, text, code, fruit) {
    restockFruit = fruit || null;
    $("alert-title").textContent = title;
    $("alert-text").textContent = text;
    $("alert").dataset.code = code || "";
    $("alert-restock").hidden = !restockFruit;
    $("alert-restock").textContent = T.restock + (restockFruit ? " " + fruitLabel(restockFruit) : "");
    $("alert-ok").textContent = restockFruit ? T.cancel : T.ok;
    $("alert").classList.add("open");
    (restockFruit ? $("alert-restock") : $("alert-ok")).focus();
  }
  $("alert-ok").addEventListener("click", () => $("alert").classList.remove("open"));
  $("alert-restock").addEventListener("click", () => {
    $("alert").classList.remove("open");
    if (restockFruit) location.href = "/stock?fruit=" + encodeURIComponent(restockFruit);
  });

  // Sends the oldest waiting order. Exactly one outcome per attempt: answered (out of the
  // queue) or no answer (kept, retried with the same key).
  async function pump() {
    showPending();
    if (sending) return;
    const order = loadQueue()[0];
    if (!order) { offline = false; showPending(); return; }
    // A key lives in its till's namespace: an order tapped as another till (or before this one
    // was paired) is never sent under this credential, where its key would be new and could sell
    // a second time. It is dropped, and said.
    if ((order.till || null) !== tillPairing.till) { removeOrder(order.key); say(T.dropped(1), "refused"); pump(); return; }
    sending = true;
    clearTimeout(retryTimer); retryTimer = null;
    let status = 0, body = null, text = "", sentAs = tillPairing.credential, sent = Date.now();
    try {
      const abort = new AbortController(), timer = setTimeout(() => abort.abort(), TIMEOUT);
      try {
        const r = await fetch("/orders", {
          method: "POST", cache: "no-store", signal: abort.signal,
          headers: tillPairing.headers({ "Content-Type": "application/json", "Idempotency-Key": order.key }),
          body: JSON.stringify({ juice: order.juice, count: order.count }),
        });
        text = await r.text();
        status = r.status;
      } finally { clearTimeout(timer); }
      try { body = JSON.parse(text); } catch (e) { body = null; }
    } catch (e) { status = 0; }
    sending = false;
    const readOnly = status === 503 && body && body.error === "READ_ONLY";
    if (status === 0 || (status >= 500 && !readOnly)) {
      offline = true;
      showPending();
      retryTimer = setTimeout(pump, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 5000);
      return;
    }
    offline = false; retryDelay = 1000;
    removeOrder(order.key);
    if (status === 401) { if (sentAs === tillPairing.credential) unpaired(body); else pump(); return; }   // else: re-paired meanwhile
    answered(order, status, body, text, sent);
    pump();
  }

  // 401: the server takes orders only from a paired till, and this one is not (FORBIDDEN), no
  // longer (REVOKED: the manager removed it) or not known (AUTH_FAILED). Nothing was sold. The
  // credential goes, and so do the waiting orders: never resent with a revoked credential, nor
  // under a new pairing (another key namespace). The pairing form says why.
  function unpaired(body) {
    const code = body && body.error, rest = loadQueue();
    for (const o of rest) removeOrder(o.key);
    const why = code === "REVOKED" ? T.removed : code === "FORBIDDEN" ? T.unpaired : T.unknown;
    const notice = why + (rest.length ? " " + T.dropped(rest.length) : "");
    say(notice, "refused");
    tillPairing.forget(notice);
    showPending();
  }

  function answered(order, status, body, text, sent) {
    if (status >= 200 && status < 300 && (!body || body.ok !== false)) {
      const n = body && body.count || order.count, amount = tillSales.amountText(body && body.amount);
      say(T.sold + " " + n + " \u00d7 " + juiceLabel(order.juice) + (amount ? " \u00b7 " + amount : "")
          + (body && body.dup ? " (" + T.again + ")" : "") + (body && body.seq ? "  #" + body.seq : ""), "sold");
      tillSales.sold(order, body, sent);
      return;
    }
    const code = body && body.error || "";
    let title = T.notSold, message, short = null;
    if (code === "OUT_OF_STOCK" && body.needs) {
      title = T.out;
      short = Object.keys(body.needs).find(f => body.needs[f] > (body.has && body.has[f] || 0)) || null;
      message = T.out + ": " + Object.keys(body.needs)
        .map(f => T.needs(fruitLabel(f), body.needs[f], body.has && body.has[f] !== undefined ? body.has[f] : 0)).join("; ");
    } else if (code === "READ_ONLY") {
      message = T.disk;
    } else {
      message = (body && body.message) || text.trim() || "the server answered " + status;
      message = (code || status) + ": " + message;
      // A till opened under a name the server does not take writes for (DNS rebinding guard).
      if ((status === 403 || status === 421) && !/^(localhost|[0-9.]+|\[[0-9a-f:.]+\])$/i.test(location.hostname))
        message += " (start the server with --allow-host " + location.hostname + ")";
    }
    say(juiceLabel(order.juice) + " \u00d7" + order.count + ": " + message, "refused");
    alertBox(title, message, code || String(status), short);
  }

  // Another tab of this till changed the queue: show it, and help send it.
  window.addEventListener("storage", ev => { if (ev.key === null || ev.key.startsWith(ORDER)) pump(); });
  // Opened with the server away (from the worker's cache, or a reload): the last state seen.
  try {
    const kept = JSON.parse(localStorage.getItem(STATE) || "null");
    if (kept && kept.menu && kept.stock) { cached = kept; build(kept); setStale(kept.at || Date.now()); }
  } catch (e) {}
  feed = followStock({
    menu: f => { setStale(null); build(f); },
    stock: render,
    // Back online: a waiting order goes now rather than at its next retry.
    live: up => { if (up && loadQueue().length && !sending) pump(); },
  });
  tillSales.start({ view, juiceLabel, say, alert: alertBox, waiting: () => loadQueue().length, nextKey, text: T });
  render();
  tillPairing.onPaired(() => { say("", ""); pump(); });
  tillPairing.check();
  pump();
  // Offline start needs a service worker, which a browser runs only in a secure context
  // (localhost, or HTTPS). Elsewhere the till works as ever, and says so once on this device.
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/till-sw.js", { scope: "/till" }).catch(() => {});
  } else {
    try {
      if (!localStorage.getItem(HTTPS_NOTE)) {
        $("https-note").textContent = T.https;
        $("https-note").hidden = false;
        localStorage.setItem(HTTPS_NOTE, "1");
      }
    } catch (e) {}
  }
  // The base script's full-disk notice (PROTOCOL.md "Full disk"): a till should say it cannot sell before a cashier taps.
  watchReadOnly();
})();
