import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// The manager's day report served at `GET /reports` (issue 24), for a tablet or a laptop: a day
/// picker (today by default), the day's totals and sold / lost per juice beside the same weekday
/// a week earlier, an hour-by-hour chart of sold and lost with the hour each fruit ran out, the
/// fruit and the restocks, a 30-day trend, and downloads of `days.csv` (the 30 days the trend
/// shows) and `hours.csv` (that day). `?lang=ko` shows it in Korean.
///
/// It reads one document, `GET /reports/day?date=YYYY-MM-DD` (PROTOCOL.md), with
/// `Authorization: Bearer <token>` when the server has a manager token: the page itself is public
/// and asks for the token on a 401, as the dashboard does (`TokenPrompt`). Today's report is live:
/// it follows `/events` (`LiveStockScript`, which also gives the menu's Korean names) and re-reads
/// the day after each change, debounced, and every 5 s, because a refused order changes no stock.
/// Downloads carry the token too: fetched by the script and saved under the server's filename.
///
/// Test hooks: `#report` with `data-date`, `data-today` and `data-state` (`loading` / `shown` /
/// `error`); `#date`, `#prev`, `#next`, `#today`; per juice `[data-juice]` with `data-sold`,
/// `data-lost`, `data-week-sold`, `data-week-lost`; per hour `.hour` with `data-hour`,
/// `data-start`, `data-sold`, `data-lost`, `data-ran-out` (fruit names, space-separated); per fruit
/// `[data-fruit]` with `data-ran-out`; `.restock`; trend days `.day` with `data-date`; the links
/// `#days-csv`, `#hours-csv`; the token form as on the dashboard; `#conn`.
package enum ReportsPage {
    /// A bar chart.
    package static let icon = "%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
        + "%3Crect x='1' y='8' width='3' height='7' fill='%233ddc84'/%3E%3Crect x='6' y='4' width='3' height='11' fill='%233ddc84'/%3E"
        + "%3Crect x='11' y='10' width='3' height='5' fill='%23ff5d5d'/%3E%3C/svg%3E"

    package static let html: String = PageStyle.head(title: "Juice reports", icon: icon) + css + TokenPrompt.css + #"""
</style>
</head>
<body>
<header>
  <h1 id="title">Juice <span>reports</span></h1>
  <nav><a href="/" id="nav-board">board</a><a href="/till" id="nav-till">till</a><a href="/stock" id="nav-stock">stock</a>
    <a href="/dashboard" id="nav-sales">sales</a>
    <div id="conn" data-state="reconnecting" role="status" aria-live="polite">reconnecting</div></nav>
</header>
"""# + TokenPrompt.section(
    explanation: "This server has a manager token: enter it to see the reports. It is kept in this browser tab "
        + "only and sent with each request; closing the tab forgets it.",
    submit: "Show reports") + #"""
<main id="report" data-state="loading">
  <section id="controls" class="panel">
    <div class="picker">
      <button type="button" id="prev" class="step" aria-label="previous day">&lsaquo;</button>
      <input type="date" id="date" aria-label="day">
      <button type="button" id="next" class="step" aria-label="next day">&rsaquo;</button>
      <button type="button" id="today">Today</button>
    </div>
    <div id="day"><b id="day-name"></b><span id="day-note"></span></div>
    <div class="downloads"><a id="days-csv" download>days.csv</a><a id="hours-csv" download>hours.csv</a></div>
  </section>
  <div id="status" role="status"></div>
  <section id="totals">
    <div class="panel tile good"><b id="served">0</b><span id="served-label"></span><small id="served-week"></small></div>
    <div class="panel tile lost"><b id="refused">0</b><span id="refused-label"></span><small id="refused-week"></small></div>
    <div class="panel tile"><b id="sold-total">0</b><span id="sold-label"></span><small id="sold-week"></small></div>
    <div class="panel tile lost"><b id="lost-total">0</b><span id="lost-label"></span><small id="lost-week"></small></div>
  </section>
  <section class="panel"><h2 id="hours-title"></h2><div id="hours" class="chart"></div>
    <div class="legend"><span><i class="sold"></i><em id="legend-sold"></em></span><span><i class="lost"></i><em id="legend-lost"></em></span>
      <span><i class="out"></i><em id="legend-out"></em></span></div>
    <div id="ran-out"></div>
  </section>
  <div class="cols">
    <section class="panel"><h2 id="juices-title"></h2><table id="juices"></table></section>
    <section class="panel"><h2 id="fruits-title"></h2><table id="fruits"></table>
      <h2 id="restocks-title"></h2><div id="restocks"></div>
      <h2 id="tills-title"></h2><table id="tills"></table></section>
  </div>
  <section class="panel"><h2 id="trend-title"></h2><div id="trend" class="chart"></div></section>
</main>
<footer><span id="mode"></span><span id="updated"></span></footer>
"""# + PageStyle.baseScript + TokenPrompt.script + LiveStockScript.script + text + #"""
<script>
"""# + draw + script + #"""
</script>
</body>
</html>
"""#
}
