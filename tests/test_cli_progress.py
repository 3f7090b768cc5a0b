"""Long commands show progress off a terminal too: a line per 10 % on stderr, not a blank screen."""

from __future__ import annotations

import io
import json
import re

from deltacore.cli import main
from deltacore.cli.progress import Progress


def _ingest(tmp_path, capsys, n=40):
    source = tmp_path / "events.jsonl"
    source.write_text("".join(json.dumps({"text": f"service {i} runs on port {8000 + i}"}) + "\n" for i in range(n)))
    assert main(["--path", str(tmp_path / "store"), "--embedder", "fake", "ingest", str(source), "--batch-size", "8"]) == 0
    return capsys.readouterr()


def test_ingest_off_a_terminal_logs_a_line_per_tenth(tmp_path, capsys):
    err = _ingest(tmp_path, capsys).err
    marks = [int(m) for m in re.findall(r"^ingest: (\d+)% \(", err, re.M)]
    assert marks == list(range(0, 101, 10))
    assert "ingest: 100% (40/40)" in err


def test_reindex_reembed_reports_both_phases(tmp_path, capsys):
    _ingest(tmp_path, capsys)
    code = main(["--path", str(tmp_path / "store"), "--embedder", "fake", "reindex", "--reembed"])
    out, err = capsys.readouterr()
    assert code == 0 and "40 vectors re-embedded and indexed" in out
    assert "reembed: 100% (40/40)" in err and "index: 100% (40/40)" in err
    assert err.index("reembed: 100%") < err.index("index: 100%")


def test_on_a_terminal_it_draws_a_bar():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    progress = Progress(stream)
    for done in (5, 10):
        progress("index", done, 10)
    progress.close()
    assert "index" in stream.getvalue() and "10/10" in stream.getvalue() and "%" in stream.getvalue()
