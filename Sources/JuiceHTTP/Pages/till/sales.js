// A classic script run before the till's own (after till/queue.js and till/pairing.js): the
// global `tillSales`, the money a cashier sees. Each juice's price and the sale's total at the
// count picked (juice price × count), the amount of each sale as the server answered it, this
// till's takings today, and "Undo last sale". A menu without prices (no `currency` in /state)
// shows no money at all; Undo still works.
//
// **Takings today are this device's count.** No server figure is open to a till: `/sales` and
// `/reports/day` are the manager's. So each sale answered to this till is kept in localStorage,
// one item each (`juice-till-sale:<order key>`, written once, as the waiting orders are: two tabs
// never overwrite each other), with its amount, seq, and the paired till it was sold as. Today's
// takings are the amounts of today's sales of this till, less the ones it undid (a void answered
// 200, or `ALREADY_VOIDED`). "Today" is the business day as the server counts it by default: it
// starts at 04:00 local time (a sale at 01:30 counts for the evening before). Older items are
// dropped. A sale the manager voided from /reports is not known here: the report is the books.
//
// **Undo** voids the newest sale of today of this till while its window lasts: 10 minutes, the
// server's window for a till (`VoidAuthority.defaultWindowSeconds`). The page's clock starts when
// the order was sent (`sent`), never after the server made the sale, so the button goes no later
// than the server would refuse; a timer looks every second. (A test moves a sale's `sent` back in
// localStorage to see the button go.) It is hidden while orders wait: the last sale is then one
// the server has not answered. A void is `POST /voids {sale, reason}` with its own
// Idempotency-Key, kept on the sale before it is sent. **An undo is not queued:** it needs the
// server (the fruit comes back only when it answers), and a void sent later could land past the
// window. With no answer the cashier is told it was not undone; pressing Undo again resends the
// same key, so a void that did land is applied once.

"use strict";
const tillSales = (function () {
  const SALE = "juice-till-sale:", WINDOW = 10 * 60 * 1000, DAY_STARTS = 4 * 3600 * 1000, TIMEOUT = 8000;
  const $ = id => document.getElementById(id);
  let deps = null, busy = false;
  const T = () => deps.text;
  // The formatter for the menu shown (null: no prices).
  function money() {
    const v = deps && deps.view();
    return v && v.menu ? moneyFormat(v.menu.currency) : null;
  }
  // The business day a moment (ms) belongs to, as the local date of the day's start.
  function dayOf(ms) {
    const d = new Date(ms - DAY_STARTS);
    return d.getFullYear() + "-" + String(d.getMonth() + 1).padStart(2, "0") + "-" + String(d.getDate()).padStart(2, "0");
  }
  let memory = {};
  function all() {
    const today = dayOf(Date.now()), out = [];
    try {
      for (let i = localStorage.length - 1; i >= 0; i--) {
        const name = localStorage.key(i);
        if (!name || !name.startsWith(SALE)) continue;
        let s = null;
        try { s = JSON.parse(localStorage.getItem(name)); } catch (e) {}
        if (s && s.key && s.day === today) out.push(s); else localStorage.removeItem(name);
      }
    } catch (e) { return Object.values(memory).filter(s => s.day === today); }
    return out;
  }
  function keep(s) {
    memory[s.key] = s;
    try { localStorage.setItem(SALE + s.key, JSON.stringify(s)); } catch (e) {}
  }
  function find(key) {
    try { const s = JSON.parse(localStorage.getItem(SALE + key) || "null"); if (s) return s; } catch (e) {}
    return memory[key] || null;
  }
  const mine = s => (s.till || null) === tillPairing.till;
  // The sale Undo would void, or null.
  function undoable() {
    if (deps.waiting() > 0) return null;
    const last = all().filter(mine).sort((a, b) => b.sent - a.sent || b.seq - a.seq)[0];
    if (!last || last.voided || last.closed || !last.seq) return null;
    return Date.now() - last.sent < WINDOW ? last : null;
  }

  // A juice button's price line: the total at the count picked (`data-price`: one, `data-total`).
  function showPrice(span, juice, count) {
    const fmt = money(), price = juice.price;
    span.hidden = !fmt || typeof price !== "number";
    span.textContent = span.hidden ? "" : fmt(price * count) + (count > 1 ? "  (" + count + " \u00d7 " + fmt(price) + ")" : "");
    span.dataset.price = span.hidden ? "" : String(price);
    span.dataset.total = span.hidden ? "" : String(price * count);
    return span.hidden ? "" : fmt(price * count);
  }
  // The words for a sale's amount ("" without prices).
  function amountText(amount) {
    const fmt = money();
    return fmt && typeof amount === "number" ? fmt(amount) : "";
  }

  // An order answered 200: a sale of this till (its key was sent once; a retry's answer has the same key).
  function sold(order, body, sent) {
    if (!body || typeof body.seq !== "number" || find(order.key)) { render(); return; }
    keep({ key: order.key, seq: body.seq, juice: body.juice || order.juice, count: body.count || order.count,
           amount: typeof body.amount === "number" ? body.amount : null, sent: sent, day: dayOf(sent),
           till: order.till || null, voided: body.voided || null });
    render();
  }

  function render() {
    if (!deps) return;
    const fmt = money(), box = $("takings");
    const sales = all().filter(mine), taken = sales.filter(s => !s.voided && typeof s.amount === "number")
      .reduce((n, s) => n + s.amount, 0);
    box.hidden = !fmt;
    box.dataset.amount = String(taken);
    box.dataset.sales = String(sales.filter(s => !s.voided).length);
    box.textContent = fmt ? T().takings(fmt(taken)) : "";
    const s = undoable(), undo = $("undo");
    undo.hidden = !s;
    undo.dataset.sale = s ? String(s.seq) : "";
    if (!s && !$("undo-dialog").hidden && !busy) close();
  }

  function open() {
    const s = undoable();
    if (!s) return;
    const amount = amountText(s.amount);
    $("undo-dialog").dataset.sale = String(s.seq);
    $("undo-text").textContent = T().undoWhat(s.count, deps.juiceLabel(s.juice), amount, s.seq);
    $("undo-dialog").hidden = false;
    $("undo-dialog").querySelector("[data-reason]").focus();
  }
  function close() { $("undo-dialog").hidden = true; $("undo").focus(); }

  // POST /voids for the sale shown, with the sale's own void key (made once, kept before sending).
  async function send(reason) {
    const seq = Number($("undo-dialog").dataset.sale), s = all().find(x => x.seq === seq && mine(x));
    if (!s || busy) return;
    if (!s.voidKey) { s.voidKey = deps.nextKey() + "-v"; keep(s); }
    busy = true;
    for (const b of document.querySelectorAll("#undo-dialog button")) b.disabled = true;
    let status = 0, body = null;
    try {
      const abort = new AbortController(), timer = setTimeout(() => abort.abort(), TIMEOUT);
      try {
        const r = await fetch("/voids", { method: "POST", cache: "no-store", signal: abort.signal,
          headers: tillPairing.headers({ "Content-Type": "application/json", "Idempotency-Key": s.voidKey }),
          body: JSON.stringify({ sale: s.seq, reason: reason }) });
        status = r.status;
        try { body = JSON.parse(await r.text()); } catch (e) {}
      } finally { clearTimeout(timer); }
    } catch (e) { status = 0; }
    busy = false;
    for (const b of document.querySelectorAll("#undo-dialog button")) b.disabled = false;
    $("undo-dialog").hidden = true;
    answered(s, status, body);
    render();
  }

  function answered(s, status, body) {
    const code = body && body.error || "", what = s.count + " \u00d7 " + deps.juiceLabel(s.juice);
    const readOnly = status === 503 && code === "READ_ONLY";
    if (status === 0 || (status >= 500 && !readOnly)) {
      deps.say(T().undoNoAnswer, "refused");
      deps.alert(T().notUndone, T().undoNoAnswer, "NO_ANSWER");
      return;
    }
    if (status === 200 && body && body.ok) {
      s.voided = body.seq; keep(s);
      const amount = amountText(body.amount);
      deps.say(T().undone(what, amount) + "  #" + body.seq, "undone");
      return;
    }
    if (code === "ALREADY_VOIDED") { s.voided = true; keep(s); }
    // Past the window, another till's, or no such sale any more: this sale is the manager's now.
    else if (code === "FORBIDDEN" || code === "NO_SUCH_SALE") { s.closed = true; keep(s); }
    const message = readOnly ? T().disk : (code || status) + ": " + ((body && body.message) || "HTTP " + status);
    deps.say(what + ": " + T().notUndone + ": " + message, "refused");
    deps.alert(T().notUndone, message, code || String(status));
  }

  return {
    showPrice, amountText, sold, render,
    // deps: {view, juiceLabel, say, alert, waiting, nextKey, text}.
    start(d) {
      deps = d;
      $("undo").textContent = T().undo;
      $("undo-title").textContent = T().undoTitle;
      $("undo-cancel").textContent = T().cancel;
      for (const b of document.querySelectorAll("#undo-dialog [data-reason]")) {
        b.textContent = T().reasons[b.dataset.reason];
        b.addEventListener("click", () => send(b.dataset.reason));
      }
      $("undo").addEventListener("click", open);
      $("undo-cancel").addEventListener("click", close);
      $("undo-dialog").addEventListener("keydown", ev => { if (ev.key === "Escape" && !busy) close(); });
      window.addEventListener("storage", ev => { if (ev.key === null || ev.key.startsWith(SALE)) render(); });
      setInterval(render, 1000);
      render();
    },
  };
})();
