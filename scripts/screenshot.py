#!/usr/bin/env python3
"""A screenshot of a page as headless Chromium draws it (through
chromedriver, as scripts/browser_test.py drives it), once the board is
drawn: what a person opening the link would see.

Usage:
  python3 scripts/screenshot.py URL OUT.png [--width 1200] [--height 900]

Needs `apt-get install chromium chromium-driver`.
"""
import argparse
import base64
import os
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_test import Driver, free_port  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("out")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--driver", default="/usr/bin/chromedriver")
    args = ap.parse_args()
    port = free_port()
    driver = subprocess.Popen([args.driver, f"--port={port}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    d = None
    try:
        end = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=5).read()
                break
            except OSError:
                if time.time() > end:
                    raise AssertionError("chromedriver did not answer within 30 s")
                time.sleep(0.2)
        d = Driver(f"http://127.0.0.1:{port}", args.chromium)
        d.go(args.url)
        d.wait("return !!document.querySelector('#board g');", "the board")
        time.sleep(0.3)
        with open(args.out, "wb") as out:
            out.write(base64.b64decode(d.s("GET", "/screenshot")))
        print(args.out)
        return 0
    finally:
        if d:
            d.close()
        driver.kill()
        driver.wait()


if __name__ == "__main__":
    sys.exit(main())
