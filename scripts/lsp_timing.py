#!/usr/bin/env python3
"""Times `chessalg lsp` on a rule file, as an editor uses it.

    scripts/lsp_timing.py [--bin target/release/chessalg] [--runs 20] FILE

Prints the median and the slowest of: opening the file to its diagnostics,
a change to its diagnostics, hover, go to definition, completion and
formatting, each at the file's last `moves` line.
"""
import argparse
import json
import os
import statistics
import subprocess
import time


class Client:
    def __init__(self, binary):
        self.proc = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 1
        self.request("initialize", {"capabilities": {}, "processId": None, "rootUri": None})
        self.notify("initialized", {})

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def receive(self):
        length = 0
        while True:
            line = self.proc.stdout.readline().strip()
            if not line:
                break
            if line.startswith(b"Content-Length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = self.receive()
            if m.get("id") == i:
                return m

    def diagnostics(self, uri):
        while True:
            m = self.receive()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]

    def stop(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/chessalg")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("file")
    args = ap.parse_args()
    path = os.path.abspath(args.file)
    uri = "file://" + path
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    line = max(i for i, l in enumerate(lines) if l.startswith("moves "))
    col = len(lines[line].split("=", 1)[0].encode("utf-16-le")) // 2 + 2
    position = {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}
    times = {k: [] for k in ["open", "change", "hover", "definition", "completion", "formatting"]}
    for run in range(args.runs):
        c = Client(args.bin)
        t = time.perf_counter()
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "chessalg", "version": 1, "text": text}})
        c.diagnostics(uri)
        times["open"].append(time.perf_counter() - t)
        t = time.perf_counter()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": text + "\n"}]})
        c.diagnostics(uri)
        times["change"].append(time.perf_counter() - t)
        for method, key in [("textDocument/hover", "hover"), ("textDocument/definition", "definition"),
                            ("textDocument/completion", "completion")]:
            t = time.perf_counter()
            c.request(method, position)
            times[key].append(time.perf_counter() - t)
        t = time.perf_counter()
        c.request("textDocument/formatting", {"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}})
        times["formatting"].append(time.perf_counter() - t)
        c.stop()
    print(f"{args.file}: {len(text)} bytes, {args.runs} runs (median / slowest, ms)")
    for k, v in times.items():
        print(f"  {k:11} {statistics.median(v) * 1000:8.1f} {max(v) * 1000:8.1f}")


if __name__ == "__main__":
    main()
