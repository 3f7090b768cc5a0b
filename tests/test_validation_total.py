"""One bad event never costs the batch: every field is checked for what both backends can store.

Each malformed item becomes a ``Rejection`` naming its field; the good event beside it is stored
and can be read back, on SQLite and on PostgreSQL alike.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from deltacore import DeltaCore

_DEEP: dict[str, Any] = {}
_cursor = _DEEP
for _ in range(2_000):
    _cursor["x"] = {}
    _cursor = _cursor["x"]

BAD_EVENTS = [
    ({"text": "lone \ud800 surrogate"}, "text"),
    ({"text": "ok", "tenant": "t\udc00"}, "tenant"),
    ({"text": "ok", "id": "id\ud800"}, "id"),
    ({"text": "ok", "actor": "bo\x00b"}, "actor"),
    ({"text": "ok", "source": "user:\x00"}, "source"),
    ({"text": "ok", "episode_id": "run\x00"}, "episode_id"),
    ({"text": "ok", "id": "nul\x00id"}, "id"),
    ({"text": "ok", "tenant": "acme\x00"}, "tenant"),
    ({"text": "ok", "entities": ["Al\x00ice"]}, "entities.0"),
    ({"text": "ok", "meta": {"score": float("nan")}}, "meta.score"),
    ({"text": "ok", "meta": {"k\ud800": 1}}, "meta key"),
    ({"text": "ok", "meta": {"v": "a\x00b"}}, "meta.v"),
    ({"kind": "tool_call", "tool_name": "t", "tool_args": {"n": float("inf")}}, "tool_args.n"),
    ({"text": "ok", "meta": _DEEP}, "meta"),
    ({"text": "ok", "meta": {"when": datetime(2024, 1, 1)}}, "meta.when"),
    ({"text": "ok", "episode_id": "e" * 129}, "episode_id"),
    ({"kind": "tool_call", "tool_name": "t" * 257}, "tool_name"),
    ({"text": "ok", "entities": ["e" * 257]}, "entities.0"),
    ({"text": "ok", "ts": datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))}, "ts"),
    ({"text": "ok", "kind": "nonsense"}, "kind"),
    (None, "event"),
    (42, "event"),
]


@pytest.mark.parametrize(("bad", "field"), BAD_EVENTS, ids=[f"{i}-{f}" for i, (_, f) in enumerate(BAD_EVENTS)])
def test_a_bad_event_is_rejected_by_field_and_its_neighbour_is_stored(memory: DeltaCore, bad: Any, field: str) -> None:
    good = {"text": "the deploy of the api to staging succeeded", "id": "good-1"}
    result = memory.ingest([good, bad, {"text": "a second good event", "id": "good-2"}])

    assert [r.index for r in result.rejected] == [1]
    rejection = result.rejected[0]
    assert rejection.field == field, rejection
    assert rejection.reason
    assert set(result.stored) == {"good-1", "good-2"}
    assert memory.get("good-1").text == good["text"]
    # The store still answers afterwards.
    assert memory.query("deploy staging")


def test_a_rejected_id_is_not_echoed_when_it_is_not_storable(memory: DeltaCore) -> None:
    result = memory.ingest([{"text": "ok", "id": "bad\x00id"}])
    assert result.rejected[0].field == "id" and result.rejected[0].event_id is None


@pytest.mark.parametrize("tenant", ["acme\x00", "acme\ud800"])
def test_a_query_for_an_unstorable_tenant_is_an_error_naming_tenant(memory: DeltaCore, tenant: str) -> None:
    from deltacore.errors import InvalidQueryError

    memory.ingest([{"text": "hello world"}])
    with pytest.raises(InvalidQueryError) as raised:
        memory.query("hello", tenant=tenant)
    assert raised.value.field == "tenant"
