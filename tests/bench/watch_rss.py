#!/usr/bin/env python3
"""RSS of nodelet-mockapi with watchers that never read (issue 19).

Starts the mock on a free loopback port, creates three ConfigMaps of 1 MB,
opens N watches on raw sockets whose receive buffer is small and never
reads them, and prints the server's RSS: idle, with the objects, with the N
watchers open, and after they closed.

    tests/bench/watch_rss.py [--mock PATH] [--watchers 100,300] [--settle S]

Talks only to 127.0.0.1; every wait is bounded.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(base, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def watch_count(base):
    text = request(base, "GET", "/metrics").decode()
    for line in text.splitlines():
        if line.startswith('apiserver_longrunning_requests{component="apiserver",verb="WATCH"}'):
            return int(line.split()[-1])
    return -1


def wait_watches(base, n, timeout):
    end = time.time() + timeout
    while time.time() < end and watch_count(base) != n:
        time.sleep(0.1)
    return watch_count(base)


def open_watch(port, path):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return s


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--mock", default=os.path.join(here, "../../mockapi/nodelet-mockapi"))
    ap.add_argument("--watchers", default="100,300")
    ap.add_argument("--settle", type=float, default=3.0)
    args = ap.parse_args()

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [args.mock, "--port", str(port), "--max-connections", "8192"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                request(base, "GET", "/readyz")
                break
            except OSError:
                time.sleep(0.05)
        print(f"idle: {rss_kib(proc.pid) / 1024:.1f} MiB")
        for i in range(3):
            request(base, "POST", "/api/v1/namespaces/default/configmaps", {
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": f"big{i}"}, "data": {"v": "x" * 1000000}})
        time.sleep(0.5)
        print(f"3 x 1 MB ConfigMaps: {rss_kib(proc.pid) / 1024:.1f} MiB")
        for n in (int(x) for x in args.watchers.split(",")):
            socks = [open_watch(port, "/api/v1/namespaces/default/configmaps?watch=true")
                     for _ in range(n)]
            got = wait_watches(base, n, 30)
            time.sleep(args.settle)
            open_rss = rss_kib(proc.pid)
            for s in socks:
                s.close()
            left = wait_watches(base, 0, 30)
            time.sleep(args.settle)
            print(f"{n} watchers not reading ({got} open): {open_rss / 1024:.1f} MiB; "
                  f"after they closed ({left} open): {rss_kib(proc.pid) / 1024:.1f} MiB")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
