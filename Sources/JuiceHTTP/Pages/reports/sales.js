// Today's sales on the report, each with a Void button: the manager voids any sale of the
// business day from here (PROTOCOL.md, "VOID"). The global `reportSales`, started by
// reports/reports.js: `show(report)` after each report drawn lists the sales when the day shown
// is today (only today's sales can be voided), from `GET /reports/sales` (newest first, 500 at a
// time; "Older sales" asks for the next 500 with `?before=`). A void asks why (the three reasons),
// then `POST /voids {sale, reason}` with the manager token and an Idempotency-Key made once per
// sale on this page: a void that got no answer, tried again, is the same void and applies once.
// The report is read again right after, so takings and the voids column follow at once.

"use strict";
const reportSales = (function () {
  const $ = id => document.getElementById(id);
  const pageId = Array.from(crypto.getRandomValues(new Uint8Array(4)), b => b.toString(16).padStart(2, "0")).join("");
  const sales = new Map(), keys = {};
  let deps = null, menu = null, currency = null, date = null, more = false, olderLoaded = false;
  let shown = false, lastFetch = 0, inFlight = false, busy = false;

  function label(name) {
    const j = menu && menu.juices.find(x => x.name === name);
    return j ? naming(j).main : name;
  }
  // One page of the list: the newest (`before` null) or the one after the oldest shown.
  async function load(before) {
    if (inFlight) return;
    inFlight = true; lastFetch = Date.now();
    try {
      let r, body = null;
      try {
        r = await fetch("/reports/sales" + (before ? "?before=" + before : ""), { cache: "no-store", headers: managerToken.headers() });
        body = JSON.parse(await r.text());
      } catch (e) { return; }
      if (r.status === 401) { deps.unauthorized(); return; }
      if (!r.ok || !body || !Array.isArray(body.sales)) { $("sales-status").textContent = RT.unavailable(String(r.status)); return; }
      // A new business day: yesterday's list goes.
      if (body.date !== date) { sales.clear(); olderLoaded = false; date = body.date; }
      if (!before) {
        // The newest page replaces what it covers; older pages loaded stay below it.
        const oldest = body.sales.length ? body.sales[body.sales.length - 1].sale : 0;
        for (const seq of Array.from(sales.keys())) if (seq >= oldest) sales.delete(seq);
      } else olderLoaded = true;
      for (const s of body.sales) sales.set(s.sale, s);
      if (before || !olderLoaded) more = !!body.more;
      currency = body.currency || null;
      draw();
    } finally { inFlight = false; }
  }

  function draw() {
    const fmt = moneyFormat(currency), t = $("sales");
    t.textContent = "";
    const head = t.createTHead().insertRow();
    for (const w of ["#", RT.time, RT.juice, RT.count].concat(fmt ? [RT.amount] : [], [RT.soldBy, RT.void])) {
      const th = el("th", "", w); th.scope = "col"; head.appendChild(th);
    }
    const body = t.createTBody(), list = Array.from(sales.values()).sort((a, b) => b.sale - a.sale);
    if (!list.length) body.insertRow().appendChild(el("td", "empty-note", RT.noSales));
    for (const s of list) {
      const tr = body.insertRow();
      tr.dataset.sale = String(s.sale);
      tr.dataset.voided = s.voided ? String(s.voided) : "";
      if (typeof s.amount === "number") tr.dataset.amount = String(s.amount);
      tr.classList.toggle("voided", !!s.voided);
      const th = el("th", "", "#" + s.sale); th.scope = "row";
      tr.appendChild(th);
      for (const text of [s.clock, label(s.juice), String(s.count)]) tr.appendChild(el("td", "", text));
      if (fmt) tr.appendChild(el("td", "", typeof s.amount === "number" ? fmt(s.amount) : "\u2013"));
      tr.appendChild(el("td", "", s.by === "till" ? (s.name || RT.till + " " + s.till) : s.by === "manager" ? RT.manager : RT.other));
      const cell = el("td", "action");
      if (s.voided) cell.appendChild(el("span", "voided-note", RT.voidedAt(s.voided)));
      else {
        const b = el("button", "void", RT.void);
        b.type = "button";
        b.setAttribute("aria-label", RT.void + " #" + s.sale);
        b.addEventListener("click", () => ask(s));
        cell.appendChild(b);
      }
      tr.appendChild(cell);
    }
    $("sales-more").hidden = !more;
  }

  function ask(s) {
    const fmt = moneyFormat(currency);
    $("void-dialog").dataset.sale = String(s.sale);
    $("void-text").textContent = RT.voidWhat(s.sale, s.count, label(s.juice), s.clock, fmt && typeof s.amount === "number" ? fmt(s.amount) : "");
    $("void-dialog").hidden = false;
    $("void-dialog").querySelector("[data-reason]").focus();
  }
  function close() { $("void-dialog").hidden = true; }

  async function send(reason) {
    const seq = Number($("void-dialog").dataset.sale);
    if (!seq || busy) return;
    keys[seq] = keys[seq] || "report-" + pageId + "-" + seq;
    busy = true;
    for (const b of document.querySelectorAll("#void-dialog button")) b.disabled = true;
    let r = null, body = null;
    try {
      r = await fetch("/voids", { method: "POST", cache: "no-store",
        headers: managerToken.headers({ "Content-Type": "application/json", "Idempotency-Key": keys[seq] }),
        body: JSON.stringify({ sale: seq, reason: reason }) });
      try { body = JSON.parse(await r.text()); } catch (e) {}
    } catch (e) { r = null; }
    busy = false;
    for (const b of document.querySelectorAll("#void-dialog button")) b.disabled = false;
    close();
    const status = $("sales-status");
    if (!r) { status.textContent = RT.voidNoAnswer(seq); return; }
    if (r.status === 401) { deps.unauthorized(); return; }
    if (r.ok && body && body.ok) {
      const s = sales.get(seq);
      if (s) s.voided = body.seq;
      status.textContent = RT.voided(seq, body.seq);
      status.dataset.kind = "done";
    } else {
      status.textContent = RT.notVoided(seq, (body && (body.error + ": " + body.message)) || "HTTP " + r.status);
      status.dataset.kind = "refused";
    }
    draw();
    deps.refresh();
    load(null);
  }

  return {
    // deps: {refresh: read the report again, unauthorized: a 401 (the token went)}.
    start(d) {
      deps = d;
      for (const [id, text] of [["sales-title", RT.salesTitle], ["void-title", RT.voidTitle], ["void-cancel", RT.cancel], ["sales-more", RT.older]]) {
        $(id).textContent = text;
      }
      for (const b of document.querySelectorAll("#void-dialog [data-reason]")) {
        b.textContent = RT.reasons[b.dataset.reason];
        b.addEventListener("click", () => send(b.dataset.reason));
      }
      $("void-cancel").addEventListener("click", close);
      $("void-dialog").addEventListener("keydown", ev => { if (ev.key === "Escape" && !busy) close(); });
      $("sales-more").addEventListener("click", () => {
        const oldest = Math.min(...sales.keys());
        if (isFinite(oldest)) load(oldest);
      });
    },
    // After each report drawn: today's list (read again at most every 2 s), or none for another day.
    show(report, m) {
      menu = m;
      shown = !!report.today;
      $("sales-panel").hidden = !shown;
      if (shown && Date.now() - lastFetch >= 2000) load(null);
    },
  };
})();
