"""Paired tills in real Chromium (issue 31), against a server with a manager token, which sells
only to paired tills: the manager makes a code on /tills, the browser till pairs with it and
sells, and /tills shows the till with its sale and connected; after Revoke the till's next tap
says it was removed and sells nothing (and orders it kept while away are dropped, not resent);
Rename shows on /tills. Every wait is a deadline, never a sleep."""
import json
import re
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By

from conftest import attribute, phone_sized, screenshot, wait_for
from test_dashboard import enter_token
from test_till import open_till, pending, tap, wait_until_sold

TOKEN = "tills-browser-token"


def http(server, method, path, body=None, token=None):
    """(status, JSON body) of one request to the server."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.url + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def state(server):
    status, body = http(server, "GET", "/state")
    assert status == 200, body
    return body


def card(driver, till, what):
    return attribute(driver, '[data-till="%d"]' % till, "data-" + what)


def open_tills(driver, server):
    driver.get(server.url + "/tills")
    enter_token(driver, TOKEN)
    wait_for(driver, lambda d: attribute(d, "#page", "data-state") == "shown", "the tills page did not show its list")


def make_code(driver, name):
    field = driver.find_element(By.ID, "code-name")
    field.clear()
    field.send_keys(name)
    driver.find_element(By.ID, "code-make").click()
    wait_for(driver, lambda d: attribute(d, "#code-box", "data-state") == "shown" and d.find_element(By.ID, "code").text,
             "no pairing code shown")
    return driver.find_element(By.ID, "code").text


def open_unpaired_till(driver, server):
    """Opens /till, which must ask to be paired before it shows a juice to tap."""
    phone_sized(driver)
    driver.get(server.url + "/till")
    wait_for(driver, lambda d: d.find_element(By.ID, "pair-code").is_displayed(), "the till did not ask to be paired")
    wait_for(driver, lambda d: attribute(d, '[data-juice="banana"]', "data-can-make") is not None, "no juice buttons")
    assert attribute(driver, "body", "data-paired") == "false"
    assert not driver.find_element(By.CSS_SELECTOR, '[data-juice="banana"]').is_displayed(), "an unpaired till shows juices"


def pair(driver, code):
    wait_for(driver, lambda d: d.find_element(By.ID, "pair-code").is_displayed(), "the till did not ask to be paired")
    driver.find_element(By.ID, "pair-code").send_keys(code)
    driver.find_element(By.ID, "pair-submit").click()
    wait_for(driver, lambda d: attribute(d, "body", "data-paired") == "true"
             and d.find_element(By.CSS_SELECTOR, '[data-juice="banana"]').is_displayed(), "the till did not pair")


def code_for(server, token, name=None):
    """A pairing code made by the manager over HTTP."""
    status, body = http(server, "POST", "/tills/codes", {"name": name} if name else {}, token=token)
    assert status == 200 and body["code"], body
    return body["code"]


def stored(driver, key):
    return driver.execute_script("return localStorage.getItem(arguments[0]);", key)


def waiting(driver):
    return driver.execute_script(
        "let n = 0; for (let i = 0; i < localStorage.length; i++) if (localStorage.key(i).startsWith('juice-till-order:')) n++; return n;")


def paired_till(page, server, name):
    """The manager (this window) opens /tills and makes a code; a second window, the tablet,
    pairs with it and sells one banana juice. Returns (manager's window, till's window)."""
    manager = page.current_window_handle
    open_tills(page, server)
    code = make_code(page, name)
    page.switch_to.new_window("window")
    till = page.current_window_handle
    open_unpaired_till(page, server)
    pair(page, code)
    tap(page, "banana")
    wait_until_sold(page, "Sold 1 \u00d7 banana")
    return manager, till


def test_a_till_paired_with_a_code_from_tills_sells_and_tills_shows_it(page, start_server):
    server = start_server(token=TOKEN, still_clock=True)
    manager = page.current_window_handle
    phone_sized(page)                                       # the manager's phone, 390 px wide
    open_tills(page, server)
    assert page.find_element(By.ID, "empty").is_displayed(), "no till yet"
    code = make_code(page, "Front till")
    assert re.fullmatch(r"[A-Z0-9]{4}-[A-Z0-9]{4}", code), code
    assert re.fullmatch(r"Expires in (10:00|9:[0-5]\d)", page.find_element(By.ID, "code-expiry").text)
    assert "Front till" in page.find_element(By.ID, "code-what").text
    screenshot(page, "tills-code.png")

    # The tablet, in another window: the till asks to be paired and sells nothing until it is.
    page.switch_to.new_window("window")
    open_unpaired_till(page, server)
    screenshot(page, "till-pairing.png")
    before = state(server)
    pair(page, code.lower())                                # typed in lower case: the till upper-cases it
    assert page.find_element(By.ID, "till-name").text == "Front till", "the till does not show its name"
    credential = stored(page, "juice-till-credential")
    assert credential and credential.startswith("1-"), credential
    tap(page, "banana")
    wait_until_sold(page, "Sold 1 \u00d7 banana")
    assert state(server)["stock"]["banana"] == before["stock"]["banana"] - 2     # banana juice takes 2

    # The manager's page: the code was used, and the till is there with its sale, connected.
    page.switch_to.window(manager)
    wait_for(page, lambda d: card(d, 1, "orders-today") == "1" and card(d, 1, "connected") == "true",
             "/tills does not show the till's sale and that it is connected")
    assert card(page, 1, "name") == "Front till" and card(page, 1, "active") == "true"
    text = page.find_element(By.CSS_SELECTOR, '[data-till="1"]').text
    assert "connected now" in text and "Front till" in text, text
    wait_for(page, lambda d: attribute(d, "#code-box", "data-state") == "used", "the code box does not say it was used")
    assert page.find_element(By.ID, "code-expiry").text == "Paired: Front till"
    assert not page.find_element(By.ID, "empty").is_displayed()
    screenshot(page, "tills.png")


def test_after_revoke_the_tills_next_tap_says_it_was_removed_and_sells_nothing(page, start_server):
    server = start_server(token=TOKEN)
    manager, till = paired_till(page, server, "Lost tablet")

    page.switch_to.window(manager)
    wait_for(page, lambda d: card(d, 1, "active") == "true", "the till is not listed")
    page.find_element(By.CSS_SELECTOR, '[data-till="1"] .revoke').click()
    wait_for(page, lambda d: d.find_element(By.ID, "confirm").is_displayed(), "Revoke did not ask to confirm")
    assert "Lost tablet" in page.find_element(By.ID, "confirm-title").text
    page.find_element(By.ID, "confirm-yes").click()
    wait_for(page, lambda d: card(d, 1, "active") == "false", "the till is not shown revoked")
    assert "revoked" in page.find_element(By.CSS_SELECTOR, '[data-till="1"] .presence').text
    assert not page.find_element(By.CSS_SELECTOR, '[data-till="1"] .revoke').is_displayed()

    before = state(server)
    page.switch_to.window(till)
    tap(page, "banana")
    wait_for(page, lambda d: "removed by the manager" in d.find_element(By.ID, "pair-notice").text,
             "the till did not say it was removed")
    assert page.find_element(By.ID, "pair-code").is_displayed(), "the pairing form is not shown again"
    assert attribute(page, "body", "data-paired") == "false"
    assert stored(page, "juice-till-credential") is None, "the revoked credential is kept"
    assert page.find_element(By.ID, "till-name").text == ""
    assert waiting(page) == 0
    screenshot(page, "till-removed.png")
    after = state(server)
    assert after["stock"] == before["stock"] and after["seq"] == before["seq"], "a revoked till sold"


def test_orders_kept_while_the_server_was_away_are_not_resent_after_a_revoke(page, start_server):
    """The till is revoked while it is away from the server; it keeps two taps, and when the
    server answers, the first gets REVOKED: both are dropped with a message, none is sold."""
    server = start_server(token=TOKEN, data=True)
    manager, till = paired_till(page, server, "Van till")
    status, body = http(server, "POST", "/tills/revoke", {"till": 1}, token=TOKEN)
    assert status == 200 and body["till"]["active"] is False, body
    before = state(server)

    server.stop()
    page.switch_to.window(till)
    tap(page, "pineapple")            # not banana: a second banana tap within 0.6 s of the first is the same tap
    wait_for(page, lambda d: pending(d)[0] == "1", "the first tap is not waiting")
    wait_for(page, lambda d: attribute(d, '[data-juice="kiwi"]', "disabled") is None, "kiwi is greyed")
    tap(page, "kiwi")
    wait_for(page, lambda d: pending(d) == ("2", "offline"), "the two taps are not waiting")
    server.restart()                                        # same ports and data: still revoked
    wait_for(page, lambda d: "removed by the manager" in d.find_element(By.ID, "pair-notice").text,
             "the till did not say it was removed", timeout=40)
    assert "1 waiting order was not sent and not sold" in page.find_element(By.ID, "pair-notice").text
    assert waiting(page) == 0, "orders of a revoked till are kept"
    after = state(server)
    assert after["stock"] == before["stock"] and after["seq"] == before["seq"], "a revoked till's waiting order sold"


def test_a_paired_tills_order_kept_while_the_server_was_away_sells_once(page, start_server):
    """Queued orders carry the credential too: kept while the server is down, sent with the same
    key and Juice-Till when it is back, sold once, and counted as the till's on /tills."""
    server = start_server(token=TOKEN, data=True, still_clock=True)
    manager, till = paired_till(page, server, "Front till")
    before = state(server)
    server.stop()
    page.switch_to.window(till)
    tap(page, "kiwi")
    wait_for(page, lambda d: pending(d) == ("1", "offline"), "the tap is not waiting")
    server.restart()
    wait_until_sold(page, "Sold 1 \u00d7 kiwi")
    assert state(server)["stock"]["kiwi"] == before["stock"]["kiwi"] - 3         # kiwi juice takes 3
    status, body = http(server, "GET", "/tills/list", token=TOKEN)
    assert body["tills"][0]["orders_today"] == 2, body                           # the banana and the kiwi


def test_rename_shows_on_tills(page, start_server):
    server = start_server(token=TOKEN)
    open_tills(page, server)
    code = make_code(page, "Front till")
    status, body = http(server, "POST", "/tills/pair", {"code": code})
    assert status == 200 and body["till"]["name"] == "Front till", body
    wait_for(page, lambda d: card(d, 1, "name") == "Front till", "the paired till is not listed")

    page.find_element(By.CSS_SELECTOR, '[data-till="1"] .rename').click()
    field = page.find_element(By.CSS_SELECTOR, '[data-till="1"] .rename-name')
    assert field.get_attribute("value") == "Front till"
    field.clear()
    field.send_keys("Back till")
    page.find_element(By.CSS_SELECTOR, '[data-till="1"] .rename-save').click()
    wait_for(page, lambda d: card(d, 1, "name") == "Back till", "the new name does not show")
    assert "Back till" in page.find_element(By.CSS_SELECTOR, '[data-till="1"] h3').text
    status, body = http(server, "GET", "/tills/list", token=TOKEN)
    assert [t["name"] for t in body["tills"]] == ["Back till"], body
    page.refresh()                                          # the token stays in this tab
    wait_for(page, lambda d: card(d, 1, "name") == "Back till", "the new name does not show after a reload")


def test_the_till_holds_at_most_50_waiting_orders(page, start_server):
    """The contract with the server's per-till key memory (its newest 1000 keys): a till never
    holds more than 50 waiting orders. With 50 waiting, a tap is refused on the till, visibly."""
    server = start_server(data=True)
    open_till(page, server)
    server.stop()
    page.execute_script(
        "for (let i = 0; i < 50; i++) localStorage.setItem('juice-till-order:k' + i,"
        " JSON.stringify({ key: 'k' + i, juice: 'banana', count: 1, at: i, till: null }));")
    tap(page, "kiwi")
    wait_for(page, lambda d: "open" in (attribute(d, "#alert", "class") or ""), "no refusal shown")
    assert attribute(page, "#alert", "data-code") == "QUEUE_FULL"
    assert "50 orders are already waiting" in page.find_element(By.ID, "alert-text").text
    assert waiting(page) == 50, "a 51st order was kept"


def test_the_report_shows_sales_per_till(page, start_server):
    """The day report, as the manager reads it: a row per paired till with its orders and
    juices, equal to what REPORT says over the line protocol."""
    server = start_server(token=TOKEN, still_clock=True)
    manager, till = paired_till(page, server, "Front till")   # it sold one banana juice
    page.switch_to.window(manager)
    page.get(server.url + "/reports")                       # this tab holds the token from /tills
    wait_for(page, lambda d: attribute(d, '#tills [data-till="1"]', "data-till") == "1", "the report shows no till row")
    # Read at once: the live report redraws its tables. Orders, juices, voids, takings (priced menu).
    cells = page.execute_script("return Array.from(document.querySelectorAll("
                                "'#tills [data-till=\"1\"] th, #tills [data-till=\"1\"] td'), c => c.textContent);")
    assert cells == ["Front till", "1", "1", "0", "\u20a94,000"], cells
    status, day = http(server, "GET", "/reports/day", token=TOKEN)
    assert status == 200 and day["tills"] == [{"till": 1, "name": "Front till", "orders": 1, "juices": 1,
                                                "voids": 0, "takings": 4000}], day
