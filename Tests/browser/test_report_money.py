"""Money on the manager's pages (issue 33), against the real server: /reports shows takings, lost
revenue and voids per day, per juice (beside a week earlier), per hour and per short fruit, each
equal to REPORT read over the line protocol; the manager voids a sale of today from /reports and
it shows as voided, with the takings following; the dashboard shows today's takings and voids;
a menu without prices shows no money. Every wait is a deadline, never a sleep."""
from selenium.webdriver.common.by import By

from conftest import attribute, wait_for
from test_dashboard import TOKEN, enter_token, order_as_manager
from test_till_money import menu_without_prices, report


def open_report(driver, server, token=None):
    driver.get(server.url + "/reports")
    if token:
        enter_token(driver, token)
    wait_for(driver, lambda d: attribute(d, "#report", "data-state") == "shown", "the report did not show")


def rows(driver, selector):
    """Each element matching selector as {data attribute: value}, read at once (the live report
    redraws its tables, so elements found one by one may be gone by the next read)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => Object.assign({}, e.dataset));", selector)


def amount(driver, selector):
    value = attribute(driver, selector, "data-amount")
    return int(value) if value not in (None, "") else None


def sell_a_day(server):
    """Sales, a refusal for short fruit, and a void, over the line protocol: the day REPORT reads."""
    assert server.send("ORDER mango-kiwi 2").startswith("OK ORDER mango-kiwi 2 ")     # 11,000
    banana = server.send("ORDER banana 1")                                             # 4,000, voided below
    assert banana.startswith("OK ORDER banana 1 "), banana
    assert server.send("ORDER kiwi 1").startswith("OK ORDER kiwi 1 ")                  # 4,500
    assert server.send("ORDER strawberry 1").startswith("ERR OUT_OF_STOCK")            # 6,000 lost: strawberry
    assert server.send("ORDER mango 3").startswith("ERR OUT_OF_STOCK")                 # 15,000 lost: mango
    seq = banana.split("seq=")[1].split()[0]
    assert server.send("VOID %s wrong-juice" % seq).startswith("OK VOID banana 1 ")


def test_the_report_shows_takings_and_lost_revenue_equal_to_REPORT(page, start_server):
    server = start_server(still_clock=True)
    sell_a_day(server)
    got = report(server)
    assert (got["takings"], got["lost_revenue"], got["voids"]) == (15500, 21000, 1), got
    open_report(page, server)
    wait_for(page, lambda d: amount(d, "#takings") == got["takings"], "the takings tile is not REPORT's")
    assert page.find_element(By.ID, "takings").text == "\u20a915,500"
    assert amount(page, "#lost-revenue") == got["lost_revenue"]
    assert attribute(page, "#voids", "data-count") == str(got["voids"])
    assert amount(page, "#voids") == got["voided_amount"]
    juices = rows(page, "#money-juices tr[data-juice]")
    assert len(juices) == 7
    for row in juices:
        juice = row["juice"]
        assert int(row["takings"]) == got["takings_" + juice], juice
        assert int(row["lostRevenue"]) == got["lost_revenue_" + juice], juice
        assert row["weekTakings"] == "0" and row["weekLostRevenue"] == "0", row
    for row in rows(page, "#juices tr[data-juice]"):
        assert int(row["voided"]) == got["voided_" + row["juice"]], row
    fruits = rows(page, "#money-fruits tr[data-fruit]")
    assert len(fruits) == 5
    for row in fruits:
        assert int(row["lostRevenue"]) == got["lost_revenue_by_" + row["fruit"]], row
    # Mango's refusal lost 15,000, strawberry's 6,000: mango is the fruit to order more of.
    assert attribute(page, "#costliest", "data-fruit") == "mango"
    assert "\u20a915,000" in page.find_element(By.ID, "costliest").text
    hours = rows(page, "#money-hours tr[data-hour]")
    assert hours, "no hour in the money table"
    assert sum(int(h["takings"]) for h in hours) == got["takings"]
    assert sum(int(h["lostRevenue"]) for h in hours) == got["lost_revenue"]
    assert sum(int(h["voids"]) for h in hours) == got["voids"]


def test_the_manager_voids_a_sale_from_the_report(page, start_server):
    server = start_server(token=TOKEN, still_clock=True)
    order_as_manager(server, "ORDER banana 2")                                        # 8,000
    sale = order_as_manager(server, "ORDER mango-kiwi 1")                             # 5,500, voided below
    seq = sale.split("seq=")[1].split()[0]
    open_report(page, server, TOKEN)
    row = '#sales tr[data-sale="%s"]' % seq
    wait_for(page, lambda d: attribute(d, row, "data-voided") == "", "today's sales do not list the sale")
    assert attribute(page, row, "data-amount") == "5500"
    assert amount(page, "#takings") == 13500
    page.find_element(By.CSS_SELECTOR, row + " button.void").click()
    wait_for(page, lambda d: attribute(d, "#void-dialog", "hidden") is None, "the void dialog did not open")
    assert "#" + seq in page.find_element(By.ID, "void-text").text
    page.find_element(By.CSS_SELECTOR, '#void-dialog [data-reason="customer-left"]').click()
    wait_for(page, lambda d: attribute(d, row, "data-voided") not in (None, ""), "the sale does not show as voided")
    assert "voided" in page.find_element(By.CSS_SELECTOR, row).text
    got = report(server, TOKEN)
    assert (got["voids"], got["takings"], got["voided_mango-kiwi"]) == (1, 8000, 1), got
    wait_for(page, lambda d: amount(d, "#takings") == got["takings"], "the takings did not follow the void")
    wait_for(page, lambda d: attribute(d, "#voids", "data-count") == "1", "the voids tile did not follow")
    assert not page.find_elements(By.CSS_SELECTOR, row + " button.void"), "a voided sale can be voided again"
    assert server.stock()["mango"] == 10 and server.stock()["kiwi"] == 10, "the fruit did not come back"


def test_the_dashboard_shows_todays_takings_and_voids(page, start_server):
    server = start_server(still_clock=True)
    sell_a_day(server)
    got = report(server)
    page.get(server.url + "/dashboard")
    wait_for(page, lambda d: amount(d, "#takings") == got["takings"], "the dashboard's takings are not REPORT's")
    assert page.find_element(By.ID, "takings").text == "\u20a915,500"
    assert amount(page, "#lost-revenue") == got["lost_revenue"]
    assert attribute(page, "#voids", "data-count") == "1"
    assert server.send("ORDER pineapple 1").startswith("OK ORDER")                   # live: 4,500 more
    wait_for(page, lambda d: amount(d, "#takings") == got["takings"] + 4500, "the dashboard's takings did not follow")


def test_a_menu_without_prices_shows_no_money_on_the_report(page, start_server, juice_server_command, tmp_path):
    server = start_server(args=["--menu", menu_without_prices(juice_server_command, tmp_path)], still_clock=True)
    sell_a_day(server)
    open_report(page, server)
    wait_for(page, lambda d: attribute(d, "#voids", "data-count") == "1", "the voids tile is not shown without prices")
    assert attribute(page, "#takings-tile", "hidden") is not None
    assert attribute(page, "#money-panel", "hidden") is not None
    wait_for(page, lambda d: d.find_elements(By.CSS_SELECTOR, "#sales tr[data-sale]"), "no sales listed")
    assert not page.find_elements(By.CSS_SELECTOR, "#sales tr[data-amount]")
    body = page.find_element(By.TAG_NAME, "body").text
    assert "\u20a9" not in body and "takings" not in body.lower(), body
    page.get(server.url + "/dashboard")
    wait_for(page, lambda d: attribute(d, "#voids", "data-count") == "1", "the dashboard shows no voids")
    assert attribute(page, "#takings-tile", "hidden") is not None
    assert "\u20a9" not in page.find_element(By.TAG_NAME, "body").text
