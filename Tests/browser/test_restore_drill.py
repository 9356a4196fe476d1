"""The restore drill (issue 35, "Backups that restore"), end to end, as README.md's "Backups" and
"Restoring after a dead disk" tell a shop to do it, against the real server, with the board and a
paired till open in headless Chromium the whole time (never reloaded):

sell, back up (`juice-server backup DIR --server ... --manager-token-file ...`, then `verify`),
sell more, stop the server (SIGTERM), destroy the data folder, set up "the new box" (a server
started once on an empty folder, then stopped: README steps 1 to 3), `verify` and `restore`, start
the server again on the same ports. Then:

- the board shows the backup's stock (not the sales made after it) and follows what is sold on
  the restored store: it resynced by itself, to a new store whose seqs repeat the lost ones;
- the browser till, open across it all, sends what waited while the server was away: an order
  the backup does not hold is sold once, a waiting order whose key the backup holds (a sale whose
  answer was lost) is answered `dup` with its first seq; its stock is the server's again;
- on the line protocol a paired till's key from before the backup gets `dup` with its first
  answer, a key used after the backup is sold again as new, once; and a display that names the
  old store in `SINCE` gets the whole state;
- the day report (`/reports/day`, and the `/reports` page the README sends the manager to) holds
  the sales up to the backup, and not the one lost.

The server runs with a manager token file (as the shop's unit does), so it sells only to paired
tills, and the tills' pairings must come back with the backup. Its clock is the debug build's test
clock (JUICE_TEST_CLOCK), fixed, so the business day (and the backup's file name) cannot roll over
mid-test. Every wait is a deadline, never a sleep."""
import datetime
import json
import os
import shutil
import socket
import subprocess
import urllib.request

from selenium.webdriver.common.by import By

from conftest import DEADLINE, START_DEADLINE, attribute, text_of, wait_for
from test_board import open_board, same_document, shown_stock, wait_for_stock
from test_dashboard import enter_token
from test_reports import Clock
from test_till import pending, tap, waiting_orders, wait_until_sold
from test_tills import code_for, open_unpaired_till, pair, state

TOKEN = "restore-drill-token"
ZONE = "Asia/Seoul"
# Today in Seoul (UTC+9, no daylight time): the test clock stands at 14:00 of it, never 24 h from
# the real clock that `verify` and `restore` age the keys by (a fixed date failed the day after:
# its keys had expired by then).
DAY = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=9)).date().isoformat()
# After a restart the pages come back on their own schedules (the board's stream backs off up to
# 10 s between tries): a longer bound than DEADLINE, still only a bound.
BACK = 40


def session(server, *lines):
    """Sends `lines` on one line-protocol connection, in order; returns each one's reply (the
    EVENT lines between are skipped)."""
    with socket.create_connection(("127.0.0.1", server.tcp_port), timeout=DEADLINE) as s:
        f = s.makefile("rwb")
        replies = []
        for line in lines:
            f.write((line + "\n").encode())
            f.flush()
            while True:
                reply = f.readline().decode()
                if not reply:
                    raise RuntimeError("connection closed before the reply to " + line)
                reply = reply.rstrip("\r\n")
                if not reply.startswith("EVENT "):
                    replies.append(reply)
                    break
        return replies


def pair_line_till(server):
    """A till on the line protocol (as juice-till or a JuiceClient app is), paired by the manager's
    code: returns its credential."""
    auth, made = session(server, "AUTH " + TOKEN, "TILLS NEW Counter")
    assert auth == "OK AUTH" and made.startswith("OK TILLS NEW code="), made
    code = made.split("code=", 1)[1].split()[0]
    (paired,) = session(server, "PAIR " + code)
    assert paired.startswith("OK PAIR till="), paired
    return paired.split("credential=", 1)[1].split()[0]


def order(server, credential, line):
    """One order from the line till (a new connection each time, as after a dropped one)."""
    signed, reply = session(server, "TILL " + credential, line)
    assert signed.startswith("OK TILL "), signed
    return reply


def run(command, *args):
    """Runs juice-server with `args` (backup, verify, restore): (exit status, its output)."""
    done = subprocess.run(command + list(args), capture_output=True, text=True, timeout=START_DEADLINE)
    return done.returncode, done.stdout + done.stderr


def summary(output):
    """What verify, backup and restore print about a backup ("  seq:          3"), as {name: value}."""
    found = {}
    for line in output.splitlines():
        if line.startswith("  ") and ":" in line:
            name, value = line.strip().split(":", 1)
            found[name] = value.strip()
    return found


def day_report(server):
    request = urllib.request.Request(server.url + "/reports/day?date=" + DAY,
                                     headers={"Authorization": "Bearer " + TOKEN})
    with urllib.request.urlopen(request, timeout=DEADLINE) as answer:
        return json.loads(answer.read())


def sold_per_juice(report):
    return {j["juice"]: j["sold"] for j in report["juices"] if j["sold"]}


def till_stock(driver):
    """The till's fruit chips: {fruit: the server's figure as the till knows it}."""
    return driver.execute_script(
        "const o = {}; for (const e of document.querySelectorAll('#fruits [data-fruit]')) o[e.dataset.fruit] = Number(e.dataset.stock); return o;")


def wait_until_shown(driver, read, want, what):
    """Waits (up to BACK) until read(driver) == want; says what it showed at the end if not."""
    try:
        wait_for(driver, lambda d: read(d) == want, what, timeout=BACK)
    except AssertionError as error:
        raise AssertionError("%s: wanted %s, it shows %s" % (what, want, read(driver))) from error


def test_the_restore_drill(page, start_server, juice_server_command, tmp_path):
    # The shop: a data folder, the manager token in a file only its owner reads, the test clock.
    data = str(tmp_path / "data")
    backups = tmp_path / "backups"
    backups.mkdir()
    token_file = tmp_path / "manager-token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    clock = Clock(str(tmp_path / "clock"))
    clock.set(datetime.date.fromisoformat(DAY), "14:00")
    shop = dict(data_dir=data, env={"JUICE_TEST_CLOCK": clock.path},
                args=["--manager-token-file", str(token_file), "--timezone", ZONE])
    server = start_server(**shop)
    first_store = state(server)["store"]

    # The board on the TV (this window), a paired till on a tablet (a second window), a till on
    # the line protocol.
    open_board(page, server)
    board = page.current_window_handle
    page.switch_to.new_window("window")
    till = page.current_window_handle
    open_unpaired_till(page, server)
    pair(page, code_for(server, TOKEN, "Tablet"))
    credential = pair_line_till(server)

    # 1. Sell: two keyed orders on the line till, one tap on the tablet.
    before_1 = order(server, credential, "ORDER banana key=drill-before-1")
    before_2 = order(server, credential, "ORDER mango-kiwi key=drill-before-2")
    assert before_1.startswith("OK ORDER banana 1 seq=1 banana=8 "), before_1
    assert before_2.startswith("OK ORDER mango-kiwi 1 seq=2 mango=8 kiwi=9 "), before_2
    tap(page, "kiwi")
    wait_until_sold(page, "Sold 1 \u00d7 kiwi")
    tablet_sale = page.execute_script(
        "for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i);"
        " if (k.startsWith('juice-till-sale:')) return JSON.parse(localStorage.getItem(k)); } return null;")
    assert tablet_sale and tablet_sale["seq"] == 3 and tablet_sale["juice"] == "kiwi", tablet_sale
    backed_up = server.stock()
    assert backed_up == {"strawberry": 10, "banana": 8, "pineapple": 10, "kiwi": 6, "mango": 8}, backed_up
    page.switch_to.window(board)
    wait_for_stock(page, backed_up, "the board did not show the sales before the backup")

    # 2. Back up as the README says, and verify the file.
    status, said = run(juice_server_command, "backup", str(backups) + "/", "--server", "127.0.0.1:%d" % server.http_port,
                       "--manager-token-file", str(token_file))
    assert status == 0, said
    backup = backups / ("juice-%s.backup" % DAY)
    assert os.listdir(backups) == [backup.name], os.listdir(backups)
    assert said.startswith("backup written to %s (" % backup), said
    assert backup.stat().st_mode & 0o077 == 0, "the backup holds keys and pairings: owner only"
    held = summary(said)
    assert held["seq"] == "3" and held["keys"] == "3" and held["tills"] == "2 paired", said
    assert held["history"] == "1 days (%s to %s)" % (DAY, DAY), said
    status, verified = run(juice_server_command, "verify", str(backup))
    assert status == 0 and verified.startswith("backup %s is whole:" % backup), verified
    assert summary(verified) == held, verified

    # 3. Sell more: these are what the restore loses.
    after_1 = order(server, credential, "ORDER pineapple key=drill-after-1")
    assert after_1.startswith("OK ORDER pineapple 1 seq=4 pineapple=8 "), after_1
    page.switch_to.window(till)
    tap(page, "banana")
    wait_until_sold(page, "Sold 1 \u00d7 banana")
    assert server.stock() == dict(backed_up, banana=6, pineapple=8)
    page.switch_to.window(board)
    wait_for_stock(page, {"banana": 6, "pineapple": 8}, "the board did not show the sales after the backup")

    # 4. The disk dies: the server stops (SIGTERM, as systemd stops it) and its folder is gone.
    server.stop()
    wait_for(page, lambda d: attribute(d, "#conn", "data-state") == "reconnecting",
             "the board did not notice the server went away")
    # Meanwhile the tablet sells on: a mango waits (the restored store has never seen it), and so
    # does the kiwi sold before the backup, as it would had its answer been lost on the way (its
    # order item, with its key, put back in the till's queue: nothing of the page is changed).
    page.switch_to.window(till)
    wait_for(page, lambda d: attribute(d, '[data-juice="mango"]', "disabled") is None, "mango is greyed")
    tap(page, "mango")
    wait_for(page, lambda d: pending(d) == ("1", "offline"), "the mango is not waiting")
    page.execute_script(
        "const s = arguments[0]; localStorage.setItem('juice-till-order:' + s.key,"
        " JSON.stringify({key: s.key, juice: s.juice, count: s.count, at: Date.now(), till: s.till}));", tablet_sale)
    assert len(waiting_orders(page)) == 2
    shutil.rmtree(data)

    # 5. The new box, README steps 1 to 3: its server was started once on an empty folder (on
    # ports no tablet knows yet), and is stopped before the restore.
    new_box = start_server(**shop)
    assert state(new_box)["seq"] == 0
    new_box.stop()
    status, verified = run(juice_server_command, "verify", str(backup))
    assert status == 0 and summary(verified) == held, verified
    status, restored = run(juice_server_command, "restore", str(backup), "--data", data)
    assert status == 0, restored
    assert "restored %s into %s:" % (backup, data) in restored, restored
    assert "kept the old files aside in %s: " % data in restored, restored     # the new box's empty store
    assert summary(restored) == held, restored
    assert "Changes made after it was taken are not in it." in restored, restored

    # 6. Start it again, on the same ports: a new store, at the backup's seq and stock.
    server.restart()
    restored_store = state(server)["store"]
    assert restored_store != first_store, "a restored store must be a new store to its clients"
    assert any(("recovered seq=3 store=%s " % restored_store) in line for line in server.lines), \
        "\n".join(server.lines)

    # The tablet sends what waited, the moment the server answers: the mango is sold once, the
    # kiwi the backup holds gets its first answer again (sale #3), nothing sold twice.
    page.switch_to.window(till)
    wait_for(page, lambda d: pending(d) == ("0", "idle"), "the waiting orders were not sent", timeout=BACK)
    message = wait_until_sold(page, "Sold 1 \u00d7 kiwi")
    assert "answered on a retry" in message and message.endswith("#3"), message
    stats = server.stats()
    assert (stats["sold_kiwi"], stats["sold_mango"], stats["sold_banana"]) == (1, 1, 1), stats
    assert stats["orders_served"] == 4 and stats["seq"] == 4, stats
    expected = dict(backed_up, mango=5)
    assert server.stock() == expected

    # The line till: keys from before the backup are answered as the first time, with dup.
    assert order(server, credential, "ORDER banana key=drill-before-1") == before_1 + " dup"
    assert order(server, credential, "ORDER mango-kiwi key=drill-before-2") == before_2 + " dup"
    # A key used after the backup is new to the restored store: sold again, once.
    again = order(server, credential, "ORDER pineapple key=drill-after-1")
    assert again.startswith("OK ORDER pineapple 1 seq=5 pineapple=8 ") and not again.endswith(" dup"), again
    assert order(server, credential, "ORDER pineapple key=drill-after-1") == again + " dup"
    expected = dict(expected, pineapple=8)
    assert server.stock() == expected
    stats = server.stats()
    assert stats["orders_served"] == 5 and stats["sold_pineapple"] == 1, stats

    # The board, never reloaded: the backup's stock and what the restored store sold since, not
    # the banana and the first pineapple sold after the backup (the seqs 4 and 5 it saw then
    # belong to the old store; the restored store's 4 and 5 are other sales).
    page.switch_to.window(board)
    wait_until_shown(page, shown_stock, {k: str(v) for k, v in expected.items()}, "the board did not resync to the restored store")
    wait_for(page, lambda d: attribute(d, "#conn", "data-state") == "live", "the board is not live again", timeout=BACK)
    assert same_document(page), "the board reloaded"
    # The till, never reloaded either, shows the server's stock.
    page.switch_to.window(till)
    wait_until_shown(page, till_stock, expected, "the till did not resync to the restored store")
    assert attribute(page, "body", "data-paired") == "true", "the till lost its pairing"

    # A display on the line protocol that last synced on the old store names it: it gets the
    # whole state of the restored one (PROTOCOL.md, SINCE rule 3), as juice-board would.
    with socket.create_connection(("127.0.0.1", server.tcp_port), timeout=DEADLINE) as s:
        f = s.makefile("rwb")
        f.write(("SINCE 5 store=%s\n" % first_store).encode())
        f.flush()
        lines = [f.readline().decode().rstrip("\r\n")]
        while lines[-1] and not lines[-1].startswith("OK SINCE "):
            lines.append(f.readline().decode().rstrip("\r\n"))
        lines.append(f.readline().decode().rstrip("\r\n"))
    assert lines[-2] == "OK SINCE 5 5", lines
    whole = lines[-1].split()
    assert whole[:3] == ["EVENT", "STOCK", "seq=5"], lines
    assert dict(w.split("=") for w in whole[3:]) == {k: str(v) for k, v in expected.items()}, lines

    # 7. The manager checks the day report: the sales up to the backup are there (banana,
    # mango-kiwi, kiwi), with the two sold on the restored store; the banana sold after the
    # backup is not.
    report = day_report(server)
    assert report["date"] == DAY and report["orders_served"] == 5, report
    assert sold_per_juice(report) == {"banana": 1, "mango-kiwi": 1, "kiwi": 1, "mango": 1, "pineapple": 1}, report
    page.switch_to.new_window("window")
    page.get(server.url + "/reports")
    enter_token(page, TOKEN)
    wait_for(page, lambda d: attribute(d, "#report", "data-state") == "shown"
             and attribute(d, "#report", "data-date") == DAY, "the report did not show")
    assert text_of(page, "#served") == "5"
    for juice, sold in (("banana", "1"), ("mango-kiwi", "1"), ("kiwi", "1"), ("strawberry", "0")):
        assert attribute(page, '#juices [data-juice="%s"]' % juice, "data-sold") == sold, juice
    assert page.find_element(By.ID, "report").is_displayed()
