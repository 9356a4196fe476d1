// The report's money, from the same `/reports/day` document: `drawMoney(report, menu)`. The
// tiles (takings after voids, lost revenue, voids), and with prices a panel of takings and lost
// revenue per juice beside the same weekday a week earlier, per hour, and per short fruit, with
// the fruit that cost the most. Amounts are minor units of `report.currency`, shown with
// `moneyFormat` (shared/money.js). A menu without prices has no `currency`: then only the voids
// tile shows (a count), and no money anywhere. (reports.html puts it in the script with draw.js.)

const drawMoney = (function () {
  const $ = id => document.getElementById(id);
  let menu = null;
  function label(kind, name) {
    const item = menu && menu[kind].find(x => x.name === name);
    return item ? naming(item).main : name;
  }
  function table(id, titles) {
    const t = $(id);
    t.textContent = "";
    const head = t.createTHead().insertRow();
    for (const w of titles) { const th = el("th", "", w); th.scope = "col"; head.appendChild(th); }
    return t.createTBody();
  }
  function row(body, name, cells) {
    const tr = body.insertRow(), th = el("th", "", name);
    th.scope = "row";
    tr.appendChild(th);
    for (const [text, cls] of cells) tr.appendChild(el("td", cls || "", text));
    return tr;
  }
  function change(now, then, fmt) {
    const d = now - then;
    return [d > 0 ? "+" + fmt(d) : d < 0 ? "\u2212" + fmt(-d) : fmt(0), d > 0 ? "up" : d < 0 ? "down" : ""];
  }

  function tiles(r, fmt) {
    const w = r.week_before, before = w ? RT.weekBefore(dayName(w.date, true)) : "";
    $("takings-tile").hidden = !fmt;
    $("lost-revenue-tile").hidden = !fmt;
    $("voids").textContent = String(r.voids || 0);
    $("voids").dataset.count = String(r.voids || 0);
    $("voids-amount").textContent = fmt ? RT.voidedAmount(fmt(r.voided_amount || 0)) : "";
    $("voids").dataset.amount = fmt ? String(r.voided_amount || 0) : "";
    if (!fmt) return;
    for (const [id, key] of [["takings", "takings"], ["lost-revenue", "lost_revenue"]]) {
      $(id).textContent = fmt(r[key] || 0);
      $(id).dataset.amount = String(r[key] || 0);
      $(id + "-week").textContent = w ? before + fmt(w[key] || 0) : "";
    }
  }

  function juices(r, fmt) {
    const w = r.week_before, then = w ? dayName(w.date, true) + " " : "", week = {};
    for (const j of (w && w.juices) || []) week[j.juice] = j;
    const body = table("money-juices", [RT.juice, RT.takings, then + RT.takings, RT.change, RT.lostRevenue, then + RT.lostRevenue]);
    for (const j of r.juices) {
      const b = week[j.juice] || { takings: 0, lost_revenue: 0 };
      const tr = row(body, label("juices", j.juice), [[fmt(j.takings)], [fmt(b.takings), "week"], change(j.takings, b.takings, fmt),
        [fmt(j.lost_revenue), j.lost_revenue > 0 ? "lost some" : "lost"], [fmt(b.lost_revenue), "week"]]);
      Object.assign(tr.dataset, { juice: j.juice, takings: String(j.takings), lostRevenue: String(j.lost_revenue),
                                  weekTakings: String(b.takings), weekLostRevenue: String(b.lost_revenue) });
    }
  }

  // Per short fruit: the price of the juices refused because it was short. The one that cost the
  // most is said in words: the fruit to order more of.
  function fruits(r, fmt) {
    const body = table("money-fruits", [RT.fruits, RT.short, RT.lostRevenue]);
    let worst = null;
    for (const f of r.fruits) {
      const tr = row(body, label("fruits", f.fruit), [[String(f.short), f.short > 0 ? "short some" : "short"],
        [fmt(f.lost_revenue), f.lost_revenue > 0 ? "lost some" : "lost"]]);
      Object.assign(tr.dataset, { fruit: f.fruit, lostRevenue: String(f.lost_revenue) });
      if (f.lost_revenue > 0 && (!worst || f.lost_revenue > worst.lost_revenue)) worst = f;
    }
    const note = $("costliest");
    note.dataset.fruit = worst ? worst.fruit : "";
    note.textContent = worst ? RT.costliest(label("fruits", worst.fruit), fmt(worst.lost_revenue)) : RT.noLostRevenue;
    note.classList.toggle("none", !worst);
  }

  function hours(r, fmt) {
    const body = table("money-hours", [RT.hour, RT.soldShort, RT.voids, RT.takings, RT.voidedMoney, RT.lostRevenue]);
    const sum = o => Object.values(o || {}).reduce((a, b) => a + b, 0);
    for (const h of r.hours || []) {
      const tr = row(body, h.hour, [[String(sum(h.sold))], [String(h.voids || 0), h.voids ? "voided some" : ""],
        [fmt(h.takings)], [fmt(h.voided_amount)], [fmt(h.lost_revenue), h.lost_revenue > 0 ? "lost some" : "lost"]]);
      tr.title = h.start;
      Object.assign(tr.dataset, { hour: h.hour, start: h.start, voids: String(h.voids || 0), takings: String(h.takings),
                                  voidedAmount: String(h.voided_amount), lostRevenue: String(h.lost_revenue) });
    }
    if (!(r.hours || []).length) row(body, RT.noActivity, []);
  }

  return function (r, m) {
    menu = m;
    const fmt = moneyFormat(r.currency);
    document.body.classList.toggle("priced", !!fmt);
    tiles(r, fmt);
    $("money-panel").hidden = !fmt;
    if (!fmt) return;
    juices(r, fmt); fruits(r, fmt); hours(r, fmt);
  };
})();
