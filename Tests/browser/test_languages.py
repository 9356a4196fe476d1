"""Whole languages (issue 34): with `?lang=ko` every page is Korean, its title, headings, buttons,
labels, aria-labels, the live light and `<html lang>`; a browser whose first language is Korean
(its Accept-Language) gets Korean with no `lang`, and `?lang=en` keeps it English."""

import re

from conftest import wait_for
from test_reports import TODAY, start_shop, wait_shown

PAGES = ["/", "/till", "/dashboard", "/reports", "/stock", "/tills"]
TITLES = {"/": "Juice board", "/till": "Juice till", "/dashboard": "Juice sales", "/reports": "Juice reports",
          "/stock": "Juice stock", "/tills": "Juice tills"}

# Every word a person can read on the page: visible text, the title, and the aria-label, title and
# placeholder of visible elements. The menu's names (data, not words of the page: a fruit with no
# Korean alias keeps its name), file names (days.csv), paths (/till) and ids with digits are taken out.
WORDS = """
const seen = [document.title];
const visible = e => e && e.checkVisibility && e.checkVisibility({ visibilityProperty: true, opacityProperty: false });
const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walk.nextNode()) {
  const t = walk.currentNode, p = t.parentElement;
  if (t.textContent.trim() && p && !['SCRIPT', 'STYLE'].includes(p.tagName) && visible(p)) seen.push(t.textContent);
}
for (const e of document.querySelectorAll('[aria-label], [title], [placeholder]'))
  if (visible(e)) for (const a of ['aria-label', 'title', 'placeholder']) if (e.getAttribute(a)) seen.push(e.getAttribute(a));
return seen;"""


def english_words(driver, names):
    found = set()
    for text in driver.execute_script(WORDS):
        text = re.sub(r"[\w-]+\.csv|/\w+|XXXX-XXXX|[\w.-]*\d[\w.-]*", " ", text)   # ids like c1dce.2
        for word in re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)*", text):
            if word.lower() not in names:
                found.add(word)
    return sorted(found)


def menu_names(driver):
    state = driver.execute_async_script(
        "const done = arguments[0]; fetch('/state').then(r => r.json()).then(done, () => done(null));")
    names = set()
    for item in state["fruits"] + state["juices"]:
        names.add(item["name"].lower())
        names.update(part.lower() for part in re.findall(r"[A-Za-z]+", item["name"]))
    return names


def drawn(driver, path):
    if path == "/reports":
        wait_shown(driver, TODAY)
    else:
        wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete", "not loaded")
        wait_for(driver, lambda d: d.find_elements("css selector", "[data-fruit], [data-juice], #tills li, #empty:not([hidden])")
                 or path == "/tills", "%s did not draw" % path)
    if path in ("/", "/till", "/stock", "/reports", "/tills"):
        wait_for(driver, lambda d: d.execute_script("return document.getElementById('conn').dataset.state") == "live",
                 "%s never went live" % path)


def language(driver):
    return driver.execute_script("return [document.documentElement.lang, document.title, navigator.languages[0]];")


def test_korean_is_korean_on_every_page(page, start_server, tmp_path):
    server, _ = start_shop(start_server, tmp_path)
    assert server.send("ORDER banana 1").startswith("OK ORDER")
    for path in PAGES:
        page.get(server.url + path + "?lang=ko")
        drawn(page, path)
        names = menu_names(page)
        lang, title, _ = language(page)
        assert lang == "ko", "%s: <html lang=%r>" % (path, lang)
        assert not re.search(r"[A-Za-z]", title), "%s: title %r" % (path, title)
        conn = page.execute_script("const c = document.getElementById('conn'); return [c.dataset.state, c.textContent];")
        assert conn[1] == {"live": "실시간", "reconnecting": "다시 연결 중"}[conn[0]], "%s: live light %r" % (path, conn)
        assert english_words(page, names) == [], "%s?lang=ko shows English" % path
        # Links keep the language asked for.
        links = page.execute_script("return Array.from(document.querySelectorAll('a[data-nav]'), a => a.search);")
        assert links and set(links) == {"?lang=ko"}, (path, links)


def test_the_dashboard_names_the_menu_in_korean(page, start_server, tmp_path):
    # The menu's names too (its first Korean alias), not only the page's words: before, the
    # dashboard's rows and its restock advice said "banana".
    server, _ = start_shop(start_server, tmp_path)
    assert server.send("SET kiwi 0").startswith("OK SET")
    assert server.send("ORDER kiwi 1").startswith("ERR")
    page.get(server.url + "/dashboard?lang=ko")
    drawn(page, "/dashboard")
    wait_for(page, lambda d: d.execute_script("return document.querySelectorAll('#juices .row .name').length") > 0,
             "the dashboard drew no juices")
    names = page.execute_script("return Array.from(document.querySelectorAll('#juices .name, #fruits .name'), e => e.textContent);")
    assert names and all(not re.search(r"[A-Za-z]", n) for n in names), names
    wait_for(page, lambda d: "키위" in d.find_element("id", "advice").text, "the advice does not name 키위")
    page.get(server.url + "/dashboard?lang=en")
    drawn(page, "/dashboard")
    wait_for(page, lambda d: d.execute_script("return document.querySelectorAll('#juices .row .name').length") > 0,
             "the dashboard drew no juices")
    assert "kiwi" in page.execute_script("return document.getElementById('fruits').textContent;")


def test_the_token_prompt_pairing_and_tills_are_korean(page, start_server, tmp_path):
    server, _ = start_shop(start_server, tmp_path, token="s3cret")
    for path in ("/dashboard", "/reports", "/stock", "/tills"):
        page.get(server.url + path + "?lang=ko")
        wait_for(page, lambda d: d.find_element("id", "auth").is_displayed(), "%s asks for no token" % path)
        assert english_words(page, set()) == [], "%s?lang=ko asks for the token in English" % path
    page.get(server.url + "/till?lang=ko")                  # a till not paired yet: its pairing form
    wait_for(page, lambda d: d.find_element("id", "pairing").is_displayed(), "the till asks for no pairing")
    page.find_element("id", "pair-submit").click()
    wait_for(page, lambda d: d.find_element("id", "pair-error").text, "no word on an empty code")
    assert english_words(page, set()) == [], "the till's pairing form is English"
    page.get(server.url + "/tills?lang=ko")
    wait_for(page, lambda d: d.find_element("id", "auth").is_displayed(), "/tills asks for no token")
    page.find_element("id", "token").send_keys("s3cret")
    page.find_element("id", "token-submit").click()
    wait_for(page, lambda d: d.execute_script("return document.getElementById('page').dataset.state") == "shown",
             "the tills did not show")
    page.find_element("id", "code-make").click()
    wait_for(page, lambda d: d.find_element("id", "code").text, "no pairing code")
    code = page.find_element("id", "code").text.lower()     # the code itself is letters, not words
    assert english_words(page, {code}) == [], "the pairing code's words are English"


def test_the_browsers_language_is_the_default(page, start_server, tmp_path):
    server, _ = start_shop(start_server, tmp_path)
    agent = page.execute_script("return navigator.userAgent;")
    try:
        page.execute_cdp_cmd("Network.enable", {})
        page.execute_cdp_cmd("Network.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": "ko-KR,ko"})
        for path in PAGES:
            page.get(server.url + path)
            drawn(page, path)
            lang, title, first = language(page)
            assert first.startswith("ko"), "the browser does not prefer Korean: %r" % first
            assert lang == "ko" and not re.search(r"[A-Za-z]", title), (path, lang, title)
            links = page.execute_script("return Array.from(document.querySelectorAll('a[data-nav]'), a => a.search);")
            assert links and set(links) == {""}, (path, links)    # no lang given: none on the links
            page.get(server.url + path + "?lang=en")
            drawn(page, path)
            assert language(page)[:2] == ["en", TITLES[path]], path
            assert page.execute_script("return document.getElementById('conn').textContent;") == "live", path
            links = page.execute_script("return Array.from(document.querySelectorAll('a[data-nav]'), a => a.search);")
            assert links and set(links) == {"?lang=en"}, (path, links)
    finally:
        page.execute_cdp_cmd("Network.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": "en-US,en"})
    # Without Korean preferred and with no lang, English.
    page.get(server.url + "/")
    drawn(page, "/")
    assert language(page)[:2] == ["en", "Juice board"]
