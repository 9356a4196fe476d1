"""A web page from another origin, open in a shop's browser, cannot sell through it (CSRF): the
test serves such a page itself (Python's http.server on another port). Its script tries every
way a page can send a POST without the server's consent; the server answers 403, and nothing
is sold."""
import functools
import http.server
import threading

import pytest

from conftest import wait_for

EVIL_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>free juice</title></head><body>
<!-- A plain form post: no preflight, sent with this page's Origin; the browser then shows
     whatever the server answers. text/plain lets the body be JSON. -->
<form id="f" method="POST" action="%(target)s/orders" enctype="text/plain">
  <input name='{"juice":"banana","x":"' value='"}'>
</form>
<script>
  window.results = {};
  // JSON needs a preflight, which the server does not answer with CORS headers: never sent.
  fetch("%(target)s/orders", {method: "POST", headers: {"Content-Type": "application/json"},
                              body: JSON.stringify({juice: "banana"})})
    .then(r => { results.json = "answered " + r.status; }, e => { results.json = "failed"; });
  // A "simple" request is sent, but its answer is opaque to this page.
  fetch("%(target)s/orders", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
                              body: JSON.stringify({juice: "banana"})})
    .then(r => { results.simple = "opaque " + r.type; }, e => { results.simple = "failed"; });
</script>
</body></html>
"""


@pytest.fixture
def other_origin(tmp_path):
    """Serves files from a directory on another port: start(html) -> the page's URL."""
    servers = []

    def start(html):
        (tmp_path / "index.html").write_text(html, encoding="utf-8")
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
        handler.log_message = lambda *args: None
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return "http://127.0.0.1:%d/index.html" % server.server_address[1]

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_a_page_from_another_origin_cannot_order(page, start_server, other_origin):
    server = start_server()
    before = server.stats()
    page.get(other_origin(EVIL_PAGE % {"target": server.url}))
    wait_for(page, lambda d: d.execute_script("return !!(window.results && results.json && results.simple);"),
             "the other page's requests did not finish")
    results = page.execute_script("return window.results;")
    assert results["json"] == "failed", results            # the preflight found no CORS consent
    assert results["simple"] == "opaque opaque", results   # sent, but its script cannot read the answer

    # The form post navigates to the server's answer: its 403.
    page.execute_script("document.getElementById('f').submit();")
    wait_for(page, lambda d: d.current_url.startswith(server.url), "the form did not reach the server")
    wait_for(page, lambda d: d.execute_script(
        "const n = performance.getEntriesByType('navigation')[0]; return n && n.responseStatus;") == 403,
        "the server did not answer the other origin's order with 403")

    after = server.stats()
    assert after["orders_served"] == before["orders_served"], "another origin's page sold something"
    assert after["sold_banana"] == before["sold_banana"]
    assert after["orders_refused"] == before["orders_refused"]
