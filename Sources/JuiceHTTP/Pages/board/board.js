<<<<<<<< HEAD:Sources/JuiceHTTP/Pages/BoardPage.swift
import JuiceCore
import JuiceDomain
import JuicePlatform
import JuiceLog
import JuiceLoop
import JuiceServices
/// The board page served at `GET /`: a live stock board for a TV beside the counter (and a phone).
///
/// One self-contained document: inline CSS and JS, no external assets, no web fonts, because a
/// shop's network may be offline. Everything it shows comes from the server: it fetches `/state`
/// (menu, stock, seq) and then follows `/events` (Server-Sent Events), so a shop's own menu needs
/// no change here. `?lang=ko` shows the Korean aliases; by default both names are shown.
/// A fruit is flagged low below a quarter of its menu `par` (when it has one), or when some juice
/// can no longer be made from it (see `render`).
///
/// Test hooks (see PROTOCOL.md, "HTTP"): each juice `data-juice` + `data-can-make`,
/// each fruit `data-fruit` + `data-stock`, and `#conn` with `live`/`reconnecting` in its text and
/// `data-state`. Tests/browser drives this page in a real browser.
package enum BoardPage {
    package static let html: String = PageStyle.head(title: "Juice board") + #"""
body { padding: clamp(12px, 2vw, 40px); gap: clamp(12px, 1.6vw, 32px); }
h1 { font-size: clamp(26px, 3.2vw, 64px); letter-spacing: .02em; }
h2 { margin: 0 0 clamp(8px, 1vw, 20px); font-size: clamp(16px, 1.4vw, 28px); }
#conn { font-size: clamp(14px, 1.2vw, 24px); }
main { flex: 1; display: grid; grid-template-columns: minmax(0, 2.1fr) minmax(0, 1fr);
       gap: clamp(12px, 1.6vw, 32px); }
main > section { display: flex; flex-direction: column; min-height: 0; }
#juices { display: grid; grid-template-columns: repeat(auto-fill, minmax(clamp(150px, 14vw, 300px), 1fr));
          gap: clamp(10px, 1.2vw, 24px); grid-auto-rows: 1fr; flex: 1; }
.juice { background: var(--panel); border: 1px solid var(--line); border-radius: clamp(10px, 1vw, 20px);
         padding: clamp(12px, 1.2vw, 24px); display: flex; flex-direction: column; gap: .35em;
         min-height: clamp(120px, 14vw, 290px); position: relative; transition: opacity .3s; }
.juice .name { font-size: clamp(20px, 1.9vw, 40px); font-weight: 700; line-height: 1.1; overflow-wrap: anywhere; }
.alias { color: var(--muted); font-weight: 500; font-size: .8em; }
.juice .recipe { color: var(--muted); font-size: clamp(13px, 1vw, 20px); }
.juice .count { margin-top: auto; display: flex; align-items: baseline; gap: .3em; }
.juice .count b { font-size: clamp(44px, 6vw, 128px); line-height: 1; color: var(--good);
                  font-variant-numeric: tabular-nums; }
.juice .count small { color: var(--muted); font-size: clamp(13px, 1vw, 20px); }
.juice .soldout { display: none; margin-top: auto; align-self: flex-start; font-weight: 800; white-space: nowrap;
                  font-size: clamp(18px, 1.8vw, 38px); color: var(--out); border: .12em solid var(--out);
                  border-radius: .3em; padding: .05em .35em; letter-spacing: .06em; transform: rotate(-4deg);
                  background: rgba(255, 93, 93, .08); }
/* Sold out: the card fades to grey, the red stamp stays bright. */
.juice[data-can-make="0"] { background: #12151b; border-color: #1c212b; }
.juice[data-can-make="0"] > :not(.soldout) { opacity: .45; filter: grayscale(1); }
.juice[data-can-make="0"] .count { display: none; }
.juice[data-can-make="0"] .soldout { display: inline-block; }
#fruits { flex: 1; justify-content: space-around; background: var(--panel); border: 1px solid var(--line); border-radius: clamp(10px, 1vw, 20px);
          padding: clamp(12px, 1.4vw, 28px); display: flex; flex-direction: column; gap: clamp(10px, 1.4vw, 28px); }
.fruit .top { display: flex; justify-content: space-between; align-items: baseline; gap: .5em;
              font-size: clamp(18px, 1.6vw, 34px); font-weight: 650; }
.fruit .top b { font-size: 1.25em; font-variant-numeric: tabular-nums; }
.fruit .tag { font-size: .6em; font-weight: 700; padding: .1em .45em; border-radius: .3em; margin-left: .4em;
              vertical-align: middle; display: none; }
.fruit .bar { height: clamp(10px, 1.1vw, 22px); background: #0b0e13; border-radius: 999px; overflow: hidden;
              margin-top: .35em; border: 1px solid var(--line); }
.fruit .fill { height: 100%; width: 0; background: var(--good); border-radius: 999px; transition: width .4s; }
.fruit.low .fill { background: var(--low); }
.fruit.low .top b { color: var(--low); }
.fruit.low .tag.low-tag { display: inline-block; background: var(--low); color: #201400; }
.fruit.out .top b { color: var(--out); }
.fruit.out .tag.out-tag { display: inline-block; background: var(--out); color: #2a0000; }
footer { color: var(--muted); font-size: clamp(12px, .9vw, 18px); display: flex; justify-content: space-between;
         gap: 1em; flex-wrap: wrap; }
body.stale main { opacity: .6; }
#message.waiting { color: var(--low); }
@media (max-width: 900px) {
  main { grid-template-columns: 1fr; flex: none; }
  #juices, #fruits { flex: none; }
  #juices { grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); grid-auto-rows: auto; }
  #fruits { justify-content: flex-start; }
}
</style>
</head>
<body class="stale">
<header>
  <h1 id="title">Juice <span>menu</span></h1>
  <div id="conn" data-state="reconnecting" role="status" aria-live="polite">reconnecting</div>
</header>
<main>
  <section aria-labelledby="juices-title"><h2 id="juices-title">Juices</h2><div id="juices"></div></section>
  <section aria-labelledby="fruits-title"><h2 id="fruits-title">Fruit stock</h2><div id="fruits"></div></section>
</main>
<footer><span id="message">Loading&hellip;</span><span id="seq"></span></footer>
"""# + PageStyle.baseScript + LiveStockScript.script + #"""
<script>
========
// The board's script (board.html): builds a card per juice and a row per fruit from the live
// feed (shared/live-stock.js) and keeps their counts, low and sold-out marks current.

>>>>>>>> pages:Sources/JuiceHTTP/Pages/board/board.js
"use strict";
(function () {
  const T = KO
    ? { title: "주스", menu: "메뉴", juices: "주스", fruits: "과일 재고", soldOut: "품절", canMake: "잔", low: "부족",
        out: "없음", seq: "변경", updated: "마지막 변경", waiting: "서버 연결 중…" }
    : { title: "Juice", menu: "menu", juices: "Juices", fruits: "Fruit stock", soldOut: "SOLD OUT", canMake: "left",
        low: "low", out: "none left", seq: "change", updated: "last change", waiting: "Waiting for the server…" };
  document.getElementById("title").firstChild.textContent = T.title + " ";
  document.getElementById("title").lastChild.textContent = T.menu;
  document.getElementById("juices-title").textContent = T.juices;
  document.getElementById("fruits-title").textContent = T.fruits;

  let menu = null;          // {fruits: [{name, aliases}], juices: [{name, aliases, recipe}]}
  let stock = {};           // fruit name -> count
  let lastSeq = -1;         // seq of the last change applied
  let highWater = 1;        // largest stock seen since load: the bars' full length
  let thirstiest = {};      // fruit name -> the most of it any single recipe takes
  let par = {};             // fruit name -> its par (the menu's count for opening), when it has one
  let nodes = { juices: {}, fruits: {} };
  function fruitLabel(name) {
    const f = menu.fruits.find(x => x.name === name);
    return f ? naming(f).main : name;
  }

  // Builds the cards and rows for a menu; counts are filled in by render().
  function build() {
    const juices = document.getElementById("juices"), fruits = document.getElementById("fruits");
    juices.textContent = ""; fruits.textContent = "";
    nodes = { juices: {}, fruits: {} };
    thirstiest = {};
    par = {};
    for (const f of menu.fruits) if (typeof f.par === "number") par[f.name] = f.par;
    for (const j of menu.juices) {
      for (const r of j.recipe) thirstiest[r.fruit] = Math.max(thirstiest[r.fruit] || 0, r.amount);
      const card = el("article", "juice");
      card.dataset.juice = j.name;
      const n = naming(j), name = el("div", "name", n.main);
      if (n.alias) { name.appendChild(document.createElement("br")); name.appendChild(el("span", "alias", n.alias)); }
      card.appendChild(name);
      card.appendChild(el("div", "recipe", j.recipe.map(r => fruitLabel(r.fruit) + " \u00d7" + r.amount).join("  +  ")));
      const count = el("div", "count"), number = el("b", "", "0");
      count.appendChild(number); count.appendChild(el("small", "", T.canMake));
      card.appendChild(count);
      card.appendChild(el("div", "soldout", T.soldOut));
      juices.appendChild(card);
      nodes.juices[j.name] = { card, number, juice: j };
    }
    for (const f of menu.fruits) {
      const row = el("div", "fruit");
      row.dataset.fruit = f.name;
      const n = naming(f), top = el("div", "top"), left = el("span", "", n.main);
      if (n.alias) { left.appendChild(document.createTextNode(" ")); left.appendChild(el("span", "alias", n.alias)); }
      left.appendChild(el("span", "tag low-tag", T.low));
      left.appendChild(el("span", "tag out-tag", T.out));
      const number = el("b", "", "0");
      top.appendChild(left); top.appendChild(number);
      const bar = el("div", "bar"), fill = el("div", "fill");
      bar.appendChild(fill);
      row.appendChild(top); row.appendChild(bar);
      fruits.appendChild(row);
      nodes.fruits[f.name] = { row, number, fill };
    }
  }

  function render() {
    if (!menu) return;
    for (const f of menu.fruits) highWater = Math.max(highWater, stock[f.name] || 0, par[f.name] || 0);
    for (const name in nodes.juices) {
      const n = nodes.juices[name], can = canMake(n.juice, stock);
      n.card.dataset.canMake = String(can);
      n.number.textContent = String(can);
      n.card.setAttribute("aria-label", n.juice.name + ": " + (can > 0 ? can + " " + T.canMake : T.soldOut));
    }
    for (const name in nodes.fruits) {
      const n = nodes.fruits[name], count = stock[name] || 0;
      n.row.dataset.stock = String(count);
      n.number.textContent = String(count);
      // Low stock: below a quarter of the fruit's par, when the menu gives it one (a shelf that
      // should open with 40 kiwis is low at 9); and, for every fruit, when some juice on the
      // menu can no longer be made because of it (less than the most any single recipe takes),
      // the terminal board's rule (juice-board, which has no par: the line protocol's MENU does
      // not carry it). Zero is "none left" instead.
      n.row.classList.toggle("out", count <= 0);
      const underPar = name in par && count * 4 < par[name];
      n.row.classList.toggle("low", count > 0 && (underPar || count < (thirstiest[name] || 0)));
      // The bar's full length is the most stock seen since the page loaded, or the largest par,
      // so bars shrink as the day's stock sells; any stock at all shows a sliver.
      n.fill.style.width = (count > 0 ? Math.max(2, 100 * count / highWater) : 0) + "%";
    }
    document.getElementById("seq").textContent = lastSeq >= 0 ? T.seq + " #" + lastSeq : "";
  }

  function say(text, waiting) {
    const m = document.getElementById("message");
    m.textContent = text;
    m.classList.toggle("waiting", !!waiting);
  }

  // The menu and the stock, live, by shared/live-stock.js's rules (the till's and the stock editor's):
  // /state, then /events; a new menu (a server back with another menu) rebuilds the page.
  followStock({
    menu: feed => { menu = feed.menu; build(); },
    stock: feed => {
      const changed = lastSeq >= 0 && feed.seq !== lastSeq;
      stock = feed.stock;
      lastSeq = feed.seq;
      render();
      if (changed) say(T.updated + " " + new Date().toLocaleTimeString(KO ? "ko-KR" : undefined));
    },
    // The page greys while the stream is down; before the first /state it says it is waiting.
    live: up => {
      if (up) { document.body.classList.remove("stale"); say(""); }
      else if (menu) document.body.classList.add("stale");
      else say(T.waiting, true);
    },
  });
  watchReadOnly();
})();
