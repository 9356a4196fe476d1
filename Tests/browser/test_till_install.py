"""The till is installable (issue 34): `/till` links a web app manifest, and Chromium's own
installability check (DevTools `Page.getInstallabilityErrors`, the one behind "Install app" and
"Add to home screen") finds nothing wrong with it on `localhost` (http://localhost is a secure
context). The manifest Chromium read says what a tablet opens: `/till`, full screen."""
import json

from conftest import attribute, wait_for
from test_till_offline import worker_has_the_page


def installability_errors(driver):
    reply = driver.execute_cdp_cmd("Page.getInstallabilityErrors", {})
    return [error["errorId"] for error in reply.get("installabilityErrors", [])]


def test_chromium_finds_the_till_installable_on_localhost(page, start_server):
    server = start_server()
    url = "http://localhost:%d" % server.http_port
    page.get(url + "/till")
    wait_for(page, lambda d: attribute(d, '[data-juice="banana"]', "data-can-make") is not None, "no juices")
    # The worker keeps working as before (test_till_offline.py has what it does).
    wait_for(page, worker_has_the_page, "the service worker did not take the till page")

    manifest = page.execute_cdp_cmd("Page.getAppManifest", {})
    assert manifest["url"] == url + "/till.webmanifest", manifest["url"]
    assert manifest["errors"] == [], manifest["errors"]
    served = json.loads(manifest["data"])
    assert served["start_url"] == "/till" and served["display"] == "standalone", served
    # As Chromium understood it: URLs resolved, the display mode its own enum's name (kStandalone).
    parsed = manifest.get("manifest") or {}
    assert parsed.get("startUrl") == url + "/till", parsed
    assert parsed.get("scope") == url + "/till", parsed
    assert parsed.get("display", "").lower().endswith("standalone"), parsed
    icons = sorted((icon.get("url"), icon.get("sizes")) for icon in parsed.get("icons", []))
    assert icons == [(url + "/till-icon-192.png", "192x192"), (url + "/till-icon-512.png", "512x512")], icons

    errors = []

    def installable(driver):
        errors[:] = installability_errors(driver)
        return errors == []
    wait_for(page, installable, "Chromium's installability check: %s" % errors)
