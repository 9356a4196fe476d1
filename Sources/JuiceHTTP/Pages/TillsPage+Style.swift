import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
extension TillsPage {
    /// The page's own rules, after `PageStyle.baseCSS` and `TokenPrompt.css`: one column, made
    /// for a phone (412 px) up to a laptop; the pairing code is the largest thing on the page.
    package static let css: String = #"""
body { padding: clamp(10px, 1.6vw, 28px); gap: clamp(10px, 1.2vw, 20px); }
header { flex-wrap: wrap; }
h1 { font-size: clamp(22px, 2.6vw, 40px); }
h2 { margin: 0 0 .8em; font-size: 15px; }
header nav { display: flex; gap: .8em; align-items: center; font-size: 14px; flex-wrap: wrap; }
header nav a { color: var(--muted); }
#conn { font-size: 14px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 16px; padding: clamp(12px, 1.4vw, 22px); }
#auth { margin-top: 6vh; }
input { font: inherit; font-size: 18px; padding: .5em .7em; border-radius: 10px; border: 1px solid var(--line);
        background: #0b0e13; color: var(--text); min-width: 0; }
#token { flex: 1; }
button { font: inherit; font-size: 17px; padding: .5em 1em; border-radius: 10px; border: 0; cursor: pointer;
         background: var(--accent); color: #1d1600; font-weight: 700; touch-action: manipulation; }
button:disabled { opacity: .45; cursor: not-allowed; }
button.quiet { background: transparent; color: var(--text); border: 1px solid var(--line); }
button.danger { background: transparent; color: var(--out); border: 1px solid var(--out); }
#confirm button.danger { background: var(--out); color: #fff; }
body:not(.showing) #conn { visibility: hidden; }
#page { display: none; flex-direction: column; gap: clamp(10px, 1.2vw, 20px); width: min(100%, 860px); align-self: center; }
body.showing #page { display: flex; }
body.asking #page { display: none; }
#code-form label { display: block; color: var(--muted); font-size: 15px; margin-bottom: .4em; }
#code-form .row { display: flex; gap: 10px; flex-wrap: wrap; }
#code-name { flex: 1 1 12em; }
#code-make { flex: 0 0 auto; }
#code-box { margin-top: 16px; border: 2px dashed var(--accent); border-radius: 14px; padding: 16px; text-align: center; }
#code-box[hidden] { display: none; }
#code-box .what { margin: 0; color: var(--muted); font-size: 15px; }
#code { display: block; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-weight: 800;
        font-size: clamp(38px, 11vw, 72px); letter-spacing: .1em; color: var(--accent); margin: .15em 0; white-space: nowrap; }
#code-expiry { margin: 0 0 .6em; font-size: 17px; font-variant-numeric: tabular-nums; }
#code-box .how { margin: 0 0 .8em; color: var(--muted); line-height: 1.45; }
#code-box[data-state="expired"] #code { color: var(--muted); text-decoration: line-through; }
#code-box[data-state="expired"] #code-expiry { color: var(--out); font-weight: 700; }
#code-box[data-state="used"] { border-color: var(--good); }
#code-box[data-state="used"] #code { color: var(--good); }
#code-box[data-state="used"] #code-expiry { color: var(--good); font-weight: 700; }
#code-error, #status { color: var(--out); font-weight: 700; }
#code-error:empty, #status:empty { display: none; }
#code-error { margin-top: .8em; }
#empty { color: var(--muted); margin: 0; }
#tills { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 10px; }
.till { border: 1px solid var(--line); border-radius: 14px; padding: 12px 14px; background: #11151d;
        display: grid; grid-template-columns: 1fr auto; gap: 6px 12px; align-items: start; }
.till h3 { margin: 0; font-size: 21px; overflow-wrap: anywhere; }
.till h3 small { color: var(--muted); font-size: 14px; font-weight: 600; margin-left: .4em; }
.till .presence { justify-self: end; font-size: 14px; font-weight: 700; border-radius: 999px; padding: .2em .7em;
                  border: 1px solid var(--line); color: var(--muted); white-space: nowrap; }
.till[data-connected="true"] .presence { color: var(--good); border-color: var(--good); }
.till[data-active="false"] .presence { color: var(--out); border-color: var(--out); }
.till dl { grid-column: 1 / -1; margin: 0; display: grid; grid-template-columns: repeat(auto-fit, minmax(8em, 1fr)); gap: 8px 14px; }
.till dt { color: var(--muted); font-size: 13px; }
.till dd { margin: 0; font-size: 16px; font-variant-numeric: tabular-nums; }
.till dd b { font-size: 22px; }
.till .actions { grid-column: 1 / -1; display: flex; gap: 8px; flex-wrap: wrap; }
.till .actions[hidden], .till .rename-form[hidden] { display: none; }
.till .rename-form { grid-column: 1 / -1; display: flex; gap: 8px; flex-wrap: wrap; align-items: flex-end; }
.till .rename-form label { flex: 1 0 100%; color: var(--muted); font-size: 14px; }
.till .rename-form input { flex: 1 1 10em; }
.till .result { grid-column: 1 / -1; color: var(--out); font-size: 15px; }
.till .result:empty { display: none; }
.till[data-active="false"] { opacity: .6; }
#confirm { position: fixed; inset: 0; background: rgba(5, 7, 10, .72); display: none; align-items: center;
           justify-content: center; padding: 20px; z-index: 10; }
#confirm.open { display: flex; }
#confirm .box { background: var(--panel); border: 1px solid var(--line); border-radius: 18px; padding: 22px;
                width: min(100%, 440px); box-shadow: 0 20px 60px rgba(0, 0, 0, .5); }
#confirm h3 { margin: 0 0 .4em; color: var(--out); font-size: 22px; }
#confirm p { margin: 0 0 1.1em; font-size: 17px; line-height: 1.45; }
#confirm .buttons { display: flex; gap: 10px; }
#confirm .buttons button { flex: 1; padding: .7em; }
footer { color: var(--muted); font-size: 13px; display: flex; justify-content: space-between; gap: 1em; flex-wrap: wrap;
         margin-top: auto; }

"""#
}
