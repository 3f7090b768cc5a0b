"""What a database client can check: every text column, scanned with SQL, and ``pg_dump``.

On SQLite the byte scan reads the database file itself (free pages, WAL, FTS5 shadow tables);
the SQL scan adds the table and column of what is still live. On PostgreSQL a client cannot read
the relation files unless its role may call ``pg_read_binary_file`` (a superuser, or
``pg_read_server_files``); what it can always read is the live rows (this scan) and the dump.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence

from sqlalchemy import String, create_engine, inspect, text
from sqlalchemy.engine import make_url

from deltacore.compliance.audit.result import SQLFinding

DUMP_TIMEOUT_SECONDS = 600
_TERMS_PER_STATEMENT = 200


def sql_patterns(identifiers: Sequence[str]) -> list[tuple[int, str]]:
    """(identifier, lower-case LIKE pattern) pairs: the text as given, its case-folded and JSON-
    escaped forms (JSON columns keep non-ASCII escaped)."""
    import json

    from deltacore.compliance.audit.needles import text_variants

    patterns: list[tuple[int, str]] = []
    for index, identifier in enumerate(identifiers):
        forms: dict[str, None] = {}
        for label, variant in text_variants(identifier).items():
            if label.startswith("+token"):
                continue
            forms.setdefault(variant.lower(), None)
            forms.setdefault(json.dumps(variant.lower(), ensure_ascii=True)[1:-1], None)
        for form in forms:
            escaped = form.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            patterns.append((index, f"%{escaped}%"))
    return patterns


def scan_columns(sql_url: str, identifiers: Sequence[str]) -> tuple[list[SQLFinding], int]:
    """Rows per (table, column, identifier) whose text holds the identifier; and how many
    columns were scanned. One pass over each table."""
    patterns = sql_patterns(identifiers)
    engine = create_engine(sql_url)
    findings: list[SQLFinding] = []
    scanned = 0
    try:
        with engine.connect() as conn:
            sqlite = conn.dialect.name == "sqlite"
            inspector = inspect(conn)
            for table in sorted(inspector.get_table_names()):
                columns = [column["name"] for column in inspector.get_columns(table)]
                if not sqlite:
                    # PostgreSQL: every column readable as text (text, varchar, json, jsonb, arrays);
                    # numbers and timestamps cannot hold a name.
                    columns = [
                        column["name"]
                        for column in inspector.get_columns(table)
                        if isinstance(column["type"], String)
                        or str(column["type"]).upper().startswith(("JSON", "TEXT", "VARCHAR", "BYTEA"))
                        or "[]" in str(column["type"])
                    ]
                if not columns:
                    continue
                scanned += len(columns)
                quoted_table = conn.dialect.identifier_preparer.quote(table)
                terms: list[tuple[str, str, int, str]] = []  # (sql term, column, identifier, pattern)
                for column in columns:
                    quoted = conn.dialect.identifier_preparer.quote(column)
                    for index, pattern in patterns:
                        terms.append(
                            (
                                f"lower(CAST({quoted} AS TEXT)) LIKE :{{p}} ESCAPE '\\'",
                                column,
                                index,
                                pattern,
                            )
                        )
                totals: dict[tuple[str, int], int] = {}
                # A few hundred terms per statement: SQLite limits a statement's expressions.
                for begin in range(0, len(terms), _TERMS_PER_STATEMENT):
                    batch = terms[begin : begin + _TERMS_PER_STATEMENT]
                    params = {f"p{n}": pattern for n, (_, _, _, pattern) in enumerate(batch)}
                    sums = ", ".join(
                        f"SUM(CASE WHEN {term.format(p=f'p{n}')} THEN 1 ELSE 0 END)"
                        for n, (term, _, _, _) in enumerate(batch)
                    )
                    row = conn.execute(text(f"SELECT {sums} FROM {quoted_table}"), params).one()
                    for (_, column, index, _), value in zip(batch, row, strict=True):
                        if value:
                            totals[(column, index)] = max(totals.get((column, index), 0), int(value))
                findings.extend(
                    SQLFinding(table=table, column=column, identifier=index, rows=rows)
                    for (column, index), rows in sorted(totals.items())
                )
    finally:
        engine.dispose()
    return findings, scanned


def pg_dump(sql_url: str) -> tuple[bytes | None, str]:
    """The text of ``pg_dump`` of the store's database, or None and why not."""
    binary = shutil.which("pg_dump")
    if binary is None:
        return None, "the pg_dump binary is not on PATH"
    url = make_url(sql_url).set(drivername="postgresql")
    try:
        completed = subprocess.run(
            [
                binary,
                "--no-owner",
                "--dbname",
                url.render_as_string(hide_password=False),
            ],
            capture_output=True,
            timeout=DUMP_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"pg_dump failed: {exc}"
    if completed.returncode != 0:
        return (
            None,
            f"pg_dump failed: {completed.stderr.decode(errors='replace').strip()[:300]}",
        )
    return completed.stdout, ""
