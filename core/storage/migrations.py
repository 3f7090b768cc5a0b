"""Append-only schema migrations, run by the explicit, idempotent ``setup()``.

Each migration is a function of a connection and the :class:`Dialect`. Never edit one that has
shipped: add a new one at the end. ``dc_store_meta.schema_version`` records how many ran.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, Engine, inspect, select, text

from deltacore.errors import ConfigurationError
from deltacore.storage.dialect import Dialect
from deltacore.storage.tables import store_meta


def _create_tables(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage import tables

    for table in (tables.events, tables.deltas, tables.delta_links, tables.event_entities, tables.outbox, tables.system_events):
        table.create(conn, checkfirst=True)


def _full_text_index(conn: Connection, dialect: Dialect) -> None:
    # The full-text index lives in the database so that deleting a row deletes its index
    # entry in the same transaction (triggers on SQLite, a generated column on PostgreSQL).
    if dialect.full_text == "fts5":
        conn.exec_driver_sql(
            "CREATE VIRTUAL TABLE IF NOT EXISTS dc_events_fts USING fts5("
            "text, content='dc_events', content_rowid='seq', tokenize='porter unicode61')"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER IF NOT EXISTS dc_events_fts_ai AFTER INSERT ON dc_events BEGIN "
            "INSERT INTO dc_events_fts(rowid, text) VALUES (new.seq, new.text); END"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER IF NOT EXISTS dc_events_fts_ad AFTER DELETE ON dc_events BEGIN "
            "INSERT INTO dc_events_fts(dc_events_fts, rowid, text) VALUES ('delete', old.seq, old.text); END"
        )
        conn.exec_driver_sql(
            "CREATE TRIGGER IF NOT EXISTS dc_events_fts_au AFTER UPDATE OF text ON dc_events BEGIN "
            "INSERT INTO dc_events_fts(dc_events_fts, rowid, text) VALUES ('delete', old.seq, old.text); "
            "INSERT INTO dc_events_fts(rowid, text) VALUES (new.seq, new.text); END"
        )
    elif dialect.full_text == "tsvector":
        conn.exec_driver_sql(
            "ALTER TABLE dc_events ADD COLUMN IF NOT EXISTS tsv tsvector "
            "GENERATED ALWAYS AS (to_tsvector('english', text)) STORED"
        )
        conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_dc_events_tsv ON dc_events USING GIN (tsv)")


def _tool_schemas_and_retrievals(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import retrievals, tool_schemas

    tool_schemas.create(conn, checkfirst=True)
    retrievals.create(conn, checkfirst=True)


def _mentions_and_time(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import mentions

    mentions.create(conn, checkfirst=True)
    columns = {c["name"] for c in inspect(conn).get_columns("dc_events")}
    if "has_time" not in columns:
        conn.exec_driver_sql("ALTER TABLE dc_events ADD COLUMN has_time INTEGER NOT NULL DEFAULT 0")


def _tenant_versions(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import tenants

    tenants.create(conn, checkfirst=True)
    conn.exec_driver_sql(
        "INSERT INTO dc_tenants (tenant, events, version) "
        "SELECT tenant, COUNT(*), 1 FROM dc_events GROUP BY tenant "
        "ON CONFLICT (tenant) DO NOTHING"
    )


def _learning(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import review_queue, utility_updates

    utility_updates.create(conn, checkfirst=True)
    review_queue.create(conn, checkfirst=True)


def _episode_index(conn: Connection, dialect: Dialect) -> None:
    # The write path looks up the latest step of each episode; without this it scans all deltas.
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_dc_deltas_episode ON dc_deltas (tenant, episode_id, ts)")


def _schema_drift(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import delta_migrations, tool_current

    tool_current.create(conn, checkfirst=True)
    delta_migrations.create(conn, checkfirst=True)


def _trust_gateway(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import honeypots, security_events, source_reputation

    source_reputation.create(conn, checkfirst=True)
    security_events.create(conn, checkfirst=True)
    honeypots.create(conn, checkfirst=True)
    # The gateway reads a source's latest events (sequence, bursts, E01's "last 100").
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_dc_events_source ON dc_events (tenant, source, ts)")


def _folded_subject_index(conn: Connection, dialect: Dialect) -> None:
    # The gateway's consistency check looks up what trusted memories say about a subject,
    # case-insensitively; without an index on lower(subject) it scans the tenant's deltas on
    # every write (13 ms per lookup at 100k memories).
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_dc_deltas_subject_folded ON dc_deltas (tenant, lower(subject), predicate)"
    )


def _about_tokens(conn: Connection, dialect: Dialect) -> None:
    # A second full-text column, ``about`` (entity and has_time tokens, deltacore.storage.fulltext):
    # "Quentin's memories that mention the licence checker" becomes one FTS5 intersection instead
    # of a join of every text match. PostgreSQL ranks with its own planner and only gets the column.
    if "about" not in {c["name"] for c in inspect(conn).get_columns("dc_events")}:
        conn.exec_driver_sql("ALTER TABLE dc_events ADD COLUMN about TEXT")
    if not dialect.keeps_about_column:
        return
    from deltacore.storage.fulltext import about_text

    names: dict[int, list[str]] = {}
    facts: dict[int, tuple[str, bool]] = {}
    for seq, tenant, has_time in conn.exec_driver_sql("SELECT seq, tenant, has_time FROM dc_events WHERE about IS NULL"):
        names[seq], facts[seq] = [], (tenant, bool(has_time))
    if names:
        for seq, name in conn.exec_driver_sql(
            "SELECT e.seq, m.name FROM dc_events e JOIN dc_mentions m ON m.event_id = e.id WHERE e.about IS NULL "
            "UNION ALL SELECT e.seq, x.entity FROM dc_events e JOIN dc_event_entities x ON x.event_id = e.id "
            "WHERE e.about IS NULL"
        ):
            names[seq].append(name)
        conn.exec_driver_sql(
            "UPDATE dc_events SET about = ? WHERE seq = ?",
            [(about_text(facts[seq][0], found, facts[seq][1]), seq) for seq, found in names.items()],
        )
    for trigger in ("dc_events_fts_ai", "dc_events_fts_ad", "dc_events_fts_au"):
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.exec_driver_sql("DROP TABLE IF EXISTS dc_events_fts")
    conn.exec_driver_sql(
        "CREATE VIRTUAL TABLE dc_events_fts USING fts5("
        "text, about, content='dc_events', content_rowid='seq', tokenize='porter unicode61')"
    )
    conn.exec_driver_sql(
        "CREATE TRIGGER dc_events_fts_ai AFTER INSERT ON dc_events BEGIN "
        "INSERT INTO dc_events_fts(rowid, text, about) VALUES (new.seq, new.text, new.about); END"
    )
    conn.exec_driver_sql(
        "CREATE TRIGGER dc_events_fts_ad AFTER DELETE ON dc_events BEGIN "
        "INSERT INTO dc_events_fts(dc_events_fts, rowid, text, about) VALUES ('delete', old.seq, old.text, old.about); END"
    )
    conn.exec_driver_sql(
        "CREATE TRIGGER dc_events_fts_au AFTER UPDATE OF text, about ON dc_events BEGIN "
        "INSERT INTO dc_events_fts(dc_events_fts, rowid, text, about) VALUES ('delete', old.seq, old.text, old.about); "
        "INSERT INTO dc_events_fts(rowid, text, about) VALUES (new.seq, new.text, new.about); END"
    )
    conn.exec_driver_sql("INSERT INTO dc_events_fts(dc_events_fts) VALUES ('rebuild')")


def _mention_role_index(conn: Connection, dialect: Dialect) -> None:
    # Every query asks which of its words are known names (and which are speakers): one index
    # seek per word with the role in the index, instead of reading every mention of a common
    # word ("deploy": 8,000 rows, ~20 ms at 100k memories).
    conn.exec_driver_sql("CREATE INDEX IF NOT EXISTS ix_dc_mentions_role ON dc_mentions (tenant, name, role)")


def _drop_mention_lookup_index(conn: Connection, dialect: Dialect) -> None:
    # (tenant, name) is a prefix of the role index above: the older index answered nothing it
    # cannot, and every mention written updated both.
    conn.exec_driver_sql("DROP INDEX IF EXISTS ix_dc_mentions_lookup")


def _after_commit_journal(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import after_commit_journal

    after_commit_journal.create(conn, checkfirst=True)


def _facts_and_conflicts(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import conflicts, fact_events, facts

    facts.create(conn, checkfirst=True)
    fact_events.create(conn, checkfirst=True)
    conflicts.create(conn, checkfirst=True)


def _memory_versions(conn: Connection, dialect: Dialect) -> None:
    # update() writes a new version and marks the one it replaces (retrieval hides replaced rows).
    columns = {c["name"] for c in inspect(conn).get_columns("dc_events")}
    if "replaced_by" not in columns:
        conn.exec_driver_sql("ALTER TABLE dc_events ADD COLUMN replaced_by VARCHAR(128)")
    if "replaced_at" not in columns:
        conn.exec_driver_sql("ALTER TABLE dc_events ADD COLUMN replaced_at FLOAT")
    conn.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_dc_events_replaced ON dc_events (replaced_by) WHERE replaced_by IS NOT NULL"
    )


def _langgraph_checkpoints(conn: Connection, dialect: Dialect) -> None:
    # The LangGraph checkpointer's tables (deltacore.storage.checkpoint_store); independent of
    # every other migration, so it may run in any position.
    from deltacore.storage.checkpoint_store import create_checkpoint_tables

    create_checkpoint_tables(conn)


def _plan_schemas(conn: Connection, dialect: Dialect) -> None:
    # Plan schemas, declared failure kinds and tool traits (deltacore.storage.plan_store);
    # independent of every other migration, so it may run in any position.
    from deltacore.storage.plan_store import create_plan_tables

    create_plan_tables(conn)


def _consolidation(conn: Connection, dialect: Dialect) -> None:
    # Derivations, cycles, probes and the COLD listing (deltacore.storage.consolidation_store);
    # independent of every other migration, so it may run in any position.
    from deltacore.storage.consolidation_store import create_consolidation_tables

    create_consolidation_tables(conn)


def _staged_inbox(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import inbox

    inbox.create(conn, checkfirst=True)


def _learned_forms(conn: Connection, dialect: Dialect) -> None:
    from deltacore.storage.tables import learned_forms

    learned_forms.create(conn, checkfirst=True)


MIGRATIONS: list[Callable[[Connection, Dialect], None]] = [
    _create_tables,
    _full_text_index,
    _tool_schemas_and_retrievals,
    _mentions_and_time,
    _tenant_versions,
    _learning,
    _episode_index,
    _schema_drift,
    _trust_gateway,
    _folded_subject_index,
    _about_tokens,
    _mention_role_index,
    _drop_mention_lookup_index,
    _after_commit_journal,
    _facts_and_conflicts,
    _memory_versions,
    _langgraph_checkpoints,
    _plan_schemas,
    _consolidation,
    _staged_inbox,
    _learned_forms,
]


def _refuse_newer(version: int) -> None:
    if version > len(MIGRATIONS):
        raise ConfigurationError(
            "database",
            f"this store's schema is version {version}, newer than this DeltaCore knows ({len(MIGRATIONS)}); "
            "upgrade DeltaCore to open it",
        )


def check_schema(engine: Engine) -> int:
    """The schema version, read without writing (read-only opens): it must be this code's."""
    with engine.connect() as conn:
        if not inspect(conn).has_table(store_meta.name):
            raise ConfigurationError("read_only", "there is no DeltaCore store here to open read-only")
        row = conn.execute(select(store_meta.c.value).where(store_meta.c.key == "schema_version")).first()
    version = int(row[0]) if row else 0
    _refuse_newer(version)
    if version < len(MIGRATIONS):
        raise ConfigurationError(
            "read_only",
            f"this store's schema (version {version}) needs migrating to {len(MIGRATIONS)}; "
            "open it once without read_only so the migration can run",
        )
    return version


def run_migrations(engine: Engine) -> int:
    """Bring the schema up to date; safe to call from many processes at once. Returns the version."""
    dialect = Dialect.of(engine)
    # SQLite: a write transaction from the start (BEGIN IMMEDIATE, see engine_factory), which
    # waits for the write lock; a deferred one fails at once when another process is writing.
    with engine.connect() as conn, conn.execution_options(dc_write=True).begin():
        if dialect.advisory_locks:
            # Serialise concurrent setup() calls of several processes on one database.
            conn.execute(text("SELECT pg_advisory_xact_lock(7305188031)"))
        store_meta.create(conn, checkfirst=True)
        row = conn.execute(select(store_meta.c.value).where(store_meta.c.key == "schema_version")).first()
        version = int(row[0]) if row else 0
        _refuse_newer(version)
        for migration in MIGRATIONS[version:]:
            migration(conn, dialect)
        if version != len(MIGRATIONS):
            if row:
                conn.execute(
                    store_meta.update()
                    .where(store_meta.c.key == "schema_version")
                    .values(value=str(len(MIGRATIONS)))
                )
            else:
                conn.execute(store_meta.insert().values(key="schema_version", value=str(len(MIGRATIONS))))
    return len(MIGRATIONS)
