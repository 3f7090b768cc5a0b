"""A change read by the value it replaces: "from A to B", "A -> B", "B instead of A", "B (was A)",
"B, not A". The one slot of a subject the text names whose current value is A is the slot the
change is about, whatever the verb or the slot's name; anything unsure is no change."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from deltacore.belief import FactStatus
from deltacore.belief.changes import anchored_change

NOW = datetime.now(timezone.utc)
HELD = {
    ("dover shuttle", "departure"): ["03:00"], ("dover shuttle", "haulier"): ["Brennan Haulage"],
    ("shona", "depot"): ["Crick DC"], ("shona", "shift"): ["nights 21:00-05:30"], ("denis", "van"): ["VN73 KXF"],
    ("night crew", "talkgroup"): ["DISPATCH-S"],
}


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("Shona has transferred from Crick DC to Avonmouth hub.", ("shona", "depot", "Avonmouth hub")),
        ("Transfer approved: Shona, Crick DC -> Avonmouth hub, effective next rota.", ("shona", "depot", "Avonmouth hub")),
        ("Schedule change - Dover shuttle: departure 03:00 -> 04:20.", ("dover shuttle", "departure", "04:20")),
        ("The Dover shuttle now leaves at 04:20 instead of 03:00.", ("dover shuttle", "departure", "04:20")),
        ("Rota change: Shona goes onto weekend relief (was nights 21:00-05:30).", ("shona", "shift", "weekend relief")),
        ("Reallocation: Denis now has VN73 KXD instead of VN73 KXF.", ("denis", "van", "VN73 KXD")),
        ("Correction: Denis's vehicle is VN73 KXD, not VN73 KXF.", ("denis", "van", "VN73 KXD")),
        ("The night crew has moved from DISPATCH-S to TG-SPARE-9.", ("night crew", "talkgroup", "TG-SPARE-9")),
        ("Kinross Logistics take over the Dover shuttle from Brennan Haulage this week.", ("dover shuttle", "haulier", "Kinross Logistics")),
        ("Brennan Haulage handed the Dover shuttle over to Kinross Logistics.", ("dover shuttle", "haulier", "Kinross Logistics")),
        ("Shona is at Avonmouth hub now, moved over from Crick DC.", ("shona", "depot", "Avonmouth hub")),
        ("Shona swapped off nights 21:00-05:30, they're on weekend relief now.", ("shona", "shift", "weekend relief")),
        ("Denis: swap my van to VN73 KXD, drop VN73 KXF", ("denis", "van", "VN73 KXD")),
        ("TG-SPARE-9 replaces DISPATCH-S for the night crew.", ("night crew", "talkgroup", "TG-SPARE-9")),
        ("Shona traded Crick DC for Avonmouth hub last month and likes it.", ("shona", "depot", "Avonmouth hub")),
        ("The Dover shuttle left Brennan Haulage for Kinross Logistics.", ("dover shuttle", "haulier", "Kinross Logistics")),
        ("Ticket HR-2214: shift change for Shona. From: nights 21:00-05:30. To: weekend relief. Status: approved",
         ("shona", "shift", "weekend relief")),
    ],
)
def test_a_change_is_about_the_slot_holding_its_old_value(text, change):
    assert anchored_change(text, HELD)[:3] == change


@pytest.mark.parametrize(
    "text",
    [
        "Could the Dover shuttle go at 05:10 instead of 03:00?",  # a question
        "We might move Shona from Crick DC to Magor depot next year.",  # a wish
        "Denis never moved from VN73 KXF to VN73 KXD.",  # a denial
        "Shona drove from Crick DC to Magor depot with a trailer.",  # a journey, not a transfer
        "Brennan Haulage handed the Dover shuttle's paperwork to Kinross Logistics.",  # handed, not over
        "Denis is not on nights 21:00-05:30; that's the agency driver.",  # no new value
        "The Dover shuttle moved from 02:15 to 04:20.",  # 02:15 is no value the store holds
        "The Dover shuttle now leaves at Brennan Haulage instead of 03:00.",  # a name for a time
        "Shona is in Magor depot, drove over from Crick DC.",  # a journey
        "Shona will be late, the bus from Crick DC broke down.",  # where the bus came from
        "Shona left Crick DC for the night on the late bus.",  # a journey
        "Shona left Crick DC for lunch.",  # an errand: a name never becomes a plain word
        "We might swap Denis to VN73 KXD, dropping VN73 KXF.",  # a wish
    ],
)
def test_unsure_changes_change_nothing(text):
    assert anchored_change(text, HELD) is None


def test_a_value_held_before_names_the_slot_too():
    # The store missed the change to Magor depot; the next change still finds Shona's depot.
    held = {("shona", "depot"): ["Crick DC", "Magor depot"], ("shona", "shift"): ["nights 21:00-05:30"]}
    assert anchored_change("Shona has transferred from Magor depot to Avonmouth hub.", held)[:3] == ("shona", "depot", "Avonmouth hub")


def test_an_old_value_two_slots_hold_is_no_change():
    held = {("anna", "home city"): ["Lisbon"], ("bob", "home city"): ["Porto", "Lisbon"]}
    assert anchored_change("Anna and Bob: moved from Lisbon to Berlin", held) is None


def test_a_change_in_words_no_rule_reads_supersedes_the_slot(memory):
    memory.add('{"lane": "Dover shuttle", "schedule": {"planned_departure": "03:00"}}', kind="tool_result",
               tool_name="tms.lane_schedule", ts=NOW - timedelta(days=30), source="user:ops")
    memory.add('{"lane": "Dover shuttle", "schedule": {"carrier": "Brennan Haulage"}}', kind="tool_result",
               tool_name="tms.lane_schedule", ts=NOW - timedelta(days=30), source="user:ops")
    change = memory.add("Schedule change - Dover shuttle: departure 03:00 -> 04:20.", ts=NOW - timedelta(days=2),
                        source="user:ops")

    [current] = memory.facts("Dover shuttle", "planned departure")
    assert current.value == "04:20"
    [old, new] = memory.history("Dover shuttle", "planned departure")
    assert (old.value, old.status, new.value) == ("03:00", FactStatus.SUPERSEDED, "04:20")
    assert [f.value for f in memory.facts("Dover shuttle", "carrier")] == ["Brennan Haulage"]  # untouched
    assert memory.query("What time does the Dover shuttle depart now?", top_k=3)[0].id == change


def test_a_change_a_rule_files_under_another_slot_goes_to_the_slot_holding_the_old_value(memory):
    memory.add("Radio plan: night crew = DISPATCH-S", ts=NOW - timedelta(days=30), source="user:ops")
    memory.add('{"group": "night crew", "assigned": {"talkgroup": "DISPATCH-S"}}', kind="tool_result",
               tool_name="radio.talkgroups", ts=NOW - timedelta(days=20), source="user:ops")
    memory.add("The night crew has moved from DISPATCH-S to TG-SPARE-9.", ts=NOW - timedelta(days=1), source="user:ops")

    assert [f.value for f in memory.facts("night crew", "talkgroup")] == ["TG-SPARE-9"]
    assert memory.facts("night crew", "home city") == []


@pytest.mark.parametrize("listed", ["in time order", "newest first"])
def test_a_change_may_name_a_value_stated_earlier_in_the_same_write(memory, listed):
    events = [
        {"text": "The night crew's talkgroup is DISPATCH-S.", "ts": NOW - timedelta(days=20), "source": "user:ops"},
        {"text": "Heads up, night crew switch your handsets to TG-SPARE-9 (not DISPATCH-S).",
         "ts": NOW - timedelta(days=1), "source": "user:ops"},
    ]
    result = memory.ingest(events if listed == "in time order" else events[::-1])
    assert result.ok
    assert [(f.value, f.status) for f in memory.history("night crew", "talkgroup")] == [
        ("DISPATCH-S", FactStatus.SUPERSEDED), ("TG-SPARE-9", FactStatus.CURRENT)
    ]


def test_a_hand_over_in_a_write_changes_the_slot(memory):
    memory.add("The Dover shuttle's lead driver is Shauna.", ts=NOW - timedelta(days=19), source="user:ops")
    memory.add("Shauna handed the Dover shuttle over to Denis today.", ts=NOW - timedelta(days=1), source="user:ops")
    assert [f.value for f in memory.facts("Dover shuttle")] == ["Denis"]
