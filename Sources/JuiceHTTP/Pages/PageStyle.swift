import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// The document head and base CSS shared by the board (`BoardPage`) and the sales dashboard
/// (`DashboardPage`), so the two pages keep one palette, one font stack and one live indicator.
///
/// `head(title:)` opens the document through an open `<style>` that already holds `baseCSS`; each
/// page goes on with its own rules (which come later, so they refine these: sizes, spacing) and
/// closes `</style></head>` itself. Fonts are system fonts only: a shop's network may be offline.
package enum PageStyle {
    /// `icon`: an inline SVG, URL-encoded (a data URL: a page that names no icon makes the browser
    /// ask for /favicon.ico, and that 404 shows in its console on every load).
    package static func head(title: String, icon: String = PageStyle.icon) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <link rel="icon" href="data:image/svg+xml,\(icon)">
        <style>

        """ + baseCSS
    }

    /// The board's and the dashboard's icon: a juice glass, yellow, with a straw.
    package static let icon = "%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
        + "%3Cpath d='M3 4h10l-1.5 11h-7z' fill='%23ffcf3f'/%3E%3Cpath d='M9 4l2-3.5' stroke='%23ff5d5d' stroke-width='1.2'/%3E"
        + "%3C/svg%3E"

    /// The palette (`--out` is the red of "no fruit": sold out on the board, lost sales on the
    /// dashboard), the reset, the page column, the headings' common look and `#conn`, the
    /// live/reconnecting indicator whose `data-state` both pages' scripts set.
    package static let baseCSS: String = #"""
:root {
  --bg: #0d1016; --panel: #161b24; --line: #252d3b; --text: #f3f5f8; --muted: #8f9bb0;
  --good: #3ddc84; --low: #ffb020; --out: #ff5d5d; --accent: #ffcf3f;
}
* { box-sizing: border-box; }
html, body { margin: 0; background: var(--bg); color: var(--text); }
body {
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK KR",
               "Apple SD Gothic Neo", "Malgun Gothic", sans-serif;
  min-height: 100vh; display: flex; flex-direction: column;
}
header { display: flex; align-items: center; justify-content: space-between; gap: 16px; }
h1 { margin: 0; }
h1 span { color: var(--accent); }
h2 { color: var(--muted); text-transform: uppercase; letter-spacing: .12em; font-weight: 600; }
#conn { display: inline-flex; align-items: center; gap: .5em;
        color: var(--muted); padding: .3em .8em; border: 1px solid var(--line); border-radius: 999px; }
#conn::before { content: ""; width: .7em; height: .7em; border-radius: 50%; background: var(--low); }
#conn[data-state="live"]::before { background: var(--good); box-shadow: 0 0 .6em var(--good); }
#conn[data-state="reconnecting"] { color: var(--low); }
#readonly { background: var(--out); color: #fff; font-weight: 700; text-align: center; padding: .5em 1em; }
#readonly[hidden] { display: none; }

"""#

    /// The script both pages run before their own (a classic script: these are globals there):
    /// `el`, `setConn` for `#conn`, `followEvents`, the one way a page stays live, and
    /// `watchReadOnly`, the full-disk notice.
    package static let baseScript: String = #"""
<script>
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
</script>
"""#
}
