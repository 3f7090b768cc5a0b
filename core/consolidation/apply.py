"""Applying a cycle's plan in short transactions, each carrying its part of the undo journal.

One transaction for a whole cycle (457 merges of a 1,371-event tenant) held SQLite's write lock
and then left ~500 outbox rows for one drain that a concurrent query waited behind. Here the
merges go in chunks of :data:`APPLY_CHUNK`: each chunk's transaction inserts its merged memories
in one batch, hides their originals, records derivations and rewrites the cycle's journal with
everything applied so far, marking the cycle ``applied`` from the first chunk on. The outbox is
drained after each chunk, so a query waiting on the drain waits for one chunk's rows. The COLD
partition goes last, in a transaction of its own.

Crash safety is the journal's: a process that dies between chunks leaves a cycle ``applied``
whose journal lists exactly the committed chunks, and the next open rolls it back (the gate never
passed it), so the store is as before the cycle or as after an accepted one. A reader may see a
cycle half applied while it runs, as it could see an applied cycle before its gate decided;
each merge is whole in one transaction (its merged memory and the originals it hides).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from deltacore.consolidation.nrem import merged_rows
from deltacore.delta.ids import delta_id_for
from deltacore.delta.utility import decayed_utility
from deltacore.model import new_id
from deltacore.storage.cold_archive import ColdArchive
from deltacore.storage.consolidation_store import ConsolidationRepository

APPLY_CHUNK = 50
"""Merges per apply transaction. Each commit bumps the tenant's version, so the next query reloads
the tenant's HOT vectors: smaller chunks hold the write lock for less but cost more reloads."""


def apply_plan(sql: Any, repo: ConsolidationRepository, archive: ColdArchive, cycle_id: str, tenant: str,
               plans: Sequence[Any], archive_ids: Sequence[str], before_snapshot: dict[str, str], *,
               rate_per_hour: float, step: Callable[[], None], drain: Callable[[], int],
               committed: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Apply ``plans`` (merges) and ``archive_ids`` (to COLD); ``step`` is the pacing yield
    point before each transaction, ``drain`` applies the outbox after each, ``committed(done,
    total)`` is called with ``done = 0`` before the first transaction and after each commit (from
    the first commit on, readers see the cycle's changes). Returns the merged memories applied
    (id, members, fidelity), the rows archived and the transactions used."""
    now = time.time()
    undo: dict[str, Any] = {"merged": [], "partitions": [], "snapshot": before_snapshot}
    chunks = range(0, len(plans), APPLY_CHUNK)
    total = len(chunks) + (1 if archive_ids or not plans else 0)
    transactions = 0
    if committed:
        committed(0, total)
    for start in chunks:
        step()
        with sql.writer() as conn:
            _apply_merges(conn, repo, cycle_id, tenant, plans[start : start + APPLY_CHUNK], undo, now, rate_per_hour)
            repo.set_cycle(conn, cycle_id, status="applied", undo=undo)
        transactions += 1
        if committed:
            committed(transactions, total)
        drain()
    archived = 0
    if archive_ids or not transactions:
        step()
        with sql.writer() as conn:
            archived = _archive(conn, repo, archive, cycle_id, tenant, archive_ids, undo, now)
            repo.set_cycle(conn, cycle_id, status="applied", undo=undo)
        transactions += 1
        if committed:
            committed(transactions, total)
    return {"merged": undo["merged"], "archived": archived, "transactions": transactions}


def _apply_merges(conn: Any, repo: ConsolidationRepository, cycle_id: str, tenant: str, plans: Sequence[Any],
                  undo: dict[str, Any], now: float, rate_per_hour: float) -> None:
    members = [i for p in plans for i in p.ids]
    live = repo.unreplaced(conn, members)
    bundles = {b["event"]["id"]: b for b in repo.bundles(conn, members)}
    batch: list[tuple[Any, str]] = []
    event_rows: list[dict[str, Any]] = []
    delta_rows: list[dict[str, Any]] = []
    entity_rows: list[dict[str, Any]] = []
    mention_rows: list[dict[str, Any]] = []
    for plan in plans:
        if not all(i in live and i in bundles for i in plan.ids):
            continue  # a concurrent update or delete touched a member: leave this merge out
        merged_id = new_id()
        event, deltas, entities, mentions = merged_rows(
            plan, merged_id, cycle_id,
            deltas_of=lambda i: bundles[i]["deltas"],
            delta_id_for=delta_id_for,
            utility_now=lambda d: decayed_utility(float(d["utility"]), float(d["utility_ts"]), now, rate_per_hour),
            mention_rows=lambda i: bundles[i]["mentions"],
            now=now,
        )
        batch.append((plan, merged_id))
        event_rows.append(event)
        delta_rows += deltas
        entity_rows += entities
        mention_rows += mentions
    inserted = repo.insert_merged_many(conn, event_rows, delta_rows, entity_rows, mention_rows) if event_rows else set()
    derivations = []
    for plan, merged_id in batch:
        if merged_id not in inserted:
            continue
        repo.hide(conn, tenant, plan.ids, merged_id, now)
        derivations += [{"derived_id": merged_id, "source_id": i, "tenant": tenant, "cycle_id": cycle_id,
                         "depth": plan.depth, "created_at": now} for i in plan.ids]
        undo["merged"].append({"id": merged_id, "members": plan.ids, "fidelity": plan.fidelity})
    repo.add_derivations(conn, derivations)


def _archive(conn: Any, repo: ConsolidationRepository, archive: ColdArchive, cycle_id: str, tenant: str,
             archive_ids: Sequence[str], undo: dict[str, Any], now: float) -> int:
    live = repo.unreplaced(conn, list(archive_ids)) if archive_ids else set()
    cold_ids = [i for i in archive_ids if i in live]
    if not cold_ids:
        return 0
    cold = repo.bundles(conn, cold_ids)
    partition_id = new_id()
    path, digest, count = archive.write(tenant, f"{cycle_id}-{partition_id}", cold)
    repo.add_partition(
        conn,
        {"id": partition_id, "tenant": tenant, "path": path, "rows": count, "sha256": digest,
         "cycle_id": cycle_id, "created_at": now},
        [{"event_id": b["event"]["id"], "tenant": tenant, "partition_id": partition_id,
          "ts": float(b["event"]["ts"]), "kind": b["event"]["kind"], "archived_at": now} for b in cold],
    )
    repo.delete_events(conn, cold_ids)
    undo["partitions"].append({"id": partition_id, "path": path})
    return len(cold_ids)
