import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// The manager's stock editor served at `GET /stock` (issue 18), the original app's second
/// screen: per fruit, its stock (live), − / + steppers with a number field, "Add" (`POST
/// /restock`, safe while cashiers keep selling) and "Set to" (`POST /set`, a count correction),
/// and each answer or error beside the fruit it was for.
///
/// The page is public; its writes carry `Authorization: Bearer <token>` when the server has a
/// manager token. Like the dashboard it asks for the token once (when `GET /sales` without one
/// answers 401) and keeps it for this tab only (`sessionStorage`); a write refused with 401 asks
/// again. Every write carries an idempotency key made per click, and one that got no answer is
/// sent again with its key until answered (`send` in the script), so it is applied once.
///
/// A fruit whose menu entry has a `par` (issue 24) shows it under its count, with "Fill to par":
/// an Add of par minus the count the page shows at the tap (nothing when at or above par). The
/// amount is fixed at the tap and the write is a restock, so a sale between the tap and the write
/// stays sold (the shelf ends that much under par) and a retry adds the same amount once. The
/// button waits while the stream is down, since the count shown may then be stale.
///
/// Test hooks: each fruit row `data-fruit` + `data-stock`, inside it `.amount`, `.minus`,
/// `.plus`, `.add`, `.set`, `.fill-par` (with the row's `data-fill`, the amount it would add; only
/// for a fruit with a par), `.par` and `.result` (`data-kind` `ok` / `error` / `waiting`); the token form `#token` +
/// `#token-submit` + `#auth-error`, as on the dashboard; `#conn`. `/stock?fruit=<name>` marks
/// that fruit's row `data-asked` and puts it in view with its amount focused (the till's
/// "Restock" after an out-of-stock).
package enum StockPage {
    /// A crate of fruit.
    package static let icon = "%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 64 64'%3E"
        + "%3Ccircle cx='20' cy='24' r='10' fill='%23ff5d5d'/%3E%3Ccircle cx='40' cy='22' r='10' fill='%23ffcf3f'/%3E"
        + "%3Crect x='6' y='30' width='52' height='26' rx='4' fill='%233ddc84'/%3E"
        + "%3Cpath d='M6 42h52' stroke='%230d1016' stroke-width='3'/%3E%3C/svg%3E"

    package static let html: String = PageStyle.head(title: "Juice stock", icon: icon) + #"""
body { padding: clamp(10px, 1.6vw, 28px); gap: clamp(10px, 1.2vw, 20px); }
h1 { font-size: clamp(22px, 2.6vw, 40px); }
header nav { display: flex; gap: .8em; align-items: center; font-size: 14px; }
header nav a { color: var(--muted); }
#conn { font-size: 14px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 16px; padding: clamp(12px, 1.4vw, 22px); }
"""# + TokenPrompt.css + #"""
#auth { margin-top: 6vh; }
body.asking #fruits, body.asking #mode { display: none; }
#auth h2 { margin: 0 0 .8em; font-size: 15px; }
input { font: inherit; font-size: 18px; padding: .5em .7em; border-radius: 10px; border: 1px solid var(--line);
        background: #0b0e13; color: var(--text); min-width: 0; }
#token { flex: 1; }
button { font: inherit; font-size: 17px; padding: .5em 1em; border-radius: 10px; border: 0; cursor: pointer;
         background: var(--accent); color: #1d1600; font-weight: 700; touch-action: manipulation; }
button:disabled { opacity: .45; cursor: not-allowed; }
#fruits { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 330px), 1fr)); gap: 12px; }
.fruit { display: grid; grid-template-columns: 1fr auto; gap: 8px 12px; align-items: center; }
.fruit .name { font-size: 21px; font-weight: 800; }
.fruit .alias { color: var(--muted); font-size: 15px; font-weight: 600; margin-left: .4em; }
.fruit.asked { border-color: var(--accent); box-shadow: 0 0 0 2px var(--accent) inset; }
.fruit .now { text-align: right; line-height: 1; }
.fruit .now b { font-size: 34px; font-variant-numeric: tabular-nums; color: var(--good); }
.fruit .now small { display: block; color: var(--muted); font-size: 12px; margin-top: 2px; }
.fruit[data-stock="0"] .now b { color: var(--out); }
.fruit .edit { grid-column: 1 / -1; display: flex; gap: 8px; align-items: stretch; flex-wrap: wrap; }
.stepper { display: inline-flex; border: 1px solid var(--line); border-radius: 10px; overflow: hidden; flex: 1 1 150px; }
.stepper button { background: #0b0e13; color: var(--text); border-radius: 0; font-size: 22px; width: 46px; padding: 0; }
.stepper input { border: 0; border-radius: 0; width: 100%; text-align: center; font-weight: 700; font-variant-numeric: tabular-nums; }
.edit .set { background: transparent; color: var(--accent); border: 1px solid var(--accent); }
.edit .add, .edit .set { flex: 1 0 auto; }
.edit .fill-par { flex: 1 0 100%; background: transparent; color: var(--good); border: 1px solid var(--good); }
.fruit .now small.par { color: var(--text); font-weight: 700; }
@media (max-width: 560px) { .stepper { flex-basis: 100%; } }
.fruit .result { grid-column: 1 / -1; color: var(--muted); font-size: 15px; }
.fruit .result:empty { display: none; }
.fruit .result[data-kind="ok"] { color: var(--good); }
.fruit .result[data-kind="error"] { color: var(--out); }
.fruit .result[data-kind="waiting"] { color: var(--muted); }
.fruit.busy .edit button { opacity: .6; }
#mode { color: var(--muted); font-size: 13px; }
footer { color: var(--muted); font-size: 13px; display: flex; justify-content: space-between; gap: 1em; flex-wrap: wrap;
         margin-top: auto; }
</style>
</head>
<body>
<header>
  <h1>Juice <span>stock</span></h1>
  <nav><a href="/">board</a><a href="/till">till</a><a href="/dashboard">sales</a>
    <div id="conn" data-state="reconnecting" role="status" aria-live="polite">reconnecting</div></nav>
</header>
"""# + TokenPrompt.section(
    explanation: "Changing the stock needs the manager token. It is kept in this browser tab only and sent "
        + "with each change; closing the tab forgets it.",
    submit: "Use token") + #"""
<section id="fruits" aria-label="fruit stock"></section>
<div id="mode"></div>
<footer><span>Add: a delivery came in (safe while tills sell). Set to: the count on the shelf.
  Fill to par: adds what the shelf lacks of the menu's par, counted from the stock shown when you tap.</span><span id="seq"></span></footer>
"""# + PageStyle.baseScript + TokenPrompt.script + LiveStockScript.script + #"""
<script>
"""# + script + #"""
</script>
</body>
</html>
"""#
}
