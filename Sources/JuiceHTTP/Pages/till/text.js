// A classic script run before the till's own: the global `TILL_TEXT`, the till's words in
// English, or in Korean with `?lang=ko` (`KO`, from shared/base.js).

"use strict";
const TILL_TEXT = KO
  ? { how: "수량", left: "잔", soldOut: "품절", fruits: "과일 재고", waiting: n => "오프라인: 주문 " + n + "건 대기 중",
      sending: n => "주문 " + n + "건 보내는 중…", sold: "판매", again: "재전송, 한 번만 판매됨", notSold: "판매 안 됨",
      out: "재고 부족", needs: (f, n, h) => f + " " + n + "개 필요, " + h + "개 있음", disk: "판매 불가: 디스크 가득 참",
      queued: n => n + " 대기", heldFruit: (n, a, s) => "대기 " + n + "건이 " + s + "개 중 " + a + "개 사용",
      heldLeft: (n, live) => "대기 " + n + "건 제외 전 " + live + "잔", till: "계산대", restock: "재고 추가", cancel: "취소", ok: "확인",
      stale: at => "오프라인: " + at + " 기준 메뉴와 재고. 주문은 서버가 응답하면 보내집니다",
      https: "오프라인 시작은 HTTPS가 필요합니다 (README 참고)", full: n => "대기 주문이 " + n + "건입니다: 서버가 응답할 때까지 기다리세요",
      removed: "매니저가 이 계산대를 삭제했습니다. 판매되지 않았습니다: 다시 연결하세요.", unpaired: "판매 안 됨: 이 계산대는 아직 연결되지 않았습니다.",
      unknown: "판매 안 됨: 서버가 이 계산대를 모릅니다. 다시 연결하세요.", dropped: n => "대기 주문 " + n + "건은 보내지 않았습니다.",
      takings: t => "오늘 이 계산대 매출 " + t, undo: "마지막 판매 취소", undoTitle: "마지막 판매 취소",
      undoWhat: (n, j, t, seq) => j + " " + n + "잔" + (t ? " (" + t + ")" : "") + " #" + seq + " 판매를 취소할까요? 이유를 고르세요.",
      reasons: { "wrong-juice": "주스 잘못 누름", "customer-left": "손님이 떠남", "other": "기타" },
      undone: (w, t) => "취소됨: " + w + (t ? ", " + t + " 환불" : ""), notUndone: "취소 안 됨",
      undoNoAnswer: "취소 안 됨: 서버가 응답하지 않습니다. 다시 연결되면 다시 누르세요 (같은 취소가 한 번만 적용됩니다).",
      answered: s => "서버 응답 " + s, allowHost: h => " (서버를 --allow-host " + h + " 옵션으로 시작하세요)" }
  : { how: "How many", left: "left", soldOut: "SOLD OUT", fruits: "Fruit stock", waiting: n => "offline: " + n + " order" + (n === 1 ? "" : "s") + " waiting",
      sending: n => "sending " + n + " order" + (n === 1 ? "" : "s") + "\u2026", sold: "Sold", again: "answered on a retry; sold once",
      notSold: "Not sold", out: "Out of stock", needs: (f, n, h) => "needs " + f + " " + n + ", has " + h,
      disk: "cannot sell: disk full", queued: n => n + " waiting",
      heldFruit: (n, a, s) => n + " waiting take " + a + " of " + s, heldLeft: (n, live) => n + " waiting; " + live + " left without them",
      till: "till", restock: "Restock", cancel: "Cancel", ok: "OK",
      stale: at => "offline: menu and stock as last seen at " + at + "; taps wait and are sent when the server answers",
      https: "offline start needs HTTPS (see the README)",
      full: n => n + " orders are already waiting: wait until the server answers, then tap again",
      removed: "This till was removed by the manager. Nothing was sold: pair it again.",
      unpaired: "Not sold: this till is not paired yet.", unknown: "Not sold: the server does not know this till. Pair it again.",
      dropped: n => n + " waiting order" + (n === 1 ? " was" : "s were") + " not sent and not sold.",
      takings: t => "This till today: " + t, undo: "Undo last sale", undoTitle: "Undo last sale",
      undoWhat: (n, j, t, seq) => "Undo " + n + " \u00d7 " + j + (t ? " (" + t + ")" : "") + ", sale #" + seq + "? Pick why:",
      reasons: { "wrong-juice": "Wrong juice", "customer-left": "Customer left", "other": "Other" },
      undone: (w, t) => "Undone: " + w + (t ? ", " + t + " back" : ""), notUndone: "Not undone",
      undoNoAnswer: "Not undone: the server did not answer. Press Undo again once it is back (the same undo is sent: it applies once).",
      answered: s => "the server answered " + s, allowHost: h => " (start the server with --allow-host " + h + ")" };
// In Korean, the till's fixed words (`koWords`, shared/base.js); the rest is set from TILL_TEXT.
if (KO) koWords({ "title": "주스 계산대", "h1 a": { parts: ["주스 ", "계산대"] }, "#till-name": { title: "이 계산대" },
  "#count-minus": { label: "하나 빼기" }, "#count-plus": { label: "하나 더하기" }, "#juices": { label: "주스" },
  "#alert-title": "판매 안 됨", "#alert-restock": "재고 추가", "#alert-ok": "확인" });
