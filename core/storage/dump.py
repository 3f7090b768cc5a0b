"""Rows out and rows in: the storage half of ``DeltaCore.export`` / ``restore``.

A dump is JSON Lines: a manifest line, then one ``{"table": …, "row": {…}}`` line per row of the
source-of-truth tables, parents before children. Derived or per-store state is left out and
rebuilt on restore: the vector index (from the rows' vectors), the full-text index (triggers /
generated column), the tenant counters, the vector outbox, the staged inbox (applied before an
export), the after-commit journal, and the honeypots (never exported). Row-number columns
(``seq``, ``id`` of log tables) are renumbered by the target; every record id (events, deltas,
facts, conflicts) is kept.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, LargeBinary, Table, func, insert, select

from deltacore.storage import tables

EXPORTED_TABLES: tuple[Table, ...] = (
    tables.events,
    tables.deltas,
    tables.delta_links,
    tables.event_entities,
    tables.mentions,
    tables.tool_schemas,
    tables.tool_current,
    tables.delta_migrations,
    tables.retrievals,
    tables.utility_updates,
    tables.review_queue,
    tables.facts,
    tables.fact_events,
    tables.conflicts,
    tables.source_reputation,
    tables.security_events,
    tables.system_events,
)
"""Parents before children, so a restore inserts in this order."""

_BY_NAME = {table.name: table for table in EXPORTED_TABLES}
_BATCH = 500


def _renumbered(table: Table) -> set[str]:
    """Row-number columns the target assigns itself."""
    return {c.name for c in table.columns if c.primary_key and c.autoincrement is True}


def _binary(table: Table) -> set[str]:
    return {c.name for c in table.columns if isinstance(c.type, LargeBinary)}


def _tenant_filter(table: Table, tenant: str | None) -> list[Any]:
    if tenant is None:
        return []
    if "tenant" in table.c:
        return [table.c.tenant == tenant]
    # dc_delta_links has no tenant: a link belongs to its child's tenant.
    return [table.c.child_id.in_(select(tables.deltas.c.id).where(tables.deltas.c.tenant == tenant))]


def _order(table: Table) -> list[Any]:
    renumbered = _renumbered(table)
    if renumbered:
        return [table.c[name] for name in sorted(renumbered)]
    return list(table.primary_key.columns)


def table_counts(conn: Connection, tenant: str | None) -> dict[str, int]:
    """Rows each exported table holds (for the manifest and progress)."""
    return {
        table.name: int(conn.execute(select(func.count()).select_from(table).where(*_tenant_filter(table, tenant))).scalar() or 0)
        for table in EXPORTED_TABLES
    }


def dump_rows(conn: Connection, tenant: str | None, page: int = 1000) -> Iterator[tuple[str, dict[str, Any]]]:
    """(table name, JSON-safe row) for every exported row, table by table in restore order."""
    for table in EXPORTED_TABLES:
        skip, binary = _renumbered(table), _binary(table)
        columns = [c for c in table.columns if c.name not in skip]
        offset = 0
        while True:
            rows = conn.execute(
                select(*columns).where(*_tenant_filter(table, tenant)).order_by(*_order(table)).limit(page).offset(offset)
            ).all()
            for row in rows:
                values = dict(row._mapping)
                for name in binary:
                    if values.get(name) is not None:
                        values[name] = base64.b64encode(bytes(values[name])).decode("ascii")
                yield table.name, values
            if len(rows) < page:
                break
            offset += page


def tenants_with_events(conn: Connection, names: Sequence[str]) -> dict[str, int]:
    """How many events each of these tenants holds already (a restore needs them empty)."""
    if not names:
        return {}
    statement = (
        select(tables.events.c.tenant, func.count())
        .where(tables.events.c.tenant.in_(list(names)))
        .group_by(tables.events.c.tenant)
    )
    return {tenant: int(count) for tenant, count in conn.execute(statement).all()}


class RowError(ValueError):
    """A dump row that cannot be restored (which table, which column, what is wrong)."""


def decode_row(table_name: str, row: Any) -> tuple[Table, dict[str, Any]]:
    """The table and the insertable values of one dump line; RowError names what is wrong."""
    table = _BY_NAME.get(table_name)
    if table is None:
        raise RowError(f"table {table_name!r} is not part of a DeltaCore dump (known: {', '.join(_BY_NAME)})")
    if not isinstance(row, Mapping):
        raise RowError(f"{table_name}: row must be a JSON object")
    unknown = set(row) - {c.name for c in table.columns}
    if unknown:
        raise RowError(f"{table_name}: unknown column {sorted(unknown)[0]!r} (was the dump made by a newer DeltaCore?)")
    skip = _renumbered(table)
    values = {name: value for name, value in row.items() if name not in skip}
    for column in table.columns:
        if column.name in skip or column.nullable or column.server_default is not None:
            continue
        if values.get(column.name) is None:
            raise RowError(f"{table_name}: column {column.name!r} is missing or null")
    for name in _binary(table):
        if values.get(name) is not None:
            try:
                values[name] = base64.b64decode(values[name], validate=True)
            except (TypeError, ValueError) as exc:
                raise RowError(f"{table_name}: column {name!r} is not base64 ({exc})") from exc
    return table, values


def insert_rows(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), _BATCH):
        conn.execute(insert(table), rows[start : start + _BATCH])


def stored_dimension(conn: Connection) -> int | None:
    """The dimension of the store's vectors (None before its first write)."""
    value = conn.execute(select(tables.store_meta.c.value).where(tables.store_meta.c.key == "embedding_dimension")).scalar()
    return int(value) if value else None
