"""Facts in tool results: a JSON object about an identified entity, nested records flattened.

``{"service": "billing-api", "env": "staging", "status": "down"}`` states that billing-api in
staging is down: the identity key names the subject, an environment key qualifies it (so the
staging and production deployments stay two subjects), every other scalar field is an
attribute (named through the extractor's lexicon and resolver), a time key says when.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from deltacore.belief.claims import FactClaim, timestamp_of
from deltacore.belief.json_diffs import NEW_SIDES, OLD_SIDES, PAIR_NAMES, new_side, pair
from deltacore.belief.lexicon import ATTRIBUTES, ENVIRONMENTS, RING_WORDS, canonical_subject, clean

MAX_JSON_FIELDS = 20
# A listing longer than this is a report, not a set of records to remember field by field.
MAX_LISTED = 10


def json_claims(text: str, event: Any, attribute_of: Callable[[str], str]) -> list[FactClaim]:
    """Facts of a tool result that is a JSON object about an identified entity, or that lists
    such records (a search's ``{"results": [{…}, …]}``, a rota's ``{"drivers": [{…}]}``, a bare
    array): each listed record states its own subject's facts, read when the wrapper says."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if isinstance(data, list):
        data = {"": data}
    if not isinstance(data, dict):
        return []
    found = record_claims(data, event, attribute_of)
    read_at = _read_time({k: v for k, v in data.items() if not isinstance(v, (dict, list))})
    items = [item for value in data.values() if isinstance(value, list) for item in value[:MAX_LISTED] if isinstance(item, dict)]
    rows = [value for value in data.values() if isinstance(value, dict)]
    only_where_and_when = all(_key(k) in _SOURCE_KEYS or _key(k) in _TIME_KEYS or stamp_of(v) for k, v in data.items() if not isinstance(v, dict))
    if not found and not items and len(rows) == 1 and only_where_and_when:
        # A sheet's or a database's row under its own key: {"sheet": "Shops", "row": {"shop": …}}.
        items = rows
    if items and not any(_pair_like(item) for item in items):
        for item in items:
            found += record_claims(item, event, attribute_of, listed=True, read_at=read_at)
    return found[: MAX_JSON_FIELDS * 2]


def record_claims(
    data: dict[str, Any], event: Any, attribute_of: Callable[[str], str], identity: str | None = None, method: str = "tool_result",
    *, listed: bool = False, read_at: float | None = None,
) -> list[FactClaim]:
    """Facts of one record about an identified entity (a JSON object, or a record written as
    text: ``identity`` then names the key of its subject). A ``listed`` record (one row of a
    list) is about its first field when nothing else names it, as a table's row is; ``read_at``
    is when the list it came in was read."""
    leaves = _leaves(data)
    identity = identity if identity in leaves else _identity(leaves, listed)
    if identity is None:
        return []
    leaves = _top_level_pair(leaves, identity)
    subject_name = leaves[identity].strip()
    # The environment qualifies the subject whatever its key is called ("env", "stage", "ring"),
    # and a "service/stage" target names both at once; "stable" is a ring only under a ring's key.
    qualifier = next(
        (str(v) for k, v in leaves.items()
         if k != identity and isinstance(v, str) and v.strip().casefold() in ENVIRONMENTS
         and (v.strip().casefold() not in RING_WORDS or _key(k) in _QUALIFIER_KEYS)),
        None,
    )
    head, _, tail = subject_name.rpartition("/")
    if qualifier is None and head and tail.strip().casefold() in ENVIRONMENTS:
        subject_name, qualifier = head.strip(), tail.strip()
    if qualifier:
        subject_name = f"{subject_name} {qualifier.strip()}"
    # A room or site names which one of a kind it is: {"instrument": "centrifuge", "room": "lab 2"}
    # is "centrifuge (lab 2)", never the centrifuge elsewhere.
    parent = identity.rpartition(".")[0]
    place = next(
        (k for k, v in leaves.items() if k != identity and isinstance(v, str) and v.strip()
         and (_key(k) in _PLACE_KEYS or parent and k.startswith(parent + ".") and _key(k) in _WRAPPER_PLACES)),
        None,
    )
    if place is not None:
        where = leaves.pop(place).strip()
        # An asset tag that already says where ("North Yard/reach truck", site "North Yard")
        # names it once: "reach truck (North Yard)".
        head, _, tail = subject_name.rpartition("/")
        if head.strip().casefold() == where.casefold() and tail.strip():
            subject_name = tail.strip()
        subject_name = f"{subject_name} ({where})"
    subject = canonical_subject(subject_name)
    if subject is None:
        return []
    reference = event.ts.timestamp()
    valid_from = _read_time(leaves) or read_at
    found = []
    for key, value in leaves.items():
        name = _key(key)
        if key == identity or name in _JSON_SKIP or name.endswith("_type") or name in _QUALIFIER_KEYS and qualifier or value is None:
            continue
        if _TIMESTAMP_KEY.search(name) or stamp_of(value) is not None:
            continue  # when the record was read, not a property of its subject
        if qualifier and isinstance(value, str) and value.strip().casefold() == qualifier.strip().casefold():
            continue
        text_value = str(value).lower() if isinstance(value, bool) else str(value)
        if not text_value.strip() or len(text_value) > 100:
            continue
        attribute = attribute_of(name)
        found.append(
            FactClaim(subject, subject_name, attribute, clean(text_value), 0.9 * float(event.confidence),
                      method, valid_from if valid_from and valid_from <= reference + 300 else None)
        )
        if len(found) == MAX_JSON_FIELDS:
            break
    return found



def _pair_like(item: dict[str, Any]) -> bool:
    """An item of an attribute or change list ({"attr": "gym", "old": "A"}), read by ``_leaves``
    or not at all, never as a record of its own."""
    return any(k.casefold() in _PAIR_KEYS for k in item)


_PAIR_KEYS = frozenset(NEW_SIDES + OLD_SIDES + PAIR_NAMES) - {"name"}


def _read_time(leaves: dict[str, Any]) -> float | None:
    """When a record was read: its time key's value, else the first date-time among its fields."""
    named = next((t for t in (timestamp_of(v) for k, v in leaves.items() if _key(k) in _TIME_KEYS) if t), None)
    return named if named is not None else next((t for t in (stamp_of(v) for v in leaves.values()) if t), None)


def _key(path: str) -> str:
    return path.rsplit(".", 1)[-1].casefold()


def _leaves(data: dict[str, Any], prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """Scalar fields of a JSON object, nested objects flattened (two levels): "record.name"."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and (diff := new_side(value))[0]:
            out[path] = diff[1]  # {"vehicle": {"from": A, "to": B}}: the vehicle is B
        elif isinstance(value, dict) and depth < 2 and key.casefold() not in _JSON_SKIP:
            out.update(_leaves(value, f"{path}.", depth + 1))
        elif isinstance(value, list) and depth < 2:
            # Entity-attribute-value and change records: [{"name": "home_town", "value": "Riga"}],
            # [{"attr": "gym", "old": "A", "now": "B"}].
            for item in value[:MAX_JSON_FIELDS]:
                found = pair(item) if isinstance(item, dict) else None
                if found is not None:
                    out[f"{path}.{found[0]}"] = found[1]
        elif not isinstance(value, (dict, list)):
            out[path] = value
    return out


_PAIR_NAMES = PAIR_NAMES
_PAIR_VALUES = ("value", "val")


def _top_level_pair(leaves: dict[str, Any], identity: str) -> dict[str, Any]:
    """A record that is itself one attribute of its subject ({"employee": "Rosa", "field":
    "gp", "value": "Dr. Ito", "read": "…"}) states ``gp = Dr. Ito``; without this, "field" and
    "value" would be two attributes, and every such record about one subject the same two slots."""
    names = [k for k in leaves if k != identity and "." not in k and k.casefold() in _PAIR_NAMES and isinstance(leaves[k], str)]
    values = [k for k in leaves if "." not in k and k.casefold() in _PAIR_VALUES and not isinstance(leaves[k], (dict, list))]
    if not names or not values:
        return leaves
    if len(names) != 1 or len(values) != 1 or not leaves[names[0]].strip():
        # Which name the value belongs to is unclear: none of these fields makes a fact.
        return {k: v for k, v in leaves.items() if k not in names and k not in values}
    rest = {k: v for k, v in leaves.items() if k not in (names[0], values[0])}
    rest[leaves[names[0]].strip()] = leaves[values[0]]
    return rest


_STAMP = re.compile(
    r"^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{4})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?$"
)
# ISO 8601's basic format, as logs and pollers write it: 20260118T1104Z, 20260118T110400+0100.
_BASIC_STAMP = re.compile(r"^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(?:\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$")


def stamp_of(value: Any) -> float | None:
    """Unix seconds of a date-time string ("2026/03/04 10:00", "31.12.2025 13:43", ISO); None
    for anything else (a plain date such as a deadline is a value, not a stamp, unless it has a time)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    basic = _BASIC_STAMP.match(text)
    if basic:
        try:
            return datetime(*(int(part) for part in basic.groups()), tzinfo=UTC).timestamp()
        except ValueError:
            return None
    if not _STAMP.match(text):
        return None
    parts = re.findall(r"\d+", text)
    if len(parts) < 5:
        return None  # a date without a time of day is more often a value (a deadline) than a read stamp
    a, b, c = int(parts[0]), int(parts[1]), int(parts[2])
    year, month, day = (a, b, c) if a > 31 else (c, b, a)
    try:
        return datetime(year, month, day, int(parts[3]), int(parts[4]), tzinfo=UTC).timestamp()
    except ValueError:
        return None


# Keys that name what a JSON object is about, most specific first; any "…name" or "…_id" key too.
# A person's key comes before a unit's: {"employee": "Petra", "group": "perimeter crew"} is about
# Petra, whose group it names.
_IDENTITY_KEYS = ("name", "id", "service", "svc", "app", "application", "project", "user", "username", "person",
                  "employee", "customer", "respondent", "team", "squad", "group", "entity", "subject", "host",
                  "hostname", "repo", "device", "applies_to")
_PLACE_KEYS = frozenset({"room", "site", "building", "floor", "wing", "ward", "bay", "zone", "lab"})
# Beside a name in its wrapper, a location says which one it is, not where it moved.
_WRAPPER_PLACES = _PLACE_KEYS | {"location", "place"}
_QUALIFIER_KEYS = frozenset({"environment", "env", "stage", "tier", "deployment", "cluster", "ring", "channel"})
_TIME_KEYS = frozenset({"as_of", "checked_at", "observed_at", "updated_at", "timestamp", "fetched_at", "retrieved",
                        "retrieved_at", "read_at", "time", "date"})
_TIMESTAMP_KEY = re.compile(r"(?:^|_)(?:at|on|ts|time|timestamp|retrieved|fetched)$")


def _identity(leaves: dict[str, Any], listed: bool = False) -> str | None:
    named = [k for k, v in leaves.items() if isinstance(v, str) and v.strip()]
    for wanted in _IDENTITY_KEYS:
        for key in named:
            if _key(key) == wanted:
                return key
    first = next(iter(leaves), None)
    # A record that opens with a name is about it; a nested "…name" is then one of its values
    # ({"initiative": "Bluebird", "card": {"champion_name": "Brams"}}).
    opens_named = first is not None and "." not in first and first in named and _name_like(leaves[first]) and _key(first) not in ATTRIBUTES
    for key in named:
        k = _key(key)
        if k.endswith(("name", "_id")) and k not in _JSON_SKIP and not ("." in key and opens_named):
            return key
    if listed and first in named and len(leaves) > 1:
        # A row of a list is about its first field, as a table's row is: {"equipment_class":
        # "reach truck", "maintenance_contractor": "Apex"}.
        value = leaves[first].strip()
        if len(value.split()) <= 5 and stamp_of(value) is None and value.casefold() not in ENVIRONMENTS and _key(first) not in ATTRIBUTES:
            return first
    # Else the record is about its first named field ({"programme": "Orion", "data": …}), when
    # that field is no attribute, no time and no environment.
    # A one-field wrapper names it too: {"award": {"study": "DELPHI"}, "budget_holder": …}.
    # So does one with where it is: {"asset": {"type": "kiosk", "location": "west wing"}, …}.
    wrapped = first is not None and first.count(".") == 1 and all(
        k == first or _key(k) in _WRAPPER_PLACES for k in leaves if k.startswith(first.split(".")[0] + ".")
    )
    if first is not None and first in named and ("." not in first or wrapped) and stamp_of(leaves[first]) is None and _key(first) not in _SOURCE_KEYS:
        value = leaves[first].strip()
        # "centrifuge (upstairs lab)": a thing named with where it is, as one string.
        placed = wrapped and sum(k.startswith(first.split(".")[0] + ".") for k in leaves) > 1
        name_like = _name_like(value) or placed
        # The payload sits under it ({"target": …, "result": {…}}), or beside it in a record read
        # at a time ({"site": "Old Mill office", "fire_warden": "Tarek", "polled": "20251210T0925Z"}).
        nested = wrapped or any("." in k for k in leaves) or len(leaves) >= 3 and _read_time(leaves) is not None
        if nested and name_like and len(value.split()) <= 5 and value.casefold() not in ENVIRONMENTS and _key(first) not in ATTRIBUTES:
            return first
    return None


_COMPOSITE = re.compile(r"^[\w][\w .-]{0,40}\(\s*[\w][\w .-]{0,30}\)$")


def _name_like(value: str) -> bool:
    value = value.strip()
    return value[:1].isupper() or "-" in value or "/" in value or _COMPOSITE.match(value) is not None


# Keys that say where a record came from (its sheet, form or table), not what it is about.
_SOURCE_KEYS = frozenset({"sheet", "worksheet", "form", "table", "database", "collection"})
_JSON_SKIP = _SOURCE_KEYS | frozenset(
    {"as_of", "checked_at", "observed_at", "updated_at", "created_at", "timestamp", "ts", "time", "date", "message",
     "description", "details", "detail", "error", "errors", "url", "link", "type", "kind", "note", "notes", "text"}
)


