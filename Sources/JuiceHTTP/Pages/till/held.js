// A classic script run before the till's own: the global `tillHeld`, what the waiting orders
// (till/queue.js) will take. While orders wait (the server away, or an order on its way), each
// fruit's count shows the stock less what they take, and each juice's "left" what that stock
// still makes; both are marked (the `held` class, a title such as "2 waiting take 4 of 8", and
// words for a screen reader). Once the orders are answered they are out of the queue, and the
// counts are the server's again.
//
// Test hooks: each fruit `data-stock` (the server's figure, as ever), `data-held` (what waits
// takes of it) and `data-shown` (the figure shown); each juice `data-can-make` (with what waits
// taken: a tap the stock cannot serve once the queue is sent is greyed) and `data-waiting`
// (orders of that juice waiting, the "1 waiting" note beside its count, never over its name).

"use strict";
const tillHeld = (function () {
  // What `queue` takes on `menu`: {fruits: {fruit: {amount, orders}}, juices: {juice: count},
  // orders: [Set of the fruits each order takes]}. `sent`: the order on its way, with the stock
  // shown when it left; a stream that outran the answer may have brought the stock with that
  // order applied already: what the stock dropped by since is not taken a second time.
  function of(queue, menu, stock, sent) {
    const fruits = {}, juices = {}, orders = [];
    for (const o of queue) {
      const j = menu.juices.find(x => x.name === o.juice);
      if (!j) continue;
      juices[o.juice] = (juices[o.juice] || 0) + o.count;
      const takes = new Set();
      for (const r of j.recipe) {
        let take = r.amount * o.count;
        if (sent && sent.key === o.key) take -= Math.max(0, (sent.stock[r.fruit] || 0) - (stock[r.fruit] || 0));
        if (take <= 0) continue;
        const h = fruits[r.fruit] || (fruits[r.fruit] = { amount: 0, orders: 0 });
        h.amount += take;
        h.orders++;
        takes.add(r.fruit);
      }
      if (takes.size) orders.push(takes);
    }
    return { fruits, juices, orders };
  }
  // The stock less what waits, never below 0.
  function left(stock, held) {
    const s = {};
    for (const f in stock) s[f] = Math.max(0, stock[f] - (held.fruits[f] ? held.fruits[f].amount : 0));
    return s;
  }
  // A fruit's chip (name, number, mark, words): the count shown, marked while orders take some.
  function fruit(chip, stock, h, T) {
    const amount = h ? h.amount : 0, shown = Math.max(0, stock - amount);
    chip.dataset.stock = String(stock);
    chip.dataset.held = String(amount);
    chip.dataset.shown = String(shown);
    chip.children[1].textContent = String(shown);
    chip.children[2].textContent = amount ? "\u2212" + amount : "";
    chip.children[3].textContent = amount ? " (" + T.heldFruit(h.orders, amount, stock) + ")" : "";
    chip.title = amount ? T.heldFruit(h.orders, amount, stock) : "";
    chip.classList.toggle("held", amount > 0);
    chip.classList.toggle("out", shown <= 0);
  }
  // A juice's button `n` ({b, juice, left, queued}): its "left" box marked when what waits takes
  // some (`can` with it taken, `live` without), its "N waiting" note; returns the words for the
  // button's label ("" when nothing waiting changes it).
  function juice(n, can, live, held, T) {
    const fruits = new Set(n.juice.recipe.map(r => r.fruit)), box = n.left, mine = held.juices[n.juice.name] || 0;
    const orders = held.orders.filter(takes => [...takes].some(f => fruits.has(f))).length;
    const marked = orders > 0 && can !== live;
    box.classList.toggle("held", marked);
    box.title = marked ? T.heldLeft(orders, live) : "";
    n.queued.textContent = mine ? T.queued(mine) : "";
    n.queued.classList.toggle("some", mine > 0);
    n.b.dataset.waiting = String(mine);
    return marked ? " (" + T.heldLeft(orders, live) + ")" : "";
  }
  return { of, left, fruit, juice };
})();
