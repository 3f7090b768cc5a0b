"""What a forget must also reach in this layer: merged memories and COLD rows.

- A merged memory derived from an erased event is deleted inside the erasure's transaction
  (it carries an original's text), and the originals that survive the erasure come back to
  live retrieval (:class:`MergedDerivation`, a ``DerivedArtifactStore``).
- A COLD row is in no SQL table the forget pipeline searches, so before a forget runs the rows
  matching the request (its ids, names, source or scope) are **thawed**: put back into SQL,
  their partitions rewritten without them. The forget then finds and erases them like any
  event, physical pass included; the old partition files are removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deltacore.model import new_id
from deltacore.storage.cold_archive import ColdArchive
from deltacore.storage.consolidation_store import ConsolidationRepository
from deltacore.storage.plan_store import PlanRepository


@dataclass(frozen=True)
class MergedChange:
    """What the erasure did to merged memories (the shape of the pipeline's ``DerivedChange``)."""

    artifact: str = "merged"
    modified: int = 0
    deleted: int = 0
    approximated: int = 0
    noised: int = 0


class MergedDerivation:
    """Merged memories of erased events: deleted; their surviving originals shown again."""

    artifact = "merged"

    def __init__(self, repo: ConsolidationRepository) -> None:
        self.repo = repo

    def touched(self, conn: Any, event_ids: Sequence[str]) -> list[Any]:
        merged = self.repo.derived_from_sources(conn, event_ids)
        merged += [i for i in self.repo.derivations_of(conn, event_ids) if i not in merged]
        return merged

    def rederive(self, conn: Any, touched: Sequence[Any], erased: Sequence[str], **options: Any) -> Any:
        sources = self.repo.derivations_of(conn, list(touched))
        deleted = modified = 0
        for merged_id, members in sources.items():
            self.repo.delete_events(conn, [merged_id])
            tenant = self.repo.tenant_of(conn, members)
            if tenant is not None:
                modified += self.repo.unhide(conn, tenant, members, merged_id)
            self.repo.drop_derivations(conn, [merged_id])
            deleted += 1
        return MergedChange(artifact=self.artifact, modified=modified, deleted=deleted)


class SchemaSupportScrub:
    """Schemas whose recorded support names an erased episode: that id is taken out of every
    stored version (``support.episode_ids``, what ``schema_get`` shows), in the erasure's
    transaction. A version whose text names the subject is deleted outright by the pipeline
    (``dc_schemas`` is searched like every table); this reaches the versions that name the
    episode only by id. Counts and rates a cycle recorded stay as they were: the next cycle
    records them again from the episodes that remain."""

    artifact = "schemas"

    def __init__(self, plans: PlanRepository) -> None:
        self.plans = plans

    def touched(self, conn: Any, event_ids: Sequence[str]) -> list[Any]:
        return [list(pair) for pair in self.plans.episodes_of_events(conn, event_ids)]

    def rederive(self, conn: Any, touched: Sequence[Any], erased: Sequence[str], **options: Any) -> Any:
        by_tenant: dict[str, set[str]] = {}
        for tenant, episode in touched:
            by_tenant.setdefault(tenant, set()).add(episode)
        modified = 0
        for tenant, episodes in by_tenant.items():
            gone = episodes - self.plans.episodes_with_events(conn, tenant, sorted(episodes))
            if not gone:
                continue  # a partly erased episode still happened: it still supports its schema
            for row in self.plans.all_schema_versions(conn, tenant):
                support = (row["body"] or {}).get("support")
                ids = support.get("episode_ids") if isinstance(support, dict) else None
                if not isinstance(ids, list) or not gone.intersection(ids):
                    continue
                body = {**row["body"], "support": {**support, "episode_ids": [i for i in ids if i not in gone]}}
                self.plans.rewrite_schema_body(conn, tenant, row["schema_id"], int(row["version"]), body)
                modified += 1
        return MergedChange(artifact=self.artifact, modified=modified)


def _matches(event: dict[str, Any], request: Any) -> bool:
    if event.get("tenant") != request.tenant:
        return False
    if event["id"] in set(request.event_ids):
        return True
    if request.source is not None and event.get("source") == request.source:
        return True
    for name in ("agent_id", "user_id", "session_id"):
        wanted = getattr(request, name, None)
        if wanted is not None and event.get(name) == wanted:
            return True
    terms = [t.casefold() for t in request.terms() if t]
    if not terms:
        return False
    haystack = " ".join(str(event.get(k) or "") for k in ("text", "actor", "source", "user_id")).casefold()
    haystack += " " + " ".join(str(e) for e in event.get("entities") or ()).casefold()
    haystack += " " + str(event.get("tool_args") or "").casefold() + " " + str(event.get("meta") or "").casefold()
    return any(term in haystack for term in terms)


def _hits(entries: Sequence[dict[str, Any]], requests: Sequence[Any], tenant: str) -> list[dict[str, Any]]:
    return [e for e in entries if any(_matches(e["bundle"]["event"], r) for r in requests if r.tenant == tenant)]


def cold_matches(sql: Any, repo: ConsolidationRepository, archive: ColdArchive, request: Any) -> list[str]:
    """The ids of the COLD rows ``request`` matches, reading only: what a dry-run forget reports."""
    found: list[str] = []
    with sql.reader() as conn:
        for part in repo.partitions(conn, request.tenant):
            found += [e["id"] for e in _hits(archive.read(part["path"], part["sha256"]), [request], request.tenant)]
    return found


def thaw_for(sql: Any, repo: ConsolidationRepository, archive: ColdArchive, requests: Sequence[Any]) -> int:
    """Put every COLD row a request matches back into SQL; returns how many rows."""
    thawed = 0
    for tenant in {r.tenant for r in requests}:
        removed: list[str] = []
        with sql.writer() as conn:
            for part in repo.partitions(conn, tenant):
                entries = archive.read(part["path"], part["sha256"])
                hit = _hits(entries, requests, tenant)
                if not hit:
                    continue
                rest = [e for e in entries if e not in hit]
                repo.restore(conn, [e["bundle"] for e in hit])
                repo.drop_partition(conn, part["id"])
                removed.append(part["path"])
                if rest:
                    partition_id = new_id()
                    path, digest, count = archive.write(tenant, f"{part['cycle_id']}-{partition_id}", [e["bundle"] for e in rest])
                    repo.add_partition(
                        conn,
                        {**part, "id": partition_id, "path": path, "rows": count, "sha256": digest},
                        [{"event_id": e["id"], "tenant": tenant, "partition_id": partition_id, "ts": float(e["ts"]),
                          "kind": e["kind"], "archived_at": part["created_at"]} for e in rest],
                    )
                thawed += len(hit)
        for path in removed:
            archive.remove(path)
    return thawed
