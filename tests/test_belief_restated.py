"""Memories that say the same thing with another value (a status board line, a rota line) are
answered newest first for a question about now, whatever their words, when the newer one comes
from an established writer; as of a past time, the one standing then leads; a guest or an
unverified document restating an old value, a look-alike name, another environment and a hedge
do not reorder anything. End to end on each backend (real stores), and the form check on its own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from deltacore.belief.restated import Said, asked_words, differing_span, newest_first, required_words, restated_forms

NOW = datetime.now(UTC)
BOARD = "How does ledger-writer in stable look these days?"


def say(memory, text, days, source="user:ops"):
    return memory.add(text, ts=NOW - timedelta(days=days), source=source)


def board(memory, status, days, source="user:ops"):
    return say(memory, f"ledger-writer in stable looks {status} on the board.", days, source)


def standing(memory, source="user:ops"):
    """Ten unrelated notes over six weeks: the source is established, no newcomer. And one fact
    about ledger-writer in stable: the store tracks it (a question about a subject it holds no
    fact of is left to ordinary ranking)."""
    for i in range(10):
        say(memory, f"Standup note {i}: the printer on floor {i} is jammed again.", 30 + i * 4, source)
    memory.add("ledger-writer in stable is owned by the growth chapter", ts=NOW - timedelta(days=90), source=source, kind="fact",
               meta={"subject": "ledger-writer stable", "attribute": "owner", "value": "growth chapter"})


def test_the_newest_statement_of_one_form_answers_a_question_about_now(memory):
    standing(memory)
    old = board(memory, "nominal", 60)
    new = board(memory, "in a brownout", 10)
    assert [p.id for p in memory.query(BOARD, top_k=3)][:2] == [new, old]


def test_as_of_a_past_time_the_statement_standing_then_leads(memory):
    standing(memory)
    old = board(memory, "in a brownout", 60)
    new = board(memory, "nominal", 10)
    ids = [p.id for p in memory.query(BOARD, top_k=3, as_of=NOW - timedelta(days=30))]
    assert old in ids and new not in ids


def test_a_guest_restating_an_old_value_later_does_not_lead(memory):
    standing(memory)
    board(memory, "in a brownout", 60)
    new = board(memory, "nominal", 20)
    board(memory, "in a brownout", 5, source="user:guest-7f3a")
    assert memory.query(BOARD, top_k=3)[0].id == new


MANAGER = "Who is Dana's manager now?"


def test_a_newer_line_in_the_words_that_said_the_stored_value_leads_above_it(memory):
    standing(memory)
    say(memory, "Dana's manager is Farah.", 80)
    stored = say(memory, "Dana's manager is Priya.", 40)
    say(memory, "Sign-off: Dana, manager Priya, was Farah", 30)
    newer = say(memory, "Sign-off: Dana, manager Omar, was Farah", 5)
    assert [f.value for f in memory.facts("Dana", "manager")] == ["Priya"]  # the rules read neither line
    packets = memory.query(MANAGER, top_k=3)
    assert [p.id for p in packets[:2]] == [newer, stored]
    assert "same words with another value" in packets[0].belief_hint and newer in packets[1].belief_hint


def test_a_guests_newer_line_in_those_words_does_not_lead(memory):
    standing(memory)
    say(memory, "Dana's manager is Farah.", 80)
    stored = say(memory, "Dana's manager is Priya.", 40)
    say(memory, "Sign-off: Dana, manager Priya, was Farah", 30)
    say(memory, "Sign-off: Dana, manager Omar, was Farah", 5, source="user:guest-19ab")
    assert memory.query(MANAGER, top_k=3)[0].id == stored


# ---- the form check on its own --------------------------------------------------------------


def span(a, b, question=BOARD):
    found = differing_span(a, b, asked_words(question), required_words(question, None))
    return None if found is None else (" ".join(found[0]), " ".join(found[1]))


def test_two_statements_differing_in_one_filled_span_share_a_form():
    assert span("ledger-writer in stable looks in a brownout on the board.", "ledger-writer in stable looks nominal on the board.") == (
        "in a brownout", "nominal")
    assert span("thumbnailer in canary executes on Go 1.22.", "thumbnailer in canary executes on Deno 1.40.",
                "Which runtime does thumbnailer in canary execute on?") == ("go 1.22", "deno 1.40")


def test_a_lead_in_only_one_of_them_has_is_set_aside():
    assert span("thumbnailer in canary carries tag 2025.4.", "Scratch that about tag 2025.4: thumbnailer in canary carries tag 2025.7.",
                "Which tag does thumbnailer in canary carry these days?") == ("2025.4", "2025.7")
    assert span("thumbnailer in canary carries tag 2025.4.", "Maybe next week: thumbnailer in canary carries tag 2025.7.",
                "Which tag does thumbnailer in canary carry these days?") is None
    # words in front that change what is said are no lead-in
    assert span("Project Falcon is led by Eric.", "The status of Project Falcon is in progress.", "Who leads Project Falcon now?") is None


def test_a_timestamp_does_not_hide_a_log_lines_value():
    assert span("2026-03-04 10:00 billing-api status=up", "2026-05-01 11:12 billing-api status=down",
                "What is the status of billing-api?") == ("up", "down")


def test_a_differing_asked_name_or_a_second_span_is_no_shared_form():
    assert span("Anna lives in Berlin now.", "Ana lives in Berlin now.", "Where does Anna live?") is None
    assert span("thumbnailer in stable executes on Go 1.22.", "thumbnailer in canary executes on Deno 1.40.",
                "Which runtime does thumbnailer in canary execute on?") is None
    assert span("thumbnailer in stable executes on Deno 1.40.", "thumbnailer in canary executes on Deno 1.40.",
                "Which runtime does thumbnailer in canary execute on?") is None


def test_the_asked_subject_must_be_in_what_they_share():
    question = "Who is the budget holder for the HALCYON study now?"
    assert span("ASTRAL study, budget holder: Sorin", "DELPHI study, budget holder: Sorin", question) is None
    assert span("HALCYON study, budget holder: Sorin", "HALCYON study, budget holder: Selma", question) == ("sorin", "selma")
    found = differing_span("ASTRAL study, budget holder: Sorin", "DELPHI study, budget holder: Sorin",
                           asked_words(question), required_words(question, "halcyon"))
    assert found is None


def test_hedges_additions_and_unrelated_forms_are_no_shared_form():
    assert span("ledger-writer in stable looks nominal on the board.", "ledger-writer in stable maybe wobbly on the board.") is None
    assert span("ledger-writer in stable looks nominal on the board.", "ledger-writer in stable looks nominal on the board, not really.") is None
    assert span("ledger-writer in stable looks nominal on the board.", "Lunch moved to the atrium on the board.") is None
    # what they share must be about what is asked
    assert span("Lunch is in the atrium today.", "Lunch is in the canteen today.") is None


def test_a_group_orders_established_writers_newest_first_and_keeps_the_rest_in_found_order():
    memories = [
        Said("old", "ledger-writer in stable looks in a brownout on the board.", 100.0, True),
        Said("guest", "ledger-writer in stable looks in a brownout on the board!", 300.0, False),
        Said("new", "ledger-writer in stable looks nominal on the board.", 200.0, True),
        Said("other", "Lunch moved to the atrium.", 400.0, True),
    ]
    groups = restated_forms(BOARD, memories)
    assert [[memories[i].event_id for i in g] for g in groups] == [["old", "new"]]
    assert [memories[i].event_id for i in newest_first(memories, [0, 1, 2])] == ["new", "old", "guest"]


def test_first_person_statements_share_a_form_only_from_one_speaker():
    question = "Which editor does Agneta write code in these days?"
    memories = [Said("a", "My editor of choice is Sublime Text.", 100.0, True, "agneta"),
                Said("b", "My editor of choice is Neovim.", 200.0, True, "bram"),
                Said("c", "My editor of choice is Helix.", 300.0, True, "agneta")]
    assert [[memories[i].event_id for i in g] for g in restated_forms(question, memories)] == [["a", "c"]]


def test_a_bad_window_is_refused_naming_the_field(tmp_path):
    import pytest

    from deltacore import DeltaCore
    from deltacore.testing import FakeEmbedder

    with pytest.raises(Exception, match="restated_window"):
        DeltaCore.open(tmp_path, embedder=FakeEmbedder(), belief={"restated_window": -1})
