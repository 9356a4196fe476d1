// A classic script run before the till's own: `tillAnswers(on)`, what the till does with the
// server's answer to an order (see till/till.js): a sale is said on the last line (and counted
// by `tillSales`); a refusal is said there and in the alert, which stops the cashier until it is
// read. An out-of-stock refusal offers the seeds' choice: "Restock" opens `/stock` on the short
// fruit, "Cancel" leaves the till as it was. `on`: {text, say, fruitLabel, juiceLabel}.
// Returns {answered(order, status, body, text, at), alertBox(title, text, code, fruit)}.

"use strict";
function tillAnswers(on) {
  const T = on.text, say = on.say, fruitLabel = on.fruitLabel, juiceLabel = on.juiceLabel;
  const $ = id => document.getElementById(id);
  // `restockFruit`: the short fruit of an out-of-stock, for the seeds' "edit the stock?" choice.
  let restockFruit = null;
  function alertBox(title, text, code, fruit) {
    restockFruit = fruit || null;
    $("alert-title").textContent = title;
    $("alert-text").textContent = text;
    $("alert").dataset.code = code || "";
    $("alert-restock").hidden = !restockFruit;
    $("alert-restock").textContent = T.restock + (restockFruit ? " " + fruitLabel(restockFruit) : "");
    $("alert-ok").textContent = restockFruit ? T.cancel : T.ok;
    $("alert").classList.add("open");
    (restockFruit ? $("alert-restock") : $("alert-ok")).focus();
  }
  $("alert-ok").addEventListener("click", () => $("alert").classList.remove("open"));
  $("alert-restock").addEventListener("click", () => {
    $("alert").classList.remove("open");
    // A lang given in the address goes along, as on the page's links (shared/base.js).
    if (restockFruit) location.href = "/stock?fruit=" + encodeURIComponent(restockFruit)
      + (LANG_GIVEN === "ko" || LANG_GIVEN === "en" ? "&lang=" + LANG_GIVEN : "");
  });

  function answered(order, status, body, text, at) {
    if (status >= 200 && status < 300 && (!body || body.ok !== false)) {
      const n = body && body.count || order.count, amount = tillSales.amountText(body && body.amount);
      say(T.sold + " " + n + " \u00d7 " + juiceLabel(order.juice) + (amount ? " \u00b7 " + amount : "")
          + (body && body.dup ? " (" + T.again + ")" : "") + (body && body.seq ? "  #" + body.seq : ""), "sold");
      tillSales.sold(order, body, at);
      return;
    }
    const code = body && body.error || "";
    let title = T.notSold, message, short = null;
    if (code === "OUT_OF_STOCK" && body.needs) {
      title = T.out;
      short = Object.keys(body.needs).find(f => body.needs[f] > (body.has && body.has[f] || 0)) || null;
      message = T.out + ": " + Object.keys(body.needs)
        .map(f => T.needs(fruitLabel(f), body.needs[f], body.has && body.has[f] !== undefined ? body.has[f] : 0)).join("; ");
    } else if (code === "READ_ONLY") {
      message = T.disk;
    } else {
      message = (body && body.message) || text.trim() || T.answered(status);
      message = (code || status) + ": " + message;
      // A till opened under a name the server does not take writes for (DNS rebinding guard).
      if ((status === 403 || status === 421) && !/^(localhost|[0-9.]+|\[[0-9a-f:.]+\])$/i.test(location.hostname))
        message += T.allowHost(location.hostname);
    }
    say(juiceLabel(order.juice) + " \u00d7" + order.count + ": " + message, "refused");
    alertBox(title, message, code || String(status), short);
  }
  return { answered, alertBox };
}
