"""The till on a server whose disk is full (READ_ONLY, PROTOCOL.md "Full disk"): a tap is refused
with "cannot sell: disk full", nothing is sold and the order is not kept for a retry (the server
applied nothing and remembers no key), and the page's full-disk notice shows. On a real tmpfs
filled by another file, as DiskFullTests do; mounting needs root (CI runs as root)."""
import os
import socket

from selenium.webdriver.common.by import By

from conftest import DEADLINE, attribute, fill, wait_for
from test_till import open_till, pending, tap


def order_until_read_only(server):
    """Keyed orders (long keys: big records) until the journal cannot grow: ERR READ_ONLY."""
    pad = "x" * 40
    with socket.create_connection(("127.0.0.1", server.tcp_port), timeout=DEADLINE) as s:
        f = s.makefile("rwb")
        f.write(b"EVENTS OFF\n")
        f.flush()
        while not f.readline().startswith(b"OK EVENTS"):
            pass
        for batch in range(400):
            f.write("".join("ORDER banana key=%s-%d-%d\n" % (pad, batch, i) for i in range(500)).encode())
            f.flush()
            replies = [f.readline().decode() for _ in range(500)]
            refused = [r for r in replies if r.startswith("ERR READ_ONLY")]
            if refused:
                return refused[0].strip()
    raise AssertionError("the disk never filled")


def test_a_full_disk_shows_cannot_sell(page, start_server, small_disk):
    # Room for every key it sends: the disk, not one address's share of the key memory, must stop it.
    server = start_server(data_dir=os.path.join(small_disk, "data"),
                          args=["--initial-stock", "1000000000", "--key-memory", "1000000", "--keys-per-address", "1000000"])
    open_till(page, server)
    fill(small_disk)
    assert order_until_read_only(server).startswith("ERR READ_ONLY disk full")
    before = server.stats()

    tap(page, "banana")
    wait_for(page, lambda d: "open" in (attribute(d, "#alert", "class") or ""), "no refusal shown")
    assert attribute(page, "#alert", "data-code") == "READ_ONLY"
    assert page.find_element(By.ID, "alert-text").text == "cannot sell: disk full"
    assert pending(page) == ("0", "idle"), "a refused order is not kept for a retry"
    assert server.stats()["orders_served"] == before["orders_served"]
    # The base script's full-disk notice, read from /state.
    wait_for(page, lambda d: d.find_element(By.ID, "readonly").is_displayed(), "no full-disk notice on the till")
