"""Change records in tool results: which side of a diff is the value now.

A profile or audit tool often reports what changed rather than the record itself:
``{"changes": [{"attr": "salary_bank", "now": "Alder Mutual"}]}``,
``{"field": "gym", "old": "A", "new": "B"}``, ``{"vehicle": {"from": "A", "to": "B"}}``. Each
states one attribute's new value; the old side is history the slot already holds, never a
second value. A diff whose new side is missing or ambiguous states nothing.
"""

from __future__ import annotations

from typing import Any

# Keys that name the attribute of one record of a change or attribute list.
# A form's answers are pairs too: {"question": "seat", "answer": "aisle"}.
PAIR_NAMES = ("name", "field", "key", "attribute", "attr", "property", "prop", "question")
# Keys whose value is the attribute's value (now), and keys of the value it replaced.
NEW_SIDES = ("value", "val", "now", "new", "new_value", "after", "to", "current", "answer")
OLD_SIDES = ("old", "old_value", "before", "from", "was", "previous", "prev")
MAX_PAIR_KEYS = 4


def _scalar(value: Any) -> bool:
    return value is not None and not isinstance(value, (dict, list))


def new_side(item: dict[str, Any]) -> tuple[bool, Any]:
    """(True, new value) when ``item`` is a bare diff ({"old": A, "new": B}, {"from": A, "to":
    B}): nothing but one new side and at most one old side. (False, None) otherwise."""
    if not 1 <= len(item) <= 2:
        return False, None  # a diff is one new side and at most one old side
    keys = {k.casefold(): k for k in item}
    new = [keys[k] for k in NEW_SIDES if k in keys]
    old = [keys[k] for k in OLD_SIDES if k in keys]
    if len(new) != 1 or len(old) > 1 or len(item) != len(new) + len(old) or not old and new[0].casefold() not in ("now", "new", "after", "new_value"):
        return False, None
    value = item[new[0]]
    return (True, value) if _scalar(value) else (False, None)


def pair(item: dict[str, Any]) -> tuple[str, Any] | None:
    """(attribute name, value now) of one record of an attribute or change list ({"name":
    "home_town", "value": "Riga"}, {"attr": "gym", "old": "A", "now": "B"}); None when the
    record is anything else or says its new value twice."""
    if len(item) > MAX_PAIR_KEYS:
        return None
    keys = {k.casefold(): k for k in item}
    names = [keys[k] for k in PAIR_NAMES if k in keys and isinstance(item[keys[k]], str) and item[keys[k]].strip()]
    if len(names) != 1:
        return None
    rest = {k: v for k, v in item.items() if k != names[0]}
    values = [k for k in rest if k.casefold() in NEW_SIDES]
    olds = [k for k in rest if k.casefold() in OLD_SIDES]
    if len(values) != 1 or len(rest) != 1 + len(olds) or len(olds) > 1 or not _scalar(rest[values[0]]):
        return None
    return item[names[0]].strip(), rest[values[0]]
