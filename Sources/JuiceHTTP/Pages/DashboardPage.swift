import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
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
package enum DashboardPage {
    package static let html: String = PageStyle.head(title: "Juice sales") + #"""
body { padding: clamp(12px, 1.6vw, 32px); gap: clamp(12px, 1.2vw, 22px); }
header { flex-wrap: wrap; }
h1 { font-size: clamp(24px, 2.4vw, 46px); }
h2 { margin: 0 0 .8em; font-size: clamp(14px, 1vw, 20px); }
#conn { font-size: clamp(13px, 1vw, 18px); }
body:not(.showing) #conn { visibility: hidden; }   /* nothing to be live about before the sales show */
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 16px; padding: clamp(14px, 1.4vw, 26px); }
"""# + TokenPrompt.css + #"""
#auth { margin-top: 8vh; }
#token { flex: 1; font: inherit; font-size: 18px; padding: .55em .8em; border-radius: 10px; border: 1px solid var(--line);
         background: #0b0e13; color: var(--text); }
button { font: inherit; font-size: 18px; padding: .55em 1.1em; border-radius: 10px; border: 0; cursor: pointer;
         background: var(--accent); color: #1d1600; font-weight: 700; }
#data { display: none; flex-direction: column; gap: clamp(12px, 1.4vw, 26px); }
body.showing #data { display: flex; }
body.asking #data { display: none; }
#totals { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: clamp(10px, 1.2vw, 22px); }
.tile b { display: block; font-size: clamp(30px, 2.8vw, 56px); font-variant-numeric: tabular-nums; line-height: 1.1; }
.tile span { color: var(--muted); font-size: clamp(13px, .9vw, 17px); }
.tile.good b { color: var(--good); } .tile.lost b { color: var(--out); }
.cols { display: grid; grid-template-columns: minmax(0, 1.3fr) minmax(0, 1fr); gap: clamp(12px, 1.4vw, 26px); }
.row { display: grid; grid-template-columns: minmax(7em, 13em) minmax(0, 1fr) 9.5em; align-items: center;
       gap: 1em; padding: .45em 0; border-bottom: 1px solid var(--line); font-size: clamp(14px, 1vw, 19px); }
.row:last-child { border-bottom: 0; }
.row .alias { color: var(--muted); font-size: .85em; margin-left: .4em; }
.row svg { width: 100%; height: 1.3em; display: block; }
.row .nums { text-align: right; font-variant-numeric: tabular-nums; color: var(--muted); white-space: nowrap; }
.row .nums b { color: var(--text); }
.row .nums .l.some { color: var(--out); }
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
"""# + TokenPrompt.section(
    explanation: "This server has a manager token: enter it to see the sales. It is kept in this browser tab "
        + "only and sent with each request; closing the tab forgets it.",
    submit: "Show sales") + #"""
<div id="data">
  <section id="totals">
    <div class="panel tile good"><b id="served">0</b><span>orders served</span></div>
    <div class="panel tile lost"><b id="refused">0</b><span>orders refused (out of stock)</span></div>
    <div class="panel tile"><b id="sold-total">0</b><span>juices sold</span></div>
    <div class="panel tile lost"><b id="lost-total">0</b><span>juices lost</span></div>
  </section>
  <div class="cols">
    <section class="panel"><h2>Sold and lost per juice</h2><div id="juices"></div>
      <div class="legend"><span><i style="background: var(--good)"></i>sold</span><span><i style="background: var(--out)"></i>lost (refused: not enough fruit)</span></div>
    </section>
    <section class="panel"><h2>Lost sales by fruit</h2><div id="advice"></div><div id="fruits"></div>
      <div class="legend"><span><i style="background: var(--low)"></i>orders refused because this fruit was short</span></div>
    </section>
  </div>
  <section id="chart" class="panel"><h2>Orders per minute, last hour</h2><div id="chart-body"></div>
    <div class="legend"><span><i style="background: var(--good)"></i>served</span><span><i style="background: var(--out)"></i>refused</span></div>
  </section>
</div>
<footer><span id="mode"></span><span id="updated"></span></footer>
"""# + PageStyle.baseScript + TokenPrompt.script + #"""
<script>
"""# + script + #"""
</script>
</body>
</html>
"""#
}
