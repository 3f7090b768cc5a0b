"""Fuzzing the boundary: mixed batches of good and malformed items through ``ingest()`` and
malformed criteria through ``query()``, on every backend.

What a user relies on: no exception outside the ``DeltaCoreError`` tree, every good item
stored and readable, every bad one reported with its index and field, and the store answering
afterwards. A fixed, derandomised example budget keeps the run reproducible and short.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from deltacore import DeltaCore
from deltacore.errors import DeltaCoreError

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_serial = itertools.count()

_hostile_text = st.text(
    alphabet=st.one_of(st.characters(), st.sampled_from(["\x00", "\ud800", "\udfff", "\u200b", "1", "-", "a", " "])),
    min_size=0,
    max_size=40,
)
_json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), _hostile_text
)
_json = st.recursive(_json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_hostile_text, inner, max_size=3)), max_leaves=8)


@st.composite
def _malformed(draw: st.DrawFn) -> Any:
    """An item that may or may not be storable: every field drawn from hostile values."""
    choice = draw(st.integers(0, 3))
    if choice == 0:
        return draw(st.one_of(st.none(), st.integers(), _hostile_text, st.lists(st.integers(), max_size=2)))
    event: dict[str, Any] = {"text": draw(_hostile_text)}
    for name in draw(st.sets(st.sampled_from(["id", "tenant", "actor", "source", "episode_id", "role", "agent_id"]), max_size=3)):
        event[name] = draw(st.one_of(_hostile_text, st.text(min_size=120, max_size=300), st.integers()))
    if draw(st.booleans()):
        event["meta"] = draw(st.dictionaries(_hostile_text, _json, max_size=3))
    if draw(st.booleans()):
        event.update(kind="tool_call", tool_name=draw(st.one_of(_hostile_text, st.text(min_size=250, max_size=300))), tool_args=draw(st.dictionaries(_hostile_text, _json, max_size=3)))
    if draw(st.booleans()):
        event["entities"] = draw(st.lists(_hostile_text, max_size=3))
    if draw(st.booleans()):
        event["kind"] = draw(st.sampled_from(["message", "fact", "nonsense", "", "observation"]))
    if draw(st.booleans()):
        offset = draw(st.integers(-23, 23))
        event["ts"] = draw(st.sampled_from([datetime(1, 1, 1, 1), datetime(9999, 12, 31, 23), datetime(2024, 5, 1)])).replace(
            tzinfo=timezone(timedelta(hours=offset))
        )
    if draw(st.booleans()):
        event["confidence"] = draw(st.floats(allow_nan=True, allow_infinity=True))
    return event


def _good() -> dict[str, Any]:
    serial = next(_serial)
    return {"id": f"good-{serial}", "text": f"release {serial} of the billing service shipped", "tenant": "fuzz"}


@FUZZ
@given(batch=st.lists(st.one_of(st.just(None).map(lambda _: "GOOD"), _malformed()), min_size=1, max_size=6))
def test_ingest_never_loses_a_good_item_to_a_bad_one(memory: DeltaCore, batch: list[Any]) -> None:
    items = [_good() if item == "GOOD" else item for item in batch]
    good = {index for index, item in enumerate(batch) if item == "GOOD"}
    try:
        result = memory.ingest(items)
    except DeltaCoreError:
        pytest.fail("a batch raised instead of rejecting its bad items")
    rejected = {rejection.index: rejection for rejection in result.rejected}
    assert not good & rejected.keys()
    for index in good:
        assert memory.get(items[index]["id"]).text == items[index]["text"]
    for index, item in enumerate(items):
        if index in rejected:
            assert rejected[index].field and rejected[index].reason
        elif index not in good:
            # Accepted: it really is stored (or deduplicated / blocked, which reports its id).
            assert result.event_ids[index] is not None
    assert memory.query("billing service release", tenant="fuzz") is not None


@FUZZ
@given(tenant=_hostile_text, text=_hostile_text, limit=st.integers(-5, 5))
def test_query_answers_or_raises_a_named_error(memory: DeltaCore, tenant: str, text: str, limit: int) -> None:
    try:
        memory.query(text or "x", tenant=tenant or "fuzz", limit=limit)
    except DeltaCoreError as exc:
        assert isinstance(exc, ValueError) or exc.__class__.__name__.endswith("Error")
    assert memory.query("billing", tenant="fuzz") is not None
