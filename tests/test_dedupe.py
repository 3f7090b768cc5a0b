"""Deduplication never merges distinct occurrences: "ok" said twice in a session, at two times,
is two turns; a re-sent history (same times) is not copied; the rule is configurable."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from deltacore.errors import ConfigurationError

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def _ok(ts=None, **fields):
    event = {"text": "ok", "role": "user", "session_id": "s1", **fields}
    if ts is not None:
        event["ts"] = ts
    return event


def _turns(memory):
    return [(e.text, e.ts) for e in memory.events(session_id="s1")]


def test_the_same_words_at_two_times_are_two_turns(memory):
    first = memory.ingest([_ok(T0)])
    second = memory.ingest([_ok(T0 + timedelta(minutes=3))])
    assert second.duplicates == [] and second.stored != first.stored
    assert [ts for _, ts in _turns(memory)] == [T0, T0 + timedelta(minutes=3)]
    in_one_batch = memory.ingest([_ok(T0 + timedelta(minutes=5)), _ok(T0 + timedelta(minutes=6))])
    assert len(in_one_batch.stored) == 2


def test_a_resent_history_with_its_times_is_not_copied(memory):
    history = [_ok(T0), {"text": "deploy now", "role": "user", "session_id": "s1", "ts": T0 + timedelta(seconds=1)}]
    memory.ingest(history)
    again = memory.ingest(history)
    assert again.stored == [] and len(again.duplicates) == 2
    assert len(_turns(memory)) == 2


def test_without_a_time_a_repeat_is_a_retry_unless_a_dedupe_key_says_otherwise(memory):
    memory.ingest([_ok()])
    assert memory.ingest([_ok()]).stored == []
    keyed = memory.ingest([_ok(meta={"dedupe_key": "turn-2"})])
    assert len(keyed.stored) == 1
    assert len(_turns(memory)) == 2


def test_content_mode_merges_across_times_and_off_keeps_everything(backend):
    with backend.open(dedupe="content") as memory:
        memory.ingest([_ok(T0)])
        assert memory.ingest([_ok(T0 + timedelta(minutes=3))]).stored == []
    with backend.open(dedupe="off", collection_prefix="off") as memory:
        memory.ingest([_ok(tenant="t-off")])
        assert len(memory.ingest([_ok(tenant="t-off")]).stored) == 1
        assert len(memory.events(tenant="t-off", session_id="s1")) == 2


def test_an_unknown_mode_is_a_configuration_error_naming_the_field(backend):
    with pytest.raises(ConfigurationError, match="dedupe"):
        backend.open(dedupe="sometimes")
