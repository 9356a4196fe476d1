// The tills page's words: the global `TT`, in English or in Korean (`KO`, shared/base.js), and
// in Korean the page's fixed words put in (`koWords`, shared/base.js).

"use strict";
const TT = KO ? {
  noAnswer: "서버가 응답하지 않습니다: 다시 시도하세요.", signedIn: "관리자로 로그인됨 (이 탭만)",
  open: "이 서버에는 관리자 토큰이 없습니다: 계산대 연결이 필요 없습니다", never: "없음", justNow: "방금",
  minAgo: m => m + "분 전", locale: "ko-KR", paired: "연결", seen: "마지막 접속", orders: "오늘 주문",
  rename: "이름 바꾸기", revoke: "삭제", newName: "새 이름", save: "저장", cancel: "취소", enterName: "이름을 입력하세요.",
  till: n => "계산대 " + n, revoked: "삭제됨", connected: "지금 연결됨", notConnected: "연결 안 됨",
  juices: n => " (주스 " + n + "잔)", renameOf: name => name + " 이름 바꾸기", revokeOf: name => name + " 삭제",
  pairedAs: name => "연결됨: " + name, code: name => "연결 코드" + (name ? " (\u201c" + name + "\u201d)" : ""),
  expired: "만료됨: 새 코드를 만드세요.", expiresIn: t => t + " 후 만료", revokeWhich: name => "\u201c" + name + "\u201d 삭제?",
  revokeText: "즉시 판매를 멈춥니다: 다음 주문에서 삭제되었다고 알리고, 대기 중인 주문은 판매되지 않습니다. 그 태블릿을 다시 쓰려면 새 코드로 연결하세요.",
} : {
  noAnswer: "The server did not answer: try again.", signedIn: "signed in as the manager (this tab)",
  open: "this server has no manager token: tills need no pairing", never: "never", justNow: "just now",
  minAgo: m => m + " min ago", locale: [], paired: "Paired", seen: "Last seen", orders: "Orders today",
  rename: "Rename", revoke: "Revoke", newName: "New name", save: "Save", cancel: "Cancel", enterName: "Enter a name.",
  till: n => "till " + n, revoked: "revoked", connected: "connected now", notConnected: "not connected",
  juices: n => " (" + n + " juice" + (n === 1 ? "" : "s") + ")", renameOf: name => "Rename " + name, revokeOf: name => "Revoke " + name,
  pairedAs: name => "Paired: " + name, code: name => "Pairing code" + (name ? " for \u201c" + name + "\u201d" : ""),
  expired: "Expired: make a new code.", expiresIn: t => "Expires in " + t, revokeWhich: name => "Revoke \u201c" + name + "\u201d?",
  revokeText: "It stops selling at once: its next tap says it was removed, and its waiting orders are "
    + "not sold. To use that tablet again, pair it with a new code.",
};
if (KO) koWords({
  "title": "주스 계산대 관리", "h1": { parts: ["주스 ", "계산대 관리"] }, "#auth p": "계산대를 연결하고 삭제하려면 관리자 토큰이 필요합니다. 이 탭에만 보관되고 요청마다 보내지며, 탭을 닫으면 지워집니다.",
  "#token-submit": "토큰 사용", "#new-title": "새 계산대 연결", "label[for=code-name]": "새 계산대 이름 (선택)",
  "#code-name": { placeholder: "앞쪽 계산대" }, "#code-make": "새 계산대 연결", "#code-what": "연결 코드",
  "#code-box .how": "태블릿에서 /till 을 열고 '이 계산대 연결'에 이 코드를 입력하세요. 한 번만 쓸 수 있습니다.",
  "#code-done": "완료", "#list-title": "계산대", "#empty": "아직 연결된 계산대가 없습니다: 위에서 코드를 만드세요.",
  "#confirm-title": "이 계산대를 삭제할까요?", "#confirm-no": "취소", "#confirm-yes": "삭제",
  "footer > span:first-child": "계산대는 연결된 뒤에만 판매합니다. 잃어버리거나 도난당한 태블릿은 삭제하세요: 즉시 판매를 멈추고, 대기 중인 주문은 판매되지 않습니다.",
});
