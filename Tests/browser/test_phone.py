"""Every page on a phone (issue 34): at 360 and 412 CSS pixels wide, in English and Korean, no
page scrolls sideways (a wide table scrolls in its own box); the report's charts carry a scale,
its "ran out" mark stands under its own hour only, and its 30-day trend opens on the day shown."""

import datetime

from conftest import attribute, wait_for
from test_reports import TODAY, open_reports, start_shop, wait_shown

PAGES = ["/", "/till", "/dashboard", "/reports", "/stock", "/tills"]


def phone(driver, width):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 800, "deviceScaleFactor": 2, "mobile": True})


def a_day_of_sales(server, clock):
    """Thirty days back a kiwi juice; today a morning's sales and a sell-out at 10:00 only."""
    clock.set(TODAY - datetime.timedelta(days=29), "12:00")
    assert server.send("ORDER kiwi 1").startswith("OK ORDER")
    clock.set(TODAY, "10:20")
    for line in ["ORDER mango-kiwi 2", "ORDER strawberry 1", "ORDER strawberry-banana 1", "ORDER banana 2",
                 "ORDER pineapple 2", "ORDER mango 1", "ORDER banana 10"]:
        assert server.send(line).startswith(("OK ORDER", "ERR OUT_OF_STOCK")), line


def drawn(driver, path):
    """The page shows its data: the tills page its list, the dashboard its live figures (it
    opens its stream once they are drawn), the others their fruit or juices."""
    if path == "/tills":
        return attribute(driver, "#page", "data-state") == "shown"
    if path == "/dashboard":
        return attribute(driver, "#conn", "data-state") == "live"
    return driver.find_elements("css selector", "[data-fruit], [data-juice], #auth, .empty-note")


def sideways(driver, width):
    """What sticks out past the screen, outside any box that scrolls or clips it, or []."""
    return driver.execute_script("""
        const width = arguments[0], out = [];
        if (document.documentElement.scrollWidth > width || window.innerWidth > width)
          out.push('page ' + document.documentElement.scrollWidth + ' wide, viewport ' + window.innerWidth);
        for (const e of document.querySelectorAll('body *')) {
          const r = e.getBoundingClientRect();
          if (!(r.width > 0 && r.right > width + 0.5)) continue;
          let clipped = false;
          for (let p = e.parentElement; p && !clipped; p = p.parentElement)
            clipped = ['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX);
          if (!clipped) out.push(e.tagName + '#' + e.id + '.' + e.className + ' to ' + Math.round(r.right));
        }
        return out.slice(0, 5);""", width)


def test_no_page_scrolls_sideways_on_a_phone(page, start_server, tmp_path):
    server, clock = start_shop(start_server, tmp_path)
    a_day_of_sales(server, clock)
    for width in (360, 412):
        phone(page, width)
        for path in PAGES:
            for query in ("", "?lang=ko"):
                page.get(server.url + path + query)
                # Drawn: the page's own data is in (the report's day, the others' live stock).
                if path == "/reports":
                    wait_shown(page, TODAY)
                else:
                    wait_for(page, lambda d: d.execute_script("return document.readyState") == "complete", "not loaded")
                    wait_for(page, lambda d: drawn(d, path), "%s did not draw" % path)
                assert sideways(page, width) == [], "%s%s at %d px" % (path, query, width)


def test_the_report_charts_have_a_scale_and_the_trend_opens_on_the_day(page, start_server, tmp_path):
    server, clock = start_shop(start_server, tmp_path)
    a_day_of_sales(server, clock)
    phone(page, 360)
    open_reports(page, server)
    wait_shown(page, TODAY)
    # The hour chart: one active hour, 10:00; its tallest bar is the 12 bananas lost or the sold.
    cols = page.execute_script(
        "return Array.from(document.querySelectorAll('#hours .hour'), e => [e.dataset.hour, Number(e.dataset.sold), Number(e.dataset.lost), e.dataset.ranOut]);")
    assert len(cols) == 1 and cols[0][0] == "10:00" and cols[0][3], cols
    top = max(cols[0][1], cols[0][2])
    assert attribute(page, "#hours", "data-max") == str(top)
    scale = page.execute_script("const s = document.getElementById('hours').previousElementSibling; return s && s.classList.contains('scale') ? s.textContent : '';")
    assert str(top) in scale, scale
    # Its "ran out" mark is under the bars, not the whole width of the column that fills the chart.
    mark = page.execute_script("""
        const bars = document.querySelector('#hours .hour .bars'), after = getComputedStyle(bars, '::after');
        return [bars.getBoundingClientRect().width, getComputedStyle(bars).borderBottomWidth, after.borderBottomWidth, parseFloat(after.width)];""")
    assert mark[1] != "3px" and mark[2] == "3px" and mark[3] <= 60 < mark[0], mark
    # The 30-day trend: today is the last bar, in view without scrolling.
    seen = page.execute_script("""
        const box = document.getElementById('trend'), days = box.querySelectorAll('.day'), last = days[days.length - 1];
        const b = box.getBoundingClientRect(), r = last.getBoundingClientRect();
        return [last.dataset.date, box.scrollWidth > box.clientWidth, r.left >= b.left - 1 && r.right <= b.right + 1];""")
    assert seen[0] == TODAY.isoformat() and seen[1] and seen[2], seen
    scale = page.execute_script("return document.getElementById('trend').previousElementSibling.textContent;")
    assert attribute(page, "#trend", "data-max") in scale
