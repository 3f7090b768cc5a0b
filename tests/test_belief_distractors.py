"""When in doubt the belief layer does not supersede: sentences that name a subject and another
value without setting the slot leave the current value alone, a real switch replaces it, and
as-of questions still answer the old value. End to end on each backend (real stores)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from deltacore.belief import FactStatus
from deltacore.belief.extract import RuleFactExtractor
from deltacore.belief.layer import StoredEvent
from deltacore.model import MemoryFlag
from deltacore.testing import FakeEmbedder

NOW = datetime.now(UTC)


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def say(memory, text, days, **fields):
    return memory.add(text, ts=days_ago(days), source=fields.pop("source", "user:ops"), **fields)


def current(memory, subject, attribute):
    return [f.value for f in memory.facts(subject, attribute)]


@pytest.mark.parametrize(
    "distractor",
    [
        "Agnes flew to Utrecht for a wedding.",
        "Agnes's parents live in Utrecht.",
        "Agnes spent a long weekend in Utrecht.",
        "Agnes keeps saying she might move to Utrecht one day.",
        "Agnes's sister lives in Utrecht.",
    ],
)
def test_a_trip_a_relative_or_a_plan_does_not_move_anyone(memory, distractor):
    home = say(memory, "Agnes lives in Nantes.", 30)
    say(memory, distractor, 1)

    assert current(memory, "Agnes", "home city") == ["Nantes"]
    assert memory.conflicts() == []
    top = memory.query("Where does Agnes live?", top_k=5)[0]
    assert top.id == home and not top.superseded


def test_switched_from_python_to_go_supersedes_but_also_likes_rust_does_not(memory):
    python = say(memory, "The user prefers Python.", 30, source="user:42")
    say(memory, "The user also likes Rust for CLIs.", 10, source="user:42")
    assert current(memory, "user", "preferred language") == ["Python"]
    assert current(memory, "user", "likes") == ["Rust for CLIs"]

    go = say(memory, "The user switched from Python to Go.", 1, source="user:42")
    assert current(memory, "user", "preferred language") == ["Go"]
    assert current(memory, "user", "likes") == ["Rust for CLIs"]  # another slot: untouched
    [old, new] = memory.history("user", "preferred language")
    assert (old.value, old.status, new.value) == ("Python", FactStatus.SUPERSEDED, "Go")
    packets = memory.query("what language does the user prefer?", top_k=5)
    assert packets[0].id == go
    assert next(p for p in packets if p.id == python).superseded
    # As it stood before the switch: Python.
    then = memory.query("what language does the user prefer?", top_k=5, as_of=days_ago(5))
    assert then[0].id == python and not then[0].superseded


def test_a_second_tool_said_with_also_is_not_a_switch(memory):
    say(memory, "Agnes switched to Neovim.", 20)
    say(memory, "Agnes also uses Emacs for quick notes.", 2)
    assert current(memory, "Agnes", "preferred editor") == ["Neovim"]
    assert memory.conflicts() == []


def test_many_valued_slots_gather_values_instead_of_replacing_them(memory):
    say(memory, "Otto likes climbing.", 20)
    say(memory, "Otto loves chess.", 2)
    assert sorted(current(memory, "Otto", "likes")) == ["chess", "climbing"]
    assert memory.conflicts() == []


def _record(name, key, value, stamp):
    return json.dumps({"entity": {"type": "employee", "id": name}, "attributes": [{"name": key, "value": value}],
                       "checked": stamp})


def test_a_tool_record_stamped_with_its_read_time_states_its_field_not_the_stamp(memory):
    home = memory.add(_record("Petra", "home_city", "Riga", "2026/03/04 10:00"), kind="tool_result", role="tool",
                      tool_name="hr.record", source="tool:hr.record", ts=days_ago(20))
    memory.add(_record("Petra", "employer", "Contoso", "2026/03/05 10:00"), kind="tool_result", role="tool",
               tool_name="hr.record", source="tool:hr.record", ts=days_ago(19))

    assert current(memory, "Petra", "home city") == ["Riga"]
    assert current(memory, "Petra", "employer") == ["Contoso"]
    assert {f.attribute for f in memory.facts("Petra")} == {"home city", "employer"}  # no "checked" slot
    top = memory.query("Where does Petra live?", top_k=5)[0]
    assert top.id == home and not top.superseded


def test_a_service_slash_stage_target_keeps_the_two_deployments_apart(memory):
    def check(target, state, days):
        return memory.add(json.dumps({"target": target, "result": {"state": state}}), kind="tool_result", role="tool",
                          tool_name="monitor.check", source="tool:monitor.check", ts=days_ago(days))

    check("feed-ranker/prod", "up", 3)
    check("feed-ranker/staging", "down", 1)
    assert current(memory, "feed-ranker production", "status") == ["up"]
    assert current(memory, "feed-ranker staging", "status") == ["down"]


def test_a_version_said_with_running_is_no_status():
    extractor = RuleFactExtractor()
    event = StoredEvent(id="e", tenant="t", ts=NOW, kind="message", text="upload-proxy on prod is running rel-474.",
                        confidence=1.0, trust=1.0, namespace="trusted", meta={})
    assert all(c.attribute != "status" for c in extractor.claims(event))


def test_an_attribute_worded_with_a_modifier_is_the_same_slot(memory):
    say(memory, "Orion's executive sponsor is Petra.", 30)
    say(memory, "Orion's sponsor is Otto.", 1)
    [slot] = {f.attribute for f in memory.history("Orion", "executive sponsor")} | {
        f.attribute for f in memory.history("Orion", "sponsor")}
    assert current(memory, "Orion", slot) == ["Otto"]
    assert [f.value for f in memory.history("Orion", slot)] == ["Petra", "Otto"]
    # "home city" and "work city" stay two slots: lexicon names are never merged by their head.
    say(memory, "Otto's home city is Oslo.", 3)
    say(memory, "Otto's work city is Bergen.", 1)
    assert current(memory, "Otto", "home city") == ["Oslo"] and current(memory, "Otto", "work city") == ["Bergen"]


def test_a_sheets_one_word_column_is_the_slot_it_modifies(backend):
    # 384 dimensions: in the default 64, "primary" hashes next to "deadline" and the resolver
    # names it so before any slot is looked at.
    memory = backend.open(embedder=FakeEmbedder(384))
    say(memory, "Shona's main route is R11 Old Town.", 30)
    say(memory, "Shona's relief route is R05 Millbank.", 30)
    say(memory, "Route sheet\nDriver: Shona\nPrimary: R15 Hillcrest\nRelief: R02 Westbrook", 1)
    assert current(memory, "Shona", "main route") == ["R15 Hillcrest"]
    assert current(memory, "Shona", "relief route") == ["R02 Westbrook"]
    assert {f.attribute for f in memory.facts("Shona")} == {"main route", "relief route"}
    memory.close()


def test_the_staging_deployment_of_a_service_is_a_subject_not_an_attribute(memory):
    say(memory, "The production deployment of billing-api is up.", 5)
    say(memory, "Alert: the staging deployment of billing-api is down.", 1)
    assert current(memory, "billing-api staging", "status") == ["down"]
    assert current(memory, "billing-api production", "status") == ["up"]
    assert memory.facts("billing-api") == []  # no "staging deployment" attribute of the bare service


def test_a_question_about_a_many_valued_slot_is_not_answered_with_one_value(memory):
    climbing = say(memory, "Otto likes climbing.", 20)
    chess = say(memory, "Otto loves chess.", 2)
    packets = memory.query("What does Otto like?", top_k=5)
    found = {p.id: p for p in packets}
    assert {climbing, chess} <= set(found)
    assert not any(found[i].superseded or MemoryFlag.CONTRADICTED in found[i].flags for i in (climbing, chess))
