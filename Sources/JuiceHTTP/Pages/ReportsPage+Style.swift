import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
extension ReportsPage {
    /// The page's own rules, after `PageStyle.baseCSS`: sized for a tablet or a laptop, one
    /// column below 900 px. The charts are CSS bars (heights set by the script in %), so they
    /// scale with the box and need no redraw on resize.
    package static let css: String = #"""
body { padding: clamp(10px, 1.6vw, 28px); gap: clamp(10px, 1.2vw, 20px); }
header { flex-wrap: wrap; }
h1 { font-size: clamp(22px, 2.4vw, 42px); }
h2 { margin: 0 0 .8em; font-size: clamp(13px, 1vw, 17px); }
header nav { display: flex; gap: .8em; align-items: center; font-size: 14px; }
header nav a { color: var(--muted); }
#conn { font-size: 14px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 16px; padding: clamp(12px, 1.4vw, 22px); }
#auth { margin-top: 8vh; }
#token { flex: 1; font: inherit; font-size: 18px; padding: .55em .8em; border-radius: 10px; border: 1px solid var(--line);
         background: #0b0e13; color: var(--text); }
button { font: inherit; font-size: 17px; padding: .5em 1em; border-radius: 10px; border: 0; cursor: pointer;
         background: var(--accent); color: #1d1600; font-weight: 700; touch-action: manipulation; }
button:disabled { opacity: .4; cursor: not-allowed; }
body:not(.showing) #conn { visibility: hidden; }   /* nothing to be live about before the report shows */
#report { display: none; flex-direction: column; gap: clamp(10px, 1.2vw, 20px); }
body.showing #report { display: flex; }
body.asking #report { display: none; }
#report[data-state="error"] > :not(#controls):not(#status) { display: none; }
#report[data-state="loading"] > :not(#controls):not(#status) { opacity: .5; }
#controls { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: center; justify-content: space-between; }
.picker { display: flex; gap: 8px; align-items: stretch; }
.picker .step { background: #0b0e13; color: var(--text); border: 1px solid var(--line); font-size: 22px; padding: 0 .7em; }
#date { font: inherit; font-size: 18px; padding: .4em .6em; border-radius: 10px; border: 1px solid var(--line);
        background: #0b0e13; color: var(--text); color-scheme: dark; }
#day { display: flex; flex-direction: column; gap: 2px; flex: 1; min-width: 14em; }
#day b { font-size: clamp(17px, 1.5vw, 24px); }
#day span { color: var(--muted); font-size: 14px; }
#report[data-today="true"] #day span { color: var(--good); }
.downloads { display: flex; gap: 10px; flex-wrap: wrap; }
.downloads a { color: var(--accent); border: 1px solid var(--accent); border-radius: 10px; padding: .45em .8em;
               text-decoration: none; font-weight: 700; font-size: 15px; }
#status { color: var(--out); font-weight: 700; }
#report[data-state="loading"] #status { color: var(--muted); font-weight: 400; }
#status:empty { display: none; }
#totals { display: grid; grid-template-columns: repeat(4, minmax(0, 1fr)); gap: clamp(10px, 1.2vw, 20px); }
.tile b { display: block; font-size: clamp(28px, 2.6vw, 50px); font-variant-numeric: tabular-nums; line-height: 1.1; }
.tile span { color: var(--muted); font-size: 14px; display: block; }
.tile small { color: var(--muted); font-size: 13px; display: block; margin-top: .4em; }
.tile.good b { color: var(--good); } .tile.lost b { color: var(--out); }
.chart { display: flex; align-items: stretch; gap: 3px; height: clamp(170px, 19vw, 280px); overflow-x: auto; }
.chart .col { flex: 1 1 0; min-width: 22px; display: flex; flex-direction: column; align-items: stretch; gap: 3px; }
.chart .tag { height: 1.3em; font-size: 11px; font-weight: 800; color: var(--out); text-align: center; white-space: nowrap;
              overflow: hidden; text-overflow: ellipsis; }
.chart .bars { flex: 1; display: flex; align-items: flex-end; justify-content: center; gap: 2px;
               border-bottom: 1px solid var(--line); }
.chart .bars i { display: block; width: 45%; max-width: 26px; min-height: 0; border-radius: 3px 3px 0 0; transition: height .3s; }
.chart i.sold, .legend i.sold { background: var(--good); }
.chart i.lost, .legend i.lost { background: var(--out); }
.chart .label { font-size: 11px; color: var(--muted); text-align: center; white-space: nowrap; height: 1.4em; }
.hour[data-ran-out]:not([data-ran-out=""]) .bars { border-bottom: 3px solid var(--out); }
.hour.empty .label { opacity: .5; }
#trend .bars { flex-direction: column; justify-content: flex-end; align-items: center; gap: 0; }
#trend .bars i { width: 70%; border-radius: 0; }
#trend .bars i.lost { border-radius: 3px 3px 0 0; }
#trend .day { cursor: pointer; }
#trend .col { min-width: 14px; }
#trend .tag { display: none; }
#trend .day.shown .label { color: var(--accent); font-weight: 800; }
#trend .day.shown .bars { background: rgba(255, 207, 63, .08); }
.legend { color: var(--muted); font-size: 14px; display: flex; gap: 1.2em; margin-top: .8em; flex-wrap: wrap; }
.legend em { font-style: normal; }
.legend i { display: inline-block; width: .8em; height: .8em; border-radius: 2px; margin-right: .4em; vertical-align: -1px; }
.legend i.out { background: transparent; border-bottom: 3px solid var(--out); border-radius: 0; }
#ran-out { margin-top: .6em; font-weight: 700; color: var(--out); }
#ran-out.none { color: var(--muted); font-weight: 400; }
.cols { display: grid; grid-template-columns: minmax(0, 1.2fr) minmax(0, 1fr); gap: clamp(10px, 1.2vw, 20px); }
table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: clamp(14px, 1vw, 17px); }
th { color: var(--muted); font-weight: 600; font-size: 13px; text-align: right; padding: .3em .4em; }
td { text-align: right; padding: .45em .4em; border-top: 1px solid var(--line); }
th:first-child, td:first-child { text-align: left; }
td .alias { color: var(--muted); font-size: .85em; margin-left: .4em; }
td.lost.some, td.short.some { color: var(--out); font-weight: 700; }
td.week { color: var(--muted); }
td.up { color: var(--good); } td.down { color: var(--out); }
#restocks { display: flex; flex-wrap: wrap; gap: 8px; margin-bottom: .4em; }
.restock { border: 1px solid var(--line); border-radius: 10px; padding: .3em .7em; font-variant-numeric: tabular-nums; }
.restock b { color: var(--good); }
#fruits-title ~ #restocks-title, #restocks-title { margin-top: 1.4em; }
.empty-note { color: var(--muted); }
footer { color: var(--muted); font-size: 13px; display: flex; justify-content: space-between; gap: 1em; flex-wrap: wrap;
         margin-top: auto; }
@media (max-width: 900px) {
  .cols { grid-template-columns: 1fr; }
  #totals { grid-template-columns: repeat(2, minmax(0, 1fr)); }
}

"""#
}
