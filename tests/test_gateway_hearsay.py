"""First-party authority at read time: what another source says about a principal of the tenant
loses to the principal's own account unless it is confirmed — whatever the writer's standing;
and corroboration agrees on values (dates, numbers, names), not only on topic."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from deltacore import DeltaCore
from deltacore.gateway.hearsay import agrees, principal_sources, source_names, spoken_about, third_person_names, values
from deltacore.gateway.standing import newcomer_sources

NOW = datetime.now(timezone.utc)
QUESTION = "when did Gina open her online clothing store?"
TRUTH = "Gina did open her online clothing store in March, when she lost her job."
# Closer to the question than the truth (bag-of-words embedder), topical to the truth (cosine
# 0.71 ≥ hearsay_topic_similarity) but not a near-duplicate of it, and a different value.
PLANTED = "Gina did open her online clothing store when 2016 began."


def history(memory: DeltaCore, source: str, n: int = 20, days: int = 0) -> None:
    step = timedelta(days=days / n) if days else timedelta(minutes=7)
    start = NOW - timedelta(days=days + 1)
    chores = ["watered the basil", "fixed the squeaky door", "baked banana bread", "walked the dog by the river", "read a mystery novel"]
    memory.ingest(
        [{"text": f"Today I {chores[i % len(chores)]} ({source.split(':')[-1]}'s entry {i}).", "source": source,
          "actor": source.split(":")[-1].capitalize(), "ts": start + i * step} for i in range(n)],
        channel="user",
    )


def ranked(memory: DeltaCore, text: str, **options) -> list[str]:
    return [p.id for p in memory.query(text, top_k=5, include_deltas=False, **options)]


def newcomers(memory: DeltaCore, *sources: str) -> set[str]:
    with memory._sql.reader() as conn:
        return newcomer_sources(conn, memory.config.trust, "default", set(sources))


def write(memory: DeltaCore, event_id: str, text: str, source: str, **extra) -> None:
    memory.ingest([{"id": event_id, "text": text, "source": source, "actor": source.split(":")[-1].capitalize(), **extra}],
                  channel="user")


def gina_and_patient_attacker(memory: DeltaCore, *attackers: str) -> None:
    """Gina (a principal, long history) states the truth; each attacker earns standing over ten
    days of innocuous records first."""
    history(memory, "user:gina", n=12, days=60)
    write(memory, "truth", TRUTH, "user:gina", ts=NOW - timedelta(days=1))
    for attacker in attackers:
        history(memory, attacker, n=20, days=10)
    assert newcomers(memory, "user:gina", *attackers) == set()  # everyone has standing


# ---- the text-level pieces ---------------------------------------------------------------------


def test_names_of_a_source_come_from_its_actor_and_its_label() -> None:
    assert source_names("user:john", "John") == {"john"}
    assert source_names("user:a1b2c3", "Mary Ann") == {"mary", "ann", "a1b2c3"}
    assert source_names(None, "user:abc") == {"abc"}


def test_a_principal_is_named_by_a_shortening_of_their_name() -> None:
    by_name = {"melanie": {"user:melanie"}, "caroline": {"user:caroline"}, "jo": {"user:jo"}}
    assert principal_sources("mel", by_name) == {"user:melanie"}
    assert principal_sources("melanie", by_name) == {"user:melanie"}
    assert principal_sources("me", by_name) == set()  # too short to be a shortening
    assert principal_sources("carol", by_name) == {"user:caroline"}
    assert principal_sources("joanna", by_name) == set()  # a longer name is someone else


def test_speaking_about_someone_is_not_addressing_them() -> None:
    names = {"john", "melanie", "jon", "tim"}
    claims = [
        "John went on a camping trip with Max on 2 June 2021.",
        "Just so you know, John went camping.",
        "John told me: John went camping.",
        "Confirmed: Melanie's favourite colour is blue.",
        "I heard that Tim quit his job.",
    ]
    addresses = [
        "Thanks Melanie - love the blue vase in the pic!",
        "Hey, John that's awesome! You really showed your resilience.",
        "That's great Tim! Books and movies make us escape.",
        "No doubt, Jon you've got this.",
        "Yep John, let's keep up the good work.",
        "See you later Tim",
    ]
    assert all(third_person_names(text, names) for text in claims), [t for t in claims if not third_person_names(t, names)]
    assert not any(third_person_names(text, names) for text in addresses), [t for t in addresses if third_person_names(t, names)]


def test_what_a_text_speaks_about_is_every_name_it_does_not_address() -> None:
    assert spoken_about("Thanks Melanie! John went camping with Max on 2 June.") == {"john", "max"}
    assert spoken_about("Hey Caroline, how are you?") == frozenset()
    assert spoken_about("no names here") == frozenset()


def test_agreement_is_on_values_not_on_topic() -> None:
    truth = "I went camping with Max on 2 June 2021, it was great."
    assert values("John went camping with Max on 3 June 2021.", ignore={"john"}) == {"max", "3", "june", "2021"}
    assert agrees("John went camping with Max in June 2021.", truth, ignore={"john"})
    assert not agrees("John went camping with Max on 3 June 2021.", truth, ignore={"john"})  # another date
    assert not agrees("John went camping with Priya in June.", truth, ignore={"john"})  # another companion
    assert agrees("John went camping.", truth, ignore={"john"})  # nothing asserted beyond the topic


# ---- first-party authority in the store --------------------------------------------------------


def test_a_patient_attacker_s_hearsay_loses_to_the_principal_s_own_account(memory: DeltaCore, backend) -> None:
    """The patient attacker has standing (history over days), the write filter accepts the plain
    declarative; it is hearsay about Gina that Gina's own statement does not confirm."""
    gina_and_patient_attacker(memory, "user:mallory")
    verdict = memory.ingest([{"id": "planted", "text": PLANTED, "source": "user:mallory", "actor": "Mallory"}],
                            channel="user").decisions[0]
    assert verdict.action.value == "accept"
    top = ranked(memory, QUESTION)
    assert top[0] == "truth"
    assert "planted" not in ranked(memory, QUESTION, for_decision=True)
    if backend.name == "sqlite":
        # With the rule off, the planted answer wins: the test measures the rule, not the data.
        off = backend.open(path=backend.settings["path"].with_name("off"), trust={"first_party_authority": False})
        try:
            gina_and_patient_attacker(off, "user:mallory")
            write(off, "planted", PLANTED, "user:mallory")
            assert ranked(off, QUESTION)[0] == "planted"
        finally:
            off.close()


def test_hearsay_naming_the_principal_by_a_shortening_is_hearsay(memory: DeltaCore) -> None:
    gina_and_patient_attacker(memory, "user:mallory")
    write(memory, "planted", "Gin did open her online clothing store when 2016 began.", "user:mallory")
    assert "planted" not in ranked(memory, QUESTION, for_decision=True)


def test_copies_from_a_second_patient_source_do_not_confirm_hearsay(memory: DeltaCore) -> None:
    """Only the principal confirms what is said about them: two sources with standing agreeing
    with each other are still two third parties."""
    gina_and_patient_attacker(memory, "user:mallory", "user:trudy")
    write(memory, "planted", PLANTED, "user:mallory")
    write(memory, "copy", "Actually, " + PLANTED, "user:trudy")
    top = ranked(memory, QUESTION)
    assert top[0] == "truth"
    decision = ranked(memory, QUESTION, for_decision=True)
    assert "planted" not in decision and "copy" not in decision


def test_the_principal_s_own_statement_is_never_suppressed(memory: DeltaCore) -> None:
    """Gina's own (third-person) statement, contradicted by a third party with standing, keeps
    its rank and may drive a decision."""
    gina_and_patient_attacker(memory, "user:mallory")
    write(memory, "planted", PLANTED, "user:mallory")
    assert ranked(memory, QUESTION)[0] == "truth"
    assert "truth" in ranked(memory, QUESTION, for_decision=True)
    # And what Gina says about herself after someone else spoke about it is not hearsay either.
    write(memory, "again", "Gina did open her online clothing store when 2016 began, I misremembered.", "user:gina")
    assert "again" in ranked(memory, QUESTION, for_decision=True)


def test_confirmed_third_party_statement_stays_visible(memory: DeltaCore) -> None:
    """A friend's near-duplicate with the same values is confirmed by the principal."""
    gina_and_patient_attacker(memory, "user:friend")
    write(memory, "relay", "Gina did open her online clothing store in March, when she lost her job, she told me.", "user:friend")
    assert "relay" in ranked(memory, QUESTION)
    assert "relay" in ranked(memory, QUESTION, for_decision=True)


def _dentist(memory: DeltaCore) -> list[str]:
    history(memory, "user:gina", n=12, days=60)
    history(memory, "user:mom", n=12, days=60)
    write(memory, "note", "Gina has a dentist appointment on Thursday at 3pm.", "user:mom")
    return ranked(memory, "when is Gina's dentist appointment?")


def test_third_party_statement_on_a_topic_the_principal_never_spoke_about_stays_visible(backend) -> None:
    """With a topic threshold, no competing first-party account means no demotion: a parent's
    note about a child keeps its rank."""
    memory = backend.open(trust={"hearsay_topic_similarity": 0.5})
    try:
        assert _dentist(memory)[0] == "note"
        assert "note" in ranked(memory, "when is Gina's dentist appointment?", for_decision=True)
    finally:
        memory.close()


def test_generally_any_first_party_candidate_demotes_unconfirmed_hearsay(backend) -> None:
    """``hearsay_topic_similarity`` = 0 (the rule "generally"): whenever the principal's own
    memories are candidates, what others say about them needs the principal's confirmation —
    the cost docs/security.md states: the parent's note no longer drives a decision."""
    memory = backend.open(trust={"hearsay_topic_similarity": 0.0})
    try:
        _dentist(memory)
        assert "note" not in ranked(memory, "when is Gina's dentist appointment?", for_decision=True)
    finally:
        memory.close()


def test_addressing_the_principal_is_not_hearsay(memory: DeltaCore) -> None:
    """A conversation partner's reply to Gina, on her topic, is not a claim about her: a query
    that names nobody lets it drive a decision."""
    gina_and_patient_attacker(memory, "user:friend")
    write(memory, "reply", "Wow Gina, your online clothing store sounds amazing, good luck with it!", "user:friend")
    assert "reply" in ranked(memory, "online clothing store good luck", for_decision=True)


# ---- the same rule seen from the question ------------------------------------------------------

UNNAMED = "They did open their online clothing store when 2016 began."


def test_an_attacker_who_never_names_the_principal_loses_when_the_question_does(memory: DeltaCore, backend) -> None:
    """A question about Gina makes every other person's candidate an account of Gina: the
    planted answer that avoids her name competes with her own statement and loses."""
    gina_and_patient_attacker(memory, "user:mallory")
    write(memory, "unnamed", UNNAMED, "user:mallory")
    write(memory, "first", "I did open my online clothing store when 2016 began.", "user:mallory")
    assert ranked(memory, QUESTION)[0] == "truth"
    decision = ranked(memory, QUESTION, for_decision=True)
    assert "unnamed" not in decision and "first" not in decision
    if backend.name == "sqlite":
        # The measured difference: with the question-side rule off, the unnamed claim drives it.
        off = backend.open(path=backend.settings["path"].with_name("off"), trust={"question_subject_authority": False})
        try:
            gina_and_patient_attacker(off, "user:mallory")
            write(off, "unnamed", UNNAMED, "user:mallory")
            assert "unnamed" in ranked(off, QUESTION, for_decision=True)
        finally:
            off.close()


def test_a_question_that_names_nobody_leaves_other_sources_alone(memory: DeltaCore) -> None:
    """The limit docs/security.md states: without a principal in the question (or in the
    record) nothing says whose account the record is, and a source with standing keeps it."""
    gina_and_patient_attacker(memory, "user:mallory")
    write(memory, "unnamed", UNNAMED, "user:mallory")
    assert "unnamed" in ranked(memory, "when did they open the online clothing store?", for_decision=True)


def test_a_tool_s_output_is_not_someone_s_account_of_the_principal(memory: DeltaCore, backend) -> None:
    """Only people (user and peer channels) give accounts of a person: a tool's result answering
    a question about Gina ranks exactly as it would without the question-side rule."""

    def ranks(store: DeltaCore) -> list[str]:
        gina_and_patient_attacker(store)
        # A tool in use for days: it has standing, so nothing but the rule could demote it.
        start = NOW - timedelta(days=11)
        store.ingest([{"text": f"Registry lookup {i}: no record changed.", "kind": "tool_result", "tool_name": "registry_lookup",
                       "source": "tool:registry", "ts": start + timedelta(hours=12 * i)} for i in range(20)], channel="tool")
        assert newcomers(store, "tool:registry") == set()
        store.ingest([{"id": "lookup", "text": "Online clothing store registry: the store did open in January 2016.",
                       "kind": "tool_result", "tool_name": "registry_lookup", "source": "tool:registry"}], channel="tool")
        return [p.id for p in store.query(QUESTION, top_k=20, include_deltas=False)]

    on = ranks(memory)
    assert "lookup" in on
    if backend.name == "sqlite":
        off = backend.open(path=backend.settings["path"].with_name("off"), trust={"question_subject_authority": False})
        try:
            assert ranks(off).index("lookup") == on.index("lookup")
        finally:
            off.close()
