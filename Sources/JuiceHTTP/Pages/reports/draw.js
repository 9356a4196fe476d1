// Draws one `/reports/day` document into the page: `drawReport(report, menu, pick)`, where
// `menu` (from `/state`, may be null) gives the names to show and `pick(date)` is called when
// a day of the trend is tapped. Everything is built with `el` and `textContent`: every name
// in a report is data. (reports.html puts it and reports/reports.js in one script element.)

const drawReport = (function () {
  const $ = id => document.getElementById(id);
  const HOUR = 3600000;
  let menu = null;
  const sum = o => Object.values(o || {}).reduce((a, b) => a + b, 0);
  const total = (list, key) => (list || []).reduce((n, x) => n + x[key], 0);
  const pct = (n, max) => (max > 0 ? 100 * n / max : 0) + "%";
  function names(kind, name) {
    const item = menu && menu[kind].find(x => x.name === name);
    return item ? naming(item) : { main: name, alias: "" };
  }
  function nameCell(kind, name) {
    const td = el("td"), n = names(kind, name);
    td.appendChild(document.createTextNode(n.main));
    if (n.alias) td.appendChild(el("span", "alias", n.alias));
    return td;
  }
  function cells(row, values) {
    for (const [text, cls] of values) row.appendChild(el("td", cls || "", String(text)));
  }
  function header(table, titles) {
    const row = el("tr");
    for (const t of titles) row.appendChild(el("th", "", t));
    table.appendChild(row);
  }

  function totals(r) {
    const w = r.week_before, sold = total(r.juices, "sold"), lost = total(r.juices, "lost");
    const before = w ? RT.weekBefore(dayName(w.date, true)) : "";
    const tiles = [["served", r.orders_served, w && w.orders_served], ["refused", r.orders_refused, w && w.orders_refused],
                   ["sold-total", sold, w && total(w.juices, "sold")], ["lost-total", lost, w && total(w.juices, "lost")]];
    for (const [id, now, then] of tiles) {
      $(id).textContent = String(now);
      $(id.replace("-total", "") + "-week").textContent = w ? before + then : "";
    }
  }

  function juices(r) {
    const table = $("juices"), w = r.week_before;
    table.textContent = "";
    const week = {};
    for (const j of (w && w.juices) || []) week[j.juice] = j;
    const then = w ? dayName(w.date, true) + " " : "";
    header(table, [RT.juice, RT.soldShort, RT.lostShort, RT.voidedShort, then + RT.soldShort, then + RT.lostShort, RT.change]);
    for (const j of r.juices) {
      const b = week[j.juice] || { sold: 0, lost: 0 }, row = el("tr"), delta = j.sold - b.sold;
      row.dataset.juice = j.juice; row.dataset.sold = String(j.sold); row.dataset.lost = String(j.lost);
      row.dataset.weekSold = String(b.sold); row.dataset.weekLost = String(b.lost); row.dataset.voided = String(j.voided || 0);
      row.appendChild(nameCell("juices", j.juice));
      cells(row, [[j.sold], [j.lost, j.lost > 0 ? "lost some" : "lost"], [j.voided || 0, j.voided > 0 ? "voided some" : "voided"],
                  [b.sold, "week"], [b.lost, "week"],
                  [delta > 0 ? "+" + delta : delta < 0 ? "\u2212" + (-delta) : "0", delta > 0 ? "up" : delta < 0 ? "down" : ""]]);
      table.appendChild(row);
    }
  }

  // "HH:MM" of an instant in the shop's zone; a browser that does not know the zone uses the
  // UTC offset of the hour before.
  function localHour(ms, zone, offsetMinutes) {
    try {
      return new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
        .format(new Date(ms));
    } catch (e) {
      const d = new Date(ms + offsetMinutes * 60000), two = n => String(n).padStart(2, "0");
      return two(d.getUTCHours()) + ":" + two(d.getUTCMinutes());
    }
  }
  function offsetOf(start) {
    const m = /([+-])(\d\d):(\d\d)$/.exec(start || "");
    return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  }
  // The report lists only hours with activity; the chart shows the quiet hours between them too,
  // so the bars stand in time. Hours are told apart by their start (a DST day may show the same
  // "hour" label twice, with two offsets).
  function columns(r) {
    const out = [];
    let prev = null, offset = 0;
    for (const h of r.hours || []) {
      const t = Date.parse(h.start);
      if (prev !== null && isFinite(t)) {
        for (let g = prev + HOUR, n = 0; g <= t - HOUR && n < 25; g += HOUR, n++) {
          out.push({ hour: null, label: localHour(g, r.timezone, offset) });
        }
      }
      out.push({ hour: h, label: h.hour });
      if (isFinite(t)) { prev = t; offset = offsetOf(h.start); }
    }
    return out;
  }
  function hours(r) {
    const box = $("hours"), cols = columns(r), fmt = moneyFormat(r.currency);
    box.textContent = "";
    if (!cols.length) { scale(box, 0); box.appendChild(el("div", "empty-note", RT.noActivity)); return; }
    const max = Math.max(1, ...cols.map(c => c.hour ? Math.max(sum(c.hour.sold), sum(c.hour.lost)) : 0));
    scale(box, max);
    const short = cols.length > 12;
    for (const c of cols) {
      const h = c.hour, sold = h ? sum(h.sold) : 0, lost = h ? sum(h.lost) : 0, out = (h && h.ran_out) || [];
      const col = el("div", "col hour" + (h ? "" : " empty"));
      col.dataset.hour = c.label; col.dataset.sold = String(sold); col.dataset.lost = String(lost);
      col.dataset.ranOut = out.join(" ");
      if (h) col.dataset.start = h.start;
      if (h) col.dataset.voids = String(h.voids || 0);
      if (h && fmt) { col.dataset.takings = String(h.takings); col.dataset.lostRevenue = String(h.lost_revenue); }
      const outNames = out.map(f => names("fruits", f).main);
      col.appendChild(el("div", "tag", outNames.length ? "\u25bc " + outNames.join(", ") : ""));
      const bars = el("div", "bars"), s = el("i", "sold"), l = el("i", "lost");
      s.style.height = pct(sold, max); l.style.height = pct(lost, max);
      bars.appendChild(s); bars.appendChild(l);
      col.appendChild(bars);
      col.appendChild(el("div", "label", short && /:00$/.test(c.label) ? c.label.slice(0, 2) : c.label));
      const detail = o => Object.keys(o || {}).map(k => names("juices", k).main + " " + o[k]).join(", ");
      col.title = c.label + (h ? " (" + h.start + ")" : "") + "\n" + RT.soldShort + " " + sold + (sold ? ": " + detail(h.sold) : "")
        + "\n" + RT.lostShort + " " + lost + (lost ? ": " + detail(h.lost) : "")
        + (outNames.length ? "\n" + RT.ranOut + ": " + outNames.join(", ") : "")
        + (h && h.voids ? "\n" + RT.voids + " " + h.voids : "")
        + (h && fmt ? "\n" + RT.takings + " " + fmt(h.takings) + " \u00b7 " + RT.lostRevenue + " " + fmt(h.lost_revenue) : "");
      box.appendChild(col);
    }
  }

  function fruits(r) {
    const table = $("fruits");
    table.textContent = "";
    header(table, [RT.fruits, RT.used, RT.short, RT.restocked, RT.sets, RT.ranOut]);
    const gone = [];
    for (const f of r.fruits) {
      const row = el("tr");
      row.dataset.fruit = f.fruit; row.dataset.ranOut = f.ran_out || "";
      row.appendChild(nameCell("fruits", f.fruit));
      cells(row, [[f.used], [f.short, f.short > 0 ? "short some" : "short"], [f.restocked], [f.sets], [f.ran_out || "\u2013"]]);
      table.appendChild(row);
      if (f.ran_out) gone.push(RT.ranOutAt(names("fruits", f.fruit).main, f.ran_out));
    }
    const note = $("ran-out");
    note.textContent = gone.length ? gone.join(" \u00b7 ") : RT.noRunOut;
    note.classList.toggle("none", !gone.length);
  }

  function restocks(r) {
    const box = $("restocks");
    box.textContent = "";
    if (!(r.restocks || []).length) { box.appendChild(el("span", "empty-note", RT.noRestocks)); return; }
    for (const x of r.restocks) {
      const chip = el("span", "restock", x.hour + " " + names("fruits", x.fruit).main + " ");
      chip.dataset.fruit = x.fruit; chip.dataset.hour = x.hour; chip.dataset.amount = String(x.amount);
      chip.appendChild(el("b", "", "+" + x.amount));
      box.appendChild(chip);
    }
  }

  // Each paired till that sold that day (POS "sales by device").
  function tills(r) {
    const table = $("tills"), list = r.tills || [];
    table.textContent = "";
    if (!list.length) { const row = table.insertRow(); row.appendChild(el("td", "empty-note", RT.noTills)); return; }
    const head = table.createTHead().insertRow();
    const fmt = moneyFormat(r.currency);
    for (const w of ["", RT.tillOrders, RT.tillJuices, RT.voids].concat(fmt ? [RT.takings] : [])) {
      const th = el("th", "", w); th.scope = "col"; head.appendChild(th);
    }
    const body = table.createTBody();
    for (const t of list) {
      const row = body.insertRow();
      row.dataset.till = String(t.till);
      const name = el("th", "", t.name); name.scope = "row";
      row.appendChild(name);
      row.appendChild(el("td", "num", String(t.orders)));
      row.appendChild(el("td", "num", String(t.juices)));
      row.appendChild(el("td", "num", String(t.voids || 0)));
      row.dataset.voids = String(t.voids || 0);
      if (fmt) { row.appendChild(el("td", "num", fmt(t.takings))); row.dataset.takings = String(t.takings); }
    }
  }

  // 30 days, oldest first: sold with lost stacked on it; a tap shows that day.
  function trend(r, pick) {
    const box = $("trend"), days = r.trend || [];
    box.textContent = "";
    const max = Math.max(1, ...days.map(d => d.sold + d.lost)), fmt = moneyFormat(r.currency);
    scale(box, max);
    for (const d of days) {
      const col = el("div", "col day" + (d.date === r.date ? " shown" : ""));
      col.dataset.date = d.date; col.dataset.sold = String(d.sold); col.dataset.lost = String(d.lost);
      const bars = el("div", "bars"), l = el("i", "lost"), s = el("i", "sold");
      l.style.height = pct(d.lost, max); s.style.height = pct(d.sold, max);
      bars.appendChild(l); bars.appendChild(s);
      col.appendChild(el("div", "tag", ""));
      col.appendChild(bars);
      col.appendChild(el("div", "label", String(Number(d.date.slice(8)))));
      col.title = dayName(d.date) + "\n" + RT.soldShort + " " + d.sold + " \u00b7 " + RT.lostShort + " " + d.lost
        + (fmt ? "\n" + RT.takings + " " + fmt(d.takings) + " \u00b7 " + RT.lostRevenue + " " + fmt(d.lost_revenue) : "");
      if (fmt) col.dataset.takings = String(d.takings);
      col.addEventListener("click", () => pick(d.date));
      box.appendChild(col);
    }
    // The shown day is the last bar: on a phone the chart opens on it, not on the oldest day
    // (only when the day changes, so a manager's own scrolling stays where it is).
    if (trendShown !== r.date) { trendShown = r.date; box.scrollLeft = box.scrollWidth; }
  }

  // A chart's scale: the count its tallest bar stands for, above the chart (outside its
  // scroll box, so it stays in view), and a dashed line at that height in each column.
  let trendShown = null;
  function scale(box, max) {
    let top = box.previousElementSibling;
    if (!top || !top.classList.contains("scale")) {
      top = el("div", "scale");
      box.parentNode.insertBefore(top, box);
    }
    // An empty chart (a day with nothing recorded) has no scale: none is left from the day before.
    top.hidden = !max;
    top.textContent = max ? RT.scaleTop(max) : "";
    if (max) box.dataset.max = String(max); else delete box.dataset.max;
  }

  return function (r, m, pick) {
    menu = m;
    totals(r); juices(r); hours(r); fruits(r); restocks(r); tills(r); trend(r, pick);
  };
})();
