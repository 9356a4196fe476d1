"""The day report (GET /reports) in a real browser, against the real server with its test clock
(JUICE_TEST_CLOCK, a debug build's: "now" is the number in that file): today's chart grows when
the till sells in another window, a past day with a sell-out shows the hour it ran out, and a
wrong manager token is refused while the right one shows the report and downloads the CSV."""
import datetime
import os
import time
from zoneinfo import ZoneInfo

from selenium.webdriver.common.by import By

from conftest import DEADLINE, attribute, console_errors, screenshot, text_of, wait_for
from test_dashboard import enter_token
from test_till import open_till, tap, wait_until_sold

TOKEN = "reports-test-token"
ZONE = "Asia/Seoul"


class Clock:
    """The server's clock: set(day, "HH:MM") moves it to that local time in ZONE."""

    def __init__(self, path):
        self.path = path

    def set(self, day, hhmm):
        hour, minute = map(int, hhmm.split(":"))
        local = datetime.datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZoneInfo(ZONE))
        with open(self.path, "w") as f:
            f.write(str(int(local.timestamp())))


def start_shop(start_server, tmp_path, token=None):
    clock = Clock(str(tmp_path / "clock"))
    clock.set(TODAY, "10:20")
    server = start_server(token=token, env={"JUICE_TEST_CLOCK": clock.path}, args=["--timezone", ZONE])
    return server, clock


TODAY = datetime.date(2026, 11, 25)            # a Wednesday
YESTERDAY = TODAY - datetime.timedelta(days=1)


def open_reports(driver, server, query=""):
    driver.get(server.url + "/reports" + query)
    driver.execute_script("window.__sameDocument = true;")


def wait_shown(driver, date):
    wait_for(driver, lambda d: attribute(d, "#report", "data-state") == "shown"
             and attribute(d, "#report", "data-date") == date.isoformat(), "the report of %s did not show" % date)


def hours(driver):
    """The chart's columns: [(hour, sold, lost, ran_out)], in order."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#hours .hour'), e =>"
        " [e.dataset.hour, Number(e.dataset.sold), Number(e.dataset.lost), e.dataset.ranOut]);")


def sold_in_chart(driver):
    return sum(h[1] for h in hours(driver))


def test_todays_chart_grows_when_an_order_is_placed_from_another_window(page, start_server, tmp_path):
    server, clock = start_shop(start_server, tmp_path)
    assert server.send("ORDER mango-kiwi 2").startswith("OK ORDER mango-kiwi 2 ")
    console_errors(page)      # empties the log of the tests before
    open_reports(page, server)
    wait_shown(page, TODAY)
    assert attribute(page, "#report", "data-today") == "true"
    assert hours(page) == [["10:00", 2, 0, ""]]
    reports = page.current_window_handle

    page.switch_to.new_window("window")
    open_till(page, server)
    clock.set(TODAY, "13:05")                        # the sale lands three hours later
    tap(page, "banana")
    wait_until_sold(page, "banana")
    page.switch_to.window(reports)
    wait_for(page, lambda d: sold_in_chart(d) == 3, "the chart did not grow: %s" % hours(page))
    # The quiet hours between stand in the chart, empty.
    assert hours(page) == [["10:00", 2, 0, ""], ["11:00", 0, 0, ""], ["12:00", 0, 0, ""], ["13:00", 1, 0, ""]]
    assert attribute(page, '#juices [data-juice="banana"]', "data-sold") == "1"
    assert text_of(page, "#served") == "2"
    assert page.execute_script("return window.__sameDocument === true;"), "the page reloaded"

    # A refused order changes no stock, so no event: the page still shows it (it re-reads today).
    assert server.send("ORDER strawberry 1").startswith("ERR OUT_OF_STOCK")
    wait_for(page, lambda d: hours(d)[-1][2] == 1, "the lost sale did not show: %s" % hours(page))
    assert attribute(page, '#juices [data-juice="strawberry"]', "data-lost") == "1"
    assert console_errors(page) == []


def test_a_day_with_a_sell_out_shows_its_hour(page, start_server, tmp_path):
    server, clock = start_shop(start_server, tmp_path)
    # Yesterday: kiwi juices at 09:10 leave 1 kiwi; a mango-kiwi at 14:05 takes it (ran out at
    # 14:00), and a kiwi juice then is refused; the evening's delivery is a restock.
    clock.set(YESTERDAY, "09:10")
    assert server.send("ORDER kiwi 3").startswith("OK ORDER kiwi 3 ")
    clock.set(YESTERDAY, "14:05")
    assert server.send("ORDER mango-kiwi 1").startswith("OK ORDER mango-kiwi 1 ")
    assert server.send("ORDER kiwi 1").startswith("ERR OUT_OF_STOCK")
    clock.set(YESTERDAY, "18:30")
    assert server.send("RESTOCK kiwi 20").startswith("OK RESTOCK ")
    # A week before yesterday, for the comparison.
    clock.set(YESTERDAY - datetime.timedelta(days=7), "12:00")
    assert server.send("ORDER kiwi 2").startswith("OK ORDER kiwi 2 ")
    clock.set(TODAY, "10:20")
    assert server.send("ORDER banana 1").startswith("OK ORDER banana 1 ")

    open_reports(page, server)
    wait_shown(page, TODAY)
    page.find_element(By.ID, "prev").click()
    wait_shown(page, YESTERDAY)
    assert attribute(page, "#report", "data-today") == "false"
    assert "date=%s" % YESTERDAY.isoformat() in page.current_url, "the address keeps the day"
    assert [h for h in hours(page) if h[1] or h[2] or h[3]] == [["09:00", 3, 0, ""], ["14:00", 1, 1, "kiwi"]]
    assert len(hours(page)) == 10, "09:00 to the restock at 18:00, the quiet hours too"
    assert attribute(page, '#fruits [data-fruit="kiwi"]', "data-ran-out") == "14:00"
    assert "kiwi ran out at 14:00" in text_of(page, "#ran-out")
    kiwi = '#juices [data-juice="kiwi"]'
    assert (attribute(page, kiwi, "data-sold"), attribute(page, kiwi, "data-lost")) == ("3", "1")
    assert attribute(page, kiwi, "data-week-sold") == "2"
    restock = '.restock[data-fruit="kiwi"]'
    assert (attribute(page, restock, "data-hour"), attribute(page, restock, "data-amount")) == ("18:00", "20")
    trend = page.execute_script("return Array.from(document.querySelectorAll('#trend .day'), e => [e.dataset.date, Number(e.dataset.sold)]);")
    assert len(trend) == 30 and trend[-1] == [YESTERDAY.isoformat(), 4]
    assert attribute(page, "#hours-csv", "href").endswith("/reports/hours.csv?date=" + YESTERDAY.isoformat())
    assert attribute(page, "#days-csv", "href").endswith("/reports/days.csv?from=2026-10-26&to=2026-11-24")

    # In Korean, with the menu's Korean names; the day stays the one in the address.
    open_reports(page, server, "?lang=ko&date=" + YESTERDAY.isoformat())
    wait_shown(page, YESTERDAY)
    wait_for(page, lambda d: "키위 14:00 품절" in text_of(d, "#ran-out"), "no Korean run-out")
    assert "화요일" in text_of(page, "#day-name")
    # The next day button goes back to today, which is live again.
    page.find_element(By.ID, "next").click()
    wait_shown(page, TODAY)
    assert attribute(page, "#report", "data-today") == "true"


def test_a_wrong_token_is_refused(page, start_server, tmp_path):
    server, _ = start_shop(start_server, tmp_path, token=TOKEN)
    assert server.send("AUTH " + TOKEN).startswith("OK")
    open_reports(page, server)
    enter_token(page, "not-" + TOKEN)
    wait_for(page, lambda d: "not accepted" in d.find_element(By.ID, "auth-error").text, "no error for a wrong token")
    assert not page.find_element(By.ID, "report").is_displayed(), "no report without the right token"
    assert attribute(page, "#report", "data-state") == "loading"

    enter_token(page, TOKEN)
    wait_shown(page, TODAY)
    assert page.find_element(By.ID, "report").is_displayed()
    assert page.execute_script("return window.localStorage.getItem('juice-manager-token');") is None
    # The download carries the token (a plain link could not): the file arrives under the
    # server's name.
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    page.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    page.find_element(By.ID, "hours-csv").click()
    wanted = downloads / ("juice-hours-%s.csv" % TODAY.isoformat())
    deadline = time.monotonic() + DEADLINE
    while not wanted.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert wanted.exists(), os.listdir(downloads)
    assert wanted.read_text(encoding="utf-8").startswith("date,hour,juice,sold,lost")


def test_a_month_of_sales_reads_as_days_csv_says(page, start_server, tmp_path):
    """A month of a stand's days (seeded, so the same every run): each morning every fruit is
    filled to 60, then juices sell from 09:00 to 20:00; today strawberries are not filled and run
    out at 13:00. The page's 30-day trend is what days.csv says, day by day. (Also the
    README's picture, with JUICE_SCREENSHOTS=1.)"""
    import csv
    import io
    import random
    import urllib.request

    server, clock = start_shop(start_server, tmp_path)
    rng = random.Random(24)
    juices = ["strawberry", "banana", "kiwi", "pineapple", "strawberry-banana", "mango", "mango-kiwi"]
    for back in range(29, -1, -1):
        day = TODAY - datetime.timedelta(days=back)
        clock.set(day, "08:30")
        for fruit, count in server.stock().items():
            # Today only 42 strawberries: two strawberry juices and a strawberry-banana at 13:00.
            want = 42 if back == 0 and fruit == "strawberry" else 60
            if count < want:
                assert server.send("RESTOCK %s %d" % (fruit, want - count)).startswith("OK RESTOCK")
        busy = 1.6 if day.weekday() >= 5 else 1.0
        for hour in range(9, 21 if back else 16):
            if back == 0 and hour == 13:
                clock.set(day, "13:00")
                assert server.send("ORDER strawberry 2").startswith("OK ORDER")
                assert server.send("ORDER strawberry-banana 1").startswith("OK ORDER strawberry-banana 1 seq=")
            if back == 0 and hour in (14, 15):
                clock.set(day, "%02d:30" % hour)
                for juice in ("strawberry", "strawberry-banana", "strawberry"):
                    assert server.send("ORDER %s 1" % juice).startswith("ERR OUT_OF_STOCK")
            lunch = 2 if hour in (12, 13) else 1
            menu = [j for j in juices if not j.startswith("strawberry")] if back == 0 and hour < 13 else juices
            for _ in range(int(rng.randint(0, 3) * busy * lunch)):
                clock.set(day, "%02d:%02d" % (hour, rng.randint(1, 59) if back else rng.randint(1, 40)))
                server.send("ORDER %s %d" % (rng.choice(menu), rng.choice([1, 1, 1, 2])))
    clock.set(TODAY, "15:45")

    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 1366, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    open_reports(page, server)
    wait_shown(page, TODAY)
    trend = page.execute_script(
        "return Array.from(document.querySelectorAll('#trend .day'), e => [e.dataset.date, Number(e.dataset.sold), Number(e.dataset.lost)]);")
    url = server.url + attribute(page, "#days-csv", "href").split(server.url, 1)[-1]
    with urllib.request.urlopen(url, timeout=DEADLINE) as answer:
        rows = list(csv.DictReader(io.StringIO(answer.read().decode("utf-8"))))
    by_day = {}
    for row in rows:
        sold, lost = by_day.get(row["date"], (0, 0))
        by_day[row["date"]] = (sold + int(row["sold"]), lost + int(row["lost"]))
    assert [[d, s, l] for d, (s, l) in sorted(by_day.items())] == trend
    assert trend[-1][0] == TODAY.isoformat() and trend[-1][2] > 0, "today lost sales: strawberries ran out"
    assert attribute(page, '#fruits [data-fruit="strawberry"]', "data-ran-out") == "13:00"
    height = page.execute_script("return document.documentElement.scrollHeight;")
    page.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                         {"width": 1366, "height": height, "deviceScaleFactor": 1, "mobile": False})
    screenshot(page, "reports.png")


def test_a_daylight_saving_day_shows_its_hours_as_they_were(page, start_server, tmp_path):
    """New York falls back on 1 November 2026: the business day of 31 October (04:00 to 04:00)
    has 25 hours, 01:00 twice. Sales at 00:30 and in the second 01:00 hour (EST) leave the
    first 01:00 (EDT) quiet: the chart shows both, told apart by their start."""
    clock = tmp_path / "clock"

    def at(utc):
        clock.write_text(str(int(utc.timestamp())))

    utc = datetime.timezone.utc
    at(datetime.datetime(2026, 10, 31, 16, 0, tzinfo=utc))
    server = start_server(env={"JUICE_TEST_CLOCK": str(clock)}, args=["--timezone", "America/New_York"])
    at(datetime.datetime(2026, 11, 1, 4, 30, tzinfo=utc))      # 00:30 EDT
    assert server.send("ORDER banana 1").startswith("OK ORDER")
    at(datetime.datetime(2026, 11, 1, 6, 30, tzinfo=utc))      # 01:30 EST, the second 01:30
    assert server.send("ORDER banana 2").startswith("OK ORDER")
    open_reports(page, server, "?date=2026-10-31")
    wait_shown(page, datetime.date(2026, 10, 31))
    columns = page.execute_script(
        "return Array.from(document.querySelectorAll('#hours .hour'), e => [e.dataset.hour, e.dataset.start || '', Number(e.dataset.sold)]);")
    assert columns == [["00:00", "2026-11-01T00:00:00-04:00", 1], ["01:00", "", 0], ["01:00", "2026-11-01T01:00:00-05:00", 2]]
