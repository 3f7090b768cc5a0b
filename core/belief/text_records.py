"""Records written as text: "Key: value" blocks, markdown table rows and key=value log lines.

Each is read into a plain record and handed to the tool-result reader
(:func:`deltacore.belief.json_facts.record_claims`), so a record says the same facts whether it
came as JSON or as text:

- a block of two or more "Key: value" (or config-style "key = value") lines whose first line
  names the thing ("Asset: plate reader (room 2)" / "Custodian: Vera");
- a markdown table: its header names the columns, its first column the subject; of an
  "old X" / "new X" pair of columns only the new one is a value;
- a log line of two or more ``key="value"`` pairs, the first naming the subject, a leading
  date-time dating it;
- a tracker's ticket header, "[OPS-412] New: centrifuge (room 2)": the thing's open ticket.

Anything else (prose with a colon, a table without a header) is no record: the sentence rules
read it.
"""

from __future__ import annotations

import csv
import re
from typing import Any

from deltacore.belief.lexicon import ATTRIBUTES, normalise_attribute
from deltacore.belief.phrases import name_phrase
from deltacore.belief.roles import placed_thing

MAX_RECORD_LINES = 8
# A column header: a short label, no digits ("Depot", "Next exam", "Reg").
_LABEL = re.compile(r"^[A-Za-z][A-Za-z _/-]{0,24}$")
_NAMED = frozenset(ATTRIBUTES.values())
# "Key: value", or a config file's "key = value" (an INI section, a .env block).
_KEY_LINE = re.compile(r"^(?P<key>[A-Za-z][\w -]{0,30}?)\s*(?::\s+|=\s*)(?P<value>\S.{0,80})$")
_TABLE_LINE = re.compile(r"^\|.*\|$")
_RULE_ROW = re.compile(r"^\|(?:\s*:?-{2,}:?\s*\|)+$")
_PAIR = re.compile(r"(?P<key>[A-Za-z_][\w.-]{0,30})=(?:\"(?P<quoted>[^\"]{0,80})\"|(?P<bare>[^\s\"]{1,80}))")
_LOG_HEAD = re.compile(
    r"^(?P<stamp>\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?Z?)?)?\s*(?:\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|NOTICE)\]?\s+)?"
)
# "[OPS-412] New: centrifuge (room 2), follows on from OPS-380": a tracker's header opens a
# ticket about a thing named with where it is (a title such as "Login fails" names no thing).
_TICKET = re.compile(
    r"^\[(?P<ticket>[A-Z][A-Z0-9]{1,9}-\d{1,7})\]\s+(?:New|Opened|Open|Created)\s*:\s+"
    r"(?P<thing>[\w][\w .-]{0,40}\(\s*[\w][\w .-]{0,30}\))(?:\s*[,;].*)?$"
)
_COMPOSITE = re.compile(r"^[\w][\w .-]{0,40}\(\s*[\w][\w .-]{0,30}\)$")
_OLD_COLUMN = re.compile(r"^(?:old|previous|prev|former|was)\s+|\s+\((?:old|before|was)\)$", re.IGNORECASE)
_NEW_COLUMN = re.compile(r"^(?:new|current|now)\s+|\s+\((?:new|now|after)\)$", re.IGNORECASE)


def text_records(text: str) -> list[tuple[dict[str, Any], str]]:
    """(record, key of its subject) for each record the text is; empty when it is none."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines or len(lines) > MAX_RECORD_LINES or "?" in text:
        return []  # a question sets nothing
    if len(lines) == 1 and (m := _TICKET.match(lines[0])) is not None:
        return [({"subject": m["thing"].strip(), "open ticket": m["ticket"]}, "subject")]
    if "=" in text and len(lines) == 1:
        return _log_line(lines[0])
    tables = [i for i, line in enumerate(lines) if _TABLE_LINE.match(line)]
    if len(tables) >= 2:
        return _table([lines[i] for i in tables])
    # A title line may head a sheet ("Staff list", "Route sheet"): the rest is the record.
    body = lines[1:] if len(lines) >= 3 and not _separated(lines[0]) else lines
    if (rows := _delimited(body)) is not None:
        return _table(rows)
    if len(body) == 1 and body[0].count(" | ") >= 1:
        body = [part.strip() for part in body[0].split(" | ")]  # "Driver: Shona | Base: Crick DC"
    lines = body
    if len(lines) >= 2 and all(_KEY_LINE.match(line) for line in lines):
        record = {m["key"].strip(): m["value"].strip().rstrip(".") for m in map(_KEY_LINE.match, lines) if m}
        first = next(iter(record))
        if len(record) == len(lines) and normalise_attribute(first) not in _NAMED and _names_a_thing(record[first]):
            return [(record, first)]  # "Status: down / Version: 2" names no thing: no record
    return []


def _separated(line: str) -> bool:
    return ":" in line or "|" in line or "," in line


def _delimited(lines: list[str]) -> list[str] | None:
    """A header and rows separated by "|" without the outer bars, or by commas (CSV, a value
    with a comma quoted), as markdown table rows; None when the lines are not such a table."""
    if len(lines) < 2:
        return None
    for delimiter in ("|", ","):
        rows = list(csv.reader(lines, delimiter=delimiter, skipinitialspace=True))
        widths = {len(row) for row in rows}
        if len(widths) == 1 and widths.pop() >= 2 and all(_LABEL.match(cell.strip()) for cell in rows[0]):
            return ["| " + " | ".join(cell.strip() for cell in row) + " |" for row in rows]
    return None


def _names_a_thing(value: str) -> bool:
    """A record's first value names what it is about ("Noor", "plate reader (room 2)"), not a
    sentence ("User: I moved to Berlin")."""
    return len(value.split()) <= 5 and (name_phrase(value) or _COMPOSITE.match(value) is not None or placed_thing(value))


def _log_line(line: str) -> list[tuple[dict[str, Any], str]]:
    head = _LOG_HEAD.match(line)
    rest = line[head.end():] if head else line
    pairs = list(_PAIR.finditer(rest))
    if len(pairs) < 2 or _PAIR.sub("", rest).strip():
        return []  # words between the pairs: prose, not a record
    record: dict[str, Any] = {}
    for m in pairs:
        record[m["key"]] = m["quoted"] if m["quoted"] is not None else m["bare"]
    identity = next(iter(record))
    if head is not None and head["stamp"]:
        record.setdefault("time", head["stamp"])
    return [(record, identity)]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _table(rows: list[str]) -> list[tuple[dict[str, Any], str]]:
    header, body = _cells(rows[0]), [r for r in rows[1:] if not _RULE_ROW.match(r)]
    if len(header) < 2 or not body or not all(header):
        return []
    columns: list[str | None] = []
    for name in header:
        if _OLD_COLUMN.search(name):
            columns.append(None)  # the value replaced: history, no value now
        else:
            columns.append(_NEW_COLUMN.sub("", name).strip() or name)
    found = []
    for row in body:
        cells = _cells(row)
        if len(cells) != len(header) or columns[0] is None:
            continue
        record = {column: cell for column, cell in zip(columns, cells) if column is not None and cell}
        if len(record) >= 2 and len(set(c for c in columns if c)) == len([c for c in columns if c]):
            found.append((record, columns[0]))
    return found
