"""Scrape the agent's /metrics (nodelet --metrics-bind-address) and parse
it with the Prometheus client library's parser: process_* of the agent
itself (the collector in client/core the mock shares) and client-go's
rest_client_requests_total, which grows as the agent renews its lease."""
import sys
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

URL = sys.argv[1]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def scrape():
    with urllib.request.urlopen(URL + "/metrics", timeout=10) as r:
        text = r.read().decode()
    samples, types = {}, {}
    for fam in text_string_to_metric_families(text):
        types[fam.name] = fam.type
        for s in fam.samples:
            samples.setdefault(s.name, []).append((s.labels, s.value))
    return samples, types


def total(samples, name, **want):
    return sum(v for labels, v in samples.get(name, [])
               if all(labels.get(k) == x for k, x in want.items()))


s, types = scrape()
start = total(s, "process_start_time_seconds")
check(time.time() - 600 < start <= time.time() + 1, "process_start_time_seconds: %r" % start)
check(types.get("process_cpu_seconds") == "counter", "process_cpu_seconds_total is a counter")
check(total(s, "process_open_fds") > 2, "process_open_fds")
before = total(s, "rest_client_requests_total", method="PUT")
time.sleep(2.5)  # --lease-duration-seconds 4: a renewal a second
s, _ = scrape()
after = total(s, "rest_client_requests_total", method="PUT")
check(after > before, "lease renewals counted: PUT %r then %r" % (before, after))
print("%d failed" % len(failures) if failures else "PASS")
sys.exit(1 if failures else 0)
