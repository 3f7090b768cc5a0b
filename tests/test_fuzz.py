"""Fuzzing the boundary: mixed batches of good and malformed items through ``ingest()`` and
malformed criteria through ``query()``, on every backend.

What a user relies on: no exception outside the ``DeltaCoreError`` tree, every good item
stored and readable, every bad one reported with its index and field, and the store answering
afterwards. A fixed, derandomised example budget keeps the run reproducible and short.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from deltacore import DeltaCore
from deltacore.errors import DeltaCoreError
from deltacore.testing import FakeEmbedder

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# The CLI opens a store per example (a process's worth of setup): fewer examples, same seed.
FUZZ_CLI = settings(FUZZ, max_examples=12)
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


# ---- the CLI: malformed lines in a JSON-lines file -----------------------------------------------

_BROKEN_LINES = [b"{not json", b"[1, 2", b'{"text": "unterminated', b"\xff\xfe not utf-8", b"[" * 3000 + b"]" * 3000]


@st.composite
def _jsonl(draw: st.DrawFn) -> list[tuple[str, bytes]]:
    """Lines of a file, each tagged: ``good`` (must be stored), ``broken`` (must be reported) or
    ``maybe`` (a hostile record: stored or reported, never lost silently)."""
    lines: list[tuple[str, bytes]] = []
    for kind in draw(st.lists(st.sampled_from(["good", "broken", "maybe", "blank"]), min_size=1, max_size=12)):
        if kind == "good":
            lines.append(("good", json.dumps(_good()).encode()))
        elif kind == "broken":
            lines.append(("broken", draw(st.sampled_from(_BROKEN_LINES))))
        elif kind == "blank":
            lines.append(("blank", b"   "))
        else:
            item = draw(_malformed())
            encoded = json.dumps(item, default=str).encode("utf-8", "surrogatepass")
            lines.append(("maybe", encoded.replace(b"\n", b" ")))
    return lines


def _run_cli(*argv: str) -> tuple[int, str, str]:
    from deltacore.cli.program import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@FUZZ_CLI
@given(lines=_jsonl(), batch_size=st.sampled_from([1, 3, 256]))
def test_cli_ingest_reports_bad_lines_by_number_and_stores_the_rest(
    tmp_path_factory: pytest.TempPathFactory, lines: list[tuple[str, bytes]], batch_size: int
) -> None:
    folder = tmp_path_factory.mktemp("cli")
    source = folder / "events.jsonl"
    source.write_bytes(b"\n".join(line for _, line in lines) + b"\n")
    store = str(folder / "store")
    code, out, err = _run_cli("--path", store, "--embedder", "fake", "ingest", str(source), "--batch-size", str(batch_size))

    reported = {int(m[1]): m[2] for m in re.finditer(r"^line (\d+): (.*)$", err, re.MULTILINE)}
    numbers = {kind: {n for n, (k, _) in enumerate(lines, start=1) if k == kind} for kind in ("good", "broken", "maybe")}
    assert numbers["broken"] <= reported.keys(), "every broken line is reported by its number"
    assert not numbers["good"] & reported.keys(), "no good line is reported"
    assert code == (1 if reported else 0), (code, err)
    summary = re.search(r"(\d+) stored, .*?(\d+) rejected", out)
    assert summary and int(summary[2]) == len(reported)
    for number in reported.keys() & numbers["maybe"]:
        # A record the store refused names its field: "<field>: <reason>" or "not stored: …".
        assert re.match(r"^(invalid JSON|not UTF-8|not stored|[\w.\[\] ]+:)", reported[number]), reported[number]
    with DeltaCore.open(store, embedder=FakeEmbedder()) as memory:
        for number in numbers["good"]:
            stored = json.loads(lines[number - 1][1])
            assert memory.get(stored["id"]).text == stored["text"]
        assert memory.query("billing service release", tenant="fuzz") is not None


# ---- query(): hostile criteria on every backend ----------------------------------------------------

_criteria = st.fixed_dictionaries(
    {},
    optional={
        "entity": _hostile_text,
        "agent_id": _hostile_text,
        "session_id": _hostile_text,
        "kinds": st.lists(st.sampled_from(["message", "fact", "tool_call", "nonsense", ""]), max_size=2),
        "top_k": st.integers(-3, 60),
        "max_tokens": st.one_of(st.none(), st.integers(-5, 500)),
        "routers": st.lists(st.sampled_from(["semantic", "lexical", "entity", "temporal", "bogus"]), max_size=3),
        "min_utility": st.floats(allow_nan=True, allow_infinity=True),
        "time_range": st.tuples(
            st.sampled_from([None, datetime(1, 1, 1, tzinfo=timezone.utc), datetime(2024, 1, 1)]),
            st.sampled_from([None, datetime(9999, 12, 31, tzinfo=timezone.utc), datetime(2020, 1, 1)]),
        ),
    },
)


@FUZZ
@given(text=_hostile_text, criteria=_criteria)
def test_query_with_hostile_criteria_answers_or_names_the_field(memory: DeltaCore, text: str, criteria: dict[str, Any]) -> None:
    if not memory.events(tenant="fuzz", limit=1):
        memory.ingest([_good() for _ in range(3)])
    try:
        packets = memory.query(text, tenant="fuzz", **criteria)
    except DeltaCoreError as exc:
        assert isinstance(exc, ValueError), f"a malformed query is a caller error, got {exc!r}"
        assert getattr(exc, "field", None), exc
    else:
        assert all(packet.text for packet in packets)
    assert memory.query("billing service release", tenant="fuzz")
