// The script every page runs before its own (a classic script: these are globals there):
// `el`, `setConn` for `#conn`, `followEvents`, the one way a page stays live, `fillList`, which
// builds a list anew, and `watchReadOnly`, the full-disk notice. It also sets up the links between
// the pages (`a[data-nav]`, below).

"use strict";
// The page's language: `?lang=ko` Korean, `?lang=en` English; with no `lang`, the browser's
// preferred language (its first `navigator.languages`, what it sends as Accept-Language).
const LANG_GIVEN = new URLSearchParams(location.search).get("lang");
const KO = LANG_GIVEN ? LANG_GIVEN === "ko" : /^ko\b/i.test((navigator.languages || [])[0] || navigator.language || "");
document.documentElement.lang = KO ? "ko" : "en";
// The words every page shares: the live light, the full-disk notice, the token prompt, the links.
const WORDS = KO ? {
  conn: { live: "실시간", reconnecting: "다시 연결 중" },
  readOnly: r => "읽기 전용: " + (r === "disk full" ? "디스크 가득 참" : r) + " \u2014 공간이 생길 때까지 주문을 받지 않습니다",
  authTitle: "관리자 토큰", token: "관리자 토큰", notAccepted: "받아들여지지 않은 토큰입니다. 다시 입력하세요.",
  enterToken: "관리자 토큰을 입력하세요.", pages: "페이지",
  nav: { sales: "매출", reports: "리포트", stock: "재고", tills: "계산대 관리", board: "메뉴판", till: "계산대", manager: "관리자" },
} : {
  conn: { live: "live", reconnecting: "reconnecting" },
  readOnly: r => "read-only: " + r + " \u2014 orders are refused until there is room",
  authTitle: "Manager token", token: "manager token", notAccepted: "That token was not accepted. Try again.",
  enterToken: "Enter the manager token.", pages: "pages", nav: {},
};
// A page's Korean words for its fixed markup: `selector: words`, where words is a string (the
// text), or {text, parts (each text node in turn: "Juice <span>menu</span>"), label (aria-label),
// title, placeholder}. Run only when KO; `title` (the document's) is a selector too.
function koWords(map) {
  for (const selector in map) {
    const w = typeof map[selector] === "string" ? { text: map[selector] } : map[selector];
    for (const e of document.querySelectorAll(selector)) {
      if (w.text !== undefined) e.textContent = w.text;
      if (w.parts) {
        const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT), nodes = [];
        while (walk.nextNode()) if (walk.currentNode.textContent.trim()) nodes.push(walk.currentNode);
        w.parts.forEach((t, i) => { if (nodes[i]) nodes[i].textContent = t; });
      }
      if (w.label !== undefined) e.setAttribute("aria-label", w.label);
      if (w.title !== undefined) e.title = w.title;
      if (w.placeholder !== undefined) e.placeholder = w.placeholder;
    }
  }
}
// An element with text: textContent only, because every name on the pages is data.
// The names to show for a fruit or a juice of the menu: in Korean the first alias (or the name);
// else the name, aliases beside. Every page's (the dashboard's and reports' too).
function naming(item) {
  if (KO) return { main: (item.aliases && item.aliases[0]) || item.name, alias: "" };
  return { main: item.name, alias: (item.aliases || []).join(" / ") };
}
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
// The live/reconnecting indicator.
function setConn(state) {
  const c = document.getElementById("conn");
  if (c.dataset.state !== state) { c.dataset.state = state; c.textContent = WORDS.conn[state] || state; }
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
// page itself is marked `aria-current`. A `lang` given in the address stays on each link (every
// page takes it); without one, each page follows the browser again. In Korean a `data-nav` link
// has its Korean word, so whoever follows them stays in one language.
(function () {
  for (const a of document.querySelectorAll("a[data-nav], a[data-lang]")) {
    if (LANG_GIVEN === "ko" || LANG_GIVEN === "en") a.search = "?lang=" + LANG_GIVEN;
    if (WORDS.nav[a.dataset.nav]) a.textContent = WORDS.nav[a.dataset.nav];
    if (a.pathname === location.pathname) a.setAttribute("aria-current", "page");
  }
  const nav = document.querySelector("nav[aria-label]");
  if (KO && nav) nav.setAttribute("aria-label", WORDS.pages);
  const conn = document.getElementById("conn");
  if (KO && conn) conn.textContent = WORDS.conn[conn.dataset.state] || conn.textContent;
  if (KO) koWords({ "#auth-title": WORDS.authTitle, "#token": { label: WORDS.token, placeholder: WORDS.token } });
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
        note.textContent = reason ? WORDS.readOnly(reason.split(":")[0]) : "";
        note.title = reason || "";
      })
      .catch(() => {})
      .finally(() => setTimeout(check, 3000));
  })();
}
