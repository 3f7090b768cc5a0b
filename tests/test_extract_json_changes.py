"""Tool results that report what changed, or name their subject in a wrapper or with its place."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

from deltacore.belief import RuleFactExtractor
from deltacore.belief.json_diffs import new_side, pair

TS = datetime(2026, 3, 4, tzinfo=timezone.utc)
EXTRACTOR = RuleFactExtractor()


def claims(text: str) -> list[tuple[str, str, str]]:
    event = SimpleNamespace(text=text, kind="tool_result", actor="sync", user_id=None, meta={}, confidence=1.0, ts=TS)
    return [(c.subject, c.attribute, c.value) for c in EXTRACTOR.claims(event)]


def test_a_change_list_states_each_new_value():
    text = '{"person": "Rosa", "changes": [{"attr": "salary_bank", "now": "Alder Mutual"}, {"field": "gym", "old": "A", "new": "B"}]}'
    assert claims(text) == [("rosa", "salary bank", "Alder Mutual"), ("rosa", "gym", "B")]


def test_a_diff_under_its_key_states_the_new_side_only():
    assert claims('{"person": "Rosa", "vehicle": {"from": "Ford Focus", "to": "Kia Niro"}}') == [("rosa", "vehicle", "Kia Niro")]
    assert claims('{"person": "Rosa", "desk": {"before": "4F", "after": "2C"}}') == [("rosa", "desk", "2C")]


def test_an_unclear_diff_states_nothing():
    assert pair({"attr": "gym", "now": "A", "new": "B"}) is None  # two new sides
    assert pair({"attr": "gym", "old": "A"}) is None  # no new side
    assert pair({"attr": "gym", "now": "A", "note": "x", "by": "y"}) is None  # more than a diff
    assert new_side({"from": "A", "to": "B", "by": "ops"}) == (False, None)
    assert new_side({"to": "B"}) == (False, None)  # "to" alone is no diff
    assert claims('{"person": "Rosa", "changes": [{"attr": "gym", "old": "A"}]}') == []


def test_a_thing_named_with_its_place_is_one_subject_per_place():
    up = claims('{"instrument": "centrifuge (upstairs lab)", "props": {"custodian": "Selma"}}')
    down = claims('{"instrument": "centrifuge (downstairs lab)", "props": {"custodian": "Ruben"}}')
    assert up == [("centrifuge upstairs lab", "custodian", "Selma")]
    assert down == [("centrifuge downstairs lab", "custodian", "Ruben")]


def test_a_one_field_wrapper_names_the_subject():
    assert claims('{"award": {"study": "DELPHI"}, "budget_holder": "Viggo"}') == [("delphi", "budget holder", "Viggo")]
    # A wrapper with more fields is a payload, not a name.
    assert claims('{"award": {"study": "DELPHI", "phase": "2"}, "budget_holder": "Viggo"}') == []


def test_a_document_names_what_it_applies_to_and_its_type_is_no_attribute():
    found = claims('{"doc_type": "SOP", "applies_to": "autoclave", "current_revision": "SOP-395 rev C"}')
    assert found == [("autoclave", "revision", "SOP-395 rev C")]


def test_a_wrapper_with_a_name_and_where_it_is_names_one_subject():
    text = '{"asset": {"type": "wall display", "location": "east wing"}, "report": {"update_channel": "beta"}}'
    assert claims(text) == [("wall display east wing", "update channel", "beta")]
    # A location that is the record's own attribute, outside the wrapper, stays an attribute.
    assert claims('{"person": "Noor", "location": "Ghent"}') == [("noor", "location", "Ghent")]


def test_an_asset_tag_that_already_says_where_names_the_place_once():
    north = claims('{"asset_tag": "North Yard/reach truck", "site": "North Yard", "props": {"responsible_person": "Kerry"}}')
    south = claims('{"asset_tag": "South Yard/reach truck", "site": "South Yard", "props": {"responsible_person": "Idris"}}')
    assert north == [("reach truck north yard", "responsible person", "Kerry")]
    assert south == [("reach truck south yard", "responsible person", "Idris")]


def test_a_listing_states_each_listed_records_facts():
    rota = '{"week": "current", "drivers": [{"name": "Shona", "shift": "nights"}, {"name": "Deniz", "shift": "earlies"}], "retrieved": "19-Dec-2025 09:13 UTC"}'
    assert claims(rota) == [("shona", "shift", "nights"), ("deniz", "shift", "earlies")]
    # A search's hits are about their first field when no key names them.
    hits = '{"hits": 1, "results": [{"equipment_class": "reach truck", "maintenance_contractor": "Apex Dock Systems"}]}'
    assert claims(hits) == [("reach truck", "maintenance contractor", "Apex Dock Systems")]
    assert claims('[{"name": "Iris", "office": "Austin"}]') == [("iris", "work city", "Austin")]


def test_a_listed_record_is_read_when_its_listing_was():
    event = SimpleNamespace(
        text='{"drivers": [{"name": "Shona", "shift": "nights"}], "retrieved": "2026-03-01T09:00:00Z"}',
        kind="tool_result", actor="sync", user_id=None, meta={}, confidence=1.0, ts=TS,
    )
    (claim,) = EXTRACTOR.claims(event)
    assert claim.valid_from == datetime(2026, 3, 1, 9, tzinfo=timezone.utc).timestamp()


def test_a_form_states_its_respondents_answers():
    form = '{"form": "Household profile", "respondent": "Cian", "answers": [{"question": "seat", "answer": "aisle"}]}'
    assert claims(form) == [("cian", "seat", "aisle")]


def test_a_sheets_row_is_about_its_first_field_not_the_sheet():
    row = '{"sheet": "Shops", "row": {"shop": "Saltbox Deli", "keyholder": "Matei"}, "observed": "2025-12-15T09:08:00.000Z"}'
    assert claims(row) == [("saltbox deli", "keyholder", "Matei")]


def test_a_record_that_opens_with_a_name_is_about_it_not_about_a_nested_name():
    card = '{"initiative": "Bluebird", "card": {"champion_name": "Brams"}, "as_at": "03.12.2025 09:49"}'
    assert claims(card) == [("bluebird", "champion name", "Brams")]
    # A name under the record's own header still names it.
    contact = '{"record": {"kind": "contact", "display_name": "Iris"}, "fields": {"office_site": "Austin"}}'
    assert ("iris", "office site", "Austin") in claims(contact)


def test_a_flat_record_read_at_a_time_is_about_its_first_field():
    assert claims('{"site": "Old Mill office", "fire_warden": "Tarek", "polled": "20251210T0925Z"}') == [
        ("old mill", "fire warden", "Tarek")  # "office" is the kind of thing, not its name
    ]
    # Without a time it could be anything: no fact.
    assert claims('{"result": "Success", "count": "3"}') == []


def test_a_record_naming_a_person_and_their_unit_is_about_the_person():
    assert claims('{"employee": "Petra", "group": "perimeter crew"}') == [("petra", "team", "perimeter crew")]
    assert claims('{"user": "anna", "team": "payments"}') == [("anna", "team", "payments")]
    # A unit's own record, with no person's key, is about the unit.
    assert claims('{"team": "payments", "lead": "Anna"}') == [("payments", "lead", "Anna")]
