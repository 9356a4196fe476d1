import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// The cashier's till served at `GET /till` (issue 18): a big button per juice, a count picker,
/// each fruit's stock, live. A tap is one sale, exactly once: it becomes an order with a fresh
/// idempotency key, kept in `localStorage` until the server answers it (see `TillPage.script`).
///
/// Made for a phone or a tablet held by a cashier (the board, `/`, is the screen for customers).
/// Self-contained like the board: inline CSS and JS, no external assets. Orders need no manager
/// token: on a server with one, the till is paired once with the manager's code (`#pairing`,
/// `TillPage.pairingScript`) and sends its credential, `Juice-Till`, on every order.
///
/// Test hooks: each juice button `data-juice` + `data-can-make` (and `disabled` when it cannot be
/// made at the count picked), each fruit `data-fruit` + `data-stock`, the count `#count` with
/// `#count-minus` / `#count-plus`, the waiting line `#pending` with `data-waiting` (orders kept) and
/// `data-state` (`sending` / `offline` / `idle`), the last sale `#message`, the refusal dialog
/// `#alert` (`data-code`: the error code) with `#alert-text`, `#alert-ok` (OK, or Cancel) and
/// `#alert-restock` (shown for an out-of-stock: opens `/stock?fruit=<short fruit>`), `#conn`,
/// `body[data-stale]` with `#stale` (opened offline: the last known menu and stock), and
/// `#https-note` (no service worker outside a secure context); pairing: `body[data-paired]`
/// (`true` / `false` / `open`: no pairing needed), `#pairing` with `#pair-code`, `#pair-submit`,
/// `#pair-error`, `#pair-notice` (why the till was unpaired: removed, dropped orders), and
/// `#till-name` (the paired till's name, `data-till` its number).
///
/// Offline start: `/till` registers a service worker (`TillWorker`, scope `/till`) that keeps
/// the page; the script keeps the last menu and stock it saw in `localStorage`. Only the till
/// uses the worker: the board needs the server to show anything live, and a stock editor
/// opened from a cache could look live while its numbers are stale.
package enum TillPage {
    /// A cup with a straw, in the accent colour.
    package static let icon = "%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 64 64'%3E"
        + "%3Cpath d='M14 20h36l-5 40H19z' fill='%23ffcf3f'/%3E%3Cpath d='M34 22 42 4h6' stroke='%23f3f5f8' "
        + "stroke-width='5' fill='none' stroke-linecap='round'/%3E%3Cpath d='M16 34h32' stroke='%23ff5d5d' stroke-width='5'/%3E%3C/svg%3E"

    package static let html: String = PageStyle.head(title: "Juice till", icon: icon) + #"""
body { padding: clamp(10px, 1.6vw, 28px); gap: clamp(10px, 1.2vw, 20px); }
h1 { font-size: clamp(22px, 2.6vw, 40px); }
h1 a { color: inherit; text-decoration: none; }
header nav { display: flex; gap: .8em; align-items: center; font-size: 14px; }
header nav a { color: var(--muted); }
#conn { font-size: 14px; }
#pending { display: none; font-size: clamp(17px, 1.6vw, 24px); font-weight: 700; padding: .55em .9em; border-radius: 12px;
           background: var(--panel); border: 1px solid var(--line); }
#pending[data-state="sending"] { display: block; color: var(--muted); }
#pending[data-state="offline"] { display: block; color: #201400; background: var(--low); border-color: var(--low); }
#message { min-height: 1.5em; color: var(--muted); font-size: clamp(15px, 1.3vw, 20px); }
#message[data-kind="sold"] { color: var(--good); }
#message[data-kind="refused"] { color: var(--out); }
.controls { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; }
.controls .label { color: var(--muted); font-size: 16px; }
.stepper { display: inline-flex; align-items: stretch; border: 1px solid var(--line); border-radius: 14px; overflow: hidden; }
.stepper button { font: inherit; font-size: 28px; width: 56px; min-height: 52px; border: 0; background: var(--panel);
                  color: var(--text); cursor: pointer; }
.stepper button:active { background: var(--line); }
#count { min-width: 2.2em; display: grid; place-items: center; font-size: 28px; font-weight: 800; padding: 0 .3em;
         font-variant-numeric: tabular-nums; background: #0b0e13; }
body.many #count { color: var(--accent); }
#juices { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 170px), 1fr)); gap: 12px; }
@media (max-width: 520px) { #juices { grid-template-columns: 1fr 1fr; gap: 10px; } }
.juice { font: inherit; color: inherit; text-align: left; cursor: pointer; touch-action: manipulation;
         background: var(--panel); border: 2px solid var(--line); border-radius: 18px; padding: 14px 14px 12px;
         min-height: 132px; display: flex; flex-direction: column; gap: 4px; position: relative;
         transition: transform .08s, border-color .2s, background .2s; -webkit-tap-highlight-color: transparent; }
.juice:not(:disabled):active { transform: scale(.97); }
.juice:not(:disabled):hover { border-color: #3a4558; }
.juice .name { font-size: clamp(19px, 1.8vw, 26px); font-weight: 800; line-height: 1.1; overflow-wrap: anywhere; }
.juice .alias { color: var(--muted); font-size: 15px; font-weight: 600; }
.juice .recipe { color: var(--muted); font-size: 13px; line-height: 1.35; }
.juice .left { margin-top: auto; display: flex; align-items: baseline; gap: .3em; }
.juice .left b { font-size: 34px; line-height: 1; color: var(--good); font-variant-numeric: tabular-nums; }
.juice .left small { color: var(--muted); font-size: 14px; }
.juice .soldout { display: none; margin-top: auto; align-self: flex-start; font-weight: 800; color: var(--out);
                  border: 2px solid var(--out); border-radius: 6px; padding: 0 .35em; letter-spacing: .06em; }
.juice.tapped { border-color: var(--accent); background: #221f12; }
.juice:disabled { cursor: not-allowed; background: #12151b; border-color: #1c212b; }
.juice:disabled > :not(.soldout) { opacity: .4; filter: grayscale(1); }
.juice[data-can-make="0"] .left { display: none; }
.juice[data-can-make="0"] .soldout { display: inline-block; }
.juice .queued { position: absolute; top: 10px; right: 10px; display: none; font-size: 13px; font-weight: 800;
                 background: var(--low); color: #201400; border-radius: 999px; padding: .15em .6em; }
.juice .queued.some { display: block; }
#fruits { display: flex; flex-wrap: wrap; gap: 8px; }
.fruit { background: var(--panel); border: 1px solid var(--line); border-radius: 999px; padding: .25em .75em;
         font-size: 14px; display: inline-flex; gap: .45em; align-items: baseline; }
.fruit b { font-variant-numeric: tabular-nums; font-size: 17px; }
.fruit.out b { color: var(--out); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
footer { color: var(--muted); font-size: 13px; display: flex; justify-content: space-between; gap: 1em; flex-wrap: wrap;
         margin-top: auto; }
/* The seeds' alert: a refusal stops the cashier until it is read. */
#alert { position: fixed; inset: 0; background: rgba(5, 7, 10, .72); display: none; align-items: center;
         justify-content: center; padding: 20px; z-index: 10; }
#alert.open { display: flex; }
#alert .box { background: var(--panel); border: 1px solid var(--line); border-radius: 18px; padding: 22px;
              width: min(100%, 420px); box-shadow: 0 20px 60px rgba(0, 0, 0, .5); }
#alert h3 { margin: 0 0 .4em; color: var(--out); font-size: 22px; }
#alert p { margin: 0 0 1.1em; font-size: 18px; line-height: 1.4; }
#alert-ok, #alert-restock { font: inherit; font-size: 18px; font-weight: 700; width: 100%; padding: .7em; border: 0;
            border-radius: 12px; background: var(--accent); color: #1d1600; cursor: pointer; }
#alert .buttons { display: flex; gap: 10px; }
#alert-restock[hidden] { display: none; }
#alert-restock:not([hidden]) + #alert-ok { background: var(--line); color: var(--text); }
/* Opened from the cache with the server away: the numbers are the last ones seen. */
#stale { display: none; font-size: 15px; font-weight: 700; padding: .5em .9em; border-radius: 12px;
         border: 1px dashed var(--low); color: var(--low); }
body[data-stale="true"] #stale { display: block; }
body[data-stale="true"] #fruits, body[data-stale="true"] .juice .left { opacity: .55; }
#https-note[hidden] { display: none; }
"""# + pairingCSS + #"""
</style>
</head>
<body>
<header>
  <h1><a href="/till">Juice <span>till</span></a></h1>
  <nav><span id="till-name" role="status" title="this till"></span><a href="/" id="board-link">board</a><a href="/stock" id="stock-link">stock</a>
    <div id="conn" data-state="reconnecting" role="status" aria-live="polite">reconnecting</div></nav>
</header>
"""# + pairingSection + #"""
<h2 id="fruits-title" class="visually-hidden">Fruit stock</h2>
<section id="fruits" aria-labelledby="fruits-title"></section>
<div id="stale" role="status"></div>
<div id="pending" data-state="idle" data-waiting="0" role="status" aria-live="polite"></div>
<div class="controls">
  <span class="label" id="count-label">How many</span>
  <div class="stepper">
    <button type="button" id="count-minus" aria-label="one fewer">&minus;</button>
    <output id="count" aria-live="polite">1</output>
    <button type="button" id="count-plus" aria-label="one more">+</button>
  </div>
  <span id="message" data-kind="" aria-live="polite"></span>
</div>
<section id="juices" aria-label="juices"></section>
<footer><span id="till-id"></span><span id="https-note" hidden></span><span id="seq"></span></footer>
<div id="alert" role="alertdialog" aria-modal="true" aria-labelledby="alert-title" data-code="">
  <div class="box"><h3 id="alert-title">Not sold</h3><p id="alert-text"></p>
    <div class="buttons"><button type="button" id="alert-restock" hidden>Restock</button>
    <button type="button" id="alert-ok">OK</button></div></div>
</div>
"""# + PageStyle.baseScript + LiveStockScript.script + textScript + pairingScript + queueScript + #"""
<script>
"""# + script + #"""
</script>
</body>
</html>
"""#
}
