"""``deltacore forget`` on a real embedded store: dry run, confirmation, certificate, nothing found."""

from __future__ import annotations

import json

from deltacore import DeltaCore
from deltacore.cli.program import main
from deltacore.testing import FakeEmbedder


def test_forget_command(tmp_path, capsys, monkeypatch) -> None:
    store = tmp_path / "store"
    with DeltaCore.open(store, embedder=FakeEmbedder()) as memory:
        memory.add("Alice Smith asked for a refund", entities=["Alice Smith"])
        memory.add("Bob Jones renewed his plan")
    base = ["--path", str(store), "--embedder", "fake"]
    assert main([*base, "forget", "Alice Smith", "--dry-run"]) == 0
    assert "would erase" in capsys.readouterr().out
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert main([*base, "forget", "Alice Smith"]) == 2  # not a terminal and no --yes: refused
    assert "--yes" in capsys.readouterr().err
    cert_file = tmp_path / "cert.json"
    assert main([*base, "forget", "Alice Smith", "--yes", "--reason", "GDPR art. 17", "--certificate", str(cert_file)]) == 0
    out = capsys.readouterr().out
    assert "chain valid" in out and "Alice Smith" not in cert_file.read_text()
    assert json.loads(cert_file.read_text())["counts"]["events"] == 1
    assert main([*base, "forget", "Alice Smith", "--yes"]) == 1  # nothing left: said, not a silent success
    assert "nothing found" in capsys.readouterr().out
    assert main([*base, "forget", "Bob Jones", "--mode", "nope"]) == 2
    with DeltaCore.open(store, embedder=FakeEmbedder()) as memory:
        assert [e.text for e in memory.events()] == ["Bob Jones renewed his plan"]
