"""The till over HTTPS, as a shop's tablets reach it: juice-server behind a real Caddy with its
local CA (`tls internal`, deploy/Caddyfile), in a Chromium that trusts that CA the way a tablet
is told to (README, "Running it in a shop"): the root certificate in the browser's own
certificate store, an NSS database, not a flag that ignores certificate errors. So the page is a
secure context, as a service worker needs.

Skipped where caddy or certutil is missing (they fail under JUICE_REQUIRE_TOOLS=1, as the other
outside tools do)."""
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request

import pytest

from conftest import DEADLINE, START_DEADLINE, closed_after_the_test, headless_chromium, wait_for
from test_board import wait_for_stock
from test_till import open_till, tap, wait_until_sold

INSTALL = {"caddy": "apt-get install caddy", "certutil": "apt-get install libnss3-tools"}


def require(tool):
    if shutil.which(tool):
        return
    why = "%s is not installed (install: %s); skipped" % (tool, INSTALL[tool])
    if os.environ.get("JUICE_REQUIRE_TOOLS") == "1":
        pytest.fail(why)
    pytest.skip(why)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CADDYFILE = """{
\tadmin off
\tlocal_certs
\tskip_install_trust
\tauto_https disable_redirects
\tgrace_period 1s
\tstorage file_system %(storage)s
}
https://localhost:%(port)d {
\ttls internal
\treverse_proxy 127.0.0.1:%(upstream)d {
\t\tflush_interval -1
\t}
}
"""


class Caddy:
    """Caddy on https://localhost:<port> in front of a juice-server; everything it keeps is in
    `directory` (its CA's root certificate: `root_ca`)."""

    def __init__(self, upstream):
        self.directory = tempfile.mkdtemp(prefix="juice-caddy-")
        self.root_ca = os.path.join(self.directory, "data", "pki", "authorities", "local", "root.crt")
        self.process = None
        errors = []
        for _ in range(3):   # the port was free a moment ago; someone may take it first
            self.port = free_port()
            config = os.path.join(self.directory, "Caddyfile")
            with open(config, "w", encoding="utf-8") as f:
                f.write(CADDYFILE % {"storage": os.path.join(self.directory, "data"), "port": self.port, "upstream": upstream})
            env = dict(os.environ, HOME=self.directory, XDG_DATA_HOME=os.path.join(self.directory, "xdg"),
                       XDG_CONFIG_HOME=os.path.join(self.directory, "xdg"))
            log = open(os.path.join(self.directory, "caddy.log"), "w")
            self.process = subprocess.Popen(["caddy", "run", "--config", config, "--adapter", "caddyfile"],
                                            stdout=log, stderr=subprocess.STDOUT, env=env)
            if self._ready():
                return
            self.stop()
            with open(os.path.join(self.directory, "caddy.log"), encoding="utf-8", errors="replace") as f:
                errors.append(f.read())
        raise RuntimeError("caddy did not start:\n" + "\n---\n".join(errors))

    @property
    def url(self):
        return "https://localhost:%d" % self.port

    def _ready(self):
        deadline = time.monotonic() + START_DEADLINE
        while time.monotonic() < deadline and self.process.poll() is None:
            if os.path.exists(self.root_ca):
                try:
                    context = ssl.create_default_context(cafile=self.root_ca)
                    with urllib.request.urlopen(self.url + "/healthz", context=context, timeout=DEADLINE) as answer:
                        if answer.status == 200:
                            return True
                except (OSError, ssl.SSLError):
                    pass
            time.sleep(0.1)
        return False

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(DEADLINE)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def remove(self):
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture
def trusting_browser(tmp_path):
    """trusting_browser(root_ca) -> a headless Chromium of its own whose certificate store (an NSS
    database under its own HOME, where Chromium on Linux looks) trusts `root_ca` for websites."""
    def start(root_ca):
        home = tmp_path / "home"
        nssdb = home / ".pki" / "nssdb"
        nssdb.mkdir(parents=True)
        subprocess.run(["certutil", "-d", "sql:%s" % nssdb, "-N", "--empty-password"], check=True)
        subprocess.run(["certutil", "-d", "sql:%s" % nssdb, "-A", "-t", "C,,", "-n", "juice-caddy-local-ca", "-i", root_ca],
                       check=True)
        return headless_chromium(env=dict(os.environ, HOME=str(home)))

    yield from closed_after_the_test(start, lambda driver: driver.quit())


def test_the_till_sells_over_https_through_caddy(start_server, trusting_browser):
    require("caddy")
    require("certutil")
    server = start_server(args=["--trusted-proxy", "127.0.0.1/32"])
    caddy = Caddy(server.http_port)
    try:
        browser = trusting_browser(caddy.root_ca)
        before = server.stats()
        # open_till reads server.url: the till's address is now the proxy's.
        via_caddy = type("ViaCaddy", (), {"url": caddy.url})()
        open_till(browser, via_caddy)
        # Trusted, not waved through: a secure context (what a service worker needs) on https.
        assert browser.execute_script("return window.isSecureContext && location.protocol;") == "https:"
        tap(browser, "banana")
        wait_until_sold(browser, "Sold 1 \u00d7 banana")
        after = server.stats()
        assert after["sold_banana"] == before["sold_banana"] + 1
        assert after["orders_served"] == before["orders_served"] + 1
        # The live stock came through the proxy's event stream (banana 10 -> 8).
        wait_for_stock(browser, {"banana": 8}, "the till's stock did not follow through the proxy")
        # Once the till registers a service worker (offline start), it must register over this
        # HTTPS origin too.
        if browser.execute_script("return document.documentElement.outerHTML.includes('serviceWorker.register');"):
            wait_for(browser, lambda d: d.execute_script(
                "return navigator.serviceWorker.getRegistrations().then(r => r.length > 0);"),
                "the service worker did not register over HTTPS")
    finally:
        caddy.remove()
