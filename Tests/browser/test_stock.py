"""The stock editor (GET /stock) in a real browser: it asks for the manager token once, "Add"
and "Set to" change the stock (the board in a second window follows), and a wrong token is
refused; with a token configured the till still sells without one."""
from selenium.webdriver.common.by import By

from conftest import (attribute, board_in_second_window, menu_with_par, phone_sized, restart_unarmed, screenshot,
                      wait_for, wait_until_killed_after_sync)
from test_board import wait_for_stock
from test_dashboard import enter_token
from test_till import open_till, tap, wait_until_sold
from test_tills import code_for, pair

TOKEN = "browser-test-token"


def row(driver, fruit, part):
    return driver.find_element(By.CSS_SELECTOR, '[data-fruit="%s"] .%s' % (fruit, part))


def wait_for_result(driver, fruit, kind, message):
    """Waits for `fruit`'s row to show a result of `kind` (`ok`, `error`, `waiting`)."""
    wait_for(driver, lambda d: attribute(d, '[data-fruit="%s"] .result' % fruit, "data-kind") == kind, message)


def open_stock(driver, server):
    phone_sized(driver)
    driver.get(server.url + "/stock")
    wait_for(driver, lambda d: attribute(d, '[data-fruit="mango"]', "data-stock") is not None, "no fruit rows")


def test_add_and_set_change_the_stock_and_the_board_follows(page, start_server):
    server = start_server(token=TOKEN)
    stock_window, board_window = board_in_second_window(page, server)

    open_stock(page, server)
    enter_token(page, TOKEN)
    wait_for(page, lambda d: row(d, "mango", "add").is_displayed(), "the editor did not show after the token")
    for _ in range(5):
        row(page, "mango", "plus").click()
    assert row(page, "mango", "amount").get_attribute("value") == "5"
    row(page, "mango", "add").click()
    wait_for_result(page, "mango", "ok", "Add was not answered")
    assert row(page, "mango", "result").text.startswith("Added 5: now 15")
    assert server.stock()["mango"] == 15
    wait_for_stock(page, {"mango": 15}, "the editor's own stock did not follow")
    page.switch_to.window(board_window)
    wait_for_stock(page, {"mango": 15}, "the board did not show +5 mango")
    page.switch_to.window(stock_window)

    amount = row(page, "kiwi", "amount")
    amount.clear()
    amount.send_keys("3")
    row(page, "kiwi", "set").click()
    wait_for_result(page, "kiwi", "ok", "Set to was not answered")
    assert row(page, "kiwi", "result").text.startswith("Set to 3: now 3")
    assert server.stock()["kiwi"] == 3
    # A refusal is shown beside its fruit: above 1,000,000,000 is OVER_LIMIT.
    amount = row(page, "banana", "amount")
    amount.clear()
    amount.send_keys("999999999")
    row(page, "banana", "add").click()
    wait_for_result(page, "banana", "error", "no refusal shown")
    assert "OVER_LIMIT" in row(page, "banana", "result").text
    assert server.stock()["banana"] == 10
    assert page.execute_script("return window.localStorage.getItem('juice-manager-token');") is None
    page.execute_script("window.scrollTo(0, 0);")
    screenshot(page, "stock.png")

    # The till needs no manager token, though the server has one: it is paired once with a code.
    open_till(page, server)
    pair(page, code_for(server, TOKEN))
    tap(page, "banana")
    wait_until_sold(page, "Sold 1 \u00d7 banana")


def test_a_wrong_token_is_refused(page, start_server):
    server = start_server(token=TOKEN)
    open_stock(page, server)
    enter_token(page, "not-" + TOKEN)
    wait_for(page, lambda d: "not accepted" in d.find_element(By.ID, "auth-error").text, "no error for a wrong token")
    assert page.find_element(By.ID, "token").is_displayed(), "it asks again"
    assert not row(page, "mango", "add").is_displayed(), "no editing without the right token"

    # A token that stops being right while the tab is open (rotated: the server restarted with
    # another) is refused on the write itself, shown beside the fruit, and asked for again.
    enter_token(page, TOKEN)
    wait_for(page, lambda d: row(d, "mango", "add").is_displayed(), "the right token did not open the editor")
    server.stop()
    server.env["JUICE_MANAGER_TOKEN"] = "rotated-" + TOKEN
    server.restart()
    wait_for(page, lambda d: attribute(d, "#conn", "data-state") == "live", "the page did not come back")
    row(page, "mango", "plus").click()
    row(page, "mango", "add").click()
    wait_for_result(page, "mango", "error", "the write was not refused")
    assert "Not done" in row(page, "mango", "result").get_attribute("textContent")
    wait_for(page, lambda d: "not accepted" in d.find_element(By.ID, "auth-error").text, "it did not ask again")
    assert server.stock()["mango"] == 10, "nothing changed"


def test_without_a_token_the_editor_opens_and_says_so(page, start_server):
    server = start_server()
    open_stock(page, server)
    wait_for(page, lambda d: "no manager token" in d.find_element(By.ID, "mode").text, "it did not say it is open")
    assert not page.find_element(By.ID, "token").is_displayed()
    row(page, "pineapple", "plus").click()
    row(page, "pineapple", "add").click()
    wait_for_result(page, "pineapple", "ok", "Add was not answered")
    assert server.stock()["pineapple"] == 11


def test_an_add_whose_answer_was_lost_is_retried_with_its_key_and_added_once(page, start_server, tmp_path):
    """The server dies right after its journal sync, before the answer leaves (the debug build's
    JUICE_TEST_KILL_AFTER_SYNC hook, armed by a file): the restock is on disk, the editor never
    heard. It sends the same write again with the same key until the restarted server answers,
    with the first answer: the delivery is added once, not twice."""
    trigger = tmp_path / "kill-after-sync"
    server = start_server(data=True, env={"JUICE_TEST_KILL_AFTER_SYNC": str(trigger)})
    open_stock(page, server)
    wait_for(page, lambda d: "no manager token" in d.find_element(By.ID, "mode").text, "the editor did not open")
    amount = row(page, "mango", "amount")
    amount.clear()
    amount.send_keys("5")
    trigger.touch()
    row(page, "mango", "add").click()
    wait_until_killed_after_sync(page, server)
    wait_for_result(page, "mango", "waiting", "the editor did not say it is trying again")
    assert not row(page, "mango", "add").is_enabled(), "a second click could send a second write"

    restart_unarmed(server, trigger)
    wait_for_result(page, "mango", "ok", "the retry was not answered")
    text = row(page, "mango", "result").text
    assert text.startswith("Added 5: now 15") and "applied once" in text, text
    stats = server.stats()
    assert server.stock()["mango"] == 15, "added twice"
    assert stats["seq"] == 1 and stats["keys"] == 1


def test_fill_to_par_a_second_tap_after_the_first_answer_was_lost_adds_nothing(
        page, start_server, juice_server_command, tmp_path):
    """Fill to par adds par minus the stock shown at the tap, with an idempotency key. The server
    dies right after the restock's sync (JUICE_TEST_KILL_AFTER_SYNC), so its answer is lost: the
    button stays disabled while the editor retries with the same key, and once answered the row
    shows the stock at par, so a second tap adds nothing."""
    trigger = tmp_path / "kill-after-sync"
    menu = menu_with_par(juice_server_command, tmp_path, {"mango": 25})
    server = start_server(data=True, env={"JUICE_TEST_KILL_AFTER_SYNC": str(trigger)}, args=["--menu", menu])
    open_stock(page, server)
    wait_for(page, lambda d: "no manager token" in d.find_element(By.ID, "mode").text, "the editor did not open")
    assert row(page, "mango", "par").text == "par 25"
    assert not page.find_elements(By.CSS_SELECTOR, '[data-fruit="kiwi"] .fill-par'), "kiwi has no par"
    wait_for(page, lambda d: attribute(d, '[data-fruit="mango"]', "data-fill") == "15", "par 25 - 10 in stock")
    # The difference follows the live stock: a mango juice takes 3 mangoes.
    assert server.send("ORDER mango 1").startswith("OK ORDER mango 1 seq=1 ")
    wait_for(page, lambda d: attribute(d, '[data-fruit="mango"]', "data-fill") == "18", "the difference did not follow")
    assert row(page, "mango", "fill-par").text == "Fill to par (+18)"

    trigger.touch()
    fill = row(page, "mango", "fill-par")
    wait_for(page, lambda d: fill.is_enabled(), "Fill to par is not offered")
    fill.click()
    wait_until_killed_after_sync(page, server)
    wait_for_result(page, "mango", "waiting", "the editor did not say it is trying again")
    assert not fill.is_enabled(), "a second tap could send a second write"
    page.execute_script("arguments[0].click();", fill)    # the impatient second tap: nothing happens

    restart_unarmed(server, trigger)
    wait_for_result(page, "mango", "ok", "the retry was not answered")
    text = row(page, "mango", "result").text
    assert text.startswith("Filled to par: added 18: now 25") and "applied once" in text, text
    assert attribute(page, '[data-fruit="mango"]', "data-fill") == "0"
    wait_for(page, lambda d: fill.is_enabled(), "the button did not come back")
    fill.click()                                            # the second tap, after the answer
    wait_for(page, lambda d: "Already at par" in row(d, "mango", "result").text, "the second tap said nothing")
    assert row(page, "mango", "result").text == "Already at par (25 of 25): nothing added."
    stats = server.stats()
    assert server.stock()["mango"] == 25, "added twice"
    assert stats["seq"] == 2 and stats["keys"] == 1, stats


def test_below_a_quarter_of_par_is_low_as_on_the_board_and_above_par_says_so(
        page, start_server, juice_server_command, tmp_path):
    """The board's rule for low stock (under a quarter of par, shared/live-stock.js): kiwi at 1
    of par 40 is low here too, not green (once only 0 was marked). The par button reads "At par"
    at par and "Above par" above it; with ?lang=ko, in Korean."""
    server = start_server(args=["--menu", menu_with_par(juice_server_command, tmp_path, {"kiwi": 40})])
    open_stock(page, server)
    wait_for(page, lambda d: "no manager token" in d.find_element(By.ID, "mode").text, "the editor did not open")
    kiwi = '[data-fruit="kiwi"]'
    assert attribute(page, kiwi, "data-level") == "ok", "10 is a quarter of 40, not under it"
    assert server.send("SET kiwi 9").startswith("OK SET ")   # still enough for every recipe: low by par alone
    wait_for(page, lambda d: attribute(d, kiwi, "data-level") == "low", "kiwi 9 of par 40 is not marked low")
    assert server.send("SET kiwi 1").startswith("OK SET ")
    wait_for(page, lambda d: attribute(d, kiwi, "data-stock") == "1", "the editor did not follow")
    wait_for(page, lambda d: attribute(d, kiwi, "data-level") == "low", "kiwi 1 of par 40 is not marked low")
    assert "low" in attribute(page, kiwi, "class").split(), "not the board's class"
    assert row(page, "kiwi", "low-tag").is_displayed() and row(page, "kiwi", "low-tag").text == "low"
    color = page.execute_script("return getComputedStyle(arguments[0]).color;", row(page, "kiwi", "now").find_element(By.TAG_NAME, "b"))
    assert color == "rgb(255, 176, 32)", "not the low colour: %s" % color
    assert attribute(page, '[data-fruit="mango"]', "data-level") == "ok"
    assert row(page, "kiwi", "fill-par").text == "Fill to par (+39)"
    # The board, on the same stock, agrees.
    page.get(server.url + "/")
    wait_for(page, lambda d: "low" in (attribute(d, kiwi, "class") or "").split(), "the board does not say low")

    assert server.send("SET kiwi 0").startswith("OK SET ")
    open_stock(page, server)
    wait_for(page, lambda d: attribute(d, kiwi, "data-level") == "out", "none left is not out")
    assert not row(page, "kiwi", "low-tag").is_displayed()
    assert server.send("SET kiwi 40").startswith("OK SET ")
    wait_for(page, lambda d: row(d, "kiwi", "fill-par").text == "At par", "at par")
    assert attribute(page, kiwi, "data-level") == "ok"
    assert server.send("SET kiwi 45").startswith("OK SET ")
    wait_for(page, lambda d: row(d, "kiwi", "fill-par").text == "Above par", "above par still reads At par")
    wait_for(page, lambda d: row(d, "kiwi", "fill-par").is_enabled(), "the button did not come up")
    row(page, "kiwi", "fill-par").click()
    wait_for(page, lambda d: row(d, "kiwi", "result").text == "Above par (45 of 40): nothing added.", "no word on the tap")

    page.get(server.url + "/stock?lang=ko")
    wait_for(page, lambda d: attribute(d, kiwi, "data-stock") == "45", "no fruit rows in Korean")
    wait_for(page, lambda d: row(d, "kiwi", "fill-par").text == "기준 초과", "Above par is not Korean")
    assert row(page, "kiwi", "par").text == "기준 40"
    assert server.send("SET kiwi 1").startswith("OK SET ")
    wait_for(page, lambda d: row(d, "kiwi", "low-tag").text == "부족", "low is not Korean")
    assert row(page, "kiwi", "fill-par").text == "기준까지 채우기 (+39)"
