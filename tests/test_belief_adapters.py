"""What a framework user sees of the belief layer: the current value first, the replaced one
flagged, through the adapters' shared translation and LangChain's retriever."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from datetime import datetime, timedelta, timezone  # noqa: E402

from deltacore.adapters._shared import memory_line, packet_metadata  # noqa: E402

NOW = datetime.now(timezone.utc)


def _python_then_go(memory) -> tuple[str, str]:
    python = memory.add("The user prefers Python", ts=NOW - timedelta(days=30))
    go = memory.add("The user switched to Go", ts=NOW - timedelta(days=1))
    return python, go


def test_prompt_lines_and_metadata_carry_the_supersede(memory):
    python, go = _python_then_go(memory)
    packets = memory.query("what language does the user prefer?", top_k=2)
    assert [p.id for p in packets] == [go, python]
    assert packet_metadata(packets[0])["flags"] == []
    assert packet_metadata(packets[1])["flags"] == ["superseded"]
    assert memory_line(packets[1]).endswith("[superseded]")


def test_langchain_retriever_documents_are_flagged(memory):
    from deltacore.adapters.langchain import DeltaCoreRetriever

    python, go = _python_then_go(memory)
    docs = DeltaCoreRetriever(memory=memory, top_k=2).invoke("what language does the user prefer?")
    assert [d.id for d in docs] == [go, python]
    assert docs[1].metadata["flags"] == ["superseded"] and docs[0].metadata["flags"] == []
