// The report's flow: which day is shown, the token (asked on a 401), reading
// `/reports/day`, staying live for today, and the downloads (see reports.html's header).

"use strict";
(function () {
  const $ = id => document.getElementById(id);
  const ISO = /^\d{4}-\d{2}-\d{2}$/;
  const asked = new URLSearchParams(location.search).get("date") || "";
  // The day to show; null is "today", whichever day that is when the page asks (so a page left
  // open follows the business day over).
  let chosen = ISO.test(asked) ? asked : null;
  let report = null, menu = null, authorized = false, todayDate = null;
  let inFlight = false, again = false, timer = null, lastFetch = 0;

  // The words of the static parts (the links to the other pages: shared/base.js).
  const words = { "title": null, "today": RT.today, "days-csv": RT.daysCsv, "hours-csv": RT.hoursCsv, "served-label": RT.served,
    "refused-label": RT.refused, "sold-label": RT.sold, "lost-label": RT.lost, "hours-title": RT.byHour,
    "legend-sold": RT.soldShort, "legend-lost": RT.lostShort, "legend-out": RT.ranOut, "juices-title": RT.perJuice,
    "fruits-title": RT.fruits, "restocks-title": RT.restocks, "trend-title": RT.trend, "tills-title": RT.tills,
    "auth-title": RT.authTitle, "token-submit": RT.authSubmit, "takings-label": RT.takingsTile,
    "lost-revenue-label": RT.lostRevenueTile, "voids-label": RT.voidsTile, "money-title": RT.moneyTitle,
    "money-hours-title": RT.moneyHours };
  for (const id in words) if (words[id] !== null) $(id).textContent = words[id];
  $("title").firstChild.textContent = RT.title + " ";
  $("title").lastChild.textContent = RT.reports;
  document.querySelector("#auth p").textContent = RT.authText;
  $("prev").setAttribute("aria-label", RT.prev);
  $("next").setAttribute("aria-label", RT.next);

  // A calendar day `days` away from `iso`.
  function shift(iso, days) {
    const d = new Date(Date.parse(iso + "T00:00:00Z") + days * 86400000);
    return d.toISOString().slice(0, 10);
  }
  // The page's address keeps the day shown (and ?lang), so a reload shows the same day.
  function remember() {
    const p = new URLSearchParams(location.search);
    if (chosen) p.set("date", chosen); else p.delete("date");
    const q = p.toString();
    history.replaceState(null, "", location.pathname + (q ? "?" + q : ""));
  }
  function pick(date) {
    chosen = date && ISO.test(date) ? date : null;
    remember();
    $("report").dataset.state = "loading";
    $("status").textContent = RT.loading;
    refresh();
  }

  // One /reports/day call at a time; a call asked for meanwhile runs after it.
  async function refresh() {
    if (inFlight) { again = true; return; }
    inFlight = true; lastFetch = Date.now();
    const day = chosen;
    try {
      let response, raw;
      try {
        response = await fetch("/reports/day" + (day ? "?date=" + day : ""), { cache: "no-store", headers: managerToken.headers() });
        raw = await response.text();
      } catch (e) {
        // The server is away: #conn says so. Once shown, the next change or tick asks again;
        // before that, nothing else would.
        if (!authorized) setTimeout(refresh, 2000);
        return;
      }
      if (response.status === 401) {
        authorized = false;
        document.body.classList.remove("showing");
        managerToken.refused(raw);
        return;
      }
      authorized = true;
      document.body.classList.remove("asking");
      document.body.classList.add("showing");
      $("mode").textContent = managerToken.value ? RT.signedIn : RT.open;
      if (day !== chosen) { again = true; return; }   // another day was picked while this one was asked
      let body = null;
      try { body = JSON.parse(raw); } catch (e) {}
      if (!response.ok || !body || !Array.isArray(body.juices)) {
        const why = body && (body.message || body.error) || raw.trim().slice(0, 200) || "HTTP " + response.status;
        $("report").dataset.state = "error";
        $("status").textContent = RT.unavailable(response.status + ": " + why);
        return;
      }
      report = body;
      show();
    } finally {
      inFlight = false;
      if (again) { again = false; schedule(0); }
    }
  }
  // Debounced: at most two calls a second, however fast the stock changes.
  function schedule(gap) {
    if (timer || !authorized) return;
    const wait = Math.max(0, (gap === undefined ? 500 : gap) - (Date.now() - lastFetch));
    timer = setTimeout(() => { timer = null; refresh(); }, wait);
  }

  function show() {
    const r = report, box = $("report");
    if (r.today) todayDate = r.date;
    box.dataset.date = r.date; box.dataset.today = String(!!r.today); box.dataset.state = "shown";
    $("status").textContent = "";
    $("date").value = r.date;
    if (todayDate) $("date").max = todayDate;
    $("next").disabled = !!r.today;
    $("today").disabled = !!r.today;
    $("day-name").textContent = dayName(r.date);
    $("day-note").textContent = (r.today ? RT.live + " \u00b7 " : "") + RT.businessDay(r.day_starts, r.timezone);
    const from = r.trend && r.trend.length ? r.trend[0].date : shift(r.date, -29);
    $("days-csv").href = "/reports/days.csv?from=" + from + "&to=" + r.date;
    $("hours-csv").href = "/reports/hours.csv?date=" + r.date;
    drawReport(r, menu, pick);
    drawMoney(r, menu);
    reportSales.show(r, menu);
    $("updated").textContent = RT.updated(new Date().toLocaleTimeString(RT.locale));
  }

  // With a token the CSV must carry it, which a plain link cannot: the script fetches the file
  // and saves it under the server's name (Content-Disposition). Without one the link is enough.
  async function download(ev) {
    if (!managerToken.value) return;
    ev.preventDefault();
    const link = ev.currentTarget;
    let response;
    try { response = await fetch(link.href, { cache: "no-store", headers: managerToken.headers() }); }
    catch (e) { $("status").textContent = RT.unavailable(e.message); return; }
    if (response.status === 401) { managerToken.refused(await response.text()); return; }
    if (!response.ok) { $("status").textContent = RT.unavailable(response.status + ": " + (await response.text()).slice(0, 200)); return; }
    const named = /filename="?([^";]+)"?/.exec(response.headers.get("Content-Disposition") || "");
    const save = el("a");
    save.href = URL.createObjectURL(await response.blob());
    save.download = named ? named[1] : link.id.replace("-", ".");
    document.body.appendChild(save);
    save.click();
    save.remove();
    setTimeout(() => URL.revokeObjectURL(save.href), 60000);
  }

  $("date").addEventListener("change", () => { if (ISO.test($("date").value)) pick($("date").value); });
  $("prev").addEventListener("click", () => { if (report) pick(shift(report.date, -1)); });
  $("next").addEventListener("click", () => { if (report && !report.today) pick(shift(report.date, 1)); });
  $("today").addEventListener("click", () => pick(null));
  $("days-csv").addEventListener("click", download);
  $("hours-csv").addEventListener("click", download);
  managerToken.onSubmit(refresh);
  reportSales.start({ refresh: () => schedule(0), unauthorized: () => { authorized = false; document.body.classList.remove("showing"); managerToken.refused(""); } });

  // Live for today: each stock change re-reads the day (debounced); the menu gives the names.
  // A refused order changes no stock, so today's report is also read every 5 s.
  followStock({
    menu: feed => { menu = feed.menu; if (report) show(); },
    stock: () => { if (report && report.today) schedule(); },
    live: () => {},
  });
  setInterval(() => { if (report && report.today) schedule(); }, 5000);
  watchReadOnly();
  refresh();
})();
