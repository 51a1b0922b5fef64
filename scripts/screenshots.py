#!/usr/bin/env python3
"""Screenshots of the game room for each game family, at desktop size
(1280x900) and phone size (390x844), into docs/screenshots/: a game of
each rule file after a few random moves, as a person opening its link
sees it (headless Chromium through chromedriver, as
scripts/browser_test.py drives it).

Usage:
  python3 scripts/screenshots.py [--binary target/release/chessalg]
      [--out docs/screenshots] [--only NAME ...]

Needs `apt-get install chromium chromium-driver`.
"""
import argparse
import base64
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_test import Driver, Server, start_driver  # noqa: E402

# One rule file per family: (file, random moves played first).
FAMILIES = [
    ("chess", 6), ("crazyhouse", 9), ("shogi", 8), ("xiangqi", 6), ("janggi", 6),
    ("checkers", 6), ("othello", 8), ("hex", 9), ("amazons", 4), ("duck", 4),
    ("capablanca", 6), ("connect4", 7), ("tictactoe", 3), ("breakthrough", 6),
]


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/chessalg")
    ap.add_argument("--out", default="docs/screenshots")
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    driver, driver_url = start_driver("/usr/bin/chromedriver")
    d = Driver(driver_url, "/usr/bin/chromium")
    try:
        for name, moves in FAMILIES:
            if args.only and name not in args.only:
                continue
            with Server(args.binary, f"rules/{name}.alg") as server:
                game = post(server.url + "api/games", {})
                for _ in range(moves):
                    game = post(server.url + f"api/games/{game['id']}/ai", {"random": True})
                    if game.get("result"):
                        break
                for size, (w, h) in (("desktop", (1280, 900)), ("phone", (390, 844))):
                    d.s("POST", "/window/rect", {"width": w, "height": h})
                    d.go(server.url + f"?game={game['id']}")
                    d.wait("return typeof game !== 'undefined' && game !== null && !!document.querySelector('#board g');",
                           "the board")
                    time.sleep(0.5)
                    path = os.path.join(args.out, f"{name}-{size}.png")
                    with open(path, "wb") as out:
                        out.write(base64.b64decode(d.s("GET", "/screenshot")))
                    print(path)
        return 0
    finally:
        d.close()
        driver.kill()


if __name__ == "__main__":
    sys.exit(main())
