"""The reputation an erased subject's memories and episodes earned their writers is re-derived
without them: equal to a tenant that lived the same story without the subject."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from deltacore import DeltaCore


def _story(memory: DeltaCore, tenant: str, with_alice: bool) -> None:
    """The wiki wrote Bob's note (it earns credit in Bob's episode and, retrieved there, in
    Alice's failed one); the chat bot wrote Carol's note and Alice's. The reference tenant lives
    the same story without Alice."""
    bob = memory.add("Bob Jones renewed his plan", source="wiki", episode_id="ep-b", tenant=tenant)
    memory.record_outcome("ep-b", 1.0, tenant=tenant)
    memory.add("Carol Diaz changed her address", source="chat-bot", episode_id="ep-c", tenant=tenant)
    memory.record_outcome("ep-c", 1.0, tenant=tenant)
    if with_alice:
        alice = memory.add("Alice Smith asked for a refund", entities=["Alice Smith"], source="chat-bot", episode_id="ep-a", tenant=tenant)
        memory.record_retrieval([bob], episode_id="ep-a", tenant=tenant)
        memory.record_outcome("ep-a", -1.0, tenant=tenant)
        memory.feedback(alice, 0.5, tenant=tenant)  # her own memory earns its writer credit too
    memory.feedback(bob, 0.5, tenant=tenant)


def test_reputation_the_subject_earned_is_rederived_without_them(memory: DeltaCore) -> None:
    _story(memory, "default", with_alice=True)
    _story(memory, "ref", with_alice=False)
    for source in ("wiki", "chat-bot"):  # Alice's episode and her memory moved both writers
        assert abs(memory.trust_score(source) - memory.trust_score(source, tenant="ref")) > 1e-3

    cert = memory.forget("Alice Smith")

    assert cert.counts["reputation_rederived"] == 2
    for source in ("wiki", "chat-bot"):
        assert memory.trust_score(source) == pytest.approx(memory.trust_score(source, tenant="ref"), abs=1e-9)
    assert cert.verify_chain() and any(step.artifact == "reputation_rederived" for step in cert.steps)


def test_reputation_untouched_by_the_subject_stays(memory: DeltaCore) -> None:
    memory.add("Dora Lee booked a flight", source="travel-desk", episode_id="ep-d")
    memory.record_outcome("ep-d", 1.0)
    memory.add("Alice Smith asked for a refund", entities=["Alice Smith"], source="chat-bot", episode_id="ep-a")
    memory.record_outcome("ep-a", 1.0)
    before = memory.trust_score("travel-desk")

    cert = memory.forget("Alice Smith")

    assert memory.trust_score("travel-desk") == before
    assert cert.counts.get("reputation_rederived") == 1  # only the chat bot's
    assert memory.trust_score("chat-bot") == pytest.approx(memory.trust_score("never-seen"))


def _schema_bodies(memory: DeltaCore) -> list[str]:
    import json

    from deltacore.storage.plan_store import schemas

    with memory._sql.reader() as conn:
        return [json.dumps(row.body, ensure_ascii=False) for row in conn.execute(select(schemas.c.body))]


def test_plan_schemas_quoting_the_subject_are_erased(memory: DeltaCore) -> None:
    for person, episode in (("Alice Smith", "ep-a"), ("Bob Jones", "ep-b")):
        scope = {"episode_id": episode, "session_id": episode}
        memory.add(f"update the record of {person}", kind="tool_call", tool_name="crm_update",
                   tool_args={"customer": person, "city": "Oslo"}, **scope)  # fmt: skip
        memory.add(f"crm_update ok: {person} moved to Oslo", kind="tool_result", tool_name="crm_update", **scope)
        memory.record_outcome(episode, 1.0)
    if not any("Alice Smith" in body for body in _schema_bodies(memory)):
        pytest.skip("plans learned no schema quoting the subject from these episodes")

    cert = memory.forget("Alice Smith")

    assert not any("Alice Smith" in body for body in _schema_bodies(memory))
    assert cert.schemas_deleted == cert.counts["schemas"] >= 1


def test_audit_probes_leave_no_copy_of_the_subject_in_the_security_log(backend) -> None:
    """A probe names the subject; a honeypot alert it raised would log the probe's text
    (measured: 11 rows naming her after one audit). Here every query after the forget reaches a
    canary first (similarity floor 0), so the probes would all raise one."""
    memory = backend.open(trust={"honeypot_similarity": 0.0})
    try:
        memory.add("Alice Smith asked for a refund", entities=["Alice Smith"])
        memory.add("the nightly deploy finished")
        memory.forget("Alice Smith")

        report = memory.verify_erasure("Alice Smith")

        assert report.sql_findings == ()
        assert not any("Alice" in e.model_dump_json() for e in memory.security_events(tenant=None))
        memory.query("Alice Smith refund")  # an ordinary query still raises its alert
        assert [e.kind for e in memory.security_events(tenant=None)] == ["HONEYPOT_TRIGGERED"]
    finally:
        memory.close()
