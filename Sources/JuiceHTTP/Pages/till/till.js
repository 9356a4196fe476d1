// The till's script. The rule it exists for: **a tap is one sale, never two, never none.**
//
// - A tap makes an order `{key, juice, count, till}` with a fresh idempotency key: this
//   device's id (random, kept in `localStorage`), this page load's id (so two tabs or a
//   reload never reuse a key) and a counter. It goes into the queue (`tillQueue`, at most 50)
//   *before* anything is sent, so a reload or a crash of the tab does not lose it.
// - Orders are sent one at a time, oldest first, as `POST /orders` with `Idempotency-Key`
//   and, once paired, `Juice-Till` (`tillPairing`). No answer (a network error, a timeout, a
//   5xx other than `READ_ONLY`, a server restarting) keeps the order and retries it with the
//   **same key**: the server applies a key once and answers a repeat with the original result.
//   It is sent again **the moment the server answers again**: the event stream reconnects, or
//   `tillProbe` (till/probe.js: `GET /healthz` once a second while away) gets an answer. A 5xx
//   answer (the server is there, but failing) is retried after 1 s, 2 s, 4 s, then every 5 s.
// - While orders wait, the counts shown take what they will take (`tillHeld`, till/held.js).
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
      nodes[j.name] = { b, number, left, queued, price, juice: j };
      return b;
    });
    fillList($("fruits"), f.menu.fruits, fr => {
      const chip = el("span", "fruit");
      chip.dataset.fruit = fr.name;
      chip.appendChild(el("span", "", naming(fr).main));
      chip.appendChild(el("b", "", "0"));
      chip.appendChild(el("small", "held-by")).setAttribute("aria-hidden", "true");
      chip.appendChild(el("span", "visually-hidden"));
      return chip;
    });
  }

  function render() {
    const f = view();
    if (!f || !f.menu) return;
    if (f === feed) saveState();
    // What the waiting orders will take is not there to sell: the counts shown take it.
    const held = tillHeld.of(loadQueue(), f.menu, f.stock, sent), stock = tillHeld.left(f.stock, held);
    for (const name in nodes) {
      const n = nodes[name], can = canMake(n.juice, stock), marked = tillHeld.juice(n, can, canMake(n.juice, f.stock), held, T);
      n.b.dataset.canMake = String(can);
      n.number.textContent = String(can);
      // Greyed and not tappable when the stock cannot make the count picked (sold out at 1).
      n.b.disabled = can < count;
      const total = tillSales.showPrice(n.price, n.juice, count);
      n.b.setAttribute("aria-label", naming(n.juice).main + (total ? " " + total : "") + ": "
                       + (can > 0 ? can + " " + T.left : T.soldOut) + marked + (n.queued.textContent ? ", " + n.queued.textContent : ""));
    }
    for (const chip of document.querySelectorAll("#fruits .fruit"))
      tillHeld.fruit(chip, f.stock[chip.dataset.fruit] || 0, held.fruits[chip.dataset.fruit], T);
    $("seq").textContent = f.seq >= 0 ? "#" + f.seq : "";
    tillSales.render();
  }

  // The last state seen live, for a start with the server away.
  function saveState() {
    try { localStorage.setItem(STATE, JSON.stringify({ menu: feed.menu, stock: feed.stock, seq: feed.seq, at: Date.now() })); } catch (e) {}
  }
  function setStale(at) {
    document.body.dataset.stale = at ? "true" : "false";
    $("stale").textContent = at ? T.stale(new Date(at).toLocaleTimeString(KO ? "ko-KR" : undefined)) : "";
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

  // `sent`: the order on its way ({key, stock shown when it left, at, abort, again}), or null.
  let sending = false, offline = false, retryTimer = null, retryDelay = 1000, sent = null;
  function showPending() {
    const n = loadQueue().length, p = $("pending");
    p.dataset.waiting = String(n);
    // The longest the till waits before it tries again (test hook): the probe's period while away.
    p.dataset.retryMs = n === 0 ? "" : String(tillProbe.probing ? tillProbe.EVERY : retryTimer !== null ? retryDelay : 0);
    p.dataset.state = n === 0 ? "idle" : offline ? "offline" : "sending";
    p.textContent = n === 0 ? "" : offline ? T.waiting(n) : T.sending(n);
    render();
  }
  function say(text, kind) { const m = $("message"); m.textContent = text; m.dataset.kind = kind; }
  // A sale said, a refusal alerted (till/answers.js).
  const { answered, alertBox } = tillAnswers({ text: T, say, fruitLabel, juiceLabel });

  // Sends the oldest waiting order. Exactly one outcome per attempt: answered (out of the
  // queue) or no answer (kept, retried with the same key).
  async function pump() {
    showPending();
    if (sending) return;
    const order = loadQueue()[0];
    if (!order) { offline = false; tillProbe.stop(); showPending(); return; }
    // A key lives in its till's namespace: an order tapped as another till (or before this one
    // was paired) is never sent under this credential, where its key would be new and could sell
    // a second time. It is dropped, and said.
    if ((order.till || null) !== tillPairing.till) { removeOrder(order.key); say(T.dropped(1), "refused"); pump(); return; }
    sending = true;
    clearTimeout(retryTimer); retryTimer = null;
    const abort = new AbortController(), view0 = view();
    sent = { key: order.key, stock: Object.assign({}, view0 ? view0.stock : {}), at: Date.now(), abort, again: false };
    let status = 0, body = null, text = "", sentAs = tillPairing.credential, at = sent.at;
    try {
      const timer = setTimeout(() => abort.abort(), TIMEOUT);
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
    const again = sent.again;
    sending = false; sent = null;
    const readOnly = status === 503 && body && body.error === "READ_ONLY";
    if (status === 0 && again) { pump(); return; }             // given up on as the server came back: now
    if (status === 0) {                                         // no answer: sent the moment the server answers
      offline = true;
      tillProbe.start(serverBack);
      showPending();
      return;
    }
    if (status >= 500 && !readOnly) {                           // the server is there but failing: back off
      offline = true;
      retryTimer = setTimeout(pump, retryDelay);
      showPending();
      retryDelay = Math.min(retryDelay * 2, 5000);
      return;
    }
    offline = false; retryDelay = 1000;
    tillProbe.stop();
    removeOrder(order.key);
    if (status === 401) { if (sentAs === tillPairing.credential) unpaired(body); else pump(); return; }   // else: re-paired meanwhile
    answered(order, status, body, text, at);
    pump();
  }

  // The server answers again (its event stream is back, or a probe was answered): the queue goes
  // now. An order still on its way since before may hang on a dead connection until its timeout:
  // it is given up on and sent again at once, with its key (the server applies a key once).
  function serverBack() {
    tillProbe.stop();
    if (feed) feed.retry();                                     // an offline start's /state, now too
    if (!loadQueue().length) return;
    if (!sending) { clearTimeout(retryTimer); retryTimer = null; pump(); return; }
    if (sent && Date.now() - sent.at >= 1000) { sent.again = true; sent.abort.abort(); }
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
    live: up => { if (up) serverBack(); },
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
