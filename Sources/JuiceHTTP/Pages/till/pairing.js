// A classic script, run after shared/base.js (for `KO`) and before the till's own: the
// global `tillPairing`. It keeps the till's credential and name in `localStorage` (the
// credential is this device's password for the till: the server keeps only its hash and
// shows it once), adds `Juice-Till` to every order's headers, and runs the form.
//
// Whether the server wants a paired till is asked up front at load, when no credential is
// kept: `GET /tills/list` without a token. A server with a manager token answers it 401, and
// that same token is what makes it take orders only from paired tills or the manager
// (PROTOCOL.md "Tills"); one without a token answers 200 and sells to anonymous tills as
// before. The till also learns it from an order answered 401 (`unpaired` in till/till.js).

"use strict";
const tillPairing = (function () {
  const CREDENTIAL = "juice-till-credential", NAME = "juice-till-name";
  const $ = id => document.getElementById(id);
  const P = KO
    ? { title: "계산대 연결", text: "이 가게는 연결된 계산대에서만 판매합니다. 매니저에게 연결 코드(/tills 페이지의 '새 계산대 연결')를 받아 입력하세요. 코드는 10분 동안 한 번만 쓸 수 있습니다.",
        label: "연결 코드", submit: "이 계산대 연결", empty: "연결 코드를 입력하세요.", away: "서버가 응답하지 않습니다. 다시 시도하세요.",
        wrong: "코드가 맞지 않거나 만료되었습니다. 매니저에게 새 코드를 받으세요." }
    : { title: "Pair this till", text: null, label: "Pairing code", submit: "Pair this till", empty: "Enter the pairing code.",
        away: "The server did not answer. Try again.", wrong: "That code is wrong or expired: ask the manager for a new one." };
  if (KO) {
    $("pairing-title").textContent = P.title; $("pairing-text").textContent = P.text;
    $("pair-code-label").textContent = P.label; $("pair-submit").textContent = P.submit;
  }
  // localStorage may be refused (a private window): then the pairing lasts as long as the page.
  let credential = null, name = null;
  function read() {
    try { credential = localStorage.getItem(CREDENTIAL); name = localStorage.getItem(NAME); } catch (e) {}
  }
  read();
  const listeners = [];
  function showName() {
    $("till-name").textContent = credential && name ? name : "";
    $("till-name").dataset.till = credential ? credential.split("-")[0] : "";
  }
  function keep(c, n) {
    credential = c; name = n;
    try {
      if (c) { localStorage.setItem(CREDENTIAL, c); localStorage.setItem(NAME, n || ""); }
      else { localStorage.removeItem(CREDENTIAL); localStorage.removeItem(NAME); }
    } catch (e) {}
    showName();
  }
  function show(notice) {
    document.body.classList.add("pairing");
    document.body.dataset.paired = "false";
    $("pair-notice").textContent = notice || "";
    $("pair-error").textContent = "";
    $("pair-code").focus();
  }
  function hide() {
    document.body.classList.remove("pairing");
    $("pair-notice").textContent = "";
  }
  $("pair-form").addEventListener("submit", async ev => {
    ev.preventDefault();
    const code = $("pair-code").value.trim().toUpperCase();
    if (!code) { $("pair-error").textContent = P.empty; return; }
    $("pair-submit").disabled = true;
    $("pair-error").textContent = "";
    try {
      let r, body = null;
      try {
        r = await fetch("/tills/pair", { method: "POST", cache: "no-store",
          headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: code }) });
        try { body = JSON.parse(await r.text()); } catch (e) {}
      } catch (e) { $("pair-error").textContent = P.away; return; }
      if (r.ok && body && body.ok && body.credential) {
        keep(body.credential, body.till && body.till.name || "");
        $("pair-code").value = "";
        hide();
        document.body.dataset.paired = "true";
        for (const f of listeners) f();
        return;
      }
      $("pair-error").textContent = r.status === 401 ? P.wrong : (body && body.message) || "HTTP " + r.status;
    } finally { $("pair-submit").disabled = false; }
  });
  // Another tab of this till paired it, or was told it was removed (then this one asks too).
  window.addEventListener("storage", ev => {
    if (ev.key !== null && ev.key !== CREDENTIAL) return;
    const was = credential;
    read(); showName();
    if (credential) { hide(); document.body.dataset.paired = "true"; for (const f of listeners) f(); }
    else if (was) show();
  });
  showName();
  return {
    get credential() { return credential; },
    // The till's number on this server ("3" of "3-…"), or null for an unpaired till.
    get till() { return credential ? credential.split("-")[0] : null; },
    get shown() { return document.body.classList.contains("pairing"); },
    // An order's headers, with Juice-Till once paired.
    headers(h) { const all = Object.assign({}, h); if (credential) all["Juice-Till"] = credential; return all; },
    // The server refused this till (removed, or unknown): forget it and ask for a new code.
    forget(notice) { keep(null, null); show(notice); },
    onPaired(f) { listeners.push(f); },
    // At load: with no credential kept, does this server want one? (See above.)
    check() {
      if (credential) { document.body.dataset.paired = "true"; return; }
      fetch("/tills/list", { cache: "no-store" })
        .then(r => { if (r.status === 401 && !credential) show(); else if (!credential) document.body.dataset.paired = "open"; })
        .catch(() => {});
    },
  };
})();
