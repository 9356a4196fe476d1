import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// The manager-token prompt the sales dashboard (`DashboardPage`) and the stock editor
/// (`StockPage`) share: its style, its form and the script that keeps the token. One key in
/// `sessionStorage` for both, so one sign-in serves both pages in a tab; never `localStorage`,
/// never a URL. A page shows the form by the body class `asking` and hides its own content then.
///
/// Test hooks: `#token`, `#token-submit`, `#auth-error`.
package enum TokenPrompt {
    /// The form's style; a page adds its own `#auth { margin-top: … }` and hides its content
    /// under `body.asking`.
    package static let css = #"""
#auth { max-width: 560px; align-self: center; width: 100%; display: none; }
body.asking #auth { display: block; }
#auth p { color: var(--muted); line-height: 1.5; margin: 0 0 1em; }
#auth form { display: flex; gap: 10px; }
#auth-error { color: var(--out); min-height: 1.4em; margin-top: .8em; }

"""#

    /// The form, hidden until the page's script asks: `explanation` says what the token is for,
    /// `submit` labels the button.
    package static func section(explanation: String, submit: String) -> String {
        """
        <section id="auth" class="panel" aria-labelledby="auth-title">
          <h2 id="auth-title">Manager token</h2>
          <p>\(explanation)</p>
          <form id="token-form" autocomplete="off">
            <input type="password" id="token" aria-label="manager token" placeholder="manager token" autocomplete="off">
            <button type="submit" id="token-submit">\(submit)</button>
          </form>
          <div id="auth-error" role="alert"></div>
        </section>

        """
    }

    /// A classic script run before the page's own: the global `managerToken`.
    package static let script: String = #"""
<script>
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
      ask(/too many/i.test(text) ? text : had ? "That token was not accepted. Try again." : "");
    },
    // The form: a token typed in is kept, and `retry()` tries it.
    onSubmit(retry) {
      byId("token-form").addEventListener("submit", ev => {
        ev.preventDefault();
        const value = byId("token").value.trim();
        if (!value) { ask("Enter the manager token."); return; }
        remember(value);
        byId("auth-error").textContent = "";
        retry();
      });
    },
  };
})();
</script>

"""#
}
