"""The optional language-model fact extractor (``deltacore.belief.LLMFactExtractor``), on each
backend: what the model reads goes through the same contradiction policy as the rules' facts,
ungrounded or unsure claims make none, and a model that fails never costs a write. The model
is a scripted fake (the only fake besides the embedder)."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone

import pytest

from deltacore import DeltaCore
from deltacore.belief import FactStatus, LLMFactExtractor, RuleFactExtractor
from deltacore.errors import ConfigurationError
from deltacore.testing import FakeEmbedder

NOW = datetime.now(timezone.utc)


class ScriptedModel:
    """Answers a prompt by the message it carries; records what it was asked."""

    def __init__(self, answers: dict[str, object]) -> None:
        self.answers, self.asked, self._lock = answers, [], threading.Lock()

    def __call__(self, prompt: str) -> str:
        message = next((m for m in self.answers if m in prompt), None)
        with self._lock:
            self.asked.append(message)
        answer = self.answers.get(message, [])
        if isinstance(answer, Exception):
            raise answer
        return answer if isinstance(answer, str) else json.dumps(answer)


def say(memory, text, days, **fields):
    return memory.add(text, ts=NOW - timedelta(days=days), source=fields.pop("source", "user:7"), **fields)


CIVIC = "Talked to Priya: she gets around in a Honda Civic."
TESLA = "These days Priya gets around in a Tesla Model 3, the Civic is gone."


def test_what_the_model_reads_supersedes_like_any_fact(backend):
    model = ScriptedModel({
        CIVIC: [{"subject": "Priya", "attribute": "car", "value": "Honda Civic"}],
        TESLA: [{"subject": "Priya", "attribute": "car", "value": "Tesla Model 3", "previous": "Civic"}],
    })  # fmt: skip
    memory = backend.open(fact_extractor=LLMFactExtractor(model, mode="replace"))
    try:
        civic, tesla = say(memory, CIVIC, 30), say(memory, TESLA, 1)

        history = memory.history("Priya", "car")
        assert [f.value for f in history] == ["Honda Civic", "Tesla Model 3"]
        assert history[0].status is FactStatus.SUPERSEDED and history[0].superseded_by == history[1].id
        assert [f.value for f in memory.facts("priya")] == ["Tesla Model 3"]
        packets = {p.id: p for p in memory.query("what car does Priya drive?", top_k=5)}
        assert packets[civic].superseded and packets[civic].current_value == "Tesla Model 3"
        assert not packets[tesla].superseded
    finally:
        memory.close()


def test_fill_mode_asks_only_about_texts_the_rules_leave(tmp_path):
    rules = RuleFactExtractor()
    read_by_rules = "Anna moved to Berlin."
    model = ScriptedModel({CIVIC: [{"subject": "Priya", "attribute": "car", "value": "Honda Civic"}]})
    with DeltaCore.open(tmp_path / "s", embedder=FakeEmbedder(), fact_extractor=LLMFactExtractor(model, rules=rules)) as memory:
        say(memory, read_by_rules, 2)
        say(memory, CIVIC, 1)
        memory.add("fact", kind="fact", meta={"subject": "Anna", "attribute": "employer", "value": "Acme"})
        memory.ingest([{"kind": "tool_result", "tool_name": "crm", "text": json.dumps({"name": "Bo", "city": "Oslo"})}])

        assert model.asked == [CIVIC]  # not the sentence the rules read, the explicit fact or the JSON
        assert {(f.subject, f.attribute, f.value) for f in memory.facts()} >= {
            ("anna", "home city", "Berlin"), ("anna", "employer", "Acme"), ("priya", "car", "Honda Civic"),
        }  # fmt: skip


def test_claims_the_text_does_not_carry_make_no_fact(tmp_path):
    text = "Priya said the offsite went well."
    model = ScriptedModel({text: [
        {"subject": "Priya", "attribute": "home city", "value": "Berlin"},  # a value from nowhere
        {"subject": "Anna", "attribute": "mood", "value": "well"},  # a subject from nowhere
        {"subject": "Priya", "attribute": "offsite", "value": "went well", "confidence": 0.2},  # unsure
        {"subject": "Priya", "value": "offsite"},  # no attribute
    ]})  # fmt: skip
    extractor = LLMFactExtractor(model)
    with DeltaCore.open(tmp_path / "s", embedder=FakeEmbedder(), fact_extractor=extractor) as memory:
        say(memory, text, 1)
        assert memory.facts() == []
    assert extractor.stats.dropped == {"ungrounded": 2, "incomplete": 1, "unsure": 1}


def test_a_failing_model_costs_no_write(backend):
    broken, junk = "Priya's laptop died again this morning.", "The standup with Bo ran long again."
    model = ScriptedModel({broken: TimeoutError("model timed out"), junk: "Sure! Here are the facts: Bo -> Oslo"})
    extractor = LLMFactExtractor(model)
    memory = backend.open(fact_extractor=extractor)
    try:
        result = memory.ingest([{"text": broken, "source": "user:7"}, {"text": junk, "source": "user:7"}])
        assert len(result.stored) == 2 and not result.rejected
        assert {p.text for p in memory.query("Priya laptop standup Bo", top_k=5)} >= {broken, junk}
        assert extractor.stats.failures == 2 and memory.facts() == []
    finally:
        memory.close()


def test_first_person_is_the_speaker_and_one_text_is_asked_once(tmp_path):
    text = "Heads up: I'm working out of the Leeds office from now on."
    model = ScriptedModel({text: [{"subject": "I", "attribute": "office", "value": "Leeds office"}]})
    extractor = LLMFactExtractor(model)
    with DeltaCore.open(tmp_path / "s", embedder=FakeEmbedder(), fact_extractor=extractor) as memory:
        memory.ingest([{"text": text, "actor": "marta", "source": "user:marta"}] * 1
                      + [{"text": text, "actor": "marta", "source": "user:marta", "id": "again"}])  # fmt: skip
        say(memory, text, 0, actor="marta", source="user:marta")
        # the attribute as the store's lexicon names it ("office" is a synonym of its "work city")
        assert [(f.subject, f.attribute, f.value) for f in memory.facts("marta")] == [("marta", "work city", "Leeds office")]
    assert extractor.stats.calls == 1


def test_bad_settings_name_the_field(tmp_path):
    with pytest.raises(ConfigurationError, match="complete"):
        LLMFactExtractor(None)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="mode"):
        LLMFactExtractor(lambda p: "[]", mode="always")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="min_confidence"):
        LLMFactExtractor(lambda p: "[]", min_confidence=2)
    with pytest.raises(ConfigurationError, match="prompt"):
        LLMFactExtractor(lambda p: "[]", prompt="no placeholder")
    with pytest.raises(ConfigurationError, match="fact_extractor"):
        DeltaCore.open(tmp_path / "s", embedder=FakeEmbedder(), fact_extractor=object())
