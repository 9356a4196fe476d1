// A classic script run before the page's own: the global `managerToken`. One key in
// `sessionStorage` for every page that asks, so one sign-in serves them all in a tab; never
// `localStorage`, never a URL. A page shows the form (shared/token-prompt.html) by the body
// class `asking` and hides its own content then.

"use strict";
const managerToken = (function () {
  const KEY = "juice-manager-token";
  const byId = id => document.getElementById(id);
  // The token lives in this tab only: sessionStorage survives a reload of the tab, nothing else.
  let token = null;
  try { token = sessionStorage.getItem(KEY); } catch (e) {}
  function remember(value) {
    token = value;
    try { if (value) sessionStorage.setItem(KEY, value); else sessionStorage.removeItem(KEY); } catch (e) {}
  }
  function ask(error) {
    document.body.classList.add("asking");
    byId("auth-error").textContent = error || "";
    byId("token").value = "";
    byId("token").focus();
  }
  return {
    get value() { return token; },
    // `headers` with the Authorization field added when there is a token.
    headers(headers) {
      const all = Object.assign({}, headers);
      if (token) all["Authorization"] = "Bearer " + token;
      return all;
    },
    // After a 401 (`body` is its text): forget the token and ask again, saying why.
    refused(body) {
      const text = (body || "").trim(), had = !!token;
      remember(null);
      ask(/too many/i.test(text) ? text : had ? WORDS.notAccepted : "");
    },
    // The form: a token typed in is kept, and `retry()` tries it.
    onSubmit(retry) {
      byId("token-form").addEventListener("submit", ev => {
        ev.preventDefault();
        const value = byId("token").value.trim();
        if (!value) { ask(WORDS.enterToken); return; }
        remember(value);
        byId("auth-error").textContent = "";
        retry();
      });
    },
  };
})();
