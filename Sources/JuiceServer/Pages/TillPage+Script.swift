extension TillPage {
    /// The till's script. The rule it exists for: **a tap is one sale, never two, never none.**
    ///
    /// - A tap makes an order `{key, juice, count}` with a fresh idempotency key: this device's
    ///   till id (random, kept in `localStorage`), this page load's id (random, so two tabs or a
    ///   reload never reuse a key) and a counter. The order goes into the queue in `localStorage`
    ///   *before* anything is sent, so a reload or a crash of the tab does not lose it. Each
    ///   order is an item of its own (`juice-till-order:<key>`), written once and removed once
    ///   answered: no tab ever rewrites a list another tab may be adding to, so two tabs of one
    ///   till cannot lose each other's orders (at worst both send one, with its one key).
    /// - Orders are sent one at a time, oldest first, as `POST /orders` with `Idempotency-Key`.
    ///   No answer (a network error, a timeout, a 5xx other than `READ_ONLY`, a server
    ///   restarting) keeps the order and retries it with the **same key** (1 s, 2 s, 4 s, then
    ///   every 5 s, and at once when the event stream comes back): the server applies a key
    ///   once and answers a repeat with the original result (`"dup": true`).
    /// - An answer (200, or a refusal: 4xx, or 503 `READ_ONLY`) takes the order out of the queue.
    /// - A second tap on the same juice within `debounce` ms is the same tap (a double tap); two
    ///   juices are sold by picking 2 first, or by tapping again once the button stops flashing.
    /// - Offline start: the last menu and stock seen live are kept in `localStorage`; a page
    ///   opened while the server is away (from the service worker's cache) shows them, marked
    ///   stale, and takes taps into the queue as ever, until `/state` answers.
    /// - An out-of-stock refusal offers the seeds' choice: "Restock" opens `/stock` on the short
    ///   fruit, "Cancel" leaves the till as it was.
    static let script: String = #"""
"use strict";
(function () {
  const ORDER = "juice-till-order:", OLD_QUEUE = "juice-till-queue", TILL = "juice-till-id";
  const STATE = "juice-till-state", HTTPS_NOTE = "juice-till-https-note";
  const TIMEOUT = 8000, DEBOUNCE = 600, MAX_COUNT = 99;
  const T = KO
    ? { how: "수량", left: "잔", soldOut: "품절", fruits: "과일 재고", waiting: n => "오프라인: 주문 " + n + "건 대기 중",
        sending: n => "주문 " + n + "건 보내는 중…", sold: "판매", again: "재전송, 한 번만 판매됨", notSold: "판매 안 됨",
        out: "재고 부족", needs: (f, n, h) => f + " " + n + "개 필요, " + h + "개 있음", disk: "판매 불가: 디스크 가득 참",
        queued: n => n + " 대기", till: "계산대", restock: "재고 추가", cancel: "취소", ok: "확인",
        stale: at => "오프라인: " + at + " 기준 메뉴와 재고. 주문은 서버가 응답하면 보내집니다",
        https: "오프라인 시작은 HTTPS가 필요합니다 (README 참고)" }
    : { how: "How many", left: "left", soldOut: "SOLD OUT", fruits: "Fruit stock", waiting: n => "offline: " + n + " order" + (n === 1 ? "" : "s") + " waiting",
        sending: n => "sending " + n + " order" + (n === 1 ? "" : "s") + "\u2026", sold: "Sold", again: "answered on a retry; sold once",
        notSold: "Not sold", out: "Out of stock", needs: (f, n, h) => "needs " + f + " " + n + ", has " + h,
        disk: "cannot sell: disk full", queued: n => n + " waiting", till: "till", restock: "Restock", cancel: "Cancel", ok: "OK",
        stale: at => "offline: menu and stock as last seen at " + at + "; taps wait and are sent when the server answers",
        https: "offline start needs HTTPS (see the README)" };
  const $ = id => document.getElementById(id);
  $("count-label").textContent = T.how;
  $("fruits-title").textContent = T.fruits;

  // The waiting orders, oldest first: one localStorage item each. localStorage may be refused
  // (a private window): then they live in this page only.
  let memoryQueue = [];
  function loadQueue() {
    try {
      const q = [];
      for (let i = 0; i < localStorage.length; i++) {
        const name = localStorage.key(i);
        if (!name || !name.startsWith(ORDER)) continue;
        try { const o = JSON.parse(localStorage.getItem(name)); if (o && o.key) q.push(o); } catch (e) {}
      }
      return q.sort((a, b) => (a.at || 0) - (b.at || 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    } catch (e) { return memoryQueue.slice(); }
  }
  function addOrder(o) {
    try { localStorage.setItem(ORDER + o.key, JSON.stringify(o)); } catch (e) { memoryQueue.push(o); }
  }
  function removeOrder(key) {
    memoryQueue = memoryQueue.filter(o => o.key !== key);
    try { localStorage.removeItem(ORDER + key); } catch (e) {}
  }
  // A queue an older version kept as one list: its orders become items (same keys).
  try {
    const old = JSON.parse(localStorage.getItem(OLD_QUEUE) || "null");
    if (Array.isArray(old)) for (const o of old) if (o && o.key) addOrder(o);
    localStorage.removeItem(OLD_QUEUE);
  } catch (e) {}
  function randomHex(bytes) {
    const a = new Uint8Array(bytes);
    crypto.getRandomValues(a);
    return Array.from(a, b => b.toString(16).padStart(2, "0")).join("");
  }
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
    const juices = $("juices");
    juices.textContent = "";
    nodes = {};
    for (const j of f.menu.juices) {
      const b = el("button", "juice");
      b.type = "button";
      b.dataset.juice = j.name;
      const n = naming(j);
      b.appendChild(el("span", "name", n.main));
      if (n.alias) b.appendChild(el("span", "alias", n.alias));
      b.appendChild(el("span", "recipe", j.recipe.map(r => fruitLabel(r.fruit) + " \u00d7" + r.amount).join(" + ")));
      const [left, number] = countBox("span", "left", T.left);
      b.appendChild(left);
      b.appendChild(el("span", "soldout", T.soldOut));
      const queued = el("span", "queued");
      b.appendChild(queued);
      b.addEventListener("click", () => tap(j.name, b));
      juices.appendChild(b);
      nodes[j.name] = { b, number, queued, juice: j };
    }
    const fruits = $("fruits");
    fruits.textContent = "";
    for (const fr of f.menu.fruits) {
      const chip = el("span", "fruit");
      chip.dataset.fruit = fr.name;
      chip.appendChild(el("span", "", naming(fr).main));
      chip.appendChild(el("b", "", "0"));
      fruits.appendChild(chip);
    }
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
      n.b.setAttribute("aria-label", n.juice.name + ": " + (can > 0 ? can + " " + T.left : T.soldOut));
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
    if (button.disabled || now - (lastTap[juice] || 0) < DEBOUNCE) return;
    lastTap[juice] = now;
    button.classList.add("tapped");
    setTimeout(() => button.classList.remove("tapped"), DEBOUNCE);
    addOrder({ key: nextKey(), juice: juice, count: count, at: Date.now() });
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
    sending = true;
    clearTimeout(retryTimer); retryTimer = null;
    let status = 0, body = null, text = "";
    try {
      const abort = new AbortController(), timer = setTimeout(() => abort.abort(), TIMEOUT);
      try {
        const r = await fetch("/orders", {
          method: "POST", cache: "no-store", signal: abort.signal,
          headers: { "Content-Type": "application/json", "Idempotency-Key": order.key },
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
    answered(order, status, body, text);
    pump();
  }

  function answered(order, status, body, text) {
    if (status >= 200 && status < 300 && (!body || body.ok !== false)) {
      const n = body && body.count || order.count;
      say(T.sold + " " + n + " \u00d7 " + juiceLabel(order.juice) + (body && body.dup ? " (" + T.again + ")" : "")
          + (body && body.seq ? "  #" + body.seq : ""), "sold");
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
  render();
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
"""#
}
