"""Scrape nodelet-mockapi's /metrics and parse it with the Prometheus
client library's own parser (Debian python3-prometheus-client): the
exposition must parse, and the counters and gauges of issue 22 must move
as requests, watches and faults happen. Run by metrics_scrape.sh with the
mock's URL."""
import json
import sys
import threading
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

URL = sys.argv[1]
LEASES = URL + "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def request(method, url, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def scrape():
    """{name: {frozenset(labels): value}} of every sample, and the types."""
    with urllib.request.urlopen(URL + "/metrics", timeout=10) as r:
        text = r.read().decode()
    samples, types = {}, {}
    for fam in text_string_to_metric_families(text):
        types[fam.name] = fam.type
        for s in fam.samples:
            samples.setdefault(s.name, {})[frozenset(s.labels.items())] = s.value
    return samples, types


def value(samples, name, **labels):
    return samples.get(name, {}).get(frozenset(labels.items()))


# process_*: this process, the mock, read from /proc.
s, types = scrape()
start = value(s, "process_start_time_seconds")
check(start is not None and time.time() - 600 < start <= time.time() + 1,
      "process_start_time_seconds is the mock's start: %r" % start)
check(value(s, "process_open_fds") and value(s, "process_open_fds") > 2, "process_open_fds")
check(types.get("process_cpu_seconds") == "counter", "process_cpu_seconds_total is a counter")

# apiserver_current_inflight_requests: the watermark of the last second.
check(types.get("apiserver_current_inflight_requests") == "gauge", "inflight is a gauge")
check(value(s, "apiserver_current_inflight_requests", request_kind="readOnly") is not None,
      "readOnly series")
check(value(s, "apiserver_current_inflight_requests", request_kind="mutating") is not None,
      "mutating series")
time.sleep(2.2)  # two windows without a write
s, _ = scrape()
check(value(s, "apiserver_current_inflight_requests", request_kind="mutating") == 0,
      "no write in the last second: mutating 0, got %r"
      % value(s, "apiserver_current_inflight_requests", request_kind="mutating"))
code, _ = request("POST", LEASES, {"metadata": {"name": "scrape-1"},
                                    "spec": {"holderIdentity": "scrape-1"}})
check(code == 201, "create lease: %d" % code)
# The write's second closes within one second and then shows for a whole
# second: scrapes (reads) every 0.1 s for 2.5 s see it whatever the load.
seen = []
for _ in range(25):
    time.sleep(0.1)
    s, _ = scrape()
    seen.append(value(s, "apiserver_current_inflight_requests", request_kind="mutating"))
    if seen[-1] == 1:
        break
check(seen[-1] == 1, "a write in the last second: mutating 1, got %r" % seen)
check((value(s, "apiserver_current_inflight_requests", request_kind="readOnly") or 0) >= 1,
      "the scrape itself is a read in flight")

# Watch metrics: an open watch of leases, one event.
labels = dict(component="apiserver", group="coordination.k8s.io", resource="leases",
              scope="namespace", subresource="", verb="WATCH", version="v1")
gvk = dict(group="coordination.k8s.io", kind="Lease", version="v1")
before = value(s, "apiserver_watch_events_total", **gvk) or 0
lines = []
resp = urllib.request.urlopen(LEASES + "?watch=true&resourceVersion=0&timeoutSeconds=2",
                              timeout=10)
reader = threading.Thread(target=lambda: lines.extend(resp))
reader.start()
time.sleep(0.3)
s, _ = scrape()
check(value(s, "apiserver_longrunning_requests", **labels) == 1,
      "one open watch of leases: %r" % value(s, "apiserver_longrunning_requests", **labels))
request("POST", LEASES, {"metadata": {"name": "scrape-2"}, "spec": {"holderIdentity": "x"}})
time.sleep(0.3)
s, types = scrape()
sent = value(s, "apiserver_watch_events_total", **gvk)
# resourceVersion=0: the stored leases (scrape-1, and edge-1 when seeded)
# as ADDED, then scrape-2.
check(sent is not None and sent - before == len(lines) and len(lines) >= 2,
      "watch_events_total counts every event sent: %r - %r vs %d lines" % (sent, before, len(lines)))
check(types.get("apiserver_watch_events_sizes") == "histogram", "sizes is a histogram")
check(value(s, "apiserver_watch_events_sizes_count", **gvk) == sent, "one size per event")
small = value(s, "apiserver_watch_events_sizes_bucket", le="1024", **gvk)
check(small == sent, "leases are under 1 KiB: %r of %r" % (small, sent))
check(value(s, "apiserver_watch_events_sizes_bucket", le="131072", **gvk) == sent,
      "the last finite bucket is 128 KiB")
reader.join(10)  # the stream ends at timeoutSeconds
resp.close()
time.sleep(0.2)
s, _ = scrape()
check(value(s, "apiserver_longrunning_requests", **labels) == 0,
      "the watch ended: 0, got %r" % value(s, "apiserver_longrunning_requests", **labels))

# Injected faults, per action.
check(value(s, "nodelet_mockapi_injected_faults_total", action="status") is None,
      "no fault yet, no series")
code, _ = request("POST", URL + "/mockapi/v1/faults",
                  [{"match": {"verb": "get", "resource": "leases"}, "action": {"status": 500},
                    "times": 2},
                   {"match": {"verb": "list", "resource": "nodes"}, "action": {"delayMs": 10}}])
check(code == 201, "faults added: %d" % code)
for _ in range(3):
    request("GET", LEASES + "/scrape-1")
request("GET", URL + "/api/v1/nodes")
s, types = scrape()
check(types.get("nodelet_mockapi_injected_faults") == "counter", "faults counter type")
check(value(s, "nodelet_mockapi_injected_faults_total", action="status") == 2,
      "two status faults fired: %r" % value(s, "nodelet_mockapi_injected_faults_total",
                                             action="status"))
check(value(s, "nodelet_mockapi_injected_faults_total", action="delay") == 1, "one delay")

print("%d failed" % len(failures) if failures else "PASS")
sys.exit(1 if failures else 0)
