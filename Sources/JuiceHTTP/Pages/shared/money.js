// A classic script (a global) for the pages that show money: `moneyFormat(currency)`, where
// `currency` is the documents' `{"code":"KRW","minor_digits":0}` (`/state`, `/sales`,
// `/reports/day`). It returns a function from an amount in minor units to the text a person reads
// (`₩4,500`, `$4.50`, `4,50 €`: the browser's `Intl.NumberFormat`, in the page's language), or
// null for a menu without prices: then a page shows no money anywhere.

"use strict";
function moneyFormat(currency) {
  if (!currency || typeof currency.code !== "string") return null;
  const digits = Number.isInteger(currency.minor_digits) ? currency.minor_digits : 0;
  const locale = document.documentElement.lang === "ko" ? "ko-KR" : undefined;
  let format;
  try {
    format = new Intl.NumberFormat(locale, { style: "currency", currency: currency.code,
                                             minimumFractionDigits: digits, maximumFractionDigits: digits });
  } catch (e) {
    // A code this browser does not know: the number with its code beside it.
    format = { format: n => n.toFixed(digits) + " " + currency.code };
  }
  const scale = Math.pow(10, digits);
  return minor => format.format((Number(minor) || 0) / scale);
}
