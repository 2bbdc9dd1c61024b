"""Check the log lines of nodelet-mockapi and nodelet (files named on the
command line as FORMAT:PROGRAM:PATH): every line of a json file is one
JSON object in component-base's form, every line of a text file klog's
structured header and quoted message; and the lines the run must have
written are there with their pairs."""
import json
import re
import sys

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


TEXT = re.compile(r'^([IWE])\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ ([\w.-]+\.c):\d+\] ("(?:[^"\\]|\\.)*")(.*)$')


def json_lines(path):
    out = []
    for n, line in enumerate(open(path), 1):
        try:
            o = json.loads(line)
        except ValueError:
            check(False, "%s:%d is not JSON: %r" % (path, n, line))
            continue
        keys = list(o)
        check(keys[:3] == ["ts", "caller", "msg"], "%s:%d starts ts, caller, msg: %s" % (path, n, keys))
        # zap writes the float as Go's strconv 'f', -1 does: a whole
        # millisecond has no decimal point, so JSON gives an int then.
        ts = o.get("ts")
        check(isinstance(ts, (int, float)) and not isinstance(ts, bool) and ts > 1.6e12,
              "%s:%d ts in epoch milliseconds: %r" % (path, n, o.get("ts")))
        check(re.match(r"^\w+/[\w.-]+\.c:\d+$", o.get("caller", "")) is not None,
              "%s:%d caller dir/file.c:line: %r" % (path, n, o.get("caller")))
        if "err" in o:
            check("v" not in o and keys[-1] == "err", "%s:%d an error: err last, no v" % (path, n))
        else:
            check(keys[3:4] == ["v"] and isinstance(o["v"], int), "%s:%d v after msg" % (path, n))
        out.append(o)
    return out


def text_lines(path):
    out = []
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if line.startswith("\t") or line == " >":
            continue  # a multi-line value's block
        m = TEXT.match(line)
        check(m is not None, "%s:%d is not a structured klog line: %r" % (path, n, line))
        if m:
            out.append((m.group(1), json.loads(m.group(3)), m.group(4)))
    return out


def find(lines, msg):
    return [o for o in lines if o.get("msg") == msg]


for arg in sys.argv[1:]:
    fmt, prog, path = arg.split(":", 2)
    if fmt == "json":
        lines = json_lines(path)
        if prog == "mockapi":
            http = find(lines, "HTTP")
            check(any(o.get("verb") == "GET" and o.get("URI") == "/api/v1/nodes"
                      and o.get("resp") == 200 and o.get("v") == 2 for o in http),
                  "mock: the HTTP line of GET /api/v1/nodes: %r" % http[:3])
            check(find(lines, "Serving the Kubernetes API"), "mock: the serving line")
        else:
            reg = find(lines, "Attempting to register node")
            check(reg and reg[0].get("node") == {"name": "log-json"},
                  "agent: registration names the node as klog.KObj: %r" % reg)
            check(find(lines, "Successfully registered node"), "agent: registered")
    else:
        lines = text_lines(path)
        want = ' node="log-text"'
        check(any(m == "Attempting to register node" and rest == want for _, m, rest in lines),
              "agent text: \"Attempting to register node\" node=\"log-text\"")
print("%d failed" % len(failures) if failures else "PASS")
sys.exit(1 if failures else 0)
