"""What a caller hands ingest() and events() as a whole: a clear, field-named error, no crash."""

from __future__ import annotations

import pytest

from deltacore.errors import InvalidEventError, InvalidQueryError


@pytest.mark.parametrize("batch", [None, 42, "just a string"])
def test_a_batch_that_is_not_a_list_names_events(memory, batch):
    with pytest.raises(InvalidEventError) as caught:
        memory.ingest(batch)
    assert caught.value.field == "events"


def test_an_unknown_channel_names_the_allowed_ones(memory):
    with pytest.raises(InvalidEventError, match="user, agent, tool, document, peer, system") as caught:
        memory.ingest([{"text": "hello"}], channel="nonsense")
    assert caught.value.field == "channel"
    assert memory.events() == []  # nothing of the batch was stored


def test_one_event_and_a_generator_are_batches_too(memory):
    assert len(memory.ingest({"text": "one"}).stored) == 1
    assert len(memory.ingest(({"text": f"gen {n}"} for n in range(3))).stored) == 3


@pytest.mark.parametrize("limit", [-1, 0, 1.5, True])
def test_events_limit_must_be_positive(memory, limit):
    with pytest.raises(InvalidQueryError) as caught:
        memory.events(limit=limit)
    assert caught.value.field == "limit"
