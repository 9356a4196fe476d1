// The dashboard's words: the global `DT`, in English or in Korean (`KO`, shared/base.js), and in
// Korean the page's fixed words put in (`koWords`, shared/base.js).

"use strict";
const DT = KO ? {
  answered: s => "/sales 응답 " + s, signedIn: "관리자 토큰으로 로그인됨 (이 탭만).",
  open: "이 서버에는 관리자 토큰이 없습니다: 누구나 매출을 볼 수 있습니다.", givenBack: t => t + " 환불",
  sold: "판매", lost: "손실", short: "부족", left: n => n + "개 남음", restockFirst: names => "먼저 입고할 과일: " + names.join(", "),
  noLost: "과일이 없어 놓친 판매가 없습니다.", updated: (t, seq) => "갱신 " + t + " · 변경 #" + seq, locale: "ko-KR",
  chart: "분당 주문", minute: (t, s, r) => t + ": 처리 " + s + ", 거절 " + r, ago: n => "-" + n + "분", now: "지금",
} : {
  answered: s => "/sales answered " + s, signedIn: "Signed in with the manager token (this tab only).",
  open: "This server has no manager token: the sales are open to anyone who can reach it.", givenBack: t => t + " given back",
  sold: "sold", lost: "lost", short: "short", left: n => n + " left", restockFirst: names => "Restock first: " + names.join(", then "),
  noLost: "No sales lost to missing fruit.", updated: (t, seq) => "updated " + t + " · change #" + seq, locale: [],
  chart: "orders per minute", minute: (t, s, r) => t + ": " + s + " served, " + r + " refused", ago: n => "-" + n + " min", now: "now",
};
if (KO) koWords({
  "title": "주스 매출", "h1": { parts: ["주스 ", "매출"] }, "#token-submit": "매출 보기",
  "#auth p": "이 서버에는 관리자 토큰이 있습니다. 매출을 보려면 입력하세요. 이 탭에만 보관되고 요청마다 보내지며, 탭을 닫으면 지워집니다.",
  "#served + span": "처리한 주문", "#refused + span": "거절한 주문 (재고 부족)", "#sold-total + span": "판매한 주스",
  "#lost-total + span": "놓친 주스", "#takings + span": "오늘 매출 (취소 뺀 금액)", "#lost-revenue + span": "오늘 놓친 매출 (재고 부족)",
  "#voids + span": "오늘 판매 취소", ".cols > section:first-child h2": "주스별 판매와 손실",
  ".cols > section:first-child .legend span:first-child": { parts: ["판매"] },
  ".cols > section:first-child .legend span:last-child": { parts: ["손실 (거절: 과일 부족)"] },
  ".cols > section:last-child h2": "과일별 놓친 판매", ".cols > section:last-child .legend span": { parts: ["이 과일이 부족해 거절한 주문"] },
  "#chart h2": "최근 한 시간 분당 주문", "#chart .legend span:first-child": { parts: ["처리"] },
  "#chart .legend span:last-child": { parts: ["거절"] },
});
