"""Finding a subject everywhere: which rows a forget request erases or rewrites.

Events are found by id, by source, by scope, through the entity index and the mentions (a note
naming the subject only in its text is mentioned, not tagged), and by reading every
text-bearing column (text, tool arguments and results, actor, user id, entities, meta) with
the gateway's folding. Then every other table is read the same way, and rows pointing at an
erased event are added: retrieval logs (the query text), security events and quarantine
excerpts, review items, system events, tool-argument migrations, facts and conflicts, source
reputation. The result, :class:`Selection`, holds ids and keys only (it is what the journal
keeps) plus, for a dry run, a few sample texts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection

from deltacore.compliance.journal import STEP, value_hmac
from deltacore.compliance.matching import SubjectMatcher
from deltacore.compliance.request import ForgetRequest
from deltacore.storage.erasure import ErasureLog, ErasureRepository

__all__ = ["Selection", "select_targets"]

# Log tables whose matching rows are deleted outright (a log line about the subject has no
# value once the subject is gone, and rewriting it would keep its shape).
LOG_TABLES = (
    "dc_retrievals", "dc_security_events", "dc_review_queue", "dc_system_events", "dc_delta_migrations", "dc_after_commit",
    # LangGraph checkpoints and their pending writes: conversation state quoting the subject.
    "dc_checkpoints", "dc_checkpoint_writes",
    # Plan schemas learned from episodes: their templates and slot values quote the tasks.
    "dc_schemas",
)  # fmt: skip
_SAMPLES = 3


@dataclass
class Selection:
    """What one request erases, by id; JSON round-trips through the journal."""

    event_ids: list[str] = field(default_factory=list)
    rows: dict[str, list[list[Any]]] = field(default_factory=dict)
    """Log table → primary keys of rows to delete."""
    rewrite_deltas: list[str] = field(default_factory=list)
    """Retained deltas whose text or provenance involves an erased one: re-derived."""
    source_hmacs: list[str] = field(default_factory=list)
    """HMACs of the sources whose reputation rows go (matched again at erase time)."""
    derived: dict[str, list[Any]] = field(default_factory=dict)
    """Derived store → what the events contributed to (``DerivedArtifactStore.touched``)."""
    samples: dict[str, list[str]] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        out = {"events": len(self.event_ids)}
        out.update({table.removeprefix("dc_"): len(keys) for table, keys in self.rows.items() if keys})
        if self.rewrite_deltas:
            out["deltas_rederived"] = len(self.rewrite_deltas)
        if self.source_hmacs:
            out["source_reputation"] = len(self.source_hmacs)
        for name, touched in self.derived.items():
            if touched:
                # Facts are touched by slot; utilities by the updates the subject's episodes gave.
                label = {"utilities": "utility_updates", "reputation": "reputation_sources", "schemas": "schema_episodes"}.get(name, f"{name}_slots")
                out[label] = len(touched)
        return out

    @property
    def empty(self) -> bool:
        return not (self.event_ids or any(self.rows.values()) or self.rewrite_deltas or self.source_hmacs or any(self.derived.values()))

    def to_json(self) -> dict[str, Any]:
        return {
            "event_ids": self.event_ids,
            "rows": self.rows,
            "rewrite_deltas": self.rewrite_deltas,
            "source_hmacs": self.source_hmacs,
            "derived": self.derived,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Selection:
        return cls(
            event_ids=list(data.get("event_ids", [])),
            rows={k: [list(key) for key in v] for k, v in data.get("rows", {}).items()},
            rewrite_deltas=list(data.get("rewrite_deltas", [])),
            source_hmacs=list(data.get("source_hmacs", [])),
            derived={k: list(v) for k, v in data.get("derived", {}).items()},
        )


def _sample(selection: Selection, artifact: str, text: str) -> None:
    found = selection.samples.setdefault(artifact, [])
    if len(found) < _SAMPLES:
        found.append(text if len(text) <= 160 else text[:157] + "...")


def select_targets(
    conn: Connection,
    erasure: ErasureRepository,
    request: ForgetRequest,
    key: bytes,
    derived_stores: list[Any],
    *,
    erase_events: bool = True,
) -> Selection:
    """Everything ``request`` reaches in its tenant. ``erase_events=False`` (mode SCHEMAS_ONLY)
    still finds the events, to know what was derived from them, but leaves them out."""
    tenant = request.tenant
    matcher = SubjectMatcher(request.terms())
    selection = Selection()
    found: dict[str, None] = {}
    # Ids of another tenant are not this request's (the tenant bounds every selector).
    named = erasure.event_ids_within(conn, tenant, {}, among=request.event_ids) if request.event_ids else []
    found.update(dict.fromkeys(named))
    if request.source:
        found.update(dict.fromkeys(erasure.event_ids_where(conn, tenant, "source", [request.source])))
    for column in ("agent_id", "user_id", "session_id"):
        value = getattr(request, column)
        if value:
            found.update(dict.fromkeys(erasure.event_ids_where(conn, tenant, column, [value])))
    bound = request.within.fields() if request.within is not None else None
    if bound is not None and request.only_within:
        found.update(dict.fromkeys(erasure.event_ids_within(conn, tenant, bound)))
    if matcher:
        found.update(dict.fromkeys(erasure.event_ids_named(conn, tenant, list(matcher.index_names))))
        for (event_id,), text in erasure.scan(conn, "dc_events", tenant, candidates=matcher.candidates):
            if event_id in found or matcher.matches(text):
                found[event_id] = None
                _sample(selection, "events", text.split("\n", 1)[0])
    elif found:
        # Found by id or scope: no text to match, so only a dry run's samples are read.
        for _key, text in erasure.scan(conn, "dc_events", tenant, ids=list(found)[:_SAMPLES]):
            _sample(selection, "events", text.split("\n", 1)[0])
    # Every version of a memory is an event: the older versions of what was found go with it
    # (its hidden history); the newer versions too when the memory was named by id. Not a
    # merged memory that hides a named event: its other originals are other events (the same
    # tool call in other episodes), and walking back from it erased them all (seen: forgetting
    # one plan episode erased the identical calls of every episode merged with it). The merged
    # memory goes all the same, and its surviving originals come back (``MergedDerivation``).
    if request.event_ids:
        found.update(dict.fromkeys(erasure.version_chain(conn, named, newer=True, through_merges=False)))
    found.update(dict.fromkeys(erasure.version_chain(conn, list(found), newer=False)))
    event_ids = list(found)
    if bound is not None and not request.only_within:
        # The AND scope bounds every other selector: what lies outside it stays.
        event_ids = erasure.event_ids_within(conn, tenant, bound, among=event_ids)
        # Inside a scope the subject's other traces (log rows, facts and deltas matched by
        # text anywhere in the tenant) are not this request's to erase.
        matcher = SubjectMatcher(())
    for store in derived_stores:
        if store.artifact == "utilities" and not erase_events:
            continue  # the events stay (a repair of facts): so does what they taught
        selection.derived[store.artifact] = store.touched(conn, event_ids)
    facts = next((s for s in derived_stores if s.artifact == "facts" and hasattr(s, "representatives")), None)
    if matcher and facts is not None:
        matched = [fact_id for (fact_id,), text in erasure.scan(conn, "dc_facts", tenant, candidates=matcher.candidates) if matcher.matches(text)]
        known = selection.derived.setdefault("facts", [])
        known.extend(facts.representatives(conn, matched, known))
    if not erase_events:
        return selection
    selection.event_ids = event_ids
    _select_rows(conn, erasure, request, matcher, selection, key)
    return selection


def _select_rows(
    conn: Connection, erasure: ErasureRepository, request: ForgetRequest, matcher: SubjectMatcher, selection: Selection, key: bytes
) -> None:
    tenant = request.tenant
    erased = set(selection.event_ids)
    for table in LOG_TABLES:
        keys: dict[tuple[Any, ...], None] = {}
        if table in ("dc_retrievals", "dc_security_events", "dc_review_queue") and erased:
            keys.update(dict.fromkeys(erasure.rows_referencing_events(conn, table, list(erased))))
        if table == "dc_security_events" and request.source:
            keys.update(dict.fromkeys(erasure.column_values(conn, table, "source", tenant, [request.source])))
        if matcher:
            for row_key, text in erasure.scan(conn, table, tenant, candidates=matcher.candidates):
                if table == "dc_after_commit" and f'"{STEP}"' in text:
                    continue
                if matcher.matches(text):
                    keys[row_key] = None
                    _sample(selection, table.removeprefix("dc_"), text.replace("\n", " "))
        if table == "dc_after_commit":
            # Never erase the forget journal itself (it holds ids and HMACs only).
            keys = {k: None for k in keys if not _is_forget_row(conn, erasure, k)}
        selection.rows[table] = [list(k) for k in keys]
    sources: set[str] = set()
    if request.source:
        sources.add(request.source)
    if matcher:
        for (_tenant, source), text in erasure.scan(conn, "dc_source_reputation", tenant, candidates=matcher.candidates):
            if matcher.matches(text):
                sources.add(source)
    selection.source_hmacs = sorted(value_hmac(key, source) for source in sources)
    erased_deltas = erasure.delta_ids_of_events(conn, list(erased))
    rewrite = dict.fromkeys(erasure.children_of(conn, erased_deltas))
    if matcher:
        for (delta_id,), text in erasure.scan(conn, "dc_deltas", tenant, candidates=matcher.candidates):
            if matcher.matches(text):
                rewrite[delta_id] = None
    gone = set(erased_deltas)
    selection.rewrite_deltas = [d for d in rewrite if d not in gone]


def _is_forget_row(conn: Connection, erasure: ErasureRepository, key: tuple[Any, ...]) -> bool:
    return ErasureLog().journal_step(conn, key[0]) == STEP
