#!/usr/bin/env python3
"""Plays `chessalg serve` in a real headless browser: Debian's chromium
driven through chromedriver's WebDriver protocol (standard library only).

By WebDriver's own clicks: Fool's Mate in chess (the result in #status),
looking back at a move, flipping the board, a pawn promoted through the
picker, a PGN file loaded, a knight dragged, a checkers multi-jump that branches (clicked
landing by landing), a crazyhouse drop from the pocket, an Othello pass, and
a screenshot. Then, with `--all`, every rule file in rules/ played to its
end by clicks on the page (the first player's moves chosen at random and
clicked square by square, pocket piece, picker or button as the move needs;
the AI playing the other side), checking that each game ends with a result
shown and no error.

Usage:
  python3 scripts/browser_test.py [--binary target/release/chessalg]
      [--chromium /usr/bin/chromium] [--driver /usr/bin/chromedriver]
      [--screenshot target/browser-test.png] [--all] [--only NAME]

Needs `apt-get install chromium chromium-driver`. Exits 1 on any failure.
"""
import argparse
import base64
import glob
import json
import os
import socket
import subprocess
import sys
import tempfile
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
            "timeouts": {"script": 120000},
            "goog:chromeOptions": {"binary": chromium,
                                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                                            "--window-size=1200,900"]}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=180) as r:
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

    def drag(self, source, target, pointer="mouse"):
        """Presses a pointer (mouse, touch or pen) on one element and lets
        go on another, moving through the way between."""
        key = "element-6066-11e4-a52e-4f735466cecf"
        a, b = self.find(source), self.find(target)
        self.s("POST", "/actions", {"actions": [{
            "type": "pointer", "id": pointer, "parameters": {"pointerType": pointer},
            "actions": [
                {"type": "pointerMove", "origin": {key: a}, "x": 0, "y": 0},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerMove", "origin": {key: b}, "x": 0, "y": 0, "duration": 150},
                {"type": "pointerUp", "button": 0}]}]})
        self.s("DELETE", "/actions")

    def text(self, css):
        """The text of the first element matching css (SVG included)."""
        self.find(css)
        return self.run("return document.querySelector(arguments[0]).textContent;", css)

    def run(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def run_async(self, script, *args):
        return self.s("POST", "/execute/async", {"script": script, "args": list(args)})

    def wait(self, script, what, timeout=20):
        end = time.time() + timeout
        while not self.run(script):
            if time.time() > end:
                raise AssertionError(f"waited for {what}")
            time.sleep(0.05)

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


def start_driver(path):
    """chromedriver on a free port, once it answers: the process and its URL."""
    port = free_port()
    driver = subprocess.Popen([path, f"--port={port}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    # chromedriver takes a moment to listen (longer on a loaded machine).
    end = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(f"{url}/status", timeout=5).read()
            return driver, url
        except OSError:
            if time.time() > end:
                driver.kill()
                raise AssertionError("chromedriver did not answer within 30 s")
            time.sleep(0.2)


class Server:
    """`chessalg serve` on a free port."""

    def __init__(self, binary, rules, *args):
        self.proc = subprocess.Popen([binary, "serve", rules, "--port", "0", "--no-db", *args],
                                     stdout=subprocess.PIPE, text=True)
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http://"):
            raise AssertionError(f"serve {rules} printed {self.url!r}")

    def stop(self):
        self.proc.kill()
        self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def open_page(d, server):
    d.go(server.url)
    d.wait("return typeof game !== 'undefined' && game !== null && !!document.querySelector('#board g');",
           "the board")
    open_panels(d)


def open_panels(d):
    """Opens the panel's folded sections (as a person clicks their titles)."""
    while d.run("return !!document.querySelector('details:not([open]) summary');"):
        d.click("details:not([open]) summary")


def record_length(d):
    return d.run("return game.record.length;")


def play(d, name):
    """Plays the legal move `name` with WebDriver's clicks: its pocket piece,
    each of its squares (checking each lights up as a target first), then
    the picker's button if it asks."""
    move = d.run("return game.legal.find((m) => m.name === arguments[0]) || null;", name)
    assert move, f"{name} is not among the page's legal moves"
    before = record_length(d)
    if not move["clicks"]:
        d.click(f'#extra [data-move="{name}"]')
    else:
        if move["drop"]:
            d.click(f'#board g[data-pocket="{move["drop"]}"]')
        for i, sq in enumerate(move["clicks"]):
            if i > 0 or move["drop"]:
                d.find(f'#board g[data-square="{sq}"][data-target]', timeout=5)
            d.click(f'#board g[data-square="{sq}"]')
        if d.run("return !!document.querySelector('#picker [data-move]');"):
            d.click(f'#picker [data-move="{name}"]')
    d.wait(f"return game.record.length > {before} || !!game.result;", f"{name} to be played")
    err = d.text("#error")
    assert not err, f"{name}: the page says {err!r}"


def scenarios(args, d):
    chess = Server(args.binary, "rules/chess.alg")
    try:
        open_page(d, chess)
        d.wait_text("#status", "white to move")
        for m in ["f2f3", "e7e5", "g2g4", "d8h4"]:
            play(d, m)
        d.wait_text("#status", "black wins")
        print("fool's mate: " + d.text("#status"))
        # Looking back: the first move of the record shows the board after it.
        d.click('#moves [data-ply="1"]')
        d.wait_text("#status", "Looking at move 1 of 4")
        assert "♙" in d.text('[data-square="f3"]'), "f3 after 1. f3"
        assert "♛" not in d.text('[data-square="h4"]'), "no queen on h4 yet"
        d.click('#moves [data-ply="4"]')
        d.wait_text("#status", "black wins")
        print("looked back at move 1 and returned")
        d.click("#flip")
        assert d.run("return document.getElementById('board').classList.contains('flipped');")
        d.click("#flip")
        # Why? The mating move explained in the page (`chessalg explain`).
        d.click('#moves [data-ply="3"]')
        d.wait_text("#status", "Looking at move 3 of 4")
        d.run("document.getElementById('why').value = 'Qh4';")
        d.click("#explain")
        d.wait_text("#explained", "d8h4: legal")
        why = d.text("#explained")
        assert "queen = %♛: rook_moves | bishop_moves" in why or "%♕" in why, why
        print("explained in the page: " + why.splitlines()[0])
        d.click('#moves [data-ply="4"]')
        d.wait_text("#status", "black wins")
        # A promotion: the picker offers the four pieces.
        d.run("document.getElementById('fen').value = arguments[0];", "k7/4P3/8/8/8/8/8/7K w - - 0 1")
        d.click("#loadfen")
        d.wait_text("#status", "white to move")
        d.click('#board g[data-square="e7"]')
        d.click('#board g[data-square="e8"]')
        d.find('#picker [data-move="e7e8q"]')
        # The picker stands by the square, and offers pieces, not names.
        assert d.run("""const p = document.getElementById('picker').getBoundingClientRect();
                        const s = document.querySelector('[data-square="e8"] .shape').getBoundingClientRect();
                        return Math.abs(p.left + p.width / 2 - (s.left + s.width / 2)) < 2 * s.width
                            && Math.abs(p.top - s.bottom) < 2 * s.height;"""), "the picker is far from e8"
        assert d.run("return !!document.querySelector('#picker [data-move=\"e7e8n\"] svg [data-piece]');"), \
            "the picker shows no piece"
        d.click('#picker [data-move="e7e8n"]')
        d.wait("return game.record.length === 1;", "the promotion")
        piece = d.text('[data-square="e8"]')
        assert "♘" in piece, f"e8 shows {piece!r}"
        print("promotion through the picker: e8 shows ♘")
        # A PGN file through the page's file input.
        with tempfile.NamedTemporaryFile("w", suffix=".pgn", delete=False) as f:
            f.write('[Event "browser test"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n')
        d.s("POST", f"/element/{d.find('#pgnfile')}/value", {"text": f.name})
        d.wait("return game.record.length === 6;", "the PGN's six moves")
        os.unlink(f.name)
        assert d.run("return game.record.join(' ');") == "e4 e5 Nf3 Nc6 Bb5 a6"
        print("loaded a PGN: " + d.text("#moves"))
        d.drag('#board g[data-square="b1"]', '#board g[data-square="c3"]')
        d.wait("return game.record.length === 7;", "the dragged move")
        assert d.run("return game.record[6];") == "Nc3", d.run("return game.record;")
        print("dragged b1 to c3 by mouse: Nc3")
        # A finger: Chrome's touch input, the page neither scrolling nor
        # leaving the piece behind.
        d.drag('#board g[data-square="g8"]', '#board g[data-square="f6"]', pointer="touch")
        d.wait("return game.record.length === 8;", "the move dragged by touch")
        assert d.run("return game.record[7];") == "Nf6", d.run("return game.record;")
        assert d.run("return window.scrollY;") == 0, "the page scrolled"
        print("dragged g8 to f6 by touch: Nf6")
        png = d.s("GET", "/screenshot")
        with open(args.screenshot, "wb") as out:
            out.write(base64.b64decode(png))
        print("screenshot: " + args.screenshot)
    finally:
        chess.stop()

    with Server(args.binary, "rules/checkers.alg", "--fen", "B:W14,22,23,30:B9") as checkers:
        open_page(d, checkers)
        d.click('#board g[data-square="9"]')
        d.find('#board g[data-square="18"][data-target]')
        assert not d.run("return !!document.querySelector('#board g[data-square=\"25\"][data-target]');"), \
            "the jump's second landing is not lit before the first is chosen"
        d.click('#board g[data-square="18"]')
        d.find('#board g[data-square="25"][data-target]')
        d.find('#board g[data-square="27"][data-target]')
        d.click('#board g[data-square="27"]')
        d.wait("return game.record.length === 1;", "the multi-jump")
        assert d.text("#moves").strip().endswith("9x18x27"), d.text("#moves")
        assert "⛂" in d.text('[data-square="27"]') and "⛀" not in d.text('[data-square="23"]')
        print("checkers multi-jump clicked landing by landing: " + d.text("#moves").strip())

    with Server(args.binary, "rules/crazyhouse.alg", "--fen", "4k3/8/8/8/8/8/8/4K3[Nq] w - - 0 1") as crazyhouse:
        open_page(d, crazyhouse)
        d.click('#board g[data-pocket="♘"]')
        d.find('#board g[data-square="d4"][data-target]')
        d.click('#board g[data-square="d4"]')
        d.wait("return game.record.length === 1;", "the drop")
        assert "♘" in d.text('[data-square="d4"]')
        assert not d.run("return !!document.querySelector('#board g[data-pocket=\"♘\"]');"), "the pocket is empty"
        print("crazyhouse drop from the pocket: " + d.text("#moves").strip())

    with Server(args.binary, "rules/othello.alg", "--fen", "8/8/8/8/8/8/8/OOX5 w 0 1") as othello:
        open_page(d, othello)
        play(d, "pass")
        assert d.run("return game.record[0];") == "pass"
        print("othello pass by its button")


def friends(args, d, driver_url):
    """A game with seats in three browsers at once: the page's "Play a
    friend" gives the links; the white and black seats each play by clicks
    and see the other's move without reloading; the watcher sees every move
    and can move for nobody (its move requests get 403)."""
    with Server(args.binary, "rules/chess.alg") as chess:
        open_page(d, chess)
        d.click("#friend")
        d.find('#links a[data-link="watch"]')
        links = d.run("""const out = {};
                         for (const a of document.querySelectorAll('#links a[data-link]')) out[a.dataset.link] = a.href;
                         return out;""")
        others = [Driver(driver_url, args.chromium), Driver(driver_url, args.chromium)]
        try:
            white, black, watcher = d, others[0], others[1]
            for who, url in [(white, links["white"]), (black, links["black"]), (watcher, links["watch"])]:
                who.go(url)
                who.wait("return typeof game !== 'undefined' && game !== null && !!document.querySelector('#board g');",
                         "the board")
                # Set once: still there after moves only if the page never reloads.
                who.run("window.notReloaded = true;")
            assert white.text("#seat").startswith("You play white"), white.text("#seat")
            assert black.text("#seat").startswith("You play black"), black.text("#seat")
            assert watcher.text("#seat").startswith("Watching"), watcher.text("#seat")
            # Each seat sees its own side at the bottom: black's page has a8
            # nearer its bottom edge than a1; white's and the watcher's the other way.
            below = """const y = (sq) => document.querySelector(`[data-square="${sq}"] .shape`).getBoundingClientRect().top;
                       return y('a8') > y('a1');"""
            assert black.run(below), "black's page shows the board from white's side"
            assert not white.run(below) and not watcher.run(below), "white's page is turned"
            moves = [(white, "e2e4"), (black, "e7e5"), (white, "g1f3"), (black, "b8c6"), (white, "f1b5")]
            for ply, (who, name) in enumerate(moves, start=1):
                play(who, name)
                for other in (white, black, watcher):
                    other.wait(f"return game.plies === {ply};", f"move {ply} ({name}) seen by every page", timeout=5)
            for who in (white, black, watcher):
                assert who.run("return window.notReloaded === true;"), "a page reloaded"
                assert who.run("return game.record.join(' ');") == "e4 e5 Nf3 Nc6 Bb5"
            # The watcher: no moves offered, clicks select nothing, the API says 403.
            assert watcher.run("return game.legal.length;") == 0
            watcher.click('#board g[data-square="a7"]')
            assert not watcher.run("return !!document.querySelector('#board g[data-target]');")
            status = watcher.run_async("""const done = arguments[arguments.length - 1];
                fetch(`/api/games/${game.id}/move`, {method: 'POST', headers: {'Content-Type': 'application/json'},
                      body: JSON.stringify({move: 'a7a6'})}).then((r) => done(r.status));""")
            assert status == 403, status
            # White may not move for black.
            status = white.run_async("""const done = arguments[arguments.length - 1];
                fetch(`/api/games/${game.id}/move`, {method: 'POST', headers: {'Content-Type': 'application/json',
                      Authorization: `Bearer ${token}`}, body: JSON.stringify({move: 'a7a6'})}).then((r) => done(r.status));""")
            assert status == 403, status
            assert black.run("return game.plies;") == 5
            # Turned by hand, the watcher's board stays turned on reload.
            watcher.click("#flip")
            assert watcher.run(below)
            for who, url in [(black, links["black"]), (watcher, links["watch"])]:
                who.go(url)
                who.wait("return typeof game !== 'undefined' && game !== null && !!document.querySelector('#board g');",
                         "the board again")
                assert who.run(below), "the side shown is lost on reload"
            print("friends by link: 5 moves by clicks in two browsers, each seen live by both and a watcher; "
                  "the watcher's and the wrong seat's moves refused (403)")
        finally:
            for o in others:
                o.close()


def wait_board(d):
    d.wait("return typeof game !== 'undefined' && game !== null && !!document.querySelector('#board g');",
           "the board")


def room(args, d, driver_url):
    """The game room in two browsers, one at phone size playing by touch:
    a visit that stores nothing, a seek in the lobby joined from the other
    browser, moves dragged by mouse and by finger, a draw offered and
    accepted, a rematch with the colours swapped, and a resignation both
    pages show at once."""
    with Server(args.binary, "rules/chess.alg") as chess:
        d.go(chess.url)
        wait_board(d)
        stored = d.run_async("""const done = arguments[arguments.length - 1];
            fetch('/api/games').then((r) => r.json()).then((l) => done(l.games.length));""")
        assert stored == 0, f"a visit stored {stored} games"
        phone = Driver(driver_url, args.chromium)
        try:
            phone.s("POST", "/window/rect", {"width": 390, "height": 844})
            d.run("document.getElementById('play-as').value = 'white';")
            d.click("#seek")
            d.wait("return !!game && game.id !== null && game.you === 'white';", "the seek's seat")
            wait_board(d)
            phone.go(chess.url)
            wait_board(phone)
            phone.find("#seeks [data-join]", timeout=12)
            phone.click("#seeks [data-join]")
            phone.wait("return !!game && game.you === 'black';", "the joined seat")
            wait_board(phone)
            d.wait("return (game.open_seats || []).length === 0;", "the seek's page told of the join")
            below = """const y = (sq) => document.querySelector(`[data-square="${sq}"] .shape`).getBoundingClientRect().top;
                       return y('a8') > y('a1');"""
            assert phone.run(below) and not d.run(below), "the seats' boards are not turned to them"
            width = phone.run("return [document.querySelector('#board svg').getBoundingClientRect().width,"
                              " document.documentElement.clientWidth];")
            assert width[0] >= 0.9 * width[1], f"the phone's board is {width[0]} px of {width[1]}"
            d.drag('#board g[data-square="e2"]', '#board g[data-square="e4"]')
            phone.wait("return game.plies === 1;", "white's move on the phone")
            phone.drag('#board g[data-square="e7"]', '#board g[data-square="e5"]', pointer="touch")
            d.wait("return game.plies === 2;", "black's move, dragged by touch")
            assert d.run("return game.record.join(' ');") == "e4 e5"
            print("lobby: a seek joined from a second browser (phone size); e4 dragged by mouse, e5 by touch")
            # A premove: black drags its knight by touch while white is to
            # move; white's move comes, and black's follows on its own.
            phone.drag('#board g[data-square="g8"]', '#board g[data-square="f6"]', pointer="touch")
            phone.wait("return !!document.querySelector('#board g[data-square=\"f6\"][data-premove]');", "the premove shown")
            assert phone.run("return game.plies;") == 2, "a premove was played before its turn"
            d.click('#board g[data-square="g1"]')
            d.click('#board g[data-square="f3"]')
            for who in (d, phone):
                who.wait("return game.plies === 4;", "the premove played when its turn came")
            assert d.run("return game.record.join(' ');") == "e4 e5 Nf3 Nf6"
            print("premove: black's knight dragged during white's turn, played as white's move came: "
                  + d.run("return game.record.join(' ');"))
            # The piece set: pictures of the pieces, or their symbols.
            shown = """return [...document.querySelectorAll('#board .piece')].filter((p) => p.querySelector('.picture')
                         && getComputedStyle(p.querySelector('.picture')).display !== 'none').length;"""
            assert d.run(shown) == 32, d.run(shown)
            d.run("const s = document.getElementById('piece-set'); s.value = 'letters'; s.dispatchEvent(new Event('change'));")
            assert d.run(shown) == 0, "the letters' set still shows pictures"
            d.run("const s = document.getElementById('piece-set'); s.value = 'traditional'; s.dispatchEvent(new Event('change'));")
            print("piece set: 32 pictures, none when the letters are chosen")
            # A draw offered and accepted.
            d.click('#actions [data-action="offer-draw"]')
            phone.find('#actions [data-action="accept-draw"]', timeout=5)
            phone.click('#actions [data-action="accept-draw"]')
            for who in (d, phone):
                who.wait("return !!game.result && game.result.reason === 'agreement';", "the agreed draw")
                who.wait_text("#status", "½-½")
            print("draw offered and accepted: " + d.text("#status"))
            # A rematch: asked, accepted, both pages in the new game, colours swapped.
            first = d.run("return game.id;")
            d.click('#actions [data-action="rematch"]')
            phone.find('#actions [data-action="rematch"]', timeout=5)
            phone.click('#actions [data-action="rematch"]')
            for who, now in ((d, "black"), (phone, "white")):
                who.wait(f"return !!game && game.id !== {first} && game.you === '{now}';", "the rematch", timeout=10)
                wait_board(who)
            assert d.run(below) and not phone.run(below), "the rematch's boards are not turned to the new sides"
            print("rematch: a new game, the desktop now black, the phone white")
            # A resignation: both pages show it at once.
            d.run("window.confirm = () => true;")
            d.click('#actions [data-action="resign"]')
            t0 = time.time()
            phone.wait("return !!game.result && game.result.reason === 'resignation';", "the resignation", timeout=3)
            seen = time.time() - t0
            phone.wait_text("#status", "1-0")
            d.wait_text("#status", "1-0")
            print(f"resigned: both pages show {d.text('#status')!r} ({seen:.2f} s)")
        finally:
            phone.close()


def playground(args, d):
    """The playground page: a bundled file loaded and checked, an error
    typed in shown on its line, mended, then played: the board of the new
    game's own rules opens."""
    with Server(args.binary, "rules/chess.alg") as chess:
        d.go(chess.url + "playground?from=tictactoe.alg")
        d.wait("return document.getElementById('status').textContent.includes('ready');", "the text checked")
        d.run("""const t = document.getElementById('text');
                 t.value = t.value.replace('moves crosses = ', 'moves crosses = nowhere | ');
                 t.dispatchEvent(new Event('input'));""")
        d.wait("return document.getElementById('status').textContent.includes('1 error');", "the error")
        line = d.run("return Number(document.querySelector('#diagnostics [data-line]').dataset.line);")
        want = d.run("return document.getElementById('text').value.split('\\n').findIndex((l) => l.includes('nowhere')) + 1;")
        assert line == want, (line, want)
        assert d.run("return document.getElementById('play').disabled;")
        d.run("""const t = document.getElementById('text');
                 t.value = t.value.replace('nowhere | ', '');
                 t.dispatchEvent(new Event('input'));""")
        d.wait("return document.getElementById('status').textContent.includes('ready');", "the mended text")
        # The draft is kept in the browser: a reload finds it.
        d.run("""const t = document.getElementById('text');
                 t.value = '// my draft\\n' + t.value;
                 t.dispatchEvent(new Event('input'));""")
        d.go(chess.url + "playground")
        d.wait("return document.getElementById('text').value.startsWith('// my draft');", "the draft after a reload")
        d.wait("return document.getElementById('status').textContent.includes('ready');", "the draft checked")
        d.click("#play")
        d.wait("return typeof game !== 'undefined' && game !== null && !!document.querySelector('#board g');",
               "the played game's board")
        assert d.run("return game.game;") == "Tic-tac-toe", d.run("return game.game;")
        play(d, d.run("return game.legal[0].name;"))
        # The game's page opens its rules (the draft's text, forked), and a
        # new game from its page is of the same variant.
        played = d.run("return game.id;")
        d.click("#new")
        d.wait(f"return game.id !== {played};", "the new game")
        assert d.run("return game.game;") == "Tic-tac-toe", "a new game left the variant"
        d.click("#rules-link")
        d.wait("return !!document.getElementById('text') && document.getElementById('text').value.startsWith('// my draft');",
               "the game's rules in the playground")
        print(f"playground: an error shown on line {line}, mended, kept over a reload, played as a game of its own "
              "rules; a new game from its page is of the variant, whose page opens its rules")


# One move of the player to move, chosen at random among the page's legal
# moves and made by clicking what the page shows (pocket piece, squares,
# picker button, or the button of a move without squares); then waits until
# the AI has answered and a person is to move again, or the game is over.
MOVE_BY_CLICKS = r"""
const [seed, done] = [arguments[0], arguments[arguments.length - 1]];
const click = (el, what) => {
  if (!el) throw new Error("nothing to click for " + what);
  el.dispatchEvent(new MouseEvent("click", { bubbles: true }));
};
try {
  if (game.result) return done({ over: true });
  const n = game.record.length;
  const m = game.legal[seed % game.legal.length];
  if (!m) return done({ error: "no legal move and no result" });
  if (m.clicks.length === 0) {
    click(document.querySelector(`#extra [data-move="${CSS.escape(m.name)}"]`), m.name);
  } else {
    if (m.drop) click(document.querySelector(`#board g[data-pocket="${CSS.escape(m.drop)}"]`), m.drop);
    for (const sq of m.clicks) click(document.querySelector(`#board g[data-square="${CSS.escape(sq)}"]`), sq);
    const p = document.querySelector(`#picker [data-move="${CSS.escape(m.name)}"]`);
    if (p) click(p, m.name);
  }
  const t0 = Date.now();
  (function wait() {
    const err = document.getElementById("error").textContent;
    if (err) return done({ error: err, move: m.name });
    const moved = game.record.length > n;
    if (!thinking && (game.result || (moved && seats[game.turn] === "human"))) return done({ move: m.name });
    if (Date.now() - t0 > 60000) return done({ error: "no answer in 60 s", move: m.name, moved });
    setTimeout(wait, 10);
  })();
} catch (e) { done({ error: String(e) }); }
"""


def whole_games(args, d, files):
    failed = []
    for path in files:
        name = os.path.basename(path)[:-4]
        server = Server(args.binary, path, "--time", str(args.ai_time))
        try:
            t0 = time.time()
            open_page(d, server)
            players = d.run("return game.players;")
            # People play the first player by clicks; the AI plays the others.
            d.run("""for (const p of game.players.slice(1)) {
                       seats[p] = 'ai';
                       const s = document.querySelector(`[data-seat="${p}"]`); if (s) s.value = 'ai';
                     }""")
            seed, human_moves = 12345, 0
            while True:
                r = d.run_async(MOVE_BY_CLICKS, seed)
                if r.get("error"):
                    raise AssertionError(f"{name}: {r}")
                if r.get("over"):
                    break
                human_moves += 1
                seed = (seed * 1103515245 + 12345) % 2**31
                if human_moves > args.max_moves:
                    raise AssertionError(f"{name}: no end after {human_moves} moves by clicks")
            status = d.text("#status")
            plies = d.run("return game.record.length;")
            assert "wins" in status or "Draw" in status, f"{name}: #status says {status!r}"
            print(f"{name:24} {plies:4} plies ({human_moves} clicked by {players[0]}) "
                  f"{time.time() - t0:5.1f} s  {status}")
        except AssertionError as e:
            print(f"{name}: FAILED: {e}")
            failed.append(name)
        finally:
            server.stop()
    if failed:
        raise AssertionError("not played to the end: " + ", ".join(failed))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/chessalg")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--driver", default="/usr/bin/chromedriver")
    ap.add_argument("--screenshot", default="target/browser-test.png")
    ap.add_argument("--all", action="store_true", help="also play every rule file to its end by clicks")
    ap.add_argument("--only", action="append", help="play only these rule files to the end (names)")
    ap.add_argument("--ai-time", type=float, default=0.02, help="the AI's seconds per move in --all")
    ap.add_argument("--max-moves", type=int, default=1500, help="clicked moves before a game counts as endless")
    args = ap.parse_args()
    driver, driver_url = start_driver(args.driver)
    d = None
    try:
        d = Driver(driver_url, args.chromium)
        if not args.only:
            scenarios(args, d)
            friends(args, d, driver_url)
            room(args, d, driver_url)
            playground(args, d)
        if args.all or args.only:
            files = sorted(f for f in glob.glob("rules/*.alg") if not f.endswith("prelude.alg"))
            if args.only:
                files = [f for f in files if os.path.basename(f)[:-4] in args.only]
            whole_games(args, d, files)
        return 0
    except AssertionError as e:
        print(f"browser test failed: {e}", file=sys.stderr)
        return 1
    finally:
        if d:
            d.close()
        driver.kill()
        driver.wait()


if __name__ == "__main__":
    sys.exit(main())
