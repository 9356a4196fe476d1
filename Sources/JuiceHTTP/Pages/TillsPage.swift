import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// The manager's tills served at `GET /tills` (issue 31): each paired till with its name, when
/// it was paired, when it was last seen, its orders today, whether it is connected now and
/// whether it is active or revoked; **Pair a new till** (an optional name, then the code shown
/// large with its expiry counting down, and "Paired" once a till used it), **Rename** and
/// **Revoke** (after a confirmation: the till stops selling at once, its waiting orders are not
/// sold). On the tablet, the cashier opens `/till` and enters the code (`TillPage.pairingScript`).
///
/// The page is public, like `/dashboard` and `/reports`: it holds no data. Its calls, `GET
/// /tills/list` and `POST /tills/codes`, `/tills/rename`, `/tills/revoke` (PROTOCOL.md "Tills"),
/// carry `Authorization: Bearer <token>` when the server has a manager token, asked for on a 401
/// and kept for this tab only (`TokenPrompt`). The list is read at load, after each stock change
/// (a sale: orders today; `/events`) and every 3 s (connected, last seen: no event says those).
///
/// Test hooks: `#code-name`, `#code-make`, `#code-box` (`data-state`: `shown` / `expired` /
/// `used`), `#code`, `#code-expiry`, `#code-error`; each till `[data-till]` (its number) with
/// `data-name`, `data-active`, `data-connected`, `data-orders-today`, and inside it `.rename`,
/// `.rename-name`, `.rename-save`, `.rename-cancel`, `.revoke`, `.result`; the confirmation
/// `#confirm` (`.open`) with `#confirm-yes` / `#confirm-no`; `#page` (`data-state`: `loading` /
/// `shown` / `error`); the token form as on the dashboard; `#conn`.
package enum TillsPage {
    /// A tablet with a link mark.
    package static let icon = "%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
        + "%3Crect x='2' y='1' width='12' height='14' rx='2' fill='%23ffcf3f'/%3E"
        + "%3Crect x='4' y='3' width='8' height='8' fill='%230d1016'/%3E%3Ccircle cx='8' cy='13' r='1' fill='%230d1016'/%3E%3C/svg%3E"

    package static let html: String = PageStyle.head(title: "Juice tills", icon: icon) + TokenPrompt.css + css + #"""
</style>
</head>
<body>
<header>
  <h1>Juice <span>tills</span></h1>
  <nav><a href="/">board</a><a href="/till">till</a><a href="/stock">stock</a><a href="/dashboard">sales</a><a href="/reports">reports</a>
    <div id="conn" data-state="reconnecting" role="status" aria-live="polite">reconnecting</div></nav>
</header>
"""# + TokenPrompt.section(
    explanation: "Pairing and removing tills needs the manager token. It is kept in this browser tab only and sent "
        + "with each request; closing the tab forgets it.",
    submit: "Use token") + #"""
<main id="page" data-state="loading">
  <section id="new-till" class="panel" aria-labelledby="new-title">
    <h2 id="new-title">Pair a new till</h2>
    <form id="code-form" autocomplete="off">
      <label for="code-name">Name for the new till (optional)</label>
      <div class="row">
        <input id="code-name" maxlength="40" placeholder="Front till" autocomplete="off">
        <button type="submit" id="code-make">Pair a new till</button>
      </div>
    </form>
    <div id="code-box" data-state="" hidden>
      <p class="what" id="code-what">Pairing code</p>
      <output id="code" aria-labelledby="code-what"></output>
      <p id="code-expiry" role="status"></p>
      <p class="how">On the tablet: open <b>/till</b>, and enter this code in <b>Pair this till</b>. It works once.</p>
      <button type="button" id="code-done" class="quiet">Done</button>
    </div>
    <div id="code-error" role="alert"></div>
  </section>
  <section class="panel" aria-labelledby="list-title">
    <h2 id="list-title">Tills</h2>
    <div id="status" role="alert"></div>
    <p id="empty" hidden>No till is paired yet: make a code above.</p>
    <ul id="tills" aria-labelledby="list-title"></ul>
  </section>
</main>
<div id="confirm" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" aria-describedby="confirm-text">
  <div class="box"><h3 id="confirm-title">Revoke this till?</h3><p id="confirm-text"></p>
    <div class="buttons"><button type="button" id="confirm-no" class="quiet">Cancel</button>
    <button type="button" id="confirm-yes" class="danger">Revoke</button></div></div>
</div>
<footer><span>A till sells only once paired. Revoke a lost or stolen tablet: it stops selling at once, and its waiting
  orders are not sold.</span><span id="mode"></span></footer>
"""# + PageStyle.baseScript + TokenPrompt.script + #"""
<script>
"""# + script + #"""
</script>
</body>
</html>
"""#
}
