"""Fixtures for the browser tests: a juice-server process, a TCP client for it, and headless Chromium.

The server is the real juice-server binary: $JUICE_SERVER_BIN if set, else built with
`swift build --product juice-server`. Every wait is a WebDriverWait or a deadline that only bounds the wait: nothing here
asserts on speed, so a busy 2-core CI machine does not make it flake.
"""
import errno
import os
import shutil
import subprocess
import tempfile
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from settings import DEADLINE, ROOT, SCREENSHOTS, START_DEADLINE  # noqa: F401 (tests import them from here)
# The server and the line display live in juiceserver.py; tests import them from here too.
from juiceserver import JuiceServer, LineDisplay, server_command  # noqa: F401


@pytest.fixture(scope="session")
def juice_server_command():
    return server_command()


def menu_with_par(command, directory, pars):
    """The default menu (from --print-menu) with `pars` ({fruit: par}) added, written to
    directory/menu.json; returns its path for --menu."""
    import json
    printed = subprocess.run(command + ["--print-menu"], check=True, capture_output=True, text=True).stdout
    menu = json.loads(printed)
    for fruit in menu["fruits"]:
        if fruit["name"] in pars:
            fruit["par"] = pars[fruit["name"]]
    path = os.path.join(str(directory), "menu.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(menu, f, ensure_ascii=False)
    return path


@pytest.fixture
def start_server(juice_server_command):
    """Starts a server: start_server(data=True, token=None) -> JuiceServer (stopped after the test)."""
    servers, dirs = [], []

    def start(data=False, token=None, env=None, args=(), data_dir=None, still_clock=False):
        """data_dir: a directory the test owns (e.g. on a small disk); else data=True makes one.
        still_clock: the server's clock (JUICE_TEST_CLOCK) stands at the real time it started, and
        stays there across restarts, for a test that reads what today holds on the server (REPORT,
        a till's orders today) or voids a sale (only today's can be): on the real clock, a test
        running across the shop's day start (04:00) saw its sale become yesterday's."""
        if data and not data_dir:
            data_dir = tempfile.mkdtemp(prefix="juice-browser-")
            dirs.append(data_dir)
        env = dict(env or {})
        if still_clock:
            clock_dir = tempfile.mkdtemp(prefix="juice-clock-")
            dirs.append(clock_dir)
            env["JUICE_TEST_CLOCK"] = os.path.join(clock_dir, "clock")
            with open(env["JUICE_TEST_CLOCK"], "w") as f:
                f.write(str(int(time.time())))
        if token:
            env["JUICE_MANAGER_TOKEN"] = token
        server = JuiceServer(juice_server_command, data_dir, env)
        server.extra_args = list(args)
        servers.append(server)
        return server.start()

    yield start
    for server in servers:
        try:
            server.stop()
        except Exception:
            server.kill()
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


def closed_after_the_test(make, close):
    """What a fixture that makes things for a test yields from: `make` itself, to be called as the
    test wants; each thing it made is closed with `close` after the test."""
    made = []

    def make_one(*args, **kwargs):
        thing = make(*args, **kwargs)
        made.append(thing)
        return thing

    yield make_one
    for thing in made:
        close(thing)


@pytest.fixture
def line_display():
    """line_display(server) -> a LineDisplay, closed after the test."""
    yield from closed_after_the_test(LineDisplay, LineDisplay.close)


def board_in_second_window(driver, server):
    """Opens the board (GET /) in a second window and waits for it to go live, then switches back.
    Returns (the first window, the board's window) for switch_to.window."""
    first = driver.current_window_handle
    driver.switch_to.new_window("window")
    driver.get(server.url + "/")
    wait_for(driver, lambda d: attribute(d, "#conn", "data-state") == "live", "the board never went live")
    board = driver.current_window_handle
    driver.switch_to.window(first)
    return first, board


def tmpfs_unavailable():
    """Why a tmpfs cannot be mounted here, or None."""
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root (CI runs as root)"
    if not shutil.which("mount"):
        return "no mount command"
    return None


@pytest.fixture
def small_disk():
    """A 16 MiB tmpfs of our own, unmounted after the test. Skipped where one cannot be mounted,
    except under JUICE_REQUIRE_TOOLS=1 (.ci/run): there a missing mount is a failure, as for the
    Swift tests' outside tools."""
    why = tmpfs_unavailable()
    if why:
        if os.environ.get("JUICE_REQUIRE_TOOLS") == "1":
            pytest.fail(why)
        pytest.skip(why)
    path = tempfile.mkdtemp(prefix="juice-disk-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", path], check=True)
    yield path
    subprocess.run(["umount", "-l", path], check=False)
    shutil.rmtree(path, ignore_errors=True)


def fill(path):
    """Writes a filler file until not one more byte fits (delete `path`/filler to make room)."""
    size = 1 << 20
    with open(os.path.join(path, "filler"), "wb", buffering=0) as f:
        while size > 0:
            try:
                f.write(b"\0" * size)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
                size //= 2


TV = {"width": 1920, "height": 1080, "deviceScaleFactor": 1, "mobile": False}
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}


def headless_chromium(env=None):
    """A headless Chromium in a 1920x1080 window, its chromedriver run with `env`."""
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1920,1080",
                "--disable-dev-shm-usage", "--lang=en-US"):
        options.add_argument(arg)
    # The console, so a test can see what the page's load got wrong (a 404, a script error).
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if chromium:
        options.binary_location = chromium
    driver_path = shutil.which("chromedriver")
    # An explicit driver path keeps Selenium from trying to download one (CI may be offline).
    service = Service(executable_path=driver_path, env=env) if driver_path else Service(env=env)
    return webdriver.Chrome(options=options, service=service)


@pytest.fixture(scope="session")
def browser():
    driver = headless_chromium()
    # The page's viewport itself is 1920x1080, a TV's (the window size includes browser chrome).
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", TV)
    yield driver
    driver.quit()


@pytest.fixture
def page(browser):
    """The shared browser, on a fresh tab state: sessionStorage is per origin and tab, so clear it."""
    first = browser.current_window_handle
    yield browser
    # Windows a test opened (a second window for the board) go; the first stays for the next test.
    for handle in browser.window_handles:
        if handle != first:
            browser.switch_to.window(handle)
            browser.close()
    browser.switch_to.window(first)
    try:
        browser.execute_script("try { sessionStorage.clear(); localStorage.clear(); } catch (e) {}")
    except Exception:
        pass
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", TV)
    browser.get("about:blank")


def phone_sized(driver):
    """A phone's viewport (390x844 CSS pixels, 2x) for this window, until the test ends."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)


def wait_for(driver, condition, message, timeout=DEADLINE):
    """Waits until condition(driver) is truthy; fails with `message` and the page's state if not."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(lambda d: condition(d))
    except Exception as error:
        raise AssertionError("%s (waited %d s); page text:\n%s" % (message, timeout, safe_text(driver))) from error


def wait_until_killed_after_sync(driver, server):
    """Waits for `server`, armed by its JUICE_TEST_KILL_AFTER_SYNC file (the debug build's hook), to
    die right after its journal sync, before any reply leaves."""
    wait_for(driver, lambda d: server.process.poll() is not None, "the server did not kill itself after the sync")


def restart_unarmed(server, trigger):
    """Starts `server` again on its data after it killed itself, its hook's file `trigger` gone."""
    trigger.unlink()
    server.process = None
    server.restart()


def safe_text(driver):
    try:
        return driver.find_element(By.TAG_NAME, "body").text
    except Exception:
        return "<unreadable>"


def attribute(driver, selector, name):
    """An attribute of the first element matching selector, or None (no stale-element errors)."""
    try:
        return driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
            selector, name)
    except Exception:
        return None


def text_of(driver, selector):
    """The text of the first element matching selector, or "" (no stale-element errors: a page that
    draws again between finding the element and reading it answers the new one)."""
    try:
        return driver.execute_script(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : '';", selector) or ""
    except Exception:
        return ""


def screenshot(driver, name):
    """Saves docs/<name> when JUICE_SCREENSHOTS=1 (pictures for the README)."""
    if SCREENSHOTS:
        time.sleep(1)   # only for the picture: lets the bars' CSS transitions finish
        os.makedirs(os.path.join(ROOT, "docs"), exist_ok=True)
        driver.save_screenshot(os.path.join(ROOT, "docs", name))


def console_errors(driver):
    """The page's console errors so far (a resource that failed to load, a script error)."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
