"""Records written as text: "Key: value" blocks, markdown tables, key=value logs, ticket headers."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

from deltacore.belief import RuleFactExtractor
from deltacore.belief.text_records import text_records

TS = datetime(2026, 3, 6, 15, tzinfo=timezone.utc)
EXTRACTOR = RuleFactExtractor()


def claims(text: str):
    event = SimpleNamespace(text=text, kind="message", actor="carol", user_id=None, meta={}, confidence=1.0, ts=TS)
    return EXTRACTOR.claims(event)


def triples(text: str):
    return [(c.subject, c.attribute, c.value) for c in claims(text)]


def test_a_key_value_block_is_a_record_about_its_first_line():
    assert triples("Asset: plate reader (room 2)\nCustodian: Vera") == [("plate reader room 2", "custodian", "Vera")]
    assert triples("Employee: Noor\nDesk: 4F\nPhone: 555-0101") == [("noor", "desk", "4F"), ("noor", "phone", "555-0101")]


def test_a_block_whose_first_line_is_an_attribute_names_no_thing():
    assert text_records("Status: down\nVersion: 2.1") == []
    assert text_records("Note: the lift is out\nthanks all") == []  # prose after a label


def test_a_markdown_table_row_keeps_the_new_column_only():
    text = "Payroll changes:\n| employee | old bank | new bank |\n| --- | --- | --- |\n| Noor | Alder Mutual | Larkspur Bank |"
    assert triples(text) == [("noor", "bank", "Larkspur Bank")]


def test_a_key_value_log_line_is_dated_and_its_room_names_which_one():
    found = claims('2026-02-14 09:00 INFO instrument="centrifuge" room="upstairs lab" state="on hold"')
    assert [(c.subject, c.attribute, c.value) for c in found] == [("centrifuge upstairs lab", "status", "on hold")]
    assert found[0].valid_from == datetime(2026, 2, 14, 9, 0, tzinfo=timezone.utc).timestamp()
    assert text_records("retry=3 after the timeout, backoff=2") == []  # prose between the pairs


def test_a_ticket_header_opens_the_thing_s_ticket():
    assert triples("[OPS-4206] New: centrifuge (room 2), follows on from OPS-4021") == [
        ("centrifuge room 2", "open ticket", "OPS-4206")]
    assert triples("[OPS-12] New: Login fails on Safari") == []  # a title, no thing


def test_a_dialogue_or_a_question_is_no_record():
    assert text_records("User: I moved to Berlin last week\nAssistant: Congratulations") == []
    assert text_records("Q: where does Anna live?\nA: Berlin") == []


def test_a_csv_or_a_bar_separated_table_with_a_header_is_a_table():
    assert triples("Name,Depot\nNoor,Crick DC\nVera,Magor depot") == [("noor", "depot", "Crick DC"), ("vera", "depot", "Magor depot")]
    assert triples('Name,Desk\nNoor,"4F, east wing"') == [("noor", "desk", "4F, east wing")]
    assert triples("Name | Shift\nNoor | weekend relief") == [("noor", "shift", "weekend relief")]
    # Rows of another width than the header's, or a header of sentences, are no table.
    assert text_records("Name,Depot\nNoor,Crick DC,extra") == []
    assert text_records("I went to the shop, then home.\nThen, later, to bed.") == []


def test_a_title_line_may_head_a_sheet():
    assert triples("Staff list\nName,Depot\nNoor,Crick DC") == [("noor", "depot", "Crick DC")]
    assert triples("Route sheet\nDriver: Noor\nPrimary: R07 Canal side") == [("noor", "primary", "R07 Canal side")]


def test_key_value_pairs_on_one_line_between_bars_are_a_record():
    assert triples("Driver: Noor | Base: Crick DC") == [("noor", "base", "Crick DC")]
