"""A type error says what the field expects, with an example, not only pydantic's words."""

from __future__ import annotations

import pytest

from deltacore.errors import InvalidQueryError


def test_a_bad_timestamp_names_the_format_and_an_example(memory):
    result = memory.ingest([{"text": "a", "ts": "yesterday"}, {"text": "b", "tool_args": [1]}, {"text": "c"}])
    by_field = {r.field: r.reason for r in result.rejected}
    assert "ISO 8601" in by_field["ts"] and "2026-03-01T12:00:00Z" in by_field["ts"] and "'yesterday'" in by_field["ts"]
    assert "JSON object such as" in by_field["tool_args"]
    assert len(result.stored) == 1  # the good event of the batch is stored


def test_a_bad_query_value_names_the_expected_type(memory):
    with pytest.raises(InvalidQueryError, match=r"top_k: .*expected a whole number such as 5 \(got 'many'\)"):
        memory.query("x", top_k="many")
