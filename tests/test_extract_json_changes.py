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
