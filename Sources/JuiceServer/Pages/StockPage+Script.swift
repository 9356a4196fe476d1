extension StockPage {
    /// The stock editor's script: the token (`TokenPrompt`: asked once, this tab only), a row per fruit from
    /// the live feed (`LiveStockScript`), and one write at a time per fruit, its answer shown
    /// in that fruit's row (see the page's doc comment).
    static let script: String = #"""
"use strict";
(function () {
  const MAX = 1000000000;
  const $ = id => document.getElementById(id);
  let feed = null, rows = {};

  function signedIn(withToken) {
    document.body.classList.remove("asking");
    $("mode").textContent = withToken
      ? "Signed in with the manager token (this tab only)."
      : "This server has no manager token: anyone who can reach it can change the stock.";
  }
  // Whether this server wants a token: GET /sales answers 401 without a (valid) one. A token
  // from this tab's earlier visit is checked the same way.
  async function probe() {
    let r;
    try { r = await fetch("/sales", { cache: "no-store", headers: managerToken.headers() }); }
    catch (e) { setTimeout(probe, 2000); return; }
    if (r.status === 401) {
      managerToken.refused(await r.text());
      return;
    }
    signedIn(!!managerToken.value);
  }
  managerToken.onSubmit(probe);

  function build(f) {
    const box = $("fruits");
    box.textContent = "";
    rows = {};
    for (const fr of f.menu.fruits) {
      const row = el("div", "fruit panel");
      row.dataset.fruit = fr.name;
      const n = naming(fr), name = el("div", "name", n.main);
      if (n.alias) name.appendChild(el("span", "alias", n.alias));
      const [now, number] = countBox("div", "now", "in stock");
      const edit = el("div", "edit"), stepper = el("div", "stepper");
      const minus = el("button", "minus", "\u2212"), plus = el("button", "plus", "+"), amount = el("input", "amount");
      minus.type = plus.type = "button";
      minus.setAttribute("aria-label", "one less"); plus.setAttribute("aria-label", "one more");
      amount.type = "number"; amount.inputMode = "numeric"; amount.min = "0"; amount.max = String(MAX); amount.value = "0";
      amount.setAttribute("aria-label", fr.name + " amount");
      stepper.appendChild(minus); stepper.appendChild(amount); stepper.appendChild(plus);
      const add = el("button", "add", "Add"), set = el("button", "set", "Set to");
      add.type = set.type = "button";
      edit.appendChild(stepper); edit.appendChild(add); edit.appendChild(set);
      const result = el("div", "result");
      result.setAttribute("role", "status");
      row.appendChild(name); row.appendChild(now); row.appendChild(edit); row.appendChild(result);
      box.appendChild(row);
      const step = d => { amount.value = String(Math.max(0, Math.min(MAX, (parseInt(amount.value, 10) || 0) + d))); };
      minus.addEventListener("click", () => step(-1));
      plus.addEventListener("click", () => step(1));
      add.addEventListener("click", () => write(fr.name, "restock"));
      set.addEventListener("click", () => write(fr.name, "set"));
      rows[fr.name] = { row, number, amount, add, set, result };
    }
    // `/stock?fruit=mango` (the till's "Restock" after an out-of-stock): that fruit first in view.
    const asked = new URLSearchParams(location.search).get("fruit");
    if (asked && rows[asked]) {
      rows[asked].row.classList.add("asked");
      rows[asked].row.dataset.asked = "true";
      rows[asked].row.scrollIntoView({ block: "center" });
      rows[asked].amount.focus();
    }
  }
  function render(f) {
    for (const name in rows) {
      const c = f.stock[name] || 0;
      rows[name].row.dataset.stock = String(c);
      rows[name].number.textContent = String(c);
    }
    $("seq").textContent = f.seq >= 0 ? "#" + f.seq : "";
  }
  function show(r, text, kind) { r.result.textContent = text; r.result.dataset.kind = kind; }

  // One write for one fruit; its buttons wait for the answer, so a double click is one write.
  async function write(fruit, route) {
    const r = rows[fruit];
    if (!r || r.row.classList.contains("busy")) return;
    const text = r.amount.value.trim();
    if (!/^[0-9]{1,10}$/.test(text)) { show(r, "Enter a whole number.", "error"); return; }
    const amount = Number(text), verb = route === "set" ? "Set to " + amount : "Added " + amount;
    r.row.classList.add("busy"); r.add.disabled = r.set.disabled = true;
    try {
      const headers = managerToken.headers({ "Content-Type": "application/json" });
      let response, body = null, raw = "";
      try {
        response = await fetch("/" + route, { method: "POST", cache: "no-store", headers,
                                              body: JSON.stringify({ fruit: fruit, amount: amount }) });
        raw = await response.text();
      } catch (e) {
        show(r, "No answer from the server: check the stock above before trying again.", "error");
        return;
      }
      try { body = JSON.parse(raw); } catch (e) {}
      if (response.status === 401) {
        show(r, "Not done: " + (body && body.message || raw.trim() || "the manager token is needed"), "error");
        managerToken.refused(raw);
        return;
      }
      if (response.ok && body && body.ok !== false) {
        const now = body.stock && body.stock[fruit] !== undefined ? body.stock[fruit] : "?";
        show(r, verb + ": now " + now + (body.seq ? "  (#" + body.seq + ")" : ""), "ok");
        return;
      }
      const code = body && body.error ? body.error + ": " : response.status + ": ";
      show(r, "Not done: " + code + (body && body.message || raw.trim() || "refused"), "error");
    } finally {
      r.row.classList.remove("busy"); r.add.disabled = r.set.disabled = false;
    }
  }

  feed = followStock({ menu: build, stock: render, live: () => {} });
  probe();
  // The base script's full-disk notice (PROTOCOL.md "Full disk"): the editor should say no change can be made before one is tried.
  watchReadOnly();
})();
"""#
}
