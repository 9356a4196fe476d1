// The board's script (board.html): builds a card per juice and a row per fruit from the live
// feed (shared/live-stock.js) and keeps their counts, low and sold-out marks current.

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
  if (KO) koWords({ "title": "주스 메뉴판", "#message": "불러오는 중…" });

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
    thirstiest = mostPerRecipe(menu.juices);
    par = {};
    for (const f of menu.fruits) if (typeof f.par === "number") par[f.name] = f.par;
    for (const j of menu.juices) {
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
      n.card.setAttribute("aria-label", naming(n.juice).main + ": " + (can > 0 ? can + " " + T.canMake : T.soldOut));
    }
    for (const name in nodes.fruits) {
      const n = nodes.fruits[name], count = stock[name] || 0;
      n.row.dataset.stock = String(count);
      n.number.textContent = String(count);
      // Low stock: shared/live-stock.js's rule, the stock editor's too (under a quarter of par,
      // or too few for the thirstiest recipe). Zero is "none left" instead.
      n.row.classList.toggle("out", count <= 0);
      n.row.classList.toggle("low", isLowStock(count, par[name], thirstiest[name]));
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
