"""The plugin's own failure paths; example/ covers a working server."""
import pytest

import nodelet_mockapi


def test_binary_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("NODELET_MOCKAPI", "/nonexistent/nodelet-mockapi")
    with pytest.raises(RuntimeError, match="NODELET_MOCKAPI=/nonexistent"):
        nodelet_mockapi.binary()
    monkeypatch.delenv("NODELET_MOCKAPI")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="put it on PATH or set NODELET_MOCKAPI"):
        nodelet_mockapi.binary()


def test_start_bad_flag():
    # The server's own message, not a hang on a ready line that never comes.
    with pytest.raises(RuntimeError, match="exited before it was ready.*no-such-flag"):
        nodelet_mockapi.Server(["--no-such-flag"]).start()
