"""The real juice-server for the browser tests: how to run it (server_command), one running
server (JuiceServer: its ports, its line protocol, stop, kill, restart) and a display on the line
protocol (LineDisplay). Fixtures in conftest.py make them for a test."""
import os
import signal
import socket
import subprocess
import threading
import time

from settings import DEADLINE, ROOT, START_DEADLINE


def server_command():
    binary = os.environ.get("JUICE_SERVER_BIN")
    if not binary:
        subprocess.run(["swift", "build", "--product", "juice-server"], cwd=ROOT, check=True)
        bin_dir = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                                 capture_output=True, text=True).stdout.strip()
        binary = os.path.join(bin_dir, "juice-server")
    return [binary]


class JuiceServer:
    """One juice-server process; restart() brings it back on the same ports and data directory."""

    def __init__(self, command, data_dir=None, env=None):
        self.command = command
        self.data_dir = data_dir
        self.env = dict(os.environ)
        self.env.pop("JUICE_MANAGER_TOKEN", None)   # only the test decides whether there is a token
        self.env.update(env or {})
        self.tcp_port = 0
        self.http_port = 0
        self.process = None
        self.lines = []
        self.extra_args = []          # e.g. ["--menu", path]; kept across restarts

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.http_port

    def start(self):
        storage = ["--data", self.data_dir] if self.data_dir else ["--in-memory"]
        args = self.command + storage + ["--port", str(self.tcp_port), "--http-port", str(self.http_port)] + self.extra_args
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        env=self.env, text=True, encoding="utf-8")
        ports = {}
        found = threading.Event()

        def read():  # keeps draining the output so the server never blocks on a full pipe
            for line in self.process.stdout:
                self.lines.append(line.rstrip("\n"))
                if line.startswith("juice-server listening on "):
                    ports["tcp"] = int(line.rsplit(":", 1)[1])
                elif line.startswith("juice-server board on http://"):
                    ports["http"] = int(line.split("://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
                if "tcp" in ports and "http" in ports:
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(START_DEADLINE) or "tcp" not in ports or "http" not in ports:
            self.kill()
            raise RuntimeError("juice-server did not print its ports:\n" + "\n".join(self.lines))
        self.tcp_port, self.http_port = ports["tcp"], ports["http"]
        return self

    def stop(self):
        """SIGTERM, as a shop's service manager would, and wait for a clean exit."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(START_DEADLINE)
        self.process = None

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self):
        """Starts again on the same ports and data; the old sockets may linger a moment."""
        deadline = time.monotonic() + START_DEADLINE
        while True:
            try:
                return self.start()
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def send(self, line):
        """Sends one command over TCP and returns its reply (skipping EVENT lines)."""
        with socket.create_connection(("127.0.0.1", self.tcp_port), timeout=DEADLINE) as s:
            f = s.makefile("rwb")
            f.write((line + "\n").encode())
            f.flush()
            while True:
                reply = f.readline().decode().rstrip("\n")
                if not reply:
                    raise RuntimeError("connection closed before the reply to " + line)
                if not reply.startswith("EVENT "):
                    return reply

    def stats(self):
        """The STATS reply as {key: value}, numbers as ints."""
        reply = self.send("STATS")
        assert reply.startswith("OK STATS "), reply
        pairs = (w.split("=", 1) for w in reply.split()[2:])
        return {k: int(v) if v.isdigit() else v for k, v in pairs}

    def stock(self):
        """The STOCK reply as {fruit: count}."""
        reply = self.send("STOCK")
        assert reply.startswith("OK STOCK "), reply
        return {k: int(v) for k, v in (w.split("=") for w in reply.split()[2:] if not w.startswith("seq="))}


class LineDisplay:
    """A display on the line protocol, as `nc 127.0.0.1 7878` would be: it connects, and a thread
    keeps every line it reads (so a test can wait for an EVENT STOCK line)."""

    def __init__(self, server):
        self.lines = []
        self.sock = socket.create_connection(("127.0.0.1", server.tcp_port), timeout=DEADLINE)
        self.sock.settimeout(None)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for raw in self.sock.makefile("rb"):
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except OSError:
            pass

    def wait_for(self, predicate, message):
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            found = [line for line in list(self.lines) if predicate(line)]
            if found:
                return found[0]
            time.sleep(0.05)
        raise AssertionError("%s (waited %d s); the display read:\n%s" % (message, DEADLINE, "\n".join(self.lines)))

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
