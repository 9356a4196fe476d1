// The script every page runs before its own (a classic script: these are globals there):
// `el`, `setConn` for `#conn`, `followEvents`, the one way a page stays live, `fillList`, which
// builds a list anew, and `watchReadOnly`, the full-disk notice. It also sets up the links between
// the pages (`a[data-nav]`, below).

"use strict";
// An element with text: textContent only, because every name on the pages is data.
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
// The live/reconnecting indicator.
function setConn(state) {
  const c = document.getElementById("conn");
  if (c.dataset.state !== state) { c.dataset.state = state; c.textContent = state; }
}
// Follows /events. The browser's EventSource reconnects by itself after a dropped stream and
// sends Last-Event-ID, so a server restart needs no reload. If it gives up (a non-stream
// answer, e.g. 503 while the server shuts down), a new one is opened, backing off 1 s to 10 s.
// on.stock(event) for each message; on.open() once (re)connected; on.drop() when it dropped.
// store(), if given, names the store the page's state is from: it goes in the stream's URL, so
// every reconnect's Last-Event-ID is read as that store's seq (another store sends its full state).
function followEvents(on, store) {
  let delay = 1000;
  (function open() {
    const id = store && store();
    const source = new EventSource(id ? "/events?store=" + encodeURIComponent(id) : "/events");
    source.addEventListener("stock", on.stock);
    source.onopen = () => { delay = 1000; setConn("live"); on.open(); };
    source.onerror = () => {
      setConn("reconnecting");
      on.drop();
      if (source.readyState === EventSource.CLOSED) {
        setTimeout(open, delay);
        delay = Math.min(delay * 2, 10000);
      }
    };
  })();
}
// The links between the pages (shared/nav.html, the till's, the board's corner link), each naming
// its page in `data-nav` (or `data-lang`: a link that keeps its own words, the till's title): the
// page itself is marked `aria-current`, and with ?lang=ko each link keeps ?lang=ko (every page
// takes it) and a `data-nav` one is in Korean, so whoever follows them stays in one language.
const NAV_KO = { sales: "매출", reports: "리포트", stock: "재고", tills: "계산대 관리", board: "메뉴판", till: "계산대",
  manager: "관리자" };
(function () {
  const ko = new URLSearchParams(location.search).get("lang") === "ko";
  for (const a of document.querySelectorAll("a[data-nav], a[data-lang]")) {
    if (ko) a.search = "?lang=ko";
    if (ko && NAV_KO[a.dataset.nav]) a.textContent = NAV_KO[a.dataset.nav];
    if (a.pathname === location.pathname) a.setAttribute("aria-current", "page");
  }
  const nav = document.querySelector("nav[aria-label]");
  if (ko && nav) nav.setAttribute("aria-label", "페이지");
})();
// Empties `box` and fills it with `make(item)` for each of `items`, in order.
function fillList(box, items, make) {
  box.textContent = "";
  for (const item of items) box.appendChild(make(item));
}
// The read-only notice: while the disk is full the server refuses orders and restocks, and
// /state says why ("read_only", PROTOCOL.md "Full disk"). Read at load and every 3 s, so a
// page loaded while read-only shows it, and it goes away on recovery without a reload. (Polled
// rather than pushed: the event stream carries stock only, and a refused change sends nothing.)
function watchReadOnly() {
  const note = el("div");
  note.id = "readonly";
  note.setAttribute("role", "alert");
  note.hidden = true;
  document.body.insertBefore(note, document.body.firstChild);
  (function check() {
    fetch("/state", { cache: "no-store" })
      .then(r => r.ok ? r.json() : null)
      .then(s => {
        if (!s) return;
        const reason = s.read_only;
        note.hidden = !reason;
        note.dataset.reason = reason || "";
        // "read-only: disk full", the whole reason on hover.
        note.textContent = reason ? "read-only: " + reason.split(":")[0] + " \u2014 orders are refused until there is room" : "";
        note.title = reason || "";
      })
      .catch(() => {})
      .finally(() => setTimeout(check, 3000));
  })();
}
