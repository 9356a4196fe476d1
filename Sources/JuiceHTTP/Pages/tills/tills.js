// The tills page's flow: the token (asked on a 401), reading `/tills/list`, the pairing code
// and its countdown, Rename, and Revoke behind a confirmation (see tills.html's header).

"use strict";
(function () {
  const $ = id => document.getElementById(id);
  let authorized = false, inFlight = false, again = false, timer = null;
  const cards = {};              // till number -> its card's parts, made once and updated in place
  let code = null;               // { until (ms), after: the highest till number before it, name }

  async function call(method, path, body) {
    const init = { method: method, cache: "no-store", headers: managerToken.headers(body ? { "Content-Type": "application/json" } : {}) };
    if (body) init.body = JSON.stringify(body);
    let response, raw;
    try { response = await fetch(path, init); raw = await response.text(); }
    catch (e) { return { status: 0, body: null, raw: "" }; }
    let parsed = null;
    try { parsed = JSON.parse(raw); } catch (e) {}
    if (response.status === 401) {
      authorized = false;
      document.body.classList.remove("showing");
      managerToken.refused(parsed && parsed.message || raw);
    }
    return { status: response.status, body: parsed, raw: raw };
  }
  const why = r => r.status === 0 ? TT.noAnswer
    : (r.body && (r.body.message || r.body.error)) || r.raw.trim().slice(0, 200) || "HTTP " + r.status;

  // One list call at a time; one asked for meanwhile runs after it.
  async function refresh() {
    if (inFlight) { again = true; return; }
    inFlight = true;
    try {
      const r = await call("GET", "/tills/list");
      if (r.status === 401) return;
      if (r.status === 0) { if (!authorized) setTimeout(refresh, 2000); return; }
      authorized = true;
      document.body.classList.remove("asking");
      document.body.classList.add("showing");
      $("mode").textContent = managerToken.value ? TT.signedIn : TT.open;
      if (!r.body || !Array.isArray(r.body.tills)) { $("page").dataset.state = "error"; $("status").textContent = why(r); return; }
      $("status").textContent = "";
      show(r.body.tills);
      $("page").dataset.state = "shown";
    } finally {
      inFlight = false;
      if (again) { again = false; refresh(); }
    }
  }

  function when(iso) {
    if (!iso) return TT.never;
    const t = Date.parse(iso), ago = Math.round((Date.now() - t) / 1000);
    if (ago < 60) return TT.justNow;
    if (ago < 3600) return TT.minAgo(Math.floor(ago / 60));
    return new Date(t).toLocaleString(TT.locale, { dateStyle: "medium", timeStyle: "short" });
  }
  function timeIn(dd, iso) {
    dd.textContent = "";
    const t = el("time", "", when(iso));
    if (iso) { t.dateTime = iso; t.title = new Date(iso).toLocaleString(); }
    dd.appendChild(t);
  }
  // One label and its value, kept together (a div in a dl), so they stay a pair at any width.
  function field(dl, label) {
    const pair = el("div"), dd = el("dd");
    pair.append(el("dt", "", label), dd);
    dl.appendChild(pair);
    return dd;
  }

  function card(t) {
    const li = el("li", "till");
    li.dataset.till = String(t.till);
    const title = el("h3");
    const presence = el("span", "presence");
    const dl = el("dl");
    const parts = { li, title, presence, paired: field(dl, TT.paired), seen: field(dl, TT.seen), orders: field(dl, TT.orders) };
    const actions = el("div", "actions");
    const rename = el("button", "quiet rename", TT.rename), revoke = el("button", "danger revoke", TT.revoke);
    rename.type = revoke.type = "button";
    actions.append(rename, revoke);
    const form = el("form", "rename-form");
    form.hidden = true;
    const inputId = "rename-" + t.till, label = el("label", "", TT.newName);
    label.htmlFor = inputId;
    const input = el("input", "rename-name");
    input.id = inputId; input.maxLength = 40; input.autocomplete = "off";
    const save = el("button", "rename-save", TT.save), cancel = el("button", "quiet rename-cancel", TT.cancel);
    save.type = "submit"; cancel.type = "button";
    form.append(label, input, save, cancel);
    const result = el("div", "result");
    result.setAttribute("role", "alert");
    li.append(title, presence, dl, actions, form, result);
    Object.assign(parts, { actions, rename, revoke, form, input, save, result });

    rename.addEventListener("click", () => {
      form.hidden = false; actions.hidden = true; result.textContent = "";
      input.value = li.dataset.name; input.focus(); input.select();
    });
    cancel.addEventListener("click", () => { form.hidden = true; actions.hidden = false; rename.focus(); });
    form.addEventListener("submit", async ev => {
      ev.preventDefault();
      const name = input.value.trim();
      if (!name) { result.textContent = TT.enterName; return; }
      save.disabled = true;
      const r = await call("POST", "/tills/rename", { till: t.till, name: name });
      save.disabled = false;
      if (r.status === 401) return;
      if (r.status !== 200) { result.textContent = why(r); return; }
      form.hidden = true; actions.hidden = false; result.textContent = "";
      if (r.body && r.body.till) update(r.body.till);
      rename.focus();
      refresh();
    });
    revoke.addEventListener("click", () => ask(t.till));
    return parts;
  }

  function update(t) {
    const p = cards[t.till] || (cards[t.till] = card(t));
    const li = p.li;
    li.dataset.name = t.name;
    li.dataset.active = String(!!t.active);
    li.dataset.connected = String(!!t.connected);
    li.dataset.ordersToday = String(t.orders_today);
    p.title.textContent = t.name;
    p.title.appendChild(el("small", "", TT.till(t.till)));
    p.presence.textContent = !t.active ? TT.revoked : t.connected ? TT.connected : TT.notConnected;
    timeIn(p.paired, t.paired);
    if (t.active) timeIn(p.seen, t.last_seen);
    else { p.seen.textContent = TT.revoked + " "; p.seen.appendChild(document.createTextNode(when(t.revoked))); }
    p.orders.textContent = "";
    p.orders.appendChild(el("b", "", String(t.orders_today)));
    p.orders.appendChild(document.createTextNode(TT.juices(t.juices_today)));
    p.actions.hidden = !t.active || !p.form.hidden;
    if (!t.active) p.form.hidden = true;
    p.rename.setAttribute("aria-label", TT.renameOf(t.name));
    p.revoke.setAttribute("aria-label", TT.revokeOf(t.name));
  }

  // Active tills first (newest paired first), then the revoked ones.
  function show(tills) {
    const sorted = tills.slice().sort((a, b) => (b.active - a.active) || (b.till - a.till));
    const list = $("tills");
    for (const t of sorted) { update(t); list.appendChild(cards[t.till].li); }
    $("empty").hidden = tills.length > 0;
    // The code was used: a till newer than every till before the code, with the code's name.
    if (code && $("code-box").dataset.state !== "used") {
      const paired = sorted.find(t => t.active && t.till > code.after && (!code.name || t.name === code.name));
      if (paired) {
        $("code-box").dataset.state = "used";
        $("code-expiry").textContent = TT.pairedAs(paired.name);
        code.until = 0;
      }
    }
  }

  // Pair a new till: a code, shown large, counting down to its expiry.
  $("code-form").addEventListener("submit", async ev => {
    ev.preventDefault();
    const name = $("code-name").value.trim();
    $("code-make").disabled = true;
    $("code-error").textContent = "";
    // The tills as they are before the code (read now: the list shown may be 3 s old).
    const before = await call("GET", "/tills/list");
    if (before.status !== 200 || !before.body || !Array.isArray(before.body.tills)) {
      $("code-make").disabled = false;
      if (before.status !== 401) $("code-error").textContent = why(before);
      return;
    }
    const after = before.body.tills.reduce((m, t) => Math.max(m, t.till), 0);
    const r = await call("POST", "/tills/codes", name ? { name: name } : {});
    $("code-make").disabled = false;
    if (r.status === 401) return;
    if (r.status !== 200 || !r.body || !r.body.code) { $("code-error").textContent = why(r); return; }
    code = { until: Date.now() + r.body.expires_in * 1000, after: after, name: r.body.name || null };
    $("code").textContent = r.body.code;
    $("code-what").textContent = TT.code(r.body.name);
    $("code-box").hidden = false;
    $("code-box").dataset.state = "shown";
    $("code-name").value = "";
    tick();
    $("code-box").scrollIntoView({ block: "nearest" });
  });
  $("code-done").addEventListener("click", () => { code = null; $("code-box").hidden = true; $("code-box").dataset.state = ""; $("code-name").focus(); });
  function tick() {
    if (!code || !code.until) return;
    const left = Math.max(0, Math.ceil((code.until - Date.now()) / 1000));
    if (left === 0) {
      $("code-box").dataset.state = "expired";
      $("code-expiry").textContent = TT.expired;
      code.until = 0;
      return;
    }
    $("code-expiry").textContent = TT.expiresIn(Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0"));
  }
  setInterval(tick, 1000);

  // Revoke, once confirmed.
  let asked = null, opener = null;
  function ask(till) {
    asked = till; opener = document.activeElement;
    const name = cards[till] ? cards[till].li.dataset.name : TT.till(till);
    $("confirm-title").textContent = TT.revokeWhich(name);
    $("confirm-text").textContent = TT.revokeText;
    $("confirm").classList.add("open");
    $("confirm-no").focus();
  }
  function closeAsk() { $("confirm").classList.remove("open"); asked = null; if (opener && opener.focus) opener.focus(); }
  $("confirm-no").addEventListener("click", closeAsk);
  $("confirm").addEventListener("keydown", ev => { if (ev.key === "Escape") closeAsk(); });
  $("confirm-yes").addEventListener("click", async () => {
    const till = asked;
    if (till === null) return;
    $("confirm-yes").disabled = true;
    const r = await call("POST", "/tills/revoke", { till: till });
    $("confirm-yes").disabled = false;
    $("confirm").classList.remove("open"); asked = null;
    if (r.status === 401) return;
    const p = cards[till];
    if (r.status !== 200) { if (p) p.result.textContent = why(r); return; }
    if (r.body && r.body.till) update(r.body.till);
    // The button that opened the dialog is gone (a revoked till has none): focus its card's name.
    if (p) { p.title.tabIndex = -1; p.title.focus(); }
    refresh();
  });

  managerToken.onSubmit(refresh);
  // A sale changes orders today: read again after a stock change (debounced); connected and
  // last seen change without an event, so every 3 s as well.
  followEvents({
    // Only once the list shows: before that, a read without the token would ask for it again.
    stock: () => { if (!authorized) return; clearTimeout(timer); timer = setTimeout(refresh, 250); },
    open: () => { if (authorized) refresh(); },
    drop: () => {},
  });
  setInterval(() => { if (authorized) refresh(); }, 3000);
  refresh();
})();
