#!/usr/bin/env python3
"""A stand-in for juice-server, for working on the browser pages without a Swift build.

NOT the thing under test: the browser tests target the real juice-server binary. With
JUICE_BROWSER_MOCK=1 they run against this instead, so the pages and the tests can be iterated
on quickly. It serves the page text straight out of the Swift files (BoardPage.swift,
DashboardPage.swift), the HTTP routes of HTTP-CONTRACT.md (/, /dashboard, /state, /events,
/sales, /healthz) and just enough of the TCP line protocol (ORDER, STOCK, RESTOCK, SET, AUTH,
PING, QUIT) on the standard menu or a --menu file. Same flags and start lines as juice-server:

    python3 Tests/browser/dev/mock_server.py --port 0 --http-port 0 [--in-memory | --data DIR]
"""
import argparse
import json
import os
import queue
import re
import signal
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

FRUITS = [("strawberry", ["딸기"]), ("banana", ["바나나"]), ("pineapple", ["파인애플"]),
          ("kiwi", ["키위"]), ("mango", ["망고"])]
JUICES = [("strawberry", ["딸기쥬스"], [("strawberry", 16)]),
          ("banana", ["바나나쥬스"], [("banana", 2)]),
          ("kiwi", ["키위쥬스"], [("kiwi", 3)]),
          ("pineapple", ["파인애플쥬스"], [("pineapple", 2)]),
          ("strawberry-banana", ["딸바쥬스"], [("strawberry", 10), ("banana", 1)]),
          ("mango", ["망고쥬스"], [("mango", 3)]),
          ("mango-kiwi", ["망키쥬스"], [("mango", 2), ("kiwi", 1)])]


INITIAL = {}


def load_menu(path):
    """A --menu file (the format of `juice-server --print-menu`) replaces the standard menu."""
    global FRUITS, JUICES
    with open(path, encoding="utf-8") as f:
        menu = json.load(f)
    FRUITS = [(x["name"], x.get("aliases") or []) for x in menu["fruits"]]
    JUICES = [(x["name"], x.get("aliases") or [], [(r["fruit"], r["amount"]) for r in x["recipe"]])
              for x in menu["juices"]]
    for x in menu["fruits"]:
        if x.get("initial_stock") is not None:
            INITIAL[x["name"]] = x["initial_stock"]


def swift_source(swift_file):
    with open(os.path.join(ROOT, "Sources", "JuiceServer", "HTTP", swift_file), encoding="utf-8") as f:
        return f.read()


def page(swift_file):
    """The HTML inside the Swift raw string literal #\"\"\" ... \"\"\"# of a page file, after the
    shared head that `PageStyle.head(title:)` (PageStyle.swift) writes before it."""
    text = swift_source(swift_file)
    html = re.search(r'#"""\n(.*?)\n"""#', text, re.S).group(1)
    title = re.search(r'PageStyle\.head\(title: "(.*?)"\)', text)
    if not title:
        return html
    style = swift_source("PageStyle.swift")
    head = re.search(r'\n        """\n(.*?)\n        """', style, re.S).group(1)
    head = "\n".join(line[8:] for line in head.split("\n")).replace("\\(title)", title.group(1))
    base_css = re.search(r'#"""\n(.*?)\n"""#', style, re.S).group(1)
    return head + base_css + html


class Store:
    def __init__(self, data_dir, initial):
        self.lock = threading.Lock()
        self.path = os.path.join(data_dir, "mock-state.json") if data_dir else None
        self.seq = 0
        self.stock = {name: INITIAL.get(name, initial) for name, _ in FRUITS}
        if self.path and os.path.exists(self.path):
            with open(self.path) as f:
                saved = json.load(f)
            self.seq = saved["seq"]
            self.stock = {name: saved["stock"].get(name, self.stock[name]) for name, _ in FRUITS}
        self.history = []                      # (seq, {fruit: value}) since start
        self.listeners = []                    # queues of SSE streams
        self.sold = {name: 0 for name, _, _ in JUICES}
        self.lost = dict(self.sold)
        self.short = {name: 0 for name, _ in FRUITS}
        self.served = self.refused = 0
        self.minutes = {}                      # minute start -> [served, refused]

    def change(self, values):
        self.seq += 1
        self.stock.update(values)
        self.history.append((self.seq, dict(values)))
        if self.path:
            with open(self.path, "w") as f:
                json.dump({"seq": self.seq, "stock": self.stock}, f)
        for q in list(self.listeners):
            q.put((self.seq, dict(values)))
        return self.seq

    def count_minute(self, index):
        minute = int(time.time()) // 60 * 60
        self.minutes.setdefault(minute, [0, 0])[index] += 1

    def state(self):
        can = {}
        for name, _, recipe in JUICES:
            can[name] = min(self.stock[f] // a for f, a in recipe)
        return {"seq": self.seq,
                "fruits": [{"name": n, "aliases": a} for n, a in FRUITS],
                "juices": [{"name": n, "aliases": a, "recipe": [{"fruit": f, "amount": x} for f, x in r]}
                           for n, a, r in JUICES],
                "stock": dict(self.stock), "can_make": can}

    def sales(self):
        now = int(time.time()) // 60 * 60
        per_minute = [{"t": t, "served": self.minutes.get(t, [0, 0])[0], "refused": self.minutes.get(t, [0, 0])[1]}
                      for t in range(now - 3600, now + 60, 60)]
        return {"seq": self.seq, "orders_served": self.served, "orders_refused": self.refused,
                "juices": [{"name": n, "aliases": a, "sold": self.sold[n], "lost": self.lost[n]} for n, a, _ in JUICES],
                "fruits": [{"name": n, "aliases": a, "stock": self.stock[n], "short": self.short[n]} for n, a in FRUITS],
                "per_minute": per_minute}


def resolve(name, table):
    for canonical, aliases, *_ in table:
        if name.lower() == canonical or name in aliases:
            return canonical
    return None


def handle_line(store, line, session):
    words = line.split()
    if not words:
        return None
    cmd, args = words[0].upper(), words[1:]
    with store.lock:
        if cmd == "PING":
            return "OK PONG"
        if cmd == "QUIT":
            return "OK BYE"
        if cmd == "AUTH":
            session["auth"] = bool(args) and args[0] == TOKEN
            return "OK AUTH" if session["auth"] else "ERR UNAUTHORIZED wrong token"
        if cmd == "STOCK":
            return "OK STOCK seq=%d " % store.seq + " ".join("%s=%d" % (n, store.stock[n]) for n, _ in FRUITS)
        if cmd == "ORDER":
            juice = resolve(args[0], JUICES) if args else None
            if juice is None:
                return "ERR UNKNOWN_JUICE"
            count = int(args[1]) if len(args) > 1 and args[1].isdigit() else 1
            recipe = next(r for n, _, r in JUICES if n == juice)
            short = [(f, a * count) for f, a in recipe if store.stock[f] < a * count]
            if short:
                store.refused += 1
                store.lost[juice] += count
                for f, _ in short:
                    store.short[f] += 1          # refused orders the fruit was short in
                store.count_minute(1)
                return "ERR OUT_OF_STOCK needs " + " ".join("%s=%d" % s for s in short) + \
                       " has " + " ".join("%s=%d" % (f, store.stock[f]) for f, _ in short)
            values = {f: store.stock[f] - a * count for f, a in recipe}
            seq = store.change(values)
            store.served += 1
            store.sold[juice] += count
            store.count_minute(0)
            return "OK ORDER %s %d seq=%d " % (juice, count, seq) + " ".join("%s=%d" % kv for kv in values.items())
        if cmd in ("RESTOCK", "SET"):
            if TOKEN and not session.get("auth"):
                return "ERR FORBIDDEN %s needs a manager: send AUTH <token> first" % cmd
            fruit = resolve(args[0], FRUITS) if args else None
            if fruit is None or len(args) < 2 or not args[1].isdigit():
                return "ERR BAD_ARGUMENT"
            value = int(args[1]) + (store.stock[fruit] if cmd == "RESTOCK" else 0)
            seq = store.change({fruit: value})
            return "OK %s seq=%d %s=%d" % (cmd, seq, fruit, value)
    return "ERR UNKNOWN_COMMAND"


class LineHandler(socketserver.StreamRequestHandler):
    def handle(self):
        self.wfile.write(b"EVENT HELLO juice-server mock protocol=1 type HELP for commands\n")
        session = {}
        for raw in self.rfile:
            reply = handle_line(STORE, raw.decode("utf-8", "replace").strip(), session)
            if reply:
                self.wfile.write((reply + "\n").encode())
            if reply == "OK BYE":
                return


class HTTPHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, ctype="text/plain; charset=utf-8", extra=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.close_connection = True

    def authorized(self):
        return not TOKEN or self.headers.get("Authorization") == "Bearer " + TOKEN

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/":
            return self.send(200, page("BoardPage.swift"), "text/html; charset=utf-8")
        if path == "/dashboard":
            return self.send(200, page("DashboardPage.swift"), "text/html; charset=utf-8")
        if path == "/healthz":
            return self.send(200, "ok\n")
        if path == "/state":
            with STORE.lock:
                return self.send(200, json.dumps(STORE.state(), ensure_ascii=False), "application/json; charset=utf-8")
        if path == "/sales":
            if not self.authorized():
                return self.send(401, "unauthorized\n", extra=[("WWW-Authenticate", 'Bearer realm="juice-server"')])
            with STORE.lock:
                return self.send(200, json.dumps(STORE.sales(), ensure_ascii=False), "application/json; charset=utf-8")
        if path == "/events":
            return self.stream()
        return self.send(404, "not found\n")

    def stream(self):
        q = queue.Queue()
        with STORE.lock:
            STORE.listeners.append(q)
            last = self.headers.get("Last-Event-ID")
            first = []
            since = [h for h in STORE.history if last is not None and last.isdigit() and h[0] > int(last)]
            reachable = last is not None and last.isdigit() and int(last) <= STORE.seq and \
                (int(last) == STORE.seq or (since and since[0][0] == int(last) + 1))
            if reachable:
                first = since
            else:
                first = [(STORE.seq, dict(STORE.stock))]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        try:
            for seq, values in first:
                self.event(seq, values)
            while not STOPPING.is_set():
                try:
                    seq, values = q.get(timeout=0.5)
                    self.event(seq, values)
                except queue.Empty:
                    self.wfile.write(b": ping\n\n")
                    self.wfile.flush()
        except OSError:
            pass
        finally:
            STORE.listeners.remove(q)
            self.close_connection = True

    def event(self, seq, values):
        data = json.dumps({"seq": seq, "stock": values}, ensure_ascii=False)
        self.wfile.write(("id: %d\nevent: stock\ndata: %s\n\n" % (seq, data)).encode())
        self.wfile.flush()


class TCPServer(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


class HTTPServer(ThreadingHTTPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    global STORE, TOKEN, STOPPING
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=7878)
    p.add_argument("--http-port", type=int, default=7879)
    p.add_argument("--data", default=None)
    p.add_argument("--in-memory", action="store_true")
    p.add_argument("--initial-stock", type=int, default=10)
    p.add_argument("--menu", default=None)
    a = p.parse_args()
    if a.menu:
        load_menu(a.menu)
    TOKEN = os.environ.get("JUICE_MANAGER_TOKEN") or None
    STOPPING = threading.Event()
    if a.data:
        os.makedirs(a.data, exist_ok=True)
    STORE = Store(None if a.in_memory else a.data, a.initial_stock)
    tcp = TCPServer(("127.0.0.1", a.port), LineHandler)
    http = HTTPServer(("127.0.0.1", a.http_port), HTTPHandler)
    for server in (tcp, http):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print("juice-server listening on 127.0.0.1:%d" % tcp.server_address[1], flush=True)
    print("juice-server board on http://127.0.0.1:%d/" % http.server_address[1], flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    while not done.wait(0.5):
        pass
    STOPPING.set()
    tcp.shutdown(); http.shutdown()
    tcp.server_close(); http.server_close()
    time.sleep(0.6)   # let the streams see STOPPING and close
    sys.exit(0)


STORE = TOKEN = STOPPING = None
if __name__ == "__main__":
    main()
