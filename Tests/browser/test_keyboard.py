"""By keyboard alone (issue 34): a sale on the till and a restock in the stock editor with only
Tab, Enter and Space, and every control the keyboard lands on on the way shows a clear focus
ring of the page's own (a solid outline of at least 2 px, or a box shadow), not the browser's
thin default ring, which is hard to see on these dark pages."""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from conftest import phone_sized, wait_for
from test_dashboard import TOKEN
from test_till import open_till, wait_until_sold

MAX_TABS = 80


def press(driver, *keys):
    chain = ActionChains(driver)
    for key in keys:
        chain.send_keys(key)
    chain.perform()


def focused(driver):
    """The focused element: [tag, id, class, data-juice, the closest row's data-fruit, its ring]."""
    return driver.execute_script("""
        const e = document.activeElement, s = getComputedStyle(e), row = e.closest('[data-fruit]');
        const ring = (s.outlineStyle !== 'none' && s.outlineStyle !== 'auto' && parseFloat(s.outlineWidth) >= 2)
                     || (s.boxShadow && s.boxShadow !== 'none');
        return [e.tagName.toLowerCase(), e.id, e.className, e.dataset.juice || null, row ? row.dataset.fruit : null,
                ring, s.outlineStyle + ' ' + s.outlineWidth + ' ' + s.boxShadow];""")


def tab_to(driver, wanted, what):
    """Presses Tab until `wanted(focused)`; every control passed on the way shows its ring."""
    seen = []
    for _ in range(MAX_TABS):
        press(driver, Keys.TAB)
        now = focused(driver)
        seen.append(now)
        if now[0] == "body":
            continue       # past the page's last control, the focus is in the browser's own bar
        assert now[5], "no visible focus ring on %s (outline/box-shadow: %s)" % (now[:5], now[6])
        if wanted(now):
            return now
    raise AssertionError("Tab never reached %s; it went through:\n%s" % (what, "\n".join(map(str, seen))))


def test_a_sale_on_the_till_by_keyboard_alone(page, start_server):
    server = start_server()
    before = server.stats()
    open_till(page, server)
    # The page as the keyboard finds it: nothing focused yet.
    page.execute_script("document.activeElement && document.activeElement.blur();")

    tab_to(page, lambda f: f[1] == "count-plus", "the count's +")
    press(page, Keys.SPACE)                                       # two
    wait_for(page, lambda d: d.find_element("id", "count").text == "2", "Space on + did not count up")
    tab_to(page, lambda f: f[3] == "banana", "the banana juice")
    press(page, Keys.ENTER)
    wait_until_sold(page, "Sold 2 \u00d7 banana")
    after = server.stats()
    assert after["orders_served"] == before["orders_served"] + 1, (before, after)

    # Space sells too: the next juice along.
    stock = server.stock()
    tab_to(page, lambda f: f[3] == "kiwi", "the kiwi juice")
    press(page, Keys.SPACE)
    wait_for(page, lambda d: server.stock()["kiwi"] < stock["kiwi"], "Space on kiwi did not sell one")
    assert server.stats()["orders_served"] == before["orders_served"] + 2


def test_a_restock_in_the_stock_editor_by_keyboard_alone(page, start_server):
    server = start_server(token=TOKEN)
    phone_sized(page)
    page.get(server.url + "/stock")
    wait_for(page, lambda d: d.execute_script(
        "const e = document.getElementById('token'); return e && e.offsetParent !== null;"), "no token prompt")
    page.execute_script("document.activeElement && document.activeElement.blur();")
    before = server.stock()["mango"]

    tab_to(page, lambda f: f[1] == "token", "the token field")
    press(page, TOKEN, Keys.ENTER)
    wait_for(page, lambda d: d.execute_script(
        "const e = document.querySelector('[data-fruit=\"mango\"] .add'); return e && e.offsetParent !== null;"),
        "the editor did not open after the token and Enter")

    tab_to(page, lambda f: f[4] == "mango" and "plus" in f[2], "mango's +")
    press(page, Keys.SPACE, Keys.ENTER, Keys.SPACE)               # 3
    wait_for(page, lambda d: d.execute_script("return document.querySelector('[data-fruit=\"mango\"] .amount').value;") == "3",
             "Space and Enter on + did not count up to 3")
    tab_to(page, lambda f: f[4] == "mango" and "add" in f[2].split(), "mango's Add")
    press(page, Keys.ENTER)
    wait_for(page, lambda d: server.stock()["mango"] == before + 3, "Enter on Add did not restock 3 mango")
