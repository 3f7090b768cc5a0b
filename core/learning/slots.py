"""Slots: which argument values came from the task, as placeholders, and filling them for a new task.

Pure functions. An argument value equal to a structured field of the task becomes
``{field}``; equal to the task's entity, ``{entity}``; a date a fixed number of days from a date
the task names, ``{<field>+Nd}`` (a relative date stays relative); a value the task's text
contains as a whole word, a text slot named after the argument. Everything else is a constant.
The task text with those values replaced (``"deploy {service} to {env}"``) is a *text template*:
how a new task's text fills the slots when it has no structured fields.

>>> from deltacore.learning.situations import Situation
>>> templates, slots, text = abstract_calls([("deploy", {"service": "auth", "env": "prod", "wait": 30})],
...                                          Situation("deploy auth to prod"))
>>> templates, [s.name for s in slots], text
([{'service': '{service}', 'env': '{env}', 'wait': 30}], ['service', 'env'], 'deploy {service} to {env}')
>>> fill_slots(slots, Situation("deploy billing to staging"), [text])["service"]
'billing'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from deltacore.delta.migration import json_type
from deltacore.learning.situations import Situation, parse_date, task_dates
from deltacore.model.plans import Slot

MIN_TEXT_VALUE = 2
"""Shortest string that is matched against the task text (a single letter collides by chance)."""
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "do",
        "for",
        "from",
        "if",
        "in",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "so",
        "the",
        "to",
        "up",
        "we",
        "yes",
        "all",
        "any",
        "new",
        "old",
        "off",
        "one",
    ]
)
MAX_DATE_OFFSET = 366
_PLACEHOLDER = re.compile(r"^\{([^{}]+)\}$")


def abstract_calls(
    calls: Sequence[tuple[str, Mapping[str, Any] | None]], situation: Situation
) -> tuple[list[dict[str, Any]], list[Slot], str | None]:
    """``(templates, slots, text template)`` of an episode's calls in its task's situation."""
    slots: dict[str, Slot] = {}
    by_value: dict[tuple[str, str], str] = {}  # (source, normalised value) -> slot name
    fields = {_norm(v): name for name, v in situation.fields.items() if _scalar(v)}
    dates = task_dates(situation)
    text = situation.text or ""

    def slot_for(key: str, value: Any) -> str | None:
        if not _scalar(value):
            return None
        norm = _norm(value)
        if not norm:
            return None
        found: tuple[str, str, int | None] | None = None
        if norm in fields:
            found = (fields[norm], f"field:{fields[norm]}", None)
        elif situation.entity and norm == _norm(situation.entity):
            found = ("entity", "entity", None)
        elif (when := parse_date(value)) is not None and dates:
            name, base = min(
                dates.items(),
                key=lambda item: (
                    abs((when - item[1]).days),
                    item[0].startswith("text#"),
                ),
            )
            offset = (when - base).days
            if abs(offset) <= MAX_DATE_OFFSET:
                found = (
                    name if offset == 0 else f"{name}{offset:+d}d",
                    f"date_offset:{name}",
                    offset,
                )
        elif _text_candidate(value, norm) and _in_text(norm, text):
            found = (key, "text", None)
        if found is None:
            return None
        name, source, offset = found
        existing = by_value.get((source, norm))
        if existing is not None:
            return existing
        base_name, n = name, 2
        while name in slots:
            name, n = f"{base_name}_{n}", n + 1
        by_value[(source, norm)] = name
        slots[name] = Slot(
            name=name,
            source=source,
            value=value,
            offset_days=offset,
            value_type=json_type(value),
        )
        return name

    def walk(key: str, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {str(k): walk(str(k), v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [walk(key, v) for v in value]
        name = slot_for(key, value)
        return value if name is None else "{" + name + "}"

    templates = [walk("", dict(args or {})) for _, args in calls]
    return templates, list(slots.values()), text_template(text, list(slots.values()))


def text_template(text: str, slots: Sequence[Slot]) -> str | None:
    """The task text with each slot's value (where it occurs as a whole word) replaced by ``{name}``."""
    if not text:
        return None
    result = text
    for slot in sorted(slots, key=lambda s: -len(str(s.value))):
        if (
            slot.value is None
            or not _scalar(slot.value)
            or slot.source.startswith("date_offset")
            and slot.offset_days
        ):
            continue
        pattern = re.compile(
            rf"(?<![\w{{]){re.escape(str(slot.value))}(?![\w}}])", re.IGNORECASE
        )
        result = pattern.sub("{" + slot.name + "}", result, count=1)
    return result if result != text else None


def fill_slots(
    slots: Sequence[Slot], situation: Situation, templates: Sequence[str]
) -> dict[str, Any]:
    """``slot name -> value`` for a new task (None when the task does not say it). Structured
    sources first (field, entity, task date), then the text templates, most similar task first."""
    from_text: dict[str, str] = {}
    for template in templates:
        for name, value in match_template(template, situation.text or "").items():
            from_text.setdefault(name, value)
    dates = task_dates(situation)
    filled: dict[str, Any] = {}
    for slot in slots:
        value: Any = None
        if slot.source.startswith("field:"):
            value = situation.fields.get(slot.source[len("field:") :])
        elif slot.source == "entity":
            value = situation.entity
        elif slot.source.startswith("date_offset:"):
            base = dates.get(slot.source[len("date_offset:") :])
            if base is None and dates:
                base = next(iter(dates.values())) if len(dates) == 1 else None
            if base is not None:
                value = (base + timedelta(days=slot.offset_days or 0)).isoformat()
        if value is None and slot.name in from_text:
            value = _cast(from_text[slot.name], slot.value_type)
        filled[slot.name] = value
    return filled


def fill_template(template: Any, values: Mapping[str, Any]) -> Any:
    """The template with every ``"{slot}"`` replaced by its value (a missing value stays None)."""
    if isinstance(template, Mapping):
        return {k: fill_template(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [fill_template(v, values) for v in template]
    if isinstance(template, str):
        match = _PLACEHOLDER.match(template)
        if match and match.group(1) in values:
            return values[match.group(1)]
    return template


def template_slots(template: Any) -> set[str]:
    """The slot names a template uses."""
    if isinstance(template, Mapping):
        return {name for v in template.values() for name in template_slots(v)}
    if isinstance(template, list):
        return {name for v in template for name in template_slots(v)}
    if isinstance(template, str) and (match := _PLACEHOLDER.match(template)):
        return {match.group(1)}
    return set()


_SLOT_IN_TEXT = re.compile(r"\{([^{}]+)\}")
_EDGE = ".,;:!?\"'()[]"


def match_template(template: str, text: str) -> dict[str, str]:
    """Slot values a text gives for a text template: the whole text against the whole template
    first, else each slot between the words around it."""
    text = text.strip()
    if not template or not text:
        return {}
    names = _SLOT_IN_TEXT.findall(template)
    pieces = _SLOT_IN_TEXT.split(template)  # literal, name, literal, name, ...
    pattern = ""
    for index, piece in enumerate(pieces):
        if index % 2:
            pattern += rf"(?P<s{index // 2}>.+?)"
        else:
            pattern += (
                r"\s+".join(re.escape(word) for word in piece.split(" "))
                if piece.strip()
                else re.escape(piece)
            )
    whole = re.fullmatch(pattern, text, re.IGNORECASE | re.DOTALL)
    if whole:
        return {
            name: whole.group(f"s{i}").strip(_EDGE + " ")
            for i, name in enumerate(names)
        }
    found: dict[str, str] = {}
    for i, name in enumerate(names):
        left = pieces[2 * i].split()[-2:]
        right = pieces[2 * i + 2].split()[:1]
        if not left and not right:
            continue
        lead = r"\s+".join(map(re.escape, left)) + r"\s+" if left else r"^"
        tail = (
            r"(?=\s+" + re.escape(right[0]) + r"(?:\W|$))"
            if right and not right[0].startswith("{")
            else r"(?=[\s,;.!?]|$)"
        )
        body = r"(.+?)" if right and not right[0].startswith("{") else r"(\S+?)"
        match = re.search(lead + body + tail, text, re.IGNORECASE)
        if match:
            found[name] = match.group(1).strip(_EDGE + " ")
    return found


def _text_candidate(value: Any, norm: str) -> bool:
    if isinstance(value, (int, float)):
        return True
    return len(norm) >= MIN_TEXT_VALUE and norm not in _STOPWORDS


def _in_text(norm: str, text: str) -> bool:
    lowered = text.lower()
    return (
        norm in lowered
        and re.search(rf"(?<!\w){re.escape(norm)}(?!\w)", lowered) is not None
    )


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _norm(value: Any) -> str:
    return str(value).strip().lower()


def _cast(value: str, kind: str | None) -> Any:
    if kind == "integer" and re.fullmatch(r"[+-]?\d+", value):
        return int(value)
    if kind == "number":
        try:
            return float(value)
        except ValueError:
            return value
    return value
