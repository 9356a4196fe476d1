// The dashboard's script: asks for the token (shared/token-prompt.js) on a 401, fetches
// `/sales`, draws the SVG charts, and stays live from `/events` (see dashboard.html's header).

"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  // SVG presentation attributes take no CSS variables: the palette's colours again, for the charts.
  const GOOD = "#3ddc84", LOST = "#ff5d5d", LOW = "#ffb020";
  let authorized = false, following = false;
  let inFlight = false, again = false, timer = null, lastFetch = 0;

  const $ = id => document.getElementById(id);
  function svg(tag, attrs, parent) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // One /sales call; 401 means a token is needed (or the one given is wrong).
  async function refresh() {
    if (inFlight) { again = true; return; }
    inFlight = true; lastFetch = Date.now();
    try {
      const headers = managerToken.headers();
      let response;
      try { response = await fetch("/sales", { headers, cache: "no-store" }); }
      catch (e) { setConn("reconnecting"); return; }
      if (response.status === 401) {
        authorized = false;
        managerToken.refused(await response.text());
        return;
      }
      if (!response.ok) { $("updated").textContent = DT.answered(response.status); return; }
      const sales = await response.json();
      authorized = true;
      document.body.classList.remove("asking");
      document.body.classList.add("showing");
      $("mode").textContent = managerToken.value
        ? DT.signedIn : DT.open;
      render(sales);
      today();
      follow();
    } finally {
      inFlight = false;
      if (again) { again = false; schedule(); }
    }
  }
  // Today's money and voids: `/sales` counts since the store was made, the day report counts the
  // business day (takings after voids). Read after each /sales, at most once a second.
  let dayAsked = 0, dayInFlight = false;
  async function today() {
    if (dayInFlight || Date.now() - dayAsked < 1000) return;
    dayInFlight = true; dayAsked = Date.now();
    try {
      const r = await fetch("/reports/day", { headers: managerToken.headers(), cache: "no-store" });
      if (r.ok) showToday(await r.json());
    } catch (e) {
    } finally { dayInFlight = false; }
  }
  function showToday(day) {
    const fmt = moneyFormat(day.currency);
    $("takings-tile").hidden = !fmt;
    $("lost-revenue-tile").hidden = !fmt;
    $("voids").textContent = String(day.voids || 0);
    $("voids").dataset.count = String(day.voids || 0);
    $("voids-amount").textContent = fmt ? " \u00b7 " + DT.givenBack(fmt(day.voided_amount || 0)) : "";
    if (!fmt) return;
    for (const [id, key] of [["takings", "takings"], ["lost-revenue", "lost_revenue"]]) {
      $(id).textContent = fmt(day[key] || 0);
      $(id).dataset.amount = String(day[key] || 0);
    }
  }

  // At most four /sales calls a second, however fast the stock changes.
  function schedule() {
    if (timer || !authorized) return;
    const wait = Math.max(0, 250 - (Date.now() - lastFetch));
    timer = setTimeout(() => { timer = null; refresh(); }, wait);
  }

  // Live: every stock change is a sale (or a restock), so each message re-reads /sales.
  function follow() {
    if (following) return;
    following = true;
    followEvents({ stock: schedule, open: schedule, drop: () => {} });
  }

  function nameCell(item) {
    const n = naming(item), cell = el("div", "name", n.main);
    if (n.alias) cell.appendChild(el("span", "alias", n.alias));
    return cell;
  }
  // A horizontal bar of stacked parts [{value, color}] scaled to `max`. Hidden from screen
  // readers: the numbers beside it say the same in words.
  function bar(parts, max) {
    const s = svg("svg", { viewBox: "0 0 1000 20", preserveAspectRatio: "none", "aria-hidden": "true" });
    svg("rect", { x: 0, y: 0, width: 1000, height: 20, rx: 4, fill: "#0b0e13" }, s);
    let x = 0;
    for (const p of parts) {
      const w = max > 0 ? 1000 * p.value / max : 0;
      if (w > 0) svg("rect", { x: x, y: 0, width: Math.max(w, 3), height: 20, fill: p.color }, s);
      x += w;
    }
    return s;
  }

  function render(sales) {
    $("served").textContent = sales.orders_served;
    $("refused").textContent = sales.orders_refused;
    const sold = sales.juices.reduce((n, j) => n + j.sold, 0), lost = sales.juices.reduce((n, j) => n + j.lost, 0);
    $("sold-total").textContent = sold;
    $("lost-total").textContent = lost;

    const juices = $("juices"); juices.textContent = "";
    const juiceMax = Math.max(1, ...sales.juices.map(j => j.sold + j.lost));
    for (const j of sales.juices) {
      const row = el("div", "row");
      row.dataset.juice = j.name; row.dataset.sold = String(j.sold); row.dataset.lost = String(j.lost);
      row.appendChild(nameCell(j));
      row.appendChild(bar([{ value: j.sold, color: GOOD }, { value: j.lost, color: LOST }], juiceMax));
      const nums = el("div", "nums");
      nums.appendChild(el("b", "", String(j.sold))); nums.appendChild(document.createTextNode(" " + DT.sold + " · "));
      nums.appendChild(el("span", j.lost > 0 ? "l some" : "l", String(j.lost))); nums.appendChild(document.createTextNode(" " + DT.lost));
      row.appendChild(nums);
      juices.appendChild(row);
    }

    const fruits = $("fruits"); fruits.textContent = "";
    const shortMax = Math.max(1, ...sales.fruits.map(f => f.short));
    for (const f of sales.fruits) {
      const row = el("div", "row");
      row.dataset.fruit = f.name; row.dataset.short = String(f.short); row.dataset.stock = String(f.stock);
      row.appendChild(nameCell(f));
      row.appendChild(bar([{ value: f.short, color: LOW }], shortMax));
      const nums = el("div", "nums");
      nums.appendChild(el("b", "", String(f.short))); nums.appendChild(document.createTextNode(" " + DT.short + " · " + DT.left(f.stock)));
      row.appendChild(nums);
      fruits.appendChild(row);
    }
    // The advice in one glance: the fruits that cost sales, most first.
    const culprits = sales.fruits.filter(f => f.short > 0).sort((a, b) => b.short - a.short);
    const advice = $("advice");
    advice.textContent = culprits.length
      ? DT.restockFirst(culprits.slice(0, 3).map(f => naming(f).main))
      : DT.noLost;
    advice.classList.toggle("urgent", culprits.length > 0);

    lastMinutes = sales.per_minute || [];
    chart(lastMinutes);
    $("updated").textContent = DT.updated(new Date().toLocaleTimeString(DT.locale), sales.seq);
  }

  // Orders per minute: one stacked column per minute (served below, refused above), oldest left.
  // Drawn at the box's own pixel size (redrawn on resize), so text and bars are not stretched.
  let lastMinutes = null;
  function chart(minutes) {
    const box = $("chart-body");
    const W = Math.max(300, box.clientWidth), H = Math.max(120, box.clientHeight), left = 36, bottom = 22, top = 10;
    const s = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img",
                           "aria-label": DT.chart });
    const max = Math.max(1, ...minutes.map(m => m.served + m.refused));
    const plotH = H - bottom - top, slot = (W - left) / Math.max(minutes.length, 1);
    for (const f of [0, 0.5, 1]) {
      const y = top + plotH * (1 - f);
      svg("line", { x1: left, x2: W, y1: y, y2: y, stroke: "#252d3b", "stroke-width": 1 }, s);
      const label = svg("text", { x: left - 6, y: y + 4, "text-anchor": "end" }, s);
      label.textContent = String(Math.round(max * f));
    }
    minutes.forEach((m, i) => {
      const x = left + i * slot + slot * 0.15, w = slot * 0.7;
      const hs = plotH * m.served / max, hr = plotH * m.refused / max;
      const g = svg("g", {}, s);
      const title = svg("title", {}, g);
      title.textContent = DT.minute(new Date(m.t * 1000).toLocaleTimeString(DT.locale, { hour: "2-digit", minute: "2-digit" }),
        m.served, m.refused);
      if (hs > 0) svg("rect", { x, y: top + plotH - hs, width: w, height: hs, fill: GOOD }, g);
      if (hr > 0) svg("rect", { x, y: top + plotH - hs - hr, width: w, height: hr, fill: LOST }, g);
    });
    const n = minutes.length;
    if (n) {
      const ticks = [[0, DT.ago(n - 1)], [Math.floor((n - 1) / 2), DT.ago(n - 1 - Math.floor((n - 1) / 2))], [n - 1, DT.now]];
      for (const [i, text] of ticks) {
        const t = svg("text", { x: left + i * slot + slot / 2, y: H - 5, "text-anchor": i === 0 ? "start" : i === n - 1 ? "end" : "middle" }, s);
        t.textContent = text;
      }
    }
    const body = $("chart-body"); body.textContent = ""; body.appendChild(s);
  }

  managerToken.onSubmit(refresh);
  window.addEventListener("resize", () => { if (lastMinutes) chart(lastMinutes); });
  // A refused order changes no stock, so no stream message says a sale was lost: ask every
  // 3 s (a few hundred bytes) so lost sales show within seconds; the chart moves on too.
  setInterval(() => { if (authorized) schedule(); }, 3000);
  watchReadOnly();
  refresh();
})();
