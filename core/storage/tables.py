"""The SQL schema: the source of truth. Every other index is derived from these tables.

Every row carries tenant and agent/user/session scope and a path back to its source event
(``deltas.event_id``, ``delta_links``), so that a delete or a forget can find everything derived
from a person or an event.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

# SQLite only auto-increments an INTEGER PRIMARY KEY; PostgreSQL wants a BIGINT identity.
_SEQ = BigInteger().with_variant(Integer(), "sqlite")
_ID = String(128)
_SCOPE = String(128)

events = Table(
    "dc_events",
    metadata,
    Column("seq", _SEQ, primary_key=True, autoincrement=True, comment="insertion order; full-text rowid"),
    Column("id", _ID, nullable=False, unique=True),
    Column("tenant", _SCOPE, nullable=False),
    Column("agent_id", _SCOPE),
    Column("user_id", _SCOPE),
    Column("session_id", _SCOPE),
    Column("episode_id", _SCOPE),
    Column("ts", Float, nullable=False, comment="unix seconds, UTC"),
    Column("kind", String(32), nullable=False),
    Column("role", String(64)),
    Column("actor", String(256)),
    Column("source", String(256)),
    Column("channel", String(32), nullable=False),
    Column("namespace", String(32), nullable=False),
    Column("text", Text, nullable=False),
    Column("content_hash", String(64), nullable=False),
    Column("confidence", Float, nullable=False),
    Column("trust", Float, nullable=False),
    Column("tool_name", String(256)),
    Column("tool_args", JSON),
    Column("tool_schema_hash", String(64)),
    Column("entities", JSON, nullable=False),
    Column("parent_ids", JSON, nullable=False),
    Column("meta", JSON, nullable=False),
    Column("token_count", Integer, nullable=False),
    Column("has_time", Integer, nullable=False, server_default="0", comment="1 if the text says when"),
    Column(
        "about",
        Text,
        comment="tokens of the entities it is about and of has_time, for SQLite's full-text index (fulltext.about_text)",
    ),
    Column("embedding", LargeBinary, comment="float32 vector; the vector index is rebuilt from it"),
    Column("created_at", Float, nullable=False),
    Column("replaced_by", _ID, comment="the newer version of this memory (update); hidden from retrieval when set"),
    Column("replaced_at", Float, comment="when the newer version replaced it"),
)
Index("ix_dc_events_dedupe", events.c.tenant, events.c.content_hash)
Index("ix_dc_events_scope_ts", events.c.tenant, events.c.ts)
Index("ix_dc_events_episode", events.c.tenant, events.c.episode_id, events.c.ts)
Index("ix_dc_events_actor", events.c.tenant, events.c.actor)
Index("ix_dc_events_user", events.c.tenant, events.c.user_id)
Index("ix_dc_events_source", events.c.tenant, events.c.source, events.c.ts)
# versions() walks back from a version to the one it replaced; only replaced rows are indexed.
Index(
    "ix_dc_events_replaced",
    events.c.replaced_by,
    sqlite_where=events.c.replaced_by.is_not(None),
    postgresql_where=events.c.replaced_by.is_not(None),
)

deltas = Table(
    "dc_deltas",
    metadata,
    Column("id", _ID, primary_key=True),
    Column("event_id", _ID, ForeignKey("dc_events.id", ondelete="CASCADE"), nullable=False),
    Column("tenant", _SCOPE, nullable=False),
    Column("agent_id", _SCOPE),
    Column("user_id", _SCOPE),
    Column("session_id", _SCOPE),
    Column("episode_id", _SCOPE),
    Column("ts", Float, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("trigger", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("result", Text, nullable=False),
    Column("subject", String(512)),
    Column("predicate", String(256)),
    Column("object", Text),
    Column("utility", Float, nullable=False),
    Column("utility_ts", Float, nullable=False, comment="when utility was last set; decay runs from here"),
    Column("credit", Float, nullable=False),
    Column("namespace", String(32), nullable=False),
    Column("tool_name", String(256)),
    Column("tool_schema_hash", String(64)),
    Column("conflict_flags", JSON, nullable=False),
)
Index("ix_dc_deltas_event", deltas.c.event_id)
Index("ix_dc_deltas_spo", deltas.c.tenant, deltas.c.subject, deltas.c.predicate)
Index("ix_dc_deltas_tool", deltas.c.tenant, deltas.c.tool_name)
Index("ix_dc_deltas_episode", deltas.c.tenant, deltas.c.episode_id, deltas.c.ts)

delta_links = Table(
    "dc_delta_links",
    metadata,
    Column("child_id", _ID, ForeignKey("dc_deltas.id", ondelete="CASCADE"), primary_key=True),
    Column("parent_id", _ID, ForeignKey("dc_deltas.id", ondelete="CASCADE"), primary_key=True),
    Column("relation", String(32), nullable=False, comment="parent (explicit) or sequence (episode order)"),
)
Index("ix_dc_links_parent", delta_links.c.parent_id)

event_entities = Table(
    "dc_event_entities",
    metadata,
    Column("event_id", _ID, ForeignKey("dc_events.id", ondelete="CASCADE"), primary_key=True),
    Column("entity", String(256), primary_key=True, comment="casefolded"),
    Column("tenant", _SCOPE, nullable=False),
)
Index("ix_dc_entities_lookup", event_entities.c.tenant, event_entities.c.entity)

mentions = Table(
    "dc_mentions",
    metadata,
    Column("event_id", _ID, ForeignKey("dc_events.id", ondelete="CASCADE"), primary_key=True),
    Column("name", String(256), primary_key=True, comment="casefolded"),
    Column("role", String(16), primary_key=True, comment="actor | mention"),
    Column("tenant", _SCOPE, nullable=False),
    comment="who spoke and which names a text mentions: the entity router's index",
)
# (tenant, name) lookups use it too: a second index on that prefix would only cost every write.
Index("ix_dc_mentions_role", mentions.c.tenant, mentions.c.name, mentions.c.role)

outbox = Table(
    "dc_vector_outbox",
    metadata,
    Column("id", _SEQ, primary_key=True, autoincrement=True),
    Column("tenant", _SCOPE, nullable=False),
    Column("event_id", _ID, nullable=False),
    Column("op", String(8), nullable=False, comment="upsert | delete"),
    Column("created_at", Float, nullable=False),
)

inbox = Table(
    "dc_inbox",
    metadata,
    Column("seq", _SEQ, primary_key=True, autoincrement=True, comment="staging order: the order they are applied in"),
    Column("event_id", _ID, nullable=False),
    Column("tenant", _SCOPE, nullable=False),
    Column("channel", String(16), comment="the channel the caller named, or NULL"),
    Column("ts_given", Integer, nullable=False, comment="1 when the caller gave the time (dedupe keys on it)"),
    Column("payload", Text, nullable=False, comment="the validated event as JSON"),
    Column("created_at", Float, nullable=False),
    comment="staged writes (ingest(staged=True)): durable, not yet through the write path",
)

tool_schemas = Table(
    "dc_tool_schemas",
    metadata,
    Column("tenant", _SCOPE, primary_key=True),
    Column("tool_name", String(256), primary_key=True),
    Column("schema_hash", String(64), primary_key=True),
    Column("schema", JSON, nullable=False),
    Column("first_seen", Float, nullable=False),
    Column("last_seen", Float, nullable=False),
    comment="every schema each tool was called or offered with; drift detection compares hashes",
)

retrievals = Table(
    "dc_retrievals",
    metadata,
    Column("id", _SEQ, primary_key=True, autoincrement=True),
    Column("tenant", _SCOPE, nullable=False),
    Column("episode_id", _SCOPE),
    Column("event_id", _ID, ForeignKey("dc_events.id", ondelete="CASCADE"), nullable=False),
    Column("rank", Integer, nullable=False),
    Column("query", Text),
    Column("ts", Float, nullable=False),
    comment="which memories were handed to an agent, in which episode: the input of credit assignment",
)
Index("ix_dc_retrievals_episode", retrievals.c.tenant, retrievals.c.episode_id)
Index("ix_dc_retrievals_event", retrievals.c.event_id)

tenants = Table(
    "dc_tenants",
    metadata,
    Column("tenant", _SCOPE, primary_key=True),
    Column("events", BigInteger, nullable=False),
    Column("version", BigInteger, nullable=False, comment="bumped by every write or delete in the tenant"),
    comment="per-tenant row count and change counter, kept in the write transaction (cache validation)",
)

system_events = Table(
    "dc_system_events",
    metadata,
    Column("id", _SEQ, primary_key=True, autoincrement=True),
    Column("ts", Float, nullable=False),
    Column("tenant", _SCOPE, nullable=False),
    Column("kind", String(64), nullable=False, comment="CAUSAL_LOOP, …"),
    Column("payload", JSON, nullable=False),
)

store_meta = Table(
    "dc_store_meta",
    metadata,
    Column("key", String(128), primary_key=True),
    Column("value", Text, nullable=False),
)

utility_updates = Table(
    "dc_utility_updates",
    metadata,
    Column("id", _SEQ, primary_key=True, autoincrement=True),
    Column("delta_id", _ID, ForeignKey("dc_deltas.id", ondelete="CASCADE"), nullable=False),
    Column("tenant", _SCOPE, nullable=False),
    Column("episode_id", _SCOPE),
    Column("source", String(16), nullable=False, comment="outcome | feedback | retrieval"),
    Column("ts", Float, nullable=False),
    Column("reward", Float, nullable=False, comment="in [-1, 1]"),
    Column("credit", Float, nullable=False, comment="credit weight in [0, 1] this delta earned"),
    Column("predicted", Float, nullable=False, comment="utility before the update (decayed to ts)"),
    Column("new_utility", Float, nullable=False),
    Column("step", Float, nullable=False, comment="signed change: the gradient history"),
    comment="every utility update of a delta, oldest first: the learning history",
)
Index("ix_dc_utility_updates_delta", utility_updates.c.delta_id, utility_updates.c.id)

review_queue = Table(
    "dc_review_queue",
    metadata,
    Column("id", _SEQ, primary_key=True, autoincrement=True),
    Column("tenant", _SCOPE, nullable=False),
    Column("kind", String(32), nullable=False, comment="UNSTABLE, …"),
    Column("delta_id", _ID),
    Column("event_id", _ID),
    Column("reason", Text, nullable=False),
    Column("payload", JSON, nullable=False),
    Column("created", Float, nullable=False),
    Column("resolved_at", Float),
    Column("resolution", Text),
    comment="items waiting for a person: oscillating utilities, failed migrations, …",
)
Index("ix_dc_review_queue_open", review_queue.c.tenant, review_queue.c.resolved_at)
Index("ix_dc_review_queue_delta", review_queue.c.delta_id)

tool_current = Table(
    "dc_tool_current",
    metadata,
    Column("tenant", _SCOPE, primary_key=True),
    Column("tool_name", String(256), primary_key=True),
    Column("schema_hash", String(64), nullable=False),
    Column("since", Float, nullable=False),
    comment="each tool's latest schema (called or offered): a different hash is a drift (E04)",
)

delta_migrations = Table(
    "dc_delta_migrations",
    metadata,
    Column("delta_id", _ID, ForeignKey("dc_deltas.id", ondelete="CASCADE"), primary_key=True),
    Column("to_hash", String(64), primary_key=True),
    Column("from_hash", String(64)),
    Column("tenant", _SCOPE, nullable=False),
    Column("tool_name", String(256), nullable=False),
    Column("status", String(16), nullable=False, comment="migrated | failed"),
    Column("args", JSON, comment="the arguments under the new schema (the original stays on the event)"),
    Column("mapping", JSON, nullable=False, comment="what the migration did, parameter by parameter"),
    Column("reason", Text),
    Column("ts", Float, nullable=False),
    comment="argument patterns of deltas migrated (or not) to a tool's new schema",
)
Index("ix_dc_delta_migrations_tool", delta_migrations.c.tenant, delta_migrations.c.tool_name, delta_migrations.c.to_hash)

source_reputation = Table(
    "dc_source_reputation",
    metadata,
    Column("tenant", _SCOPE, primary_key=True),
    Column("source", String(256), primary_key=True),
    Column("reputation", Float, nullable=False, comment="starts at TrustPolicy.initial_reputation; below 0 = blacklisted"),
    Column("status", String(16), nullable=False, comment="ok | suspicious | blacklisted"),
    Column("quarantined", Integer, nullable=False, comment="writes of this source sent to quarantine"),
    Column("blocked", Integer, nullable=False, comment="writes of this source blocked (E01)"),
    Column("updated_at", Float, nullable=False),
    comment="what the trust gateway learned about each writer, per tenant",
)

security_events = Table(
    "dc_security_events",
    metadata,
    Column("id", _SEQ, primary_key=True, autoincrement=True),
    Column("ts", Float, nullable=False),
    Column("tenant", _SCOPE, nullable=False),
    Column("kind", String(64), nullable=False, comment="TRUST_DECISION, POISON_DETECTED, HONEYPOT_TRIGGERED, …"),
    Column("source", String(256)),
    Column("event_id", _ID),
    Column("score", Float),
    Column("action", String(32), comment="trust action, or a review verdict"),
    Column("reasons", JSON, nullable=False),
    Column("payload", JSON, nullable=False),
    comment="the operator's security log: never shown on the content path",
)
Index("ix_dc_security_events_tenant", security_events.c.tenant, security_events.c.ts)

honeypots = Table(
    "dc_honeypots",
    metadata,
    Column("id", _ID, primary_key=True),
    Column("tenant", _SCOPE, nullable=False),
    Column("text", Text, nullable=False),
    Column("embedding", LargeBinary, nullable=False),
    Column("created_at", Float, nullable=False),
    comment="canary memories: never returned; a query that reaches one is an alert",
)
Index("ix_dc_honeypots_tenant", honeypots.c.tenant)

after_commit_journal = Table(
    "dc_after_commit",
    metadata,
    Column("id", _SEQ, primary_key=True, autoincrement=True),
    Column("tenant", _SCOPE, nullable=False),
    Column("step", String(64), nullable=False, comment="the after-commit step that owns the payload"),
    Column("payload", JSON, nullable=False),
    Column("created_at", Float, nullable=False),
    comment="work a write committed to do after its transaction; replayed on open after a crash",
)

learned_forms = Table(
    "dc_learned_forms",
    metadata,
    Column("id", String(64), primary_key=True, comment="sha256 of (tenant, form)"),
    Column("tenant", _SCOPE, nullable=False),
    Column("form", JSON, nullable=False, comment="a line's tokens with the subject and the value cut out"),
    Column("seen", JSON, nullable=False, comment="attribute -> sha256 of the subjects it was seen stating a known value for"),
    Column("contrary", JSON, nullable=False, comment="attribute -> lines in the form naming none of the slot's values"),
    Column("updated_at", Float, nullable=False),
    comment="learned forms (deltacore.belief.forms): dropped for a tenant by any erasure of its events",
)
Index("ix_dc_learned_forms_tenant", learned_forms.c.tenant)

facts = Table(
    "dc_facts",
    metadata,
    Column("id", _ID, primary_key=True, comment="sha1 of (first event id, slot): re-deriving is harmless"),
    Column("tenant", _SCOPE, nullable=False),
    Column("agent_id", _SCOPE),
    Column("user_id", _SCOPE),
    Column("session_id", _SCOPE),
    Column("subject", String(256), nullable=False, comment="canonical subject id"),
    Column("subject_name", String(256), nullable=False),
    Column("attribute", String(128), nullable=False, comment="normalised attribute"),
    Column("attribute_class", String(32), nullable=False),
    Column("value", Text, nullable=False),
    Column("value_key", String(256), nullable=False, comment="normalised value: equal keys corroborate"),
    Column("valid_from", Float, nullable=False, comment="unix seconds: when it became true"),
    Column("valid_until", Float, comment="when it stopped being true; NULL = still open"),
    Column("recorded_at", Float, nullable=False, comment="when the store learned it"),
    Column("last_observed", Float, nullable=False),
    Column("confidence", Float, nullable=False),
    Column("trust", Float, nullable=False),
    Column("weight", Float, nullable=False, comment="belief weight within the slot"),
    Column("source", String(256)),
    Column("namespace", String(32), nullable=False),
    Column("event_id", _ID, nullable=False, comment="the first event that stated it"),
    Column("sources", JSON, nullable=False, comment="distinct writers that stated it"),
    Column("observations", Integer, nullable=False),
    Column("status", String(16), nullable=False, comment="current | contested | superseded | history | rejected"),
    Column("superseded_by", _ID),
    Column("method", String(64), nullable=False),
    Column("updated_at", Float, nullable=False),
    comment="facts in time (Layer 3): one value of one slot (subject, attribute), never deleted by a contradiction",
)
Index("ix_dc_facts_slot", facts.c.tenant, facts.c.subject, facts.c.attribute)

fact_events = Table(
    "dc_fact_events",
    metadata,
    Column("fact_id", _ID, ForeignKey("dc_facts.id", ondelete="CASCADE"), primary_key=True),
    Column("event_id", _ID, primary_key=True),
    Column("tenant", _SCOPE, nullable=False),
    Column("ts", Float, nullable=False, comment="the event's time"),
    Column("source", String(256)),
    comment="every event that stated a fact: its provenance, and what a forget must find",
)
Index("ix_dc_fact_events_event", fact_events.c.event_id)

conflicts = Table(
    "dc_conflicts",
    metadata,
    Column("id", _ID, primary_key=True),
    Column("tenant", _SCOPE, nullable=False),
    Column("type", String(32), nullable=False, comment="TEMPORAL_CONTRADICTION"),
    Column("subject", String(256), nullable=False),
    Column("attribute", String(128), nullable=False),
    Column("old_fact_id", _ID, nullable=False),
    Column("new_fact_id", _ID, nullable=False),
    Column("old_value", Text, nullable=False),
    Column("new_value", Text, nullable=False),
    Column("old_belief", Float, nullable=False),
    Column("new_belief", Float, nullable=False),
    Column("resolution", String(16), nullable=False, comment="pending | auto_resolved | human_resolved"),
    Column("winner_fact_id", _ID),
    Column("support", JSON, nullable=False, comment="fact id -> writers that confirmed it after the conflict opened"),
    Column("note", Text),
    Column("created_at", Float, nullable=False),
    Column("resolved_at", Float),
    comment="values of one slot the contradiction policy could not settle (E03)",
)
Index("ix_dc_conflicts_slot", conflicts.c.tenant, conflicts.c.subject, conflicts.c.attribute)
Index("ix_dc_conflicts_open", conflicts.c.tenant, conflicts.c.resolution)
