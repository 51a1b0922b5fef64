#!/usr/bin/env python3
"""A screenshot of a page as headless Chromium draws it (through
chromedriver, as scripts/browser_test.py drives it), once the board is
drawn: what a person opening the link would see.

Usage:
  python3 scripts/screenshot.py URL OUT.png

Needs `apt-get install chromium chromium-driver`.
"""
import argparse
import base64
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_test import Driver, start_driver  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("out")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--driver", default="/usr/bin/chromedriver")
    args = ap.parse_args()
    driver, driver_url = start_driver(args.driver)
    d = None
    try:
        d = Driver(driver_url, args.chromium)
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
