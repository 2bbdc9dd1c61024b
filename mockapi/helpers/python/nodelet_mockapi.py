"""pytest plugin: nodelet-mockapi, the fake kube-apiserver, for tests.

Load it with ``-p nodelet_mockapi`` (this directory on PYTHONPATH) or
``pytest_plugins = ["nodelet_mockapi"]`` in a conftest.py. Fixtures:

- ``nodelet_mockapi`` (session): the running server (``url``,
  ``kubeconfig``, ``reset()``), started once with the real binary on a
  free port and stopped at the end of the session;
- ``mockapi`` (function): the same server, reset to its seeded state
  first, so that no test sees another's objects;
- ``mockapi_kubeconfig`` (function): the path of its kubeconfig, reset;
- ``mockapi_client`` / ``mockapi_core_v1`` (function): a ``kubernetes``
  ApiClient / CoreV1Api from that kubeconfig, reset.

The binary is $NODELET_MOCKAPI when set, else nodelet-mockapi on PATH.
Extra server flags: the ini option ``nodelet_mockapi_args``.
"""
import os
import queue
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import urllib.request

import pytest

READY_PREFIX = "nodelet-mockapi listening on "
START_TIMEOUT = 30  # seconds; the server needs milliseconds


def binary():
    """The path of nodelet-mockapi; raises RuntimeError saying how to provide it."""
    path = os.environ.get("NODELET_MOCKAPI")
    if path:
        if not os.path.exists(path):
            raise RuntimeError(f"NODELET_MOCKAPI={path}: no such file")
        return path
    path = shutil.which("nodelet-mockapi")
    if not path:
        raise RuntimeError("nodelet-mockapi not found: put it on PATH or set NODELET_MOCKAPI to the binary")
    return path


class Server:
    """One running nodelet-mockapi; start() waits for its ready line."""

    def __init__(self, args=()):
        self._dir = tempfile.TemporaryDirectory(prefix="nodelet-mockapi-")
        self.kubeconfig = os.path.join(self._dir.name, "kubeconfig")
        self.url = None
        self._args = list(args)
        self._proc = None

    def start(self):
        argv = [binary(), "--port", "0", "--kubeconfig-out", self.kubeconfig, *self._args]
        self._stderr = open(os.path.join(self._dir.name, "stderr"), "w+")
        self._proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self._stderr, text=True)
        lines = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(lines,), daemon=True)
        self._reader.start()
        try:
            line = lines.get(timeout=START_TIMEOUT)
        except queue.Empty:
            err = self._err()
            self.stop()
            raise RuntimeError(f"nodelet-mockapi printed no ready line within {START_TIMEOUT}s: {err}")
        if line is None:
            code, err = self._proc.wait(), self._err()
            self.stop()
            raise RuntimeError(f"nodelet-mockapi exited before it was ready (status {code}): {err}")
        self.url = line[len(READY_PREFIX):]
        return self

    def _read(self, lines):
        # Hands over the ready line (None at EOF), then drains stdout so a
        # full pipe never blocks the server.
        for line in self._proc.stdout:
            if line.startswith(READY_PREFIX):
                lines.put(line.rstrip("\n"))
                break
        else:
            lines.put(None)
        for _ in self._proc.stdout:
            pass

    def _err(self):
        # The start of stderr: the error comes first, a usage text may follow.
        self._stderr.seek(0)
        return self._stderr.read(2000).strip()

    def reset(self):
        """Back to the seeded state: POST /mockapi/v1/reset (objects, faults, journal)."""
        req = urllib.request.Request(self.url + "/mockapi/v1/reset", data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=30) as resp:
            resp.read()

    def stop(self):
        """SIGTERM (a clean stop), killed after 15 s; removes the kubeconfig."""
        if self._proc and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._proc:
            self._reader.join(timeout=5)  # it reads stdout until EOF
            self._proc.stdout.close()
            self._stderr.close()
        self._dir.cleanup()


def pytest_addoption(parser):
    parser.addini("nodelet_mockapi_args", "extra nodelet-mockapi flags (shell words)", default="")


@pytest.fixture(scope="session")
def nodelet_mockapi(pytestconfig):
    try:
        server = Server(shlex.split(pytestconfig.getini("nodelet_mockapi_args"))).start()
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    yield server
    server.stop()


@pytest.fixture
def mockapi(nodelet_mockapi):
    nodelet_mockapi.reset()
    return nodelet_mockapi


@pytest.fixture
def mockapi_kubeconfig(mockapi):
    return mockapi.kubeconfig


@pytest.fixture
def mockapi_client(mockapi_kubeconfig):
    from kubernetes import config

    client = config.new_client_from_config(config_file=mockapi_kubeconfig)
    yield client
    client.close()


@pytest.fixture
def mockapi_core_v1(mockapi_client):
    from kubernetes import client

    return client.CoreV1Api(mockapi_client)
