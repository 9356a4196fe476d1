"""The board page (GET /) in a real browser: it shows the stock, follows changes made over TCP
without a reload, marks sold-out juices, and survives a server restart by itself."""
import json

from selenium.webdriver.common.by import By

from conftest import attribute, console_errors, menu_with_par, screenshot, wait_for


def open_board(driver, server, query=""):
    driver.get(server.url + "/" + query)
    # A marker that a reload would wipe: every later check also proves "without a reload".
    driver.execute_script("window.__sameDocument = true;")
    wait_for(driver, lambda d: attribute(d, "#conn", "data-state") == "live", "the board never went live")


def same_document(driver):
    return driver.execute_script("return window.__sameDocument === true;")


def shown_stock(driver):
    return driver.execute_script(
        "const o = {}; for (const e of document.querySelectorAll('[data-fruit]')) o[e.dataset.fruit] = e.dataset.stock; return o;")


def wait_for_stock(driver, expected, message):
    want = {k: str(v) for k, v in expected.items()}
    wait_for(driver, lambda d: {k: shown_stock(d).get(k) for k in want} == want,
             "%s: wanted %s, page shows %s" % (message, want, shown_stock(driver)))


def test_board_shows_the_current_stock(page, start_server):
    server = start_server()
    server.send("ORDER mango-kiwi 2")         # so the stock is not just the initial 10 everywhere
    expected = server.stock()
    open_board(page, server)
    wait_for_stock(page, expected, "the board does not show STOCK's values")
    assert sorted(shown_stock(page)) == sorted(expected), "one element per fruit of the menu"
    # can_make follows the recipes: mango-kiwi takes 2 mango + 1 kiwi, with 6 mango and 8 kiwi left.
    assert attribute(page, '[data-juice="mango-kiwi"]', "data-can-make") == "3"
    assert len(page.find_elements(By.CSS_SELECTOR, "[data-juice]")) == 7
    # Both names by default.
    text = page.find_element(By.CSS_SELECTOR, '[data-juice="strawberry-banana"]').text
    assert "strawberry-banana" in text and "딸바쥬스" in text


def test_an_order_over_tcp_shows_without_a_reload(page, start_server):
    server = start_server()
    open_board(page, server)
    wait_for_stock(page, {"banana": 10}, "initial stock")
    reply = server.send("ORDER banana 3")      # 3 banana juices take 6 bananas
    assert reply.startswith("OK ORDER banana 3 "), reply
    wait_for_stock(page, {"banana": 4}, "the order did not show")
    wait_for(page, lambda d: attribute(d, '[data-juice="banana"]', "data-can-make") == "2",
             "banana juice's can-make did not follow")
    assert same_document(page), "the page reloaded"


def test_a_juice_that_runs_out_shows_sold_out(page, start_server):
    server = start_server()
    open_board(page, server)
    # Strawberry juice needs 16 strawberries; the store starts with 10: sold out from the start.
    card = '[data-juice="strawberry"]'
    assert attribute(page, card, "data-can-make") == "0"
    assert "SOLD OUT" in page.find_element(By.CSS_SELECTOR, card).text
    # Mango juice needs 3: 10 mangoes make 3, then it is gone.
    assert "SOLD OUT" not in page.find_element(By.CSS_SELECTOR, '[data-juice="mango"]').text
    assert server.send("ORDER mango 3").startswith("OK ORDER mango 3 ")
    wait_for(page, lambda d: attribute(d, '[data-juice="mango"]', "data-can-make") == "0",
             "mango juice did not sell out")
    wait_for(page, lambda d: "SOLD OUT" in d.find_element(By.CSS_SELECTOR, '[data-juice="mango"]').text,
             "no SOLD OUT text on mango juice")
    # One mango left: mango-kiwi (2 mango) is gone too; the mango bar is flagged low.
    assert attribute(page, '[data-juice="mango-kiwi"]', "data-can-make") == "0"
    assert "low" in (attribute(page, '[data-fruit="mango"]', "class") or "")
    assert same_document(page)
    server.send("ORDER kiwi 2")
    server.send("ORDER banana 4")
    wait_for_stock(page, {"kiwi": 4, "banana": 2}, "later orders did not show")
    screenshot(page, "board.png")


def test_korean_names_and_sold_out_with_lang_ko(page, start_server):
    server = start_server()
    open_board(page, server, "?lang=ko")
    card = page.find_element(By.CSS_SELECTOR, '[data-juice="strawberry"]')
    assert "딸기쥬스" in card.text and "품절" in card.text
    assert "SOLD OUT" not in card.text
    assert "망키쥬스" in page.find_element(By.CSS_SELECTOR, '[data-juice="mango-kiwi"]').text
    assert "바나나" in page.find_element(By.CSS_SELECTOR, '[data-fruit="banana"]').text
    assert server.send("ORDER 망고쥬스 3").startswith("OK ORDER mango 3 ")
    wait_for(page, lambda d: "품절" in d.find_element(By.CSS_SELECTOR, '[data-juice="mango"]').text,
             "mango juice did not show 품절")


def test_the_board_follows_a_server_restart_without_a_reload(page, start_server):
    server = start_server(data=True)
    open_board(page, server)
    assert server.send("ORDER pineapple 1").startswith("OK ORDER pineapple 1 ")
    wait_for_stock(page, {"pineapple": 8}, "the order before the restart did not show")

    server.stop()
    wait_for(page, lambda d: attribute(d, "#conn", "data-state") == "reconnecting",
             "the board did not notice the server went away")
    assert page.find_element(By.ID, "conn").text == "reconnecting"

    server.restart()                          # same ports, same --data directory
    assert server.stock()["pineapple"] == 8, "the data directory kept the stock"
    assert server.send("ORDER pineapple 2").startswith("OK ORDER pineapple 2 ")
    wait_for_stock(page, {"pineapple": 4}, "a change after the restart did not show")
    wait_for(page, lambda d: attribute(d, "#conn", "data-state") == "live", "the board did not go live again")
    assert page.find_element(By.ID, "conn").text == "live"
    assert same_document(page), "the page reloaded"


STANDARD_MENU = {
    "fruits": [{"name": n, "aliases": [a]} for n, a in
               [("strawberry", "딸기"), ("banana", "바나나"), ("pineapple", "파인애플"), ("kiwi", "키위"), ("mango", "망고")]],
    "juices": [{"name": "banana", "aliases": ["바나나쥬스"], "recipe": [{"fruit": "banana", "amount": 2}]}],
}


def test_the_board_follows_a_new_menu_after_a_restart(page, start_server, tmp_path):
    """The shop restarts the server with a menu that adds a fruit and a juice: the open board
    shows them without a reload (nothing is hard-coded in the page)."""
    server = start_server(data=True)
    open_board(page, server)
    assert len(page.find_elements(By.CSS_SELECTOR, "[data-juice]")) == 7

    menu = dict(STANDARD_MENU)
    menu["fruits"] = STANDARD_MENU["fruits"] + [{"name": "lemon", "aliases": ["레몬"], "initial_stock": 9}]
    menu["juices"] = STANDARD_MENU["juices"] + [
        {"name": "lemonade", "aliases": ["레모네이드"], "recipe": [{"fruit": "lemon", "amount": 4}]}]
    path = tmp_path / "menu.json"
    path.write_text(json.dumps(menu, ensure_ascii=False), encoding="utf-8")

    server.stop()
    wait_for(page, lambda d: attribute(d, "#conn", "data-state") == "reconnecting", "the board did not notice")
    server.extra_args = ["--menu", str(path)]
    server.restart()
    wait_for(page, lambda d: attribute(d, '[data-juice="lemonade"]', "data-can-make") is not None,
             "the new juice did not show")
    assert len(page.find_elements(By.CSS_SELECTOR, "[data-juice]")) == 2, "the old juices went away"
    assert server.send("ORDER lemonade 1").startswith("OK ORDER lemonade 1 ")
    wait_for(page, lambda d: attribute(d, '[data-fruit="lemon"]', "data-stock") == "5", "lemon's stock did not show")
    assert attribute(page, '[data-juice="lemonade"]', "data-can-make") == "1"
    assert same_document(page), "the page reloaded"


def test_the_pages_load_with_no_console_error(page, start_server):
    """No favicon.ico 404 (the pages carry an inline icon) and no script error, on either page."""
    server = start_server()
    for path in ("/", "/dashboard", "/reports"):
        page.get("about:blank")
        console_errors(page)      # empties the log
        page.get(server.url + path)
        wait_for(page, lambda d: attribute(d, "#conn", "data-state") == "live",
                 "%s never started" % path)
        # The icon request, if any, is made as the page loads; the log is read after it is live.
        assert console_errors(page) == [], "%s: %s" % (path, console_errors(page))


def classes(driver, selector):
    return (attribute(driver, selector, "class") or "").split()


def test_a_fruit_under_a_quarter_of_its_par_shows_low(page, start_server, juice_server_command, tmp_path):
    """With a par, a fruit is low below a quarter of it; a fruit without one keeps the old rule
    (low only when some recipe can no longer be made from it)."""
    server = start_server(args=["--menu", menu_with_par(juice_server_command, tmp_path, {"kiwi": 40})])
    open_board(page, server)
    wait_for_stock(page, {"kiwi": 10, "mango": 10}, "initial stock")
    assert "low" not in classes(page, '[data-fruit="kiwi"]'), "10 is a quarter of 40, not below it"
    assert server.send("ORDER kiwi 1").startswith("OK ORDER kiwi 1 ")      # 3 kiwis: 7 left
    assert server.send("ORDER mango 1").startswith("OK ORDER mango 1 ")    # 3 mangoes: 7 left
    wait_for_stock(page, {"kiwi": 7, "mango": 7}, "the orders did not show")
    wait_for(page, lambda d: "low" in classes(d, '[data-fruit="kiwi"]'), "kiwi under a quarter of its par is not low")
    assert "low" not in classes(page, '[data-fruit="mango"]'), "mango has no par and can still make every juice"
