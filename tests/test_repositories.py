"""The storage repositories, each against a real database: SQLite always, PostgreSQL when
``DELTACORE_TEST_POSTGRES_URL`` is set. Every test runs unchanged on both backends, so a
repository that behaves differently on one of them fails here (a conformance suite)."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from deltacore.config import DeltaCoreConfig
from deltacore.model import Event, Namespace, ReviewItem, SecurityEvent
from deltacore.storage.database import Database
from deltacore.storage.decision_store import DecisionRepository
from deltacore.storage.dialect import POSTGRESQL, SQLITE, Dialect, dialect_named
from deltacore.storage.drift_store import DriftRepository
from deltacore.storage.event_reads import EventReads
from deltacore.storage.event_writes import EventWrites
from deltacore.storage.learning_store import LearningRepository
from deltacore.storage.retrieval_reads import about_entities, known_names, trust_rows, unit_vectors, within_period
from deltacore.storage.system_log import SystemLog
from deltacore.storage.trust_store import HoneypotRepository, QuarantineRepository, ReputationRepository, SecurityLog

DAY = 86_400.0
POSTGRES_URL = os.environ.get("DELTACORE_TEST_POSTGRES_URL")


def _postgres_database(admin_url: str) -> tuple[str, Callable[[], None]]:
    """A throwaway database on the server, and how to drop it."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"dc_repo_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return make_url(admin_url).set(database=name).render_as_string(hide_password=False), drop


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        config = DeltaCoreConfig.build(path=tmp_path / "store")
        drop = None
    else:
        if not POSTGRES_URL:
            pytest.skip("set DELTACORE_TEST_POSTGRES_URL to run the repositories on PostgreSQL")
        try:
            url, drop = _postgres_database(POSTGRES_URL)
        except Exception as exc:  # noqa: BLE001 - any failure to reach the server
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(f"CI=true and PostgreSQL at {POSTGRES_URL} is unreachable: {exc}")
            pytest.skip(f"PostgreSQL at {POSTGRES_URL}: {exc}")
        config = DeltaCoreConfig.build(path=tmp_path / "store", database_url=url)
    db = Database(config)
    db.setup()
    yield db
    db.close()
    if drop is not None:
        drop()


def event_row(event_id: str, ts: float, *, tenant: str = "t", source: str | None = "alice", **values: Any) -> dict[str, Any]:
    vector = np.asarray(values.pop("vector", [1.0, 0.0, 0.0]), dtype=np.float32)
    return {
        "id": event_id, "tenant": tenant, "agent_id": None, "user_id": None, "session_id": None,
        "episode_id": values.pop("episode_id", None), "ts": ts, "kind": values.pop("kind", "message"), "role": None,
        "actor": values.pop("actor", None), "source": source, "channel": "user",
        "namespace": values.pop("namespace", Namespace.TRUSTED.value), "text": values.pop("text", f"text of {event_id}"),
        "content_hash": f"hash-{event_id}", "confidence": 1.0, "trust": 0.9, "tool_name": values.pop("tool_name", None),
        "tool_args": values.pop("tool_args", None), "tool_schema_hash": values.pop("tool_schema_hash", None),
        "entities": [], "parent_ids": values.pop("parent_ids", []), "meta": values.pop("meta", {}), "token_count": 3,
        "has_time": 0, "embedding": vector.tobytes(), "created_at": ts, **values,
    }


def delta_row(event: dict[str, Any], utility: float = 0.5) -> dict[str, Any]:
    return {
        "id": f"d-{event['id']}", "event_id": event["id"], "tenant": event["tenant"], "agent_id": None, "user_id": None,
        "session_id": None, "episode_id": event["episode_id"], "ts": event["ts"], "kind": event["kind"], "trigger": "",
        "action": "say", "result": "", "subject": None, "predicate": None, "object": None, "utility": utility,
        "utility_ts": event["ts"], "credit": 0.0, "namespace": event["namespace"], "tool_name": event["tool_name"],
        "tool_schema_hash": event["tool_schema_hash"], "conflict_flags": [],
    }


def store(db: Database, rows: list[dict[str, Any]], links: list[tuple[str, str]] = (), mentions: list[tuple[str, str]] = ()) -> set[str]:  # type: ignore[assignment]
    with db.writer() as conn:
        return EventWrites(db).insert_batch(
            conn,
            rows,
            [delta_row(row) for row in rows],
            [{"child_id": f"d-{child}", "parent_id": f"d-{parent}", "relation": "parent"} for child, parent in links],
            [],
            [{"event_id": e, "name": name, "role": "actor", "tenant": "t"} for e, name in mentions],
        )


def test_the_dialect_is_the_backends_and_an_unknown_one_is_refused(database: Database) -> None:
    assert database.dialect is (SQLITE if database.engine.dialect.name == "sqlite" else POSTGRESQL)
    assert Dialect.of(database.engine) == database.dialect
    with pytest.raises(ValueError, match="mysql"):
        dialect_named("mysql")


def test_a_batch_is_stored_once_and_read_back_by_id_scope_and_provenance(database: Database) -> None:
    rows = [event_row("a", 1.0), event_row("b", 2.0), event_row("c", 3.0)]
    assert store(database, rows, links=[("b", "a"), ("c", "b")]) == {"a", "b", "c"}
    # A concurrent writer's copy is skipped, not an error.
    assert store(database, [event_row("a", 1.0)]) == set()
    reads = EventReads(database)
    with database.reader() as conn:
        assert set(reads.fetch_events(conn, ["a", "c", "missing"])) == {"a", "c"}
        assert reads.ancestry(conn, ["d-c"], depth=5) == {"d-c": ["d-b"], "d-b": ["d-a"]}
        assert reads.children_of(conn, ["d-a"]) == {"d-a": ["d-b"]}
        assert [i for i, _ in reads.recent_event_ids(conn, [], 2)] == ["c", "b"]
        assert reads.linked_events(conn, ["b"], []) == {"b": ["a", "c"]}
        assert reads.tenant_signature(conn, "t") == (3, 1)
        ids, vectors = reads.embeddings_where(conn, [], 10)
    assert ids == ["c", "b", "a"] and vectors.shape == (3, 3)
    assert reads.counts("t") == {"events": 3, "deltas": 3, "links": 2, "outbox_pending": 3, "tenants": ["t"]}


def test_deleting_events_takes_their_deltas_and_links_and_queues_the_vector_delete(database: Database) -> None:
    store(database, [event_row("a", 1.0), event_row("b", 2.0)], links=[("b", "a")])
    with database.writer() as conn:
        deleted, n_deltas, n_links = EventWrites(database).delete_events(conn, ["a", "nope"])
    assert (deleted, n_deltas, n_links) == (["a"], 1, 1)
    with database.reader() as conn:
        assert set(EventReads(database).fetch_events(conn, ["a", "b"])) == {"b"}
        assert database.tenant_signature(conn, "t") == (1, 2)


def test_tool_schemas_retrievals_and_system_events_are_logged(database: Database) -> None:
    log = SystemLog(database)
    store(database, [event_row("a", 1.0)])
    schema = {"tenant": "t", "tool_name": "deploy", "schema_hash": "h1", "schema": {"type": "object"}, "first_seen": 1.0, "last_seen": 1.0}
    with database.writer() as conn:
        log.record_tool_schemas(conn, [schema])
        log.record_tool_schemas(conn, [{**schema, "last_seen": 5.0}])
        assert log.record_retrievals(conn, [{"tenant": "t", "event_id": e, "episode_id": "ep", "rank": 1, "query": "q", "ts": 1.0} for e in ("a", "zz")]) == 1
        log.log_system_event(conn, "t", "CAUSAL_LOOP", {"code": "E02"})
    [stored] = log.tool_schemas("t")
    assert (stored["schema_hash"], stored["last_seen"]) == ("h1", 5.0)
    assert [r["event_id"] for r in log.retrievals("t", "ep")] == ["a"]
    assert [(e["kind"], e["payload"]) for e in log.system_events(tenant="t")] == [("CAUSAL_LOOP", {"code": "E02"})]


def test_reputation_and_standing_reads(database: Database) -> None:
    reputation = ReputationRepository(database)
    store(database, [event_row(f"e{i}", i * DAY) for i in range(3)] + [event_row("q", 9 * DAY, namespace=Namespace.QUARANTINE.value)])
    with database.writer() as conn:
        assert reputation.adjust_reputation(conn, "t", "alice", -0.1, 0.5) == pytest.approx((0.4, "ok"))
        assert reputation.adjust_reputation(conn, "t", "alice", 0.0, 0.5, status="suspicious", blocked=1) == pytest.approx((0.4, "suspicious"))
    with database.reader() as conn:
        assert reputation.reputations(conn, "t", ["alice", "bob"]) == {"alice": (pytest.approx(0.4), "suspicious")}
        assert reputation.reputations_of(conn, "t", {"alice"}) == {"alice": pytest.approx(0.4)}
        # Quarantined memories earn no standing; counting stops at the cap.
        assert reputation.stored_count(conn, "t", "alice", 10) == 3
        assert reputation.stored_count(conn, "t", "alice", 2) == 2
        assert reputation.stored_span(conn, "t", "alice") == (0.0, 2 * DAY)
        assert reputation.stored_span(conn, "t", "nobody") == (None, None)
        assert reputation.source_history(conn, "t", "alice")[0] == 3


def test_quarantine_moves_events_and_their_deltas_and_invalidates_caches(database: Database) -> None:
    quarantine = QuarantineRepository(database)
    store(database, [event_row("a", 1.0), event_row("b", 2.0)])
    with database.writer() as conn:
        before = database.tenant_signature(conn, "t")
        assert quarantine.latest_event_ids(conn, "t", "alice", 1) == ["b"]
        assert quarantine.set_namespace(conn, "t", ["a", "b"], Namespace.QUARANTINE) == ["a", "b"]
        assert quarantine.set_namespace(conn, "t", ["a"], Namespace.QUARANTINE) == []  # already there
        assert database.tenant_signature(conn, "t")[1] == before[1] + 1
        assert quarantine.set_namespace(conn, "t", ["a"], Namespace.TRUSTED, only_from=Namespace.QUARANTINE) == ["a"]
    with database.reader() as conn:
        held = quarantine.quarantined_events(conn, "t", 10)
        assert quarantine.namespaces(conn, "t", ["a"]) == {"a": ("trusted", "user", "alice")}
        delta = EventReads(database).deltas_for_events(conn, ["b"])["b"][0]
    assert [type(e) for e in held] == [Event] and [e.id for e in held] == ["b"]
    assert delta.namespace == Namespace.QUARANTINE.value


def test_security_log_and_honeypots(database: Database) -> None:
    log, honeypots = SecurityLog(database), HoneypotRepository(database)
    with database.writer() as conn:
        log.log(conn, [{"tenant": "t", "kind": "POISON_DETECTED", "source": "mallory", "reasons": ["marker"]}])
        honeypots.plant_honeypots(conn, [{"id": "h1", "tenant": "t", "text": "zq9 xk2", "embedding": np.ones(3, np.float32).tobytes(), "created_at": 1.0}])
    [event] = log.security_events("t", None, None, 10)
    assert isinstance(event, SecurityEvent) and (event.kind, event.source, event.reasons) == ("POISON_DETECTED", "mallory", ("marker",))
    assert log.security_events("t", time.time() + 60, None, 10) == []
    with database.writer() as conn:
        ids, texts, vectors = honeypots.honeypots(conn, "t")
        assert (ids, texts, vectors.shape) == (["h1"], ["zq9 xk2"], (1, 3))
        honeypots.remove_honeypots(conn, "t")
        assert honeypots.honeypots(conn, "t")[0] == []


def test_learning_updates_keep_their_history_and_the_review_queue_gives_records(database: Database) -> None:
    learning = LearningRepository(database)
    store(database, [event_row("a", 1.0, episode_id="ep"), event_row("b", 2.0, episode_id="ep")], links=[("b", "a")])
    with database.writer() as conn:
        learning.set_utility(conn, "d-a", "t", predicted=0.5, new=0.0, source="propagation", now=3.0, flags=["tainted"])
        item = learning.enqueue(conn, "t", "UNSTABLE", "oscillates", {"k": 1}, delta_id="d-a", event_id="a")
        assert learning.open_item(conn, "UNSTABLE", "d-a") == item
        learning.resolve_item(conn, item, "accept")
    with database.reader() as conn:
        state = learning.delta_states(conn, ["d-a"])["d-a"]
        assert (state.utility, list(state.conflict_flags)) == (0.0, ["tainted"])
        assert [r.event_id for r in learning.episode_steps(conn, "t", "ep")] == ["a", "b"]
        assert learning.children_with_relation(conn, ["d-a"]) == {"d-a": [("d-b", "parent")]}
        assert learning.open_item(conn, "UNSTABLE", "d-a") is None
        record = learning.review_record(conn, item)
        assert learning.review_records(conn, "t", include_resolved=False) == []
    assert isinstance(record, ReviewItem) and (record.kind, record.resolution, record.payload) == ("UNSTABLE", "accept", {"k": 1})
    assert record.resolved_at is not None and record.resolved_at.tzinfo is not None
    assert LearningRepository.failed_calls([(["c1"], {"error": True}), (["c2"], {"status": "ok"})]) == {"c1"}


def test_drift_keeps_the_current_schema_and_one_migration_per_target(database: Database) -> None:
    drift = DriftRepository(database)
    call = event_row("call", 1.0, kind="tool_call", tool_name="deploy", tool_schema_hash="h1", tool_args={"env": "prod"})
    store(database, [call])
    schema = {"tenant": "t", "tool_name": "deploy", "schema_hash": "h2", "schema": {"type": "object"}, "first_seen": 2.0, "last_seen": 2.0}
    with database.writer() as conn:
        assert drift.record_schemas(conn, [schema]) == {"deploy"}
        assert drift.record_schemas(conn, [schema]) == set()
        drift.set_current(conn, "t", "deploy", "h1", 1.0)
        drift.set_current(conn, "t", "deploy", "h2", 2.0)
        assert [r.delta_id for r in drift.affected_deltas(conn, "t", "deploy", "h2")] == ["d-call"]
        migration = {"delta_id": "d-call", "to_hash": "h2", "from_hash": "h1", "tenant": "t", "tool_name": "deploy",
                     "status": "failed", "args": None, "mapping": {}, "reason": "missing", "ts": 3.0}  # fmt: skip
        drift.record_migration(conn, migration)
        drift.record_migration(conn, {**migration, "status": "migrated", "args": {"environment": "prod"}})
    with database.reader() as conn:
        assert drift.called_schemas(conn, ["call"]) == [("t", "deploy", "h1")]
        assert drift.current_hash(conn, "t", "deploy") == "h2"
        assert drift.current_hashes(conn, "t", ["deploy", "other"]) == {"deploy": "h2"}
        [stored] = drift.migrations_of(conn, ["d-call"])["d-call"]
        assert (stored["status"], stored["args"]) == ("migrated", {"environment": "prod"})
        assert drift.affected_deltas(conn, "t", "deploy", "h2") == []
        assert DecisionRepository(database).tool_call_heads(conn, "t", tool="deploy", agent_id=None, limit=5)[0].event_id == "call"


def test_the_read_paths_statements_select_the_same_rows_on_every_backend(database: Database) -> None:
    store(
        database,
        [event_row("a", 10.0, actor="caroline", vector=[3.0, 4.0, 0.0]), event_row("b", 20.0), event_row("c", 30.0)],
        mentions=[("a", "caroline")],
    )
    with database.reader() as conn:
        assert known_names(conn, "t", ["caroline", "melanie"]) == [(0, True, True, False), (1, False, False, False)]
        reads = EventReads(database)
        assert reads.event_ids_where(conn, [about_entities("t", ["caroline"])]) == ["a"]
        assert sorted(reads.event_ids_where(conn, within_period(15.0, 31.0))) == ["b", "c"]
        assert [row.id for row in trust_rows(conn, ["a"])] == ["a"]
        assert np.allclose(unit_vectors(conn, ["a"])["a"], [0.6, 0.8, 0.0])
