"""forget(within=…) is an AND scope; scans are narrowed in SQL on both backends; the utilities an
erased subject's episodes taught retained memories are re-derived without them, or noised (DP)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from deltacore import DeltaCore
from deltacore.compliance import InvalidForgetRequestError
from deltacore.storage.erasure import ErasureRepository
from deltacore.storage.tables import deltas, utility_updates


def texts(memory: DeltaCore, tenant: str = "default") -> list[str]:
    return [e.text for e in memory.events(limit=1000, tenant=tenant, include_quarantined=True)]


def test_within_erases_only_where_every_field_matches(memory: DeltaCore) -> None:
    memory.add("passport number quorvex", user_id="u-alice", session_id="s1", agent_id="planner")
    memory.add("likes the window seat brindle", user_id="u-alice", session_id="s2", agent_id="planner")
    memory.add("bob's badge is drofnep", user_id="u-bob", session_id="s1", agent_id="planner")

    cert = memory.forget(within={"user_id": "u-alice", "session_id": "s1"})

    assert cert.counts["events"] == 1 and cert.memories == 1
    left = texts(memory)
    assert not any("quorvex" in t for t in left)
    assert any("brindle" in t for t in left) and any("drofnep" in t for t in left)
    # The same fields as OR selectors reach every event of either scope.
    assert memory.forget(user_id="u-alice", session_id="s1", dry_run=True).counts["events"] == 2


def test_within_bounds_the_other_selectors(memory: DeltaCore) -> None:
    inside = memory.add("Alice Smith asked about order 17", session_id="s1")
    outside = memory.add("Alice Smith asked about order 18", session_id="s2")
    memory.record_retrieval([outside], query="what did Alice Smith order?")

    cert = memory.forget("Alice Smith", within={"session_id": "s1"})

    assert cert.counts["events"] == 1 and "retrievals" not in cert.counts
    assert [t for t in texts(memory) if "Alice" in t] == ["Alice Smith asked about order 18"]
    # An id outside the scope is not the request's: nothing found, nothing erased.
    assert memory.forget(event_ids=[outside], within={"session_id": "s1"}).nothing_found
    assert inside not in {e.id for e in memory.events(limit=100)}


def test_event_ids_of_another_tenant_are_not_erased(memory: DeltaCore) -> None:
    theirs = memory.add("acme's vault code is plimbat", tenant="acme")
    assert memory.forget(event_ids=[theirs]).nothing_found  # tenant "default"
    assert any("plimbat" in t for t in texts(memory, "acme"))


@pytest.mark.parametrize("within", [{}, {"session_id": " "}, {"colour": "red"}])
def test_a_within_that_names_nothing_is_refused(memory: DeltaCore, within) -> None:
    with pytest.raises(InvalidForgetRequestError) as caught:
        memory.forget(within=within)
    assert caught.value.field.startswith("within")


def test_scan_is_narrowed_in_sql_and_still_sees_every_spelling(memory: DeltaCore) -> None:
    ids = {
        "upper": memory.add("ALICE SMITH called"),
        "accented": memory.add("Àlice Smith called"),
        "json": memory.add("looked up", kind="tool_call", tool_name="crm", tool_args={"name": "Álice Smith"}),
        "plain": memory.add("the deploy finished at noon"),
    }
    with memory._sql.reader() as conn:
        read = {key[0] for key, _text in ErasureRepository().scan(conn, "dc_events", "default", candidates=("alice smith",))}
    assert {ids["upper"], ids["accented"], ids["json"]} <= read
    assert ids["plain"] not in read  # narrowed: this row never reached Python
    assert memory.forget("Alice Smith").counts["events"] == 3


def _utility(memory: DeltaCore, event_id: str) -> float:
    with memory._sql.reader() as conn:
        return conn.execute(select(deltas.c.utility).where(deltas.c.event_id == event_id)).scalar_one()


def _history(memory: DeltaCore, event_id: str) -> list[tuple]:
    with memory._sql.reader() as conn:
        statement = (
            select(utility_updates.c.episode_id, utility_updates.c.new_utility)
            .join(deltas, deltas.c.id == utility_updates.c.delta_id)
            .where(deltas.c.event_id == event_id)
            .order_by(utility_updates.c.id)
        )
        return [tuple(row) for row in conn.execute(statement)]


def _story(memory: DeltaCore, tenant: str, with_alice: bool) -> str:
    """Bob's memory learns from his own episode, from Alice's (it was retrieved there) and
    from feedback; the reference tenant lives the same story without Alice."""
    bob = memory.add("Bob Jones renewed his plan", entities=["Bob Jones"], episode_id="ep-b", tenant=tenant)
    memory.record_outcome("ep-b", 1.0, tenant=tenant)
    if with_alice:
        memory.add("Alice Smith asked for a refund", entities=["Alice Smith"], episode_id="ep-a", tenant=tenant)
        memory.record_retrieval([bob], episode_id="ep-a", tenant=tenant)
        memory.record_outcome("ep-a", -1.0, tenant=tenant)
    memory.feedback(bob, 1.0, tenant=tenant)
    return bob


def test_utilities_the_subject_taught_are_rederived_without_them(memory: DeltaCore) -> None:
    bob = _story(memory, "default", with_alice=True)
    reference = _story(memory, "ref", with_alice=False)
    assert abs(_utility(memory, bob) - _utility(memory, reference)) > 0.01  # Alice's failure is in it

    cert = memory.forget("Alice Smith")

    assert cert.counts["utilities_rederived"] == 1 and cert.dp_noised == 0
    assert _utility(memory, bob) == pytest.approx(_utility(memory, reference), abs=1e-4)
    history = _history(memory, bob)
    assert "ep-a" not in [episode for episode, _ in history]
    assert history[-1][1] == pytest.approx(_utility(memory, bob))  # the history still explains it


def test_dp_noise_on_influenced_utilities_is_applied_and_certified(memory: DeltaCore) -> None:
    bob = _story(memory, "default", with_alice=True)
    reference = _story(memory, "ref", with_alice=False)

    cert = memory.forget("Alice Smith", dp_epsilon=0.5)

    assert (cert.dp_epsilon, cert.dp_noised, cert.dp_sigma) == (0.5, 1, pytest.approx(0.3 / 0.5))
    assert any("DP noise (epsilon=0.5)" in limit for limit in cert.limits)
    assert cert.verify_chain() and any(step.artifact == "utilities_noised" for step in cert.steps)
    noised = _utility(memory, bob)
    assert 0.0 <= noised <= 1.0 and noised != pytest.approx(_utility(memory, reference), abs=1e-6)
    with pytest.raises(InvalidForgetRequestError, match="dp_epsilon"):
        memory.forget("Bob Jones", dp_epsilon=0)


def test_postgres_relation_files_hold_no_erased_name(memory: DeltaCore, backend) -> None:
    """VACUUM FULL of the erased tables and pg_statistic: no relation file of the database holds
    the name (a plain VACUUM left it in heap, index and pg_statistic files). Needs the server's
    data directory on this machine and readable (root, or the postgres user)."""
    if backend.name != "postgres":
        pytest.skip("PostgreSQL relation files")
    import os
    from pathlib import Path

    from sqlalchemy import text

    with memory._sql.engine.connect() as conn:
        data = Path(conn.execute(text("SHOW data_directory")).scalar_one())
        oid = conn.execute(text("SELECT oid FROM pg_database WHERE datname = current_database()")).scalar_one()
    folder = data / "base" / str(oid)
    if not os.access(folder, os.R_OK | os.X_OK):
        pytest.skip(f"{folder} is not readable by this process")
    memory.add("Quentin Marlowe asked for a refund", entities=["Quentin Marlowe"])
    memory.add("Beatrix Olafsson renewed her plan", entities=["Beatrix Olafsson"])

    def holding(name: str) -> int:
        return sum(1 for f in folder.iterdir() if f.is_file() and name.encode() in f.read_bytes())

    with memory._sql.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql("CHECKPOINT")
    assert holding("Quentin Marlowe") > 0  # the scan sees

    cert = memory.forget("Quentin Marlowe")

    assert [s for s in cert.physical if s.backend == "postgresql" and not s.ok] == []
    assert holding("Quentin Marlowe") == 0 and holding("Beatrix Olafsson") > 0
