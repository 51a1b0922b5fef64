#!/usr/bin/env python3
"""Plays `chessalg serve` in a real headless browser: Debian's chromium
driven through chromedriver's WebDriver protocol (standard library only).

Fool's Mate in chess by clicks (the result shown in #status), then a pawn
promoted to a knight through the picker, and a screenshot of the board.

Usage:
  python3 scripts/browser_test.py [--binary target/release/chessalg]
      [--chromium /usr/bin/chromium] [--driver /usr/bin/chromedriver]
      [--screenshot target/browser-test.png]

Needs `apt-get install chromium chromium-driver`. Exits 1 on any failure.
"""
import argparse
import base64
import json
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    """A WebDriver session: just the calls this test needs."""

    def __init__(self, url, chromium):
        self.url = url
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium,
                                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                                            "--window-size=1200,900"]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"{}").get("value", {})

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def find(self, css, timeout=10):
        end = time.time() + timeout
        while True:
            found = self.s("POST", "/elements", {"using": "css selector", "value": css})
            if found:
                return list(found[0].values())[0]
            if time.time() > end:
                raise AssertionError(f"nothing matches {css}")
            time.sleep(0.1)

    def click(self, css):
        self.s("POST", f"/element/{self.find(css)}/click", {})

    def text(self, css):
        return self.s("GET", f"/element/{self.find(css)}/text")

    def run(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait_text(self, css, want, timeout=10):
        end = time.time() + timeout
        while want not in self.text(css):
            if time.time() > end:
                raise AssertionError(f"{css} says {self.text(css)!r}, not {want!r}")
            time.sleep(0.1)

    def close(self):
        try:
            self.s("DELETE", "")
        except Exception:
            pass


def play(d, moves):
    """Plays moves by clicking their from and to squares (and the picker)."""
    for m in moves:
        frm, to, pick = m[:2], m[2:4], m[4:]
        before = d.text("#moves")
        d.click(f'[data-square="{frm}"]')
        d.find(f'[data-square="{to}"][data-target]')
        d.click(f'[data-square="{to}"]')
        if pick:
            d.click(f'[data-move="{m}"]')
        end = time.time() + 10
        while d.text("#moves") == before:
            if time.time() > end:
                raise AssertionError(f"{m} was not played")
            time.sleep(0.05)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/chessalg")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--driver", default="/usr/bin/chromedriver")
    ap.add_argument("--screenshot", default="target/browser-test.png")
    args = ap.parse_args()
    server = subprocess.Popen([args.binary, "serve", "rules/chess.alg", "--port", "0"],
                              stdout=subprocess.PIPE, text=True)
    port = free_port()
    driver = subprocess.Popen([args.driver, f"--port={port}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    d = None
    try:
        board = server.stdout.readline().strip()
        time.sleep(0.5)
        d = Driver(f"http://127.0.0.1:{port}", args.chromium)
        d.go(board)
        d.find('[data-square="e2"]')
        d.wait_text("#status", "white to move")
        play(d, ["f2f3", "e7e5", "g2g4", "d8h4"])
        d.wait_text("#status", "black wins")
        print("fool's mate: " + d.text("#status"))
        # Looking back: the first move of the record shows the board after it.
        d.click('#moves [data-ply="1"]')
        d.wait_text("#status", "Looking at move 1 of 4")
        assert d.text('[data-square="f3"]').startswith("♙"), "f3 after 1. f3"
        assert not d.text('[data-square="h4"]').startswith("♛"), "no queen on h4 yet"
        d.click('#moves [data-ply="4"]')
        d.wait_text("#status", "black wins")
        print("looked back at move 1 and returned")
        # A promotion: the picker offers the four pieces.
        d.run("document.getElementById('fen').value = arguments[0];", "k7/4P3/8/8/8/8/8/7K w - - 0 1")
        d.click("#loadfen")
        d.find('[data-square="e7"]')
        d.wait_text("#status", "white to move")
        play(d, ["e7e8n"])
        piece = d.text('[data-square="e8"]')
        assert "♘" in piece, f"e8 shows {piece!r}"
        print("promotion through the picker: e8 shows " + piece.split()[0])
        png = d.s("GET", "/screenshot")
        with open(args.screenshot, "wb") as f:
            f.write(base64.b64decode(png))
        print("screenshot: " + args.screenshot)
        return 0
    except AssertionError as e:
        print(f"browser test failed: {e}", file=sys.stderr)
        return 1
    finally:
        if d:
            d.close()
        driver.kill()
        server.kill()
        driver.wait()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
