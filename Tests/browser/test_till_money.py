"""Money on the browser till (issue 33), against the real server: each juice's price and the sale's
total at the count picked before the tap, the amount the server answered after it, this till's
takings today; "Undo last sale" voids it once (also when its first answer was lost), and is gone
after its 10-minute window. The window is the page's own clock: the test moves the kept sale's
send time back rather than waiting. Every wait is a deadline, never a sleep."""
import json

from selenium.webdriver.common.by import By

from conftest import attribute, wait_for
from test_dashboard import order_as_manager
from test_tills import code_for, http, open_unpaired_till, pair
from test_till import open_till, tap, wait_until_sold

TOKEN = "till-money-token"


def report(server, token=None):
    """REPORT over the line protocol as {key: value} (numbers as ints); with a token, after AUTH."""
    reply = order_as_manager(server, "REPORT", token) if token else server.send("REPORT")
    assert reply.startswith("OK REPORT "), reply
    pairs = (w.split("=", 1) for w in reply.split()[2:])
    return {k: int(v) if v.lstrip("-").isdigit() else v for k, v in pairs}


def kept_sales(driver):
    """The sales this till keeps in localStorage, as dicts."""
    return [json.loads(v) for v in driver.execute_script(
        "const o = []; for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i);"
        " if (k.startsWith('juice-till-sale:')) o.push(localStorage.getItem(k)); } return o;")]


def undo_shown(driver):
    return attribute(driver, "#undo", "hidden") is None


def undo(driver, reason):
    """Presses Undo and picks a reason in its dialog."""
    wait_for(driver, undo_shown, "no Undo button")
    driver.find_element(By.ID, "undo").click()
    wait_for(driver, lambda d: attribute(d, "#undo-dialog", "hidden") is None, "the undo dialog did not open")
    driver.find_element(By.CSS_SELECTOR, '#undo-dialog [data-reason="%s"]' % reason).click()


def test_the_till_shows_prices_the_total_and_the_amount_and_its_takings(page, start_server):
    server = start_server(still_clock=True)
    open_till(page, server)
    # The built-in menu is priced in KRW: banana juice 4,000, mango-kiwi 5,500.
    wait_for(page, lambda d: attribute(d, '[data-juice="banana"] .price', "data-price") == "4000", "no price on banana")
    assert page.find_element(By.CSS_SELECTOR, '[data-juice="banana"] .price').text == "\u20a94,000"
    page.find_element(By.ID, "count-plus").click()
    wait_for(page, lambda d: attribute(d, '[data-juice="mango-kiwi"] .price', "data-total") == "11000",
             "the total before the tap is not price x count")
    assert page.find_element(By.CSS_SELECTOR, '[data-juice="mango-kiwi"] .price').text.startswith("\u20a911,000")
    tap(page, "mango-kiwi")
    message = wait_until_sold(page, "Sold 2 \u00d7 mango-kiwi")
    assert "\u20a911,000" in message, "the answer's amount is not shown: " + message
    tap(page, "banana")
    wait_until_sold(page, "Sold 1 \u00d7 banana \u00b7 \u20a94,000")
    wait_for(page, lambda d: attribute(d, "#takings", "data-amount") == "15000", "this till's takings are not 15,000")
    assert page.find_element(By.ID, "takings").text == "This till today: \u20a915,000"
    assert report(server)["takings"] == 15000


def test_undo_voids_the_last_sale_once_and_is_gone_after_its_window(page, start_server):
    server = start_server(still_clock=True)
    open_till(page, server)
    assert not undo_shown(page), "Undo before any sale"
    tap(page, "banana")
    wait_until_sold(page, "Sold 1 \u00d7 banana")
    wait_for(page, lambda d: attribute(d, '[data-fruit="banana"]', "data-stock") == "8", "banana did not go to 8")
    undo(page, "wrong-juice")
    wait_for(page, lambda d: attribute(d, "#message", "data-kind") == "undone", "the sale was not undone")
    assert "Undone: 1 \u00d7 banana, \u20a94,000 back" in page.find_element(By.ID, "message").text
    wait_for(page, lambda d: attribute(d, '[data-fruit="banana"]', "data-stock") == "10", "the fruit did not come back")
    wait_for(page, lambda d: attribute(d, "#takings", "data-amount") == "0", "the takings still count the voided sale")
    assert not undo_shown(page), "Undo still offered for a voided sale"
    got = report(server)
    assert (got["voids"], got["takings"], got["voided_amount"], got["sold_banana"]) == (1, 0, 4000, 1), got

    # The next sale has its own window: 10 minutes on the page's clock from when it was sent.
    tap(page, "kiwi")
    wait_until_sold(page, "Sold 1 \u00d7 kiwi")
    wait_for(page, undo_shown, "no Undo for the new sale")
    seq = int(attribute(page, "#undo", "data-sale"))
    page.execute_script("""
        for (let i = 0; i < localStorage.length; i++) {
          const k = localStorage.key(i);
          if (!k.startsWith('juice-till-sale:')) continue;
          const s = JSON.parse(localStorage.getItem(k));
          if (s.seq === arguments[0]) { s.sent = Date.now() - 601000; localStorage.setItem(k, JSON.stringify(s)); }
        }""", seq)
    wait_for(page, lambda d: not undo_shown(d), "Undo was still offered after its window")
    assert report(server)["voids"] == 1
    assert any(s["seq"] == seq and not s.get("voided") for s in kept_sales(page))


def test_an_undo_whose_answer_was_lost_applies_once_when_pressed_again(page, start_server, tmp_path):
    """The server dies right after the void is durable, before it answers (the debug build's
    JUICE_TEST_KILL_AFTER_SYNC hook): the till says it was not undone, and keeps Undo. Pressed
    again on the restarted server, it sends the same key: voided once, answered as the first."""
    trigger = tmp_path / "kill-after-sync"
    server = start_server(data=True, env={"JUICE_TEST_KILL_AFTER_SYNC": str(trigger)}, still_clock=True)
    open_till(page, server)
    tap(page, "mango")
    wait_until_sold(page, "Sold 1 \u00d7 mango")
    trigger.touch()
    undo(page, "customer-left")
    wait_for(page, lambda d: server.process.poll() is not None, "the server did not kill itself after the sync")
    wait_for(page, lambda d: attribute(d, "#alert", "data-code") == "NO_ANSWER", "the till did not say the undo got no answer")
    assert "Not undone" in page.find_element(By.ID, "message").text
    page.find_element(By.ID, "alert-ok").click()
    key = [s for s in kept_sales(page) if s["juice"] == "mango"][0]["voidKey"]

    trigger.unlink()
    server.process = None
    server.restart()
    wait_for(page, lambda d: attribute(d, "#conn", "data-state") == "live", "the till did not come back live")
    undo(page, "customer-left")
    wait_for(page, lambda d: attribute(d, "#message", "data-kind") == "undone", "the second press did not undo")
    assert [s for s in kept_sales(page) if s["juice"] == "mango"][0]["voidKey"] == key, "a new key for the same undo"
    got = report(server)
    assert (got["voids"], got["takings"], got["sold_mango"]) == (1, 0, 1), got
    assert server.stock()["mango"] == 10, "the fruit came back twice, or never"


def test_a_paired_till_undoes_its_own_sale_with_its_credential(page, start_server):
    server = start_server(token=TOKEN, still_clock=True)
    open_unpaired_till(page, server)
    pair(page, code_for(server, TOKEN, "Front"))
    tap(page, "pineapple")
    wait_until_sold(page, "Sold 1 \u00d7 pineapple")
    undo(page, "other")
    wait_for(page, lambda d: attribute(d, "#message", "data-kind") == "undone", "the paired till's undo failed")
    status, day = http(server, "GET", "/reports/day", token=TOKEN)
    assert status == 200 and day["voids"] == 1 and day["tills"][0]["voids"] == 1, day


def test_a_menu_without_prices_shows_no_money_on_the_till(page, start_server, juice_server_command, tmp_path):
    server = start_server(args=["--menu", menu_without_prices(juice_server_command, tmp_path)])
    open_till(page, server)
    tap(page, "banana")
    message = wait_until_sold(page, "Sold 1 \u00d7 banana")
    assert "\u20a9" not in message and "\u00b7" not in message, message
    assert attribute(page, "#takings", "hidden") is not None, "takings shown without prices"
    assert all(not p.is_displayed() for p in page.find_elements(By.CSS_SELECTOR, ".juice .price"))
    assert "\u20a9" not in page.find_element(By.TAG_NAME, "body").text
    wait_for(page, undo_shown, "Undo needs no prices")


def menu_without_prices(command, directory):
    """The built-in menu with its currency and prices taken out, written for --menu."""
    import subprocess
    menu = json.loads(subprocess.run(command + ["--print-menu"], check=True, capture_output=True, text=True).stdout)
    menu.pop("currency", None)
    for juice in menu["juices"]:
        juice.pop("price", None)
    path = directory / "menu-no-prices.json"
    path.write_text(json.dumps(menu, ensure_ascii=False), encoding="utf-8")
    return str(path)
