// The report's words in English and, with `?lang=ko`, in Korean: the global `RT`, read by the
// other scripts (`KO` comes from shared/base.js). Dates and weekdays are formatted by the
// browser (`Intl`) in the same language, from the report's ISO dates.

"use strict";
const RT = KO ? {
  title: "주스", reports: "리포트", till: "계산대",
  authTitle: "관리자 토큰", authText: "이 서버에는 관리자 토큰이 있습니다. 리포트를 보려면 입력하세요. 이 탭에만 보관되고 탭을 닫으면 지워집니다.",
  authSubmit: "리포트 보기", today: "오늘", prev: "전날", next: "다음 날",
  served: "주문 처리", refused: "주문 거절 (재고 부족)", sold: "판매한 주스", lost: "놓친 주스",
  weekBefore: d => "일주일 전 (" + d + "): ", perJuice: "주스별 판매와 손실", juice: "주스",
  soldShort: "판매", lostShort: "손실", change: "변화", byHour: "시간대별 판매와 손실",
  scaleTop: n => "맨 위 = " + n + "잔",
  ranOut: "품절", ranOutAt: (f, h) => f + " " + h + " 품절", noRunOut: "품절된 과일 없음",
  noActivity: "이 날은 기록이 없습니다.", fruits: "과일", used: "사용", short: "부족",
  restocked: "입고", sets: "수량 수정", restocks: "입고 기록", noRestocks: "입고 없음",
  tills: "계산대별 판매", tillOrders: "주문", tillJuices: "주스", noTills: "이 날 계산대 판매 없음", tillsCsv: "tills.csv (30일)",
  trend: "최근 30일 판매와 손실", daysCsv: "days.csv (30일)", hoursCsv: "hours.csv (이날)",
  businessDay: (start, tz) => "영업일 " + start + " 시작 · " + zoneName(tz), live: "오늘 · 실시간",
  updated: t => "갱신 " + t, signedIn: "관리자 토큰으로 로그인됨 (이 탭만).",
  open: "이 서버에는 관리자 토큰이 없습니다: 누구나 리포트를 볼 수 있습니다.",
  unavailable: s => "리포트를 불러올 수 없습니다 (" + s + ")", loading: "불러오는 중…", locale: "ko-KR",
  takings: "매출", lostRevenue: "놓친 매출", voids: "취소", voidedShort: "취소", voidedMoney: "취소 금액", hour: "시간",
  takingsTile: "매출 (취소 뺀 금액)", lostRevenueTile: "놓친 매출 (재고 부족)", voidsTile: "판매 취소",
  voidedAmount: t => t + " 환불", moneyTitle: "주스별·과일별 매출과 놓친 매출", moneyHours: "시간대별 매출",
  costliest: (f, t) => f + " 부족으로 가장 많이 놓쳤습니다: " + t, noLostRevenue: "재고 부족으로 놓친 매출이 없습니다.",
  salesTitle: "오늘의 판매 (취소)", time: "시각", count: "수량", amount: "금액", soldBy: "판매", manager: "매니저", other: "기타",
  void: "취소", voidTitle: "판매 취소", cancel: "닫기", older: "이전 판매 더 보기", noSales: "오늘은 아직 판매가 없습니다.",
  reasons: { "wrong-juice": "주스 잘못 누름", "customer-left": "손님이 떠남", "other": "기타" },
  voidedAt: seq => "취소됨 (#" + seq + ")", voidWhat: (seq, n, j, at, t) => "#" + seq + " " + at + " " + j + " " + n + "잔" + (t ? " " + t : "") + ": 취소 이유를 고르세요.",
  voidNoAnswer: seq => "#" + seq + " 취소 안 됨: 서버가 응답하지 않습니다. 다시 시도하세요 (한 번만 적용됩니다).",
  voided: (seq, by) => "#" + seq + " 판매를 취소했습니다 (#" + by + ").", notVoided: (seq, why) => "#" + seq + " 취소 안 됨: " + why,
} : {
  title: "Juice", reports: "reports", till: "till",
  authTitle: "Manager token", authText: "This server has a manager token: enter it to see the reports. It is kept "
    + "in this browser tab only and sent with each request; closing the tab forgets it.",
  authSubmit: "Show reports", today: "Today", prev: "previous day", next: "next day",
  served: "orders served", refused: "orders refused (out of stock)", sold: "juices sold", lost: "juices lost",
  weekBefore: d => "a week before (" + d + "): ", perJuice: "Sold and lost per juice", juice: "juice",
  soldShort: "sold", lostShort: "lost", change: "change", byHour: "Sold and lost by hour",
  scaleTop: n => "top line = " + n + (n === 1 ? " juice" : " juices"),
  ranOut: "out", ranOutAt: (f, h) => f + " ran out at " + h, noRunOut: "No fruit ran out.",
  noActivity: "Nothing was recorded on this day.", fruits: "Fruit", used: "used", short: "short",
  restocked: "restocked", sets: "counts set", restocks: "Restocks", noRestocks: "No restocks.",
  tills: "Sales per till", tillOrders: "orders", tillJuices: "juices", noTills: "No paired till sold on this day.", tillsCsv: "tills.csv (30 days)",
  trend: "Sales and lost sales, 30 days", daysCsv: "days.csv (30 days)", hoursCsv: "hours.csv (this day)",
  businessDay: (start, tz) => "business day from " + start + " · " + tz, live: "today · live",
  updated: t => "updated " + t, signedIn: "Signed in with the manager token (this tab only).",
  open: "This server has no manager token: the reports are open to anyone who can reach it.",
  unavailable: s => "The report could not be loaded (" + s + ")", loading: "Loading…", locale: "en-GB",
  takings: "takings", lostRevenue: "lost revenue", voids: "voids", voidedShort: "voided", voidedMoney: "voided", hour: "hour",
  takingsTile: "takings (after voids)", lostRevenueTile: "lost revenue (out of stock)", voidsTile: "sales voided",
  voidedAmount: t => t + " given back", moneyTitle: "Takings and lost revenue per juice and fruit", moneyHours: "Takings by hour",
  costliest: (f, t) => f + " cost the most: " + t + " lost to it running short", noLostRevenue: "No revenue lost to missing fruit.",
  salesTitle: "Today's sales (void one)", time: "time", count: "count", amount: "amount", soldBy: "sold by", manager: "manager",
  other: "other", void: "Void", voidTitle: "Void a sale", cancel: "Cancel", older: "Older sales", noSales: "No sales yet today.",
  reasons: { "wrong-juice": "Wrong juice", "customer-left": "Customer left", "other": "Other" },
  voidedAt: seq => "voided (#" + seq + ")", voidWhat: (seq, n, j, at, t) => "Sale #" + seq + " at " + at + ": " + n + " \u00d7 " + j + (t ? ", " + t : "") + ". Why void it?",
  voidNoAnswer: seq => "Sale #" + seq + " was not voided: the server did not answer. Try again (it applies once).",
  voided: (seq, by) => "Sale #" + seq + " voided (#" + by + ").", notVoided: (seq, why) => "Sale #" + seq + " was not voided: " + why,
};
// "2026-11-25" in words, e.g. "Wednesday 25 November 2026" / "2026년 11월 25일 수요일". The date
// is a calendar day, not an instant: formatted as UTC so no zone moves it.
function dayName(iso, short) {
  const options = short ? { weekday: "short", day: "numeric", month: "short", timeZone: "UTC" }
                        : { weekday: "long", day: "numeric", month: "long", year: "numeric", timeZone: "UTC" };
  try { return new Intl.DateTimeFormat(RT.locale, options).format(new Date(iso + "T00:00:00Z")); }
  catch (e) { return iso; }
}
// In Korean, the fixed words reports/reports.js does not set (`koWords`, shared/base.js).
if (KO) koWords({ "title": "주스 리포트", "#date": { label: "날짜" } });
// A time zone in Korean words ("Asia/Seoul": "대한민국 표준시"), or its id where the browser has none.
function zoneName(tz) {
  try {
    const parts = new Intl.DateTimeFormat("ko-KR", { timeZone: tz, timeZoneName: "long" }).formatToParts(new Date());
    return parts.find(p => p.type === "timeZoneName").value;
  } catch (e) { return tz; }
}
