"""The till opens while the server is down: its service worker keeps the page, the page keeps the
last menu and stock it saw (shown as stale), taps wait in the queue, and each is sold exactly once
when the server is back. And the out-of-stock refusal offers the seeds' choice: Restock (the stock
editor, on the short fruit) or Cancel."""
import pytest
from selenium.webdriver.common.by import By

from conftest import attribute, screenshot, wait_for
from test_till import open_till, pending, tap, wait_until_sold
from test_tills import code_for, pair


def worker_has_the_page(driver):
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "if (!navigator.serviceWorker.controller) { done(false); return; }"
        "caches.match('/till').then(hit => done(!!hit), () => done(false));")


def test_a_reload_with_the_server_down_opens_the_till_and_its_taps_sell_once(page, start_server):
    server = start_server(data=True)
    open_till(page, server)
    wait_for(page, worker_has_the_page, "the service worker did not take the till page")
    tap(page, "banana")                                      # a live sale: the kept stock is the new one
    wait_until_sold(page, "Sold 1 \u00d7 banana")
    before = server.stats()

    server.kill()                                            # the box dies; the tablet reloads
    page.refresh()
    wait_for(page, lambda d: attribute(d, "body", "data-stale") == "true", "the till is not marked stale")
    assert page.find_element(By.ID, "stale").text.startswith("offline: menu and stock as last seen at ")
    assert attribute(page, '[data-fruit="banana"]', "data-stock") == "8", "not the last stock seen"
    screenshot(page, "till-offline.png")

    tap(page, "banana")
    tap(page, "kiwi")
    wait_for(page, lambda d: pending(d) == ("2", "offline"), "the two taps are not waiting")

    server.restart()                                         # same ports, same data directory
    wait_for(page, lambda d: pending(d) == ("0", "idle"), "the waiting orders were not sent", timeout=40)
    after = server.stats()
    assert after["sold_banana"] == before["sold_banana"] + 1, "banana not sold exactly once"
    assert after["sold_kiwi"] == before["sold_kiwi"] + 1, "kiwi not sold exactly once"
    assert after["orders_served"] == before["orders_served"] + 2
    wait_for(page, lambda d: attribute(d, "body", "data-stale") == "false", "still stale with the server back", timeout=40)
    wait_for(page, lambda d: attribute(d, '[data-fruit="banana"]', "data-stock") == "6", "the stock did not go live")


def tap_as_mango_sells_out(page, server):
    """One mango juice left; another till takes it in the same task as this till's tap, so the
    tap races the sell-out (no timing involved) and is refused."""
    assert server.send("SET mango 3").startswith("OK SET ")
    wait_for(page, lambda d: attribute(d, '[data-juice="mango"]', "data-can-make") == "1", "mango did not follow")
    page.execute_script("""
        const other = new XMLHttpRequest();
        other.open("POST", "/orders", false);
        other.setRequestHeader("Content-Type", "application/json");
        other.send(JSON.stringify({juice: "mango"}));
        document.querySelector('[data-juice="mango"]').click();""")
    wait_for(page, lambda d: "open" in (attribute(d, "#alert", "class") or ""), "no refusal shown")


def test_out_of_stock_offers_restock_of_the_short_fruit_or_cancel(page, start_server):
    server = start_server()
    open_till(page, server)
    tap_as_mango_sells_out(page, server)
    assert attribute(page, "#alert", "data-code") == "OUT_OF_STOCK"
    assert page.find_element(By.ID, "alert-restock").is_displayed()
    assert page.find_element(By.ID, "alert-ok").text == "Cancel"
    page.find_element(By.ID, "alert-ok").click()             # Cancel: the till as it was
    assert "open" not in (attribute(page, "#alert", "class") or "")
    assert page.current_url.endswith("/till")

    # A second tap within the debounce would be the same tap: wait for the button to stop flashing.
    wait_for(page, lambda d: "tapped" not in (attribute(d, '[data-juice="mango"]', "class") or ""), "the button still flashes")
    tap_as_mango_sells_out(page, server)
    page.find_element(By.ID, "alert-restock").click()        # Restock: the stock editor on mango
    wait_for(page, lambda d: "/stock?fruit=mango" in d.current_url, "Restock did not open the stock editor")
    wait_for(page, lambda d: attribute(d, '[data-fruit="mango"]', "data-asked") == "true", "the editor is not on mango")


def lan_address():
    """This machine's address on its network (not loopback), or None."""
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))     # no packet is sent: it only picks a route
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_over_plain_http_from_another_machine_it_says_once_that_offline_start_needs_https(page, start_server):
    address = lan_address()
    if address is None:
        pytest.skip("this machine has no network address but loopback")
    server = start_server(args=["--host", "0.0.0.0"], token="s3cret")   # off loopback a token is required
    url = "http://%s:%d/till" % (address, server.http_port)    # not a secure context: no service worker
    page.get(url)
    wait_for(page, lambda d: attribute(d, '[data-juice="banana"]', "data-can-make") is not None, "no juice buttons")
    assert page.execute_script("return window.isSecureContext") is False
    note = page.find_element(By.ID, "https-note")
    assert note.is_displayed() and note.text == "offline start needs HTTPS (see the README)"
    page.get(url)                                            # said once: not on every load
    wait_for(page, lambda d: attribute(d, '[data-juice="banana"]', "data-can-make") is not None, "no juice buttons")
    assert not page.find_element(By.ID, "https-note").is_displayed()
    pair(page, code_for(server, "s3cret"))                   # a server with a token sells to paired tills
    tap(page, "banana")                                      # and it sells as ever
    wait_until_sold(page, "Sold 1 \u00d7 banana")
