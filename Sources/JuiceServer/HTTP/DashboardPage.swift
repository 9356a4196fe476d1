/// The managers' sales dashboard served at `GET /dashboard` (issue 12).
///
/// The page itself is public; its data call, `GET /sales`, carries `Authorization: Bearer <token>`
/// when the server has a manager token. The page first tries without one and asks only on 401;
/// the token is kept for this tab only (a variable and sessionStorage, never localStorage, never a
/// URL). It stays live without a reload: every stock message on `/events` triggers a (debounced)
/// re-fetch of `/sales`, and a 3 s timer moves the per-minute chart along and shows refused orders (which change no stock). Charts are inline SVG
/// drawn by the page; no external assets, no library (a shop's network may be offline).
///
/// Test hooks: each juice row `data-juice` + `data-sold` + `data-lost`, each fruit `data-fruit` +
/// `data-short`, the token form `#token` + `#token-submit`, `#conn` as on the board.
enum DashboardPage {
    static let html: String = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Juice sales</title>
<style>
:root {
  --bg: #0d1016; --panel: #161b24; --line: #252d3b; --text: #f3f5f8; --muted: #8f9bb0;
  --good: #3ddc84; --lost: #ff5d5d; --low: #ffb020; --accent: #ffcf3f;
}
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--text); }
body {
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK KR",
               "Apple SD Gothic Neo", "Malgun Gothic", sans-serif;
  padding: clamp(12px, 1.6vw, 32px); display: flex; flex-direction: column; gap: clamp(12px, 1.2vw, 22px);
  min-height: 100vh;
}
header { display: flex; align-items: center; justify-content: space-between; gap: 16px; flex-wrap: wrap; }
h1 { margin: 0; font-size: clamp(24px, 2.4vw, 46px); }
h1 span { color: var(--accent); }
h2 { margin: 0 0 .8em; font-size: clamp(14px, 1vw, 20px); color: var(--muted); text-transform: uppercase;
     letter-spacing: .12em; font-weight: 600; }
#conn { display: inline-flex; align-items: center; gap: .5em; font-size: clamp(13px, 1vw, 18px);
        color: var(--muted); padding: .3em .8em; border: 1px solid var(--line); border-radius: 999px; }
#conn::before { content: ""; width: .7em; height: .7em; border-radius: 50%; background: var(--low); }
#conn[data-state="live"]::before { background: var(--good); box-shadow: 0 0 .6em var(--good); }
#conn[data-state="reconnecting"] { color: var(--low); }
body:not(.showing) #conn { visibility: hidden; }   /* nothing to be live about before the sales show */
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 16px; padding: clamp(14px, 1.4vw, 26px); }
#auth { max-width: 560px; align-self: center; width: 100%; margin-top: 8vh; display: none; }
body.asking #auth { display: block; }
#auth p { color: var(--muted); line-height: 1.5; margin: 0 0 1em; }
#auth form { display: flex; gap: 10px; }
#token { flex: 1; font: inherit; font-size: 18px; padding: .55em .8em; border-radius: 10px; border: 1px solid var(--line);
         background: #0b0e13; color: var(--text); }
button { font: inherit; font-size: 18px; padding: .55em 1.1em; border-radius: 10px; border: 0; cursor: pointer;
         background: var(--accent); color: #1d1600; font-weight: 700; }
#auth-error { color: var(--lost); min-height: 1.4em; margin-top: .8em; }
#data { display: none; flex-direction: column; gap: clamp(12px, 1.4vw, 26px); }
body.showing #data { display: flex; }
body.asking #data { display: none; }
#totals { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: clamp(10px, 1.2vw, 22px); }
.tile b { display: block; font-size: clamp(30px, 2.8vw, 56px); font-variant-numeric: tabular-nums; line-height: 1.1; }
.tile span { color: var(--muted); font-size: clamp(13px, .9vw, 17px); }
.tile.good b { color: var(--good); } .tile.lost b { color: var(--lost); }
.cols { display: grid; grid-template-columns: minmax(0, 1.3fr) minmax(0, 1fr); gap: clamp(12px, 1.4vw, 26px); }
.row { display: grid; grid-template-columns: minmax(7em, 13em) minmax(0, 1fr) 9.5em; align-items: center;
       gap: 1em; padding: .45em 0; border-bottom: 1px solid var(--line); font-size: clamp(14px, 1vw, 19px); }
.row:last-child { border-bottom: 0; }
.row .alias { color: var(--muted); font-size: .85em; margin-left: .4em; }
.row svg { width: 100%; height: 1.3em; display: block; }
.row .nums { text-align: right; font-variant-numeric: tabular-nums; color: var(--muted); white-space: nowrap; }
.row .nums b { color: var(--text); }
.row .nums .l.some { color: var(--lost); }
.legend { color: var(--muted); font-size: 14px; display: flex; gap: 1.2em; margin-top: .8em; }
.legend i { display: inline-block; width: .8em; height: .8em; border-radius: 2px; margin-right: .4em; vertical-align: -1px; }
#advice { font-size: clamp(18px, 1.6vw, 30px); font-weight: 700; margin-bottom: .6em; }
#advice.urgent { color: var(--low); }
#chart-body { height: clamp(140px, 16vh, 240px); }
#chart svg { width: 100%; height: 100%; display: block; }
#chart text { fill: var(--muted); font-size: 12px; }
footer { color: var(--muted); font-size: 14px; display: flex; justify-content: space-between; gap: 1em; flex-wrap: wrap; }
footer button { font-size: 13px; padding: .3em .8em; background: transparent; color: var(--muted); border: 1px solid var(--line); }
@media (max-width: 900px) {
  .cols { grid-template-columns: 1fr; }
  #totals { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .row { grid-template-columns: minmax(6em, 9em) minmax(0, 1fr) 8em; }
}
</style>
</head>
<body>
<header>
  <h1>Juice <span>sales</span></h1>
  <div id="conn" data-state="reconnecting" role="status" aria-live="polite">reconnecting</div>
</header>
<section id="auth" class="panel" aria-labelledby="auth-title">
  <h2 id="auth-title">Manager token</h2>
  <p>This server has a manager token: enter it to see the sales. It is kept in this browser tab
     only and sent with each request; closing the tab forgets it.</p>
  <form id="token-form" autocomplete="off">
    <input type="password" id="token" aria-label="manager token" placeholder="manager token" autocomplete="off">
    <button type="submit" id="token-submit">Show sales</button>
  </form>
  <div id="auth-error" role="alert"></div>
</section>
<div id="data">
  <section id="totals">
    <div class="panel tile good"><b id="served">0</b><span>orders served</span></div>
    <div class="panel tile lost"><b id="refused">0</b><span>orders refused (out of stock)</span></div>
    <div class="panel tile"><b id="sold-total">0</b><span>juices sold</span></div>
    <div class="panel tile lost"><b id="lost-total">0</b><span>juices lost</span></div>
  </section>
  <div class="cols">
    <section class="panel"><h2>Sold and lost per juice</h2><div id="juices"></div>
      <div class="legend"><span><i style="background: var(--good)"></i>sold</span><span><i style="background: var(--lost)"></i>lost (refused: not enough fruit)</span></div>
    </section>
    <section class="panel"><h2>Lost sales by fruit</h2><div id="advice"></div><div id="fruits"></div>
      <div class="legend"><span><i style="background: var(--low)"></i>orders refused because this fruit was short</span></div>
    </section>
  </div>
  <section id="chart" class="panel"><h2>Orders per minute, last hour</h2><div id="chart-body"></div>
    <div class="legend"><span><i style="background: var(--good)"></i>served</span><span><i style="background: var(--lost)"></i>refused</span></div>
  </section>
</div>
<footer><span id="mode"></span><span id="updated"></span></footer>
<script>
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const KEY = "juice-manager-token";
  // SVG presentation attributes take no CSS variables: the palette's colours again, for the charts.
  const GOOD = "#3ddc84", LOST = "#ff5d5d", LOW = "#ffb020";
  // The token lives in this tab only: sessionStorage survives a reload of the tab, nothing else.
  let token = null;
  try { token = sessionStorage.getItem(KEY); } catch (e) {}
  let authorized = false, source = null, retryDelay = 1000;
  let inFlight = false, again = false, timer = null, lastFetch = 0;

  const $ = id => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;   // textContent only: names are data
    return e;
  }
  function svg(tag, attrs, parent) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function setConn(state) {
    const c = $("conn");
    if (c.dataset.state !== state) { c.dataset.state = state; c.textContent = state; }
  }
  function ask(error) {
    document.body.classList.add("asking");
    $("auth-error").textContent = error || "";
    $("token").value = "";
    $("token").focus();
  }
  function remember(value) {
    token = value;
    try { if (value) sessionStorage.setItem(KEY, value); else sessionStorage.removeItem(KEY); } catch (e) {}
  }

  // One /sales call; 401 means a token is needed (or the one given is wrong).
  async function refresh() {
    if (inFlight) { again = true; return; }
    inFlight = true; lastFetch = Date.now();
    try {
      const headers = token ? { "Authorization": "Bearer " + token } : {};
      let response;
      try { response = await fetch("/sales", { headers, cache: "no-store" }); }
      catch (e) { setConn("reconnecting"); return; }
      if (response.status === 401) {
        const body = (await response.text()).trim();
        const hadToken = !!token;
        remember(null);
        authorized = false;
        if (/too many/i.test(body)) ask(body);
        else ask(hadToken ? "That token was not accepted. Try again." : "");
        return;
      }
      if (!response.ok) { $("updated").textContent = "/sales answered " + response.status; return; }
      const sales = await response.json();
      authorized = true;
      document.body.classList.remove("asking");
      document.body.classList.add("showing");
      $("mode").textContent = token
        ? "Signed in with the manager token (this tab only)."
        : "This server has no manager token: the sales are open to anyone who can reach it.";
      render(sales);
      follow();
    } finally {
      inFlight = false;
      if (again) { again = false; schedule(); }
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
    if (source) return;
    source = new EventSource("/events");
    source.addEventListener("stock", schedule);
    source.onopen = () => { retryDelay = 1000; setConn("live"); schedule(); };
    source.onerror = () => {
      setConn("reconnecting");
      if (source.readyState === EventSource.CLOSED) {   // the browser gave up: open a new one
        source = null;
        setTimeout(follow, retryDelay);
        retryDelay = Math.min(retryDelay * 2, 10000);
      }
    };
  }

  function nameCell(item) {
    const cell = el("div", "name", item.name);
    if (item.aliases && item.aliases.length) cell.appendChild(el("span", "alias", item.aliases.join(" / ")));
    return cell;
  }
  // A horizontal bar of stacked parts [{value, color}] scaled to `max`.
  function bar(parts, max) {
    const s = svg("svg", { viewBox: "0 0 1000 20", preserveAspectRatio: "none", role: "img" });
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
      nums.appendChild(el("b", "", String(j.sold))); nums.appendChild(document.createTextNode(" sold · "));
      nums.appendChild(el("span", j.lost > 0 ? "l some" : "l", String(j.lost))); nums.appendChild(document.createTextNode(" lost"));
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
      nums.appendChild(el("b", "", String(f.short))); nums.appendChild(document.createTextNode(" short · " + f.stock + " left"));
      row.appendChild(nums);
      fruits.appendChild(row);
    }
    // The advice in one glance: the fruits that cost sales, most first.
    const culprits = sales.fruits.filter(f => f.short > 0).sort((a, b) => b.short - a.short);
    const advice = $("advice");
    advice.textContent = culprits.length
      ? "Restock first: " + culprits.slice(0, 3).map(f => f.name).join(", then ")
      : "No sales lost to missing fruit.";
    advice.classList.toggle("urgent", culprits.length > 0);

    lastMinutes = sales.per_minute || [];
    chart(lastMinutes);
    $("updated").textContent = "updated " + new Date().toLocaleTimeString() + " · change #" + sales.seq;
  }

  // Orders per minute: one stacked column per minute (served below, refused above), oldest left.
  // Drawn at the box's own pixel size (redrawn on resize), so text and bars are not stretched.
  let lastMinutes = null;
  function chart(minutes) {
    const box = $("chart-body");
    const W = Math.max(300, box.clientWidth), H = Math.max(120, box.clientHeight), left = 36, bottom = 22, top = 10;
    const s = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img",
                           "aria-label": "orders per minute" });
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
      title.textContent = new Date(m.t * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) +
        ": " + m.served + " served, " + m.refused + " refused";
      if (hs > 0) svg("rect", { x, y: top + plotH - hs, width: w, height: hs, fill: GOOD }, g);
      if (hr > 0) svg("rect", { x, y: top + plotH - hs - hr, width: w, height: hr, fill: LOST }, g);
    });
    const n = minutes.length;
    if (n) {
      const ticks = [[0, "-" + (n - 1) + " min"], [Math.floor((n - 1) / 2), "-" + (n - 1 - Math.floor((n - 1) / 2)) + " min"], [n - 1, "now"]];
      for (const [i, text] of ticks) {
        const t = svg("text", { x: left + i * slot + slot / 2, y: H - 5, "text-anchor": i === 0 ? "start" : i === n - 1 ? "end" : "middle" }, s);
        t.textContent = text;
      }
    }
    const body = $("chart-body"); body.textContent = ""; body.appendChild(s);
  }

  $("token-form").addEventListener("submit", ev => {
    ev.preventDefault();
    const value = $("token").value.trim();
    if (!value) { ask("Enter the manager token."); return; }
    remember(value);
    $("auth-error").textContent = "";
    refresh();
  });
  window.addEventListener("resize", () => { if (lastMinutes) chart(lastMinutes); });
  // A refused order changes no stock, so no stream message says a sale was lost: ask every
  // 3 s (a few hundred bytes) so lost sales show within seconds; the chart moves on too.
  setInterval(() => { if (authorized) schedule(); }, 3000);
  refresh();
})();
</script>
</body>
</html>
"""#
}
