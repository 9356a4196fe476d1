"""The till (GET /till) in a real browser, against the real server: a tap is one sale, seen by
the board and a line-protocol display; exactly once through a server restart and through an
answer lost after the server made the order durable; sold-out juices cannot be tapped, and an
order racing the sell-out gets the out-of-stock message."""
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from conftest import (attribute, board_in_second_window, phone_sized, restart_unarmed, screenshot, wait_for,
                      wait_until_killed_after_sync)
from test_board import wait_for_stock


def open_till(driver, server, query=""):
    phone_sized(driver)
    driver.get(server.url + "/till" + query)
    wait_for(driver, lambda d: attribute(d, "#conn", "data-state") == "live", "the till never went live")
    wait_for(driver, lambda d: attribute(d, '[data-juice="banana"]', "data-can-make") is not None, "no juice buttons")


def tap(driver, juice):
    driver.find_element(By.CSS_SELECTOR, '[data-juice="%s"]' % juice).click()


def pending(driver):
    return attribute(driver, "#pending", "data-waiting"), attribute(driver, "#pending", "data-state")


def waiting_orders(driver):
    """The orders the till keeps in localStorage (one item each), as JSON texts."""
    return driver.execute_script(
        "const o = []; for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i);"
        " if (k.startsWith('juice-till-order:')) o.push(localStorage.getItem(k)); } return o;")


def wait_until_sold(driver, text):
    """Waits for the till's queue to empty and its last line to name the sale."""
    wait_for(driver, lambda d: pending(d) == ("0", "idle") and attribute(d, "#message", "data-kind") == "sold",
             "the order was not answered as sold")
    message = driver.find_element(By.ID, "message").text
    assert text in message, message
    return message


def test_a_tap_sells_one_and_every_screen_sees_it(page, start_server, line_display):
    server = start_server()
    display = line_display(server)
    display.wait_for(lambda line: line.startswith("EVENT HELLO"), "the display got no greeting")
    before = server.stats()

    # The board in a second window, the till in the first.
    till_window, board_window = board_in_second_window(page, server)
    open_till(page, server)

    page.find_element(By.ID, "count-plus").click()          # two mango-kiwi: 4 mango, 2 kiwi
    assert page.find_element(By.ID, "count").text == "2"
    tap(page, "mango-kiwi")
    wait_until_sold(page, "Sold 2 \u00d7 mango-kiwi")
    assert page.find_element(By.ID, "count").text == "1", "the count goes back to 1 after a sale"

    after = server.stats()
    assert after["sold_mango-kiwi"] == before["sold_mango-kiwi"] + 2
    assert after["orders_served"] == before["orders_served"] + 1
    display.wait_for(lambda line: line.startswith("EVENT STOCK ") and "mango=6" in line and "kiwi=8" in line,
                     "the nc display did not see the sale")
    wait_for_stock(page, {"mango": 6, "kiwi": 8}, "the till's own stock did not follow")
    page.switch_to.window(board_window)
    wait_for_stock(page, {"mango": 6, "kiwi": 8}, "the board did not see the sale")
    page.switch_to.window(till_window)

    # A double tap is one sale: the second tap lands while the first still flashes.
    ActionChains(page).double_click(page.find_element(By.CSS_SELECTOR, '[data-juice="banana"]')).perform()
    wait_until_sold(page, "Sold 1 \u00d7 banana")
    assert server.stats()["sold_banana"] == before["sold_banana"] + 1, "a double tap sold twice"
    assert server.stats()["orders_served"] == before["orders_served"] + 2
    # Keys are this device's: a random till id kept in localStorage, then a counter.
    assert page.execute_script("return localStorage.getItem('juice-till-id');")
    screenshot(page, "till.png")


def test_an_order_tapped_while_the_server_is_down_is_sold_once_when_it_is_back(page, start_server):
    server = start_server(data=True)
    open_till(page, server)
    before = server.stats()
    server.stop()
    tap(page, "banana")
    wait_for(page, lambda d: pending(d) == ("1", "offline"), "the till did not say it is waiting")
    assert page.find_element(By.ID, "pending").text == "offline: 1 order waiting"

    assert any('"juice":"banana"' in v for v in waiting_orders(page)), "the order is not kept in localStorage"

    # The till is closed while the order waits (a reload, a tablet that restarts): nothing of
    # this page runs any more, the order is only in localStorage.
    page.get("about:blank")
    server.restart()                                        # same ports, same data directory
    open_till(page, server)                                 # the till is opened again
    wait_until_sold(page, "Sold 1 \u00d7 banana")
    after = server.stats()
    assert after["sold_banana"] == before["sold_banana"] + 1, "not exactly once"
    assert after["orders_served"] == before["orders_served"] + 1


def test_an_answer_lost_after_the_order_was_durable_is_not_sold_twice(page, start_server, tmp_path):
    """The server dies right after its journal sync, before any reply leaves (the debug build's
    JUICE_TEST_KILL_AFTER_SYNC hook, armed by a file): the order is on disk, the till never heard.
    Its retry with the same key, on the restarted server, gets the original answer (dup)."""
    trigger = tmp_path / "kill-after-sync"
    server = start_server(data=True, env={"JUICE_TEST_KILL_AFTER_SYNC": str(trigger)})
    open_till(page, server)
    before = server.stats()
    trigger.touch()
    tap(page, "banana")
    wait_until_killed_after_sync(page, server)
    wait_for(page, lambda d: pending(d) == ("1", "offline"), "the till did not keep the unanswered order")
    assert page.find_element(By.ID, "pending").text == "offline: 1 order waiting"

    restart_unarmed(server, trigger)
    message = wait_until_sold(page, "Sold 1 \u00d7 banana")
    assert "retry" in message, "the answer was not the remembered one: " + message
    after = server.stats()
    assert after["sold_banana"] == before["sold_banana"] + 1, "not exactly once"
    assert after["orders_served"] == before["orders_served"] + 1


def test_sold_out_cannot_be_tapped_and_a_racing_order_is_refused(page, start_server):
    server = start_server()
    open_till(page, server)
    # Strawberry juice needs 16 strawberries; the store starts with 10.
    card = page.find_element(By.CSS_SELECTOR, '[data-juice="strawberry"]')
    assert attribute(page, '[data-juice="strawberry"]', "data-can-make") == "0"
    assert not card.is_enabled() and "SOLD OUT" in card.text
    ActionChains(page).click(card).perform()
    assert pending(page) == ("0", "idle")
    assert server.stats()["orders_refused"] == 0, "a sold-out button sent an order"

    assert server.send("ORDER mango 2").startswith("OK ORDER mango 2 ")   # 4 mango left: one more
    wait_for(page, lambda d: attribute(d, '[data-juice="mango"]', "data-can-make") == "1", "mango did not follow")
    # Another till sells the last mango juice, and this till's tap lands in the same task, before
    # its page can hear of the sale: the order races the sell-out (no timing involved).
    status = page.execute_script("""
        const other = new XMLHttpRequest();
        other.open("POST", "/orders", false);
        other.setRequestHeader("Content-Type", "application/json");
        other.send(JSON.stringify({juice: "mango"}));
        document.querySelector('[data-juice="mango"]').click();
        return other.status;""")
    assert status == 200
    wait_for(page, lambda d: "open" in (attribute(d, "#alert", "class") or ""), "no refusal shown")
    assert attribute(page, "#alert", "data-code") == "OUT_OF_STOCK"
    assert page.find_element(By.ID, "alert-text").text == "Out of stock: needs mango 3, has 1"
    page.find_element(By.ID, "alert-ok").click()
    assert "open" not in (attribute(page, "#alert", "class") or "")
    wait_for(page, lambda d: not d.find_element(By.CSS_SELECTOR, '[data-juice="mango"]').is_enabled(),
             "mango did not become untappable")
    stats = server.stats()
    assert stats["sold_mango"] == 3 and stats["lost_mango"] == 1


def test_two_tabs_of_one_till_lose_no_order(page, start_server):
    """Two tabs of the till in one browser share its waiting orders (localStorage). Orders tapped
    in both while the server is down are each sold exactly once when it is back: neither tab's
    bookkeeping overwrites the other's (each order is an item of its own)."""
    server = start_server(data=True)
    first = page.current_window_handle
    open_till(page, server)
    page.switch_to.new_window("tab")
    second = page.current_window_handle
    open_till(page, server)
    before = server.stats()
    server.stop()
    taps = [(first, "banana"), (second, "kiwi"), (first, "mango"), (second, "banana")]
    for handle, juice in taps:
        page.switch_to.window(handle)
        wait_for(page, lambda d: attribute(d, '[data-juice="%s"]' % juice, "disabled") is None, "%s is greyed" % juice)
        tap(page, juice)
    page.switch_to.window(second)
    wait_for(page, lambda d: len(waiting_orders(d)) == 4, "the two tabs do not keep all four orders")
    server.restart()
    for handle in (first, second):
        page.switch_to.window(handle)
        wait_for(page, lambda d: pending(d) == ("0", "idle"), "a tab still has orders waiting")
    after = server.stats()
    for juice in ("banana", "kiwi", "mango"):
        want = sum(1 for _, j in taps if j == juice)
        assert after["sold_" + juice] == before["sold_" + juice] + want, "%s not sold exactly %d times" % (juice, want)
    assert after["orders_served"] == before["orders_served"] + len(taps)
    page.close()
    page.switch_to.window(first)
