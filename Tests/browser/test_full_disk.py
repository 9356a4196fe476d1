"""The read-only notice (PROTOCOL.md, "Full disk") in a real browser: on a full disk the board and
the dashboard show "read-only: disk full", also when loaded while read-only, and the notice goes
away by itself, without a reload, once there is room. The disk is a real 16 MiB tmpfs filled by
another file; mounting needs root (CI runs as root), so elsewhere the test is skipped."""
import os
import time

from conftest import DEADLINE, JuiceServer, attribute, fill, wait_for


def notice(driver):
    """The notice's text if it is shown, else None."""
    return driver.execute_script(
        "const n = document.getElementById('readonly'); return n && !n.hidden ? n.textContent : null;")


def test_board_and_dashboard_show_read_only_while_the_disk_is_full(page, juice_server_command, small_disk):
    server = JuiceServer(juice_server_command, os.path.join(small_disk, "data"))
    try:
        server.start()
        assert server.send("ORDER banana").startswith("OK ORDER banana 1 ")
        server.stop()
        fill(small_disk)
        server.restart()                          # starts read-only on the full disk
        assert server.send("ORDER banana").startswith("ERR READ_ONLY disk full"), "not read-only"

        page.get(server.url + "/dashboard")       # no token: the sales show at once
        wait_for(page, lambda d: (notice(d) or "").startswith("read-only: disk full"),
                 "the dashboard shows no read-only notice")

        page.get(server.url + "/")
        page.execute_script("window.__sameDocument = true;")
        wait_for(page, lambda d: (notice(d) or "").startswith("read-only: disk full"),
                 "the board shows no read-only notice")
        assert page.find_element("id", "readonly").is_displayed()
        assert "No space left on device" in attribute(page, "#readonly", "title")

        os.unlink(os.path.join(small_disk, "filler"))
        deadline = time.monotonic() + DEADLINE
        while server.send("ORDER banana").startswith("ERR READ_ONLY"):
            assert time.monotonic() < deadline, "still read-only after the filler was deleted"
            time.sleep(0.2)
        wait_for(page, lambda d: notice(d) is None, "the notice did not go away after recovery")
        assert page.execute_script("return window.__sameDocument === true;"), "the page reloaded"
    finally:
        server.kill()
