// The stock editor's script: the token (shared/token-prompt.js: asked once, this tab only), a
// row per fruit from the live feed (shared/live-stock.js), and one write at a time per fruit, its
// answer shown in that fruit's row (see stock.html's header).

"use strict";
(function () {
  const MAX = 1000000000;
  const $ = id => document.getElementById(id);
  let feed = null, rows = {}, live = false, most = {};
  // The page's words, in English or in Korean (`KO`, shared/base.js); in Korean the fixed ones are put in too.
  const T = KO
    ? { par: "기준", fillPar: "기준까지 채우기", atPar: "기준 충족", abovePar: "기준 초과", low: "부족", inStock: "재고",
        less: "하나 빼기", more: "하나 더하기", amount: name => name + " 수량", add: "추가", set: "수량 지정",
        signedIn: "관리자 토큰으로 로그인됨 (이 탭만).", open: "이 서버에는 관리자 토큰이 없습니다: 누구나 재고를 바꿀 수 있습니다.",
        whole: "정수를 입력하세요.", setTo: n => n + "개로 지정", added: n => n + "개 추가",
        nothing: (above, c, par) => (above ? "기준 초과" : "이미 기준 충족") + " (" + c + "/" + par + "): 추가하지 않았습니다.",
        filled: n => "기준까지 채움: " + n + "개 추가", noAnswer: "서버가 아직 응답하지 않습니다: 같은 키로 다시 보내므로 한 번만 적용됩니다\u2026",
        notDone: "처리 안 됨: ", needToken: "관리자 토큰이 필요합니다", refused: "거절됨", now: (v, n) => v + ": 현재 " + n,
        retry: "  (재전송 응답: 한 번만 적용됨)" }
    : { par: "par", fillPar: "Fill to par", atPar: "At par", abovePar: "Above par", low: "low", inStock: "in stock",
        less: "one less", more: "one more", amount: name => name + " amount", add: "Add", set: "Set to",
        signedIn: "Signed in with the manager token (this tab only).",
        open: "This server has no manager token: anyone who can reach it can change the stock.",
        whole: "Enter a whole number.", setTo: n => "Set to " + n, added: n => "Added " + n,
        nothing: (above, c, par) => (above ? "Above par (" : "Already at par (") + c + " of " + par + "): nothing added.",
        filled: n => "Filled to par: added " + n, noAnswer: "No answer from the server yet: trying again with the same key, so it is applied once\u2026",
        notDone: "Not done: ", needToken: "the manager token is needed", refused: "refused", now: (v, n) => v + ": now " + n,
        retry: "  (answered on a retry: applied once)" };
  if (KO) koWords({ "title": "주스 재고", "h1": { parts: ["주스 ", "재고"] }, "#token-submit": "토큰 사용",
    "#auth p": "재고를 바꾸려면 관리자 토큰이 필요합니다. 이 탭에만 보관되고 변경마다 보내지며, 탭을 닫으면 지워집니다.",
    "#fruits": { label: "과일 재고" },
    "footer > span:first-child": "추가: 입고된 수량 (계산대가 판매 중이어도 안전). 수량 지정: 선반에 있는 수량. 기준까지 채우기: 누른 순간 보이는 재고에서 메뉴 기준까지 모자란 만큼 추가." });
  // Each write carries an idempotency key, made once per click: a write whose answer was lost
  // is sent again with the same key until it is answered, and the server applies it once.
  const tab = Array.from(crypto.getRandomValues(new Uint8Array(6)), b => b.toString(16).padStart(2, "0")).join("");
  let writes = 0;
  const sleep = ms => new Promise(done => setTimeout(done, ms));

  function signedIn(withToken) {
    document.body.classList.remove("asking");
    $("mode").textContent = withToken
      ? T.signedIn : T.open;
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
    rows = {};
    most = mostPerRecipe(f.menu.juices);
    fillList($("fruits"), f.menu.fruits, fr => {
      const row = el("div", "fruit panel");
      row.dataset.fruit = fr.name;
      const n = naming(fr), name = el("div", "name", n.main);
      if (n.alias) name.appendChild(el("span", "alias", n.alias));
      name.appendChild(el("span", "low-tag", T.low));
      const [now, number] = countBox("div", "now", T.inStock);
      const edit = el("div", "edit"), stepper = el("div", "stepper");
      const minus = el("button", "minus", "\u2212"), plus = el("button", "plus", "+"), amount = el("input", "amount");
      minus.type = plus.type = "button";
      minus.setAttribute("aria-label", T.less); plus.setAttribute("aria-label", T.more);
      amount.type = "number"; amount.inputMode = "numeric"; amount.min = "0"; amount.max = String(MAX); amount.value = "0";
      amount.setAttribute("aria-label", T.amount(n.main));
      stepper.appendChild(minus); stepper.appendChild(amount); stepper.appendChild(plus);
      const add = el("button", "add", T.add), set = el("button", "set", T.set);
      add.type = set.type = "button";
      edit.appendChild(stepper); edit.appendChild(add); edit.appendChild(set);
      // Par (the menu's count for opening): shown under the count, with one tap to fill up to it.
      const hasPar = typeof fr.par === "number";
      const fillPar = hasPar ? el("button", "fill-par", T.fillPar) : null;
      if (hasPar) {
        now.appendChild(el("small", "par", T.par + " " + fr.par));
        fillPar.type = "button";
        edit.appendChild(fillPar);
        fillPar.addEventListener("click", () => fillToPar(fr.name));
      }
      const result = el("div", "result");
      result.setAttribute("role", "status");
      row.appendChild(name); row.appendChild(now); row.appendChild(edit); row.appendChild(result);
      const step = d => { amount.value = String(Math.max(0, Math.min(MAX, (parseInt(amount.value, 10) || 0) + d))); };
      minus.addEventListener("click", () => step(-1));
      plus.addEventListener("click", () => step(1));
      add.addEventListener("click", () => write(fr.name, "restock"));
      set.addEventListener("click", () => write(fr.name, "set"));
      rows[fr.name] = { row, number, amount, add, set, result, fillPar, par: hasPar ? fr.par : null, answered: null };
      return row;
    });
    // `/stock?fruit=mango` (the till's "Restock" after an out-of-stock): that fruit first in view.
    const asked = new URLSearchParams(location.search).get("fruit");
    if (asked && Object.hasOwn(rows, asked)) {   // own rows only: ?fruit=__proto__ is no row
      rows[asked].row.classList.add("asked");
      rows[asked].row.dataset.asked = "true";
      rows[asked].row.scrollIntoView({ block: "center" });
      rows[asked].amount.focus();
    }
  }
  // The count a row shows: the live feed's, unless this page's own write was answered with a
  // newer seq than the feed has reached yet (the stream may still be reconnecting after a
  // restart). Fill to par counts from what is shown, so it must already include our own write.
  function shown(name) {
    const r = rows[name], a = r.answered;
    return a && a.seq > feed.seq ? a.count : (feed.stock[name] || 0);
  }
  function render() {
    for (const name in rows) {
      const r = rows[name], c = shown(name);
      r.row.dataset.stock = String(c);
      r.number.textContent = String(c);
      // Low and none left, by the board's rule (shared/live-stock.js): `data-level` and the classes.
      const low = isLowStock(c, r.par, most[name]);
      r.row.classList.toggle("low", low);
      r.row.classList.toggle("out", c <= 0);
      r.row.dataset.level = c <= 0 ? "out" : low ? "low" : "ok";
      if (r.fillPar) {
        const need = Math.max(0, r.par - c);
        r.fillPar.textContent = need > 0 ? T.fillPar + " (+" + need + ")" : c > r.par ? T.abovePar : T.atPar;
        r.row.dataset.fill = String(need);
        // A stale count would give a wrong difference: no filling while the stream is down.
        r.fillPar.disabled = !live || r.row.classList.contains("busy");
      }
    }
    $("seq").textContent = feed.seq >= 0 ? "#" + feed.seq : "";
  }
  function show(r, text, kind) { r.result.textContent = text; r.result.dataset.kind = kind; }

  function busy(r, on) {
    r.row.classList.toggle("busy", on);
    r.add.disabled = r.set.disabled = on;
    if (r.fillPar) r.fillPar.disabled = on || !live;
  }
  // "Add" and "Set to": the amount typed in the row.
  function write(fruit, route) {
    const r = rows[fruit];
    if (!r || r.row.classList.contains("busy")) return;
    const text = r.amount.value.trim();
    if (!/^[0-9]{1,10}$/.test(text)) { show(r, T.whole, "error"); return; }
    const amount = Number(text);
    send(fruit, route, amount, route === "set" ? T.setTo(amount) : T.added(amount));
  }
  // "Fill to par": an Add of par minus the count shown at the tap, fixed then. It is a restock,
  // not a Set, so juices sold meanwhile stay sold (the shelf ends that much under par); a
  // retried write sends the same amount with the same key, so it is added once.
  function fillToPar(fruit) {
    const r = rows[fruit];
    if (!r || r.par === null || r.row.classList.contains("busy") || !live) return;
    const count = shown(fruit), need = r.par - count;
    if (need <= 0) { show(r, T.nothing(need < 0, count, r.par), "ok"); return; }
    send(fruit, "restock", need, T.filled(need));
  }

  // One write for one fruit; its buttons wait for the answer, so a double click is one write.
  async function send(fruit, route, amount, verb) {
    const r = rows[fruit];
    busy(r, true);
    try {
      const key = "stock-" + tab + "-" + (++writes);
      let response, body = null, raw = "", delay = 1000, retried = false;
      for (;;) {
        // The token is read at each try: one entered again meanwhile is used.
        const headers = managerToken.headers({ "Content-Type": "application/json", "Idempotency-Key": key });
        let answer = null;
        try {
          answer = await fetch("/" + route, { method: "POST", cache: "no-store", headers,
                                              body: JSON.stringify({ fruit: fruit, amount: amount }) });
          raw = await answer.text();
        } catch (e) { answer = null; }
        // No answer, or the server busy or going (a 5xx but a full disk's, which is an answer):
        // the change may or may not be in, so the same key goes again.
        let readOnly = false;
        if (answer && answer.status === 503) { try { readOnly = JSON.parse(raw).error === "READ_ONLY"; } catch (e) {} }
        if (answer && (answer.status < 500 || readOnly)) { response = answer; break; }
        retried = true;
        show(r, T.noAnswer, "waiting");
        const wait = answer && parseInt(answer.headers.get("Retry-After") || "", 10);
        await sleep(wait > 0 ? Math.min(wait * 1000, 60000) : delay);
        delay = Math.min(delay * 2, 5000);
      }
      try { body = JSON.parse(raw); } catch (e) {}
      if (response.status === 401) {
        show(r, T.notDone + (body && body.message || raw.trim() || T.needToken), "error");
        managerToken.refused(raw);
        return;
      }
      if (response.ok && body && body.ok !== false) {
        const now = body.stock && body.stock[fruit] !== undefined ? body.stock[fruit] : "?";
        if (typeof now === "number" && typeof body.seq === "number") { r.answered = { seq: body.seq, count: now }; render(); }
        const again = body.dup || retried ? T.retry : "";
        show(r, T.now(verb, now) + (body.seq ? "  (#" + body.seq + ")" : "") + again, "ok");
        return;
      }
      const code = body && body.error ? body.error + ": " : response.status + ": ";
      show(r, T.notDone + code + (body && body.message || raw.trim() || T.refused), "error");
    } finally {
      busy(r, false);
    }
  }

  feed = followStock({ menu: build, stock: render, live: up => { live = up; render(); } });
  probe();
  // The base script's full-disk notice (PROTOCOL.md "Full disk"): the editor should say no change can be made before one is tried.
  watchReadOnly();
})();
