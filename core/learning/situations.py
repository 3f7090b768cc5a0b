"""The situation a plan is used in: the task (text and structured fields) and how alike two are.

Pure functions. A task is its text, optionally with structured fields (``meta["task"]`` on the
episode's first user message, or the mapping given to ``recall_plans``): ``kind``, ``fields``,
``entity``, ``tags``, ``attributes``. Similarity is what evidence is pooled by: a plan learned
on one entity speaks for another in proportion to how alike their situations are.

>>> a = Situation("deploy billing-api", kind="deploy", attributes={"tier": "web"})
>>> b = Situation("deploy auth", kind="deploy", attributes={"tier": "web"})
>>> round(situation_similarity(a, b, text_cosine=0.5), 3)
0.833
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cached_property
from typing import Any

from deltacore.errors import InvalidQueryError

TASK_KEYS = ("text", "kind", "fields", "entity", "tags", "attributes")


@dataclass(frozen=True)
class Situation:
    text: str
    kind: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    entity: str | None = None
    tags: tuple[str, ...] = ()
    attributes: dict[str, Any] = field(default_factory=dict)

    def features(self) -> frozenset[str]:
        return self._features

    @cached_property
    def _features(self) -> frozenset[str]:
        """Attribute, tag and field tokens (``attr:engine=postgres``, ``tag:prod``,
        ``field:env=production``) for set similarity. Fields naming the entity and dates are left
        out: they differ from task to task by construction."""
        found = {
            f"attr:{k}={_norm(v)}" for k, v in self.attributes.items() if v is not None
        }
        found |= {f"tag:{_norm(t)}" for t in self.tags}
        entity = _norm(self.entity) if self.entity else None
        found |= {
            f"field:{k}={_norm(v)}"
            for k, v in self.fields.items()
            if isinstance(v, (str, int, float)) and not isinstance(v, bool)
            and _norm(v) != entity and parse_date(v) is None
        }  # fmt: skip
        return frozenset(found)

    def split_values(self) -> dict[str, str]:
        return self._split_values

    @cached_property
    def _split_values(self) -> dict[str, str]:
        """The situation's values a pattern's outcomes may split on (``attr:<k>``, ``tag:<t>``,
        ``field:<k>``, ``entity``, ``kind``)."""
        found = {
            f"attr:{k}": _norm(v) for k, v in self.attributes.items() if v is not None
        }
        for token in self.features():
            if token.startswith("field:"):
                key, _, value = token.partition("=")
                found[key] = value
        found.update({f"tag:{_norm(t)}": "yes" for t in self.tags})
        if self.entity:
            found["entity"] = _norm(self.entity)
        if self.kind:
            found["kind"] = _norm(self.kind)
        return found

    def describe(self) -> dict[str, Any]:
        """As stored in a schema's ``situations``."""
        return {
            "text": self.text,
            "kind": self.kind,
            "fields": dict(self.fields),
            "entity": self.entity,
            "tags": list(self.tags),
            "attributes": dict(self.attributes),
        }


def situation_of(task: Any, *, field_name: str = "task") -> Situation:
    """The situation a caller describes: task text, or a mapping with ``text`` and the structured keys."""
    if isinstance(task, str):
        if not task.strip():
            raise InvalidQueryError(
                field_name,
                "describe the task (a non-empty string or a mapping with 'text')",
            )
        return Situation(task.strip())
    if not isinstance(task, Mapping):
        raise InvalidQueryError(
            field_name,
            f"must be the task text or a mapping with 'text', got {type(task).__name__}",
        )
    unknown = sorted(set(task) - set(TASK_KEYS))
    if unknown:
        raise InvalidQueryError(
            f"{field_name}.{unknown[0]}",
            f"unknown task key; use {', '.join(TASK_KEYS)}",
        )
    text = task.get("text")
    if text is not None and not isinstance(text, str):
        raise InvalidQueryError(f"{field_name}.text", "must be a string")
    situation = _from_mapping(task, text or "", field_name)
    if (
        not situation.text
        and not situation.fields
        and not situation.entity
        and not situation.kind
    ):
        raise InvalidQueryError(
            field_name, "give the task's text or its structured fields"
        )
    return situation


def situation_from_event(text: str | None, meta: Mapping[str, Any] | None) -> Situation:
    """The situation an episode's first user message recorded (lenient: bad structure is ignored)."""
    structured = (meta or {}).get("task")
    if isinstance(structured, Mapping):
        try:
            return _from_mapping(structured, (text or "").strip(), "meta.task")
        except InvalidQueryError:
            pass
    return Situation((text or "").strip())


def situation_from_description(data: Mapping[str, Any]) -> Situation:
    """The situation a schema stored with :meth:`Situation.describe`."""
    return Situation(
        text=str(data.get("text") or ""),
        kind=data.get("kind"),
        fields=dict(data.get("fields") or {}),
        entity=data.get("entity"),
        tags=tuple(data.get("tags") or ()),
        attributes=dict(data.get("attributes") or {}),
    )


def _from_mapping(task: Mapping[str, Any], text: str, name: str) -> Situation:
    fields = task.get("fields") or {}
    attributes = task.get("attributes") or {}
    tags = task.get("tags") or ()
    if not isinstance(fields, Mapping):
        raise InvalidQueryError(
            f"{name}.fields", "must be a mapping of field name to value"
        )
    if not isinstance(attributes, Mapping):
        raise InvalidQueryError(
            f"{name}.attributes", "must be a mapping of attribute name to value"
        )
    if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
        raise InvalidQueryError(f"{name}.tags", "must be a list of strings")
    kind, entity = task.get("kind"), task.get("entity")
    for key, value in (("kind", kind), ("entity", entity)):
        if value is not None and not isinstance(value, str):
            raise InvalidQueryError(f"{name}.{key}", "must be a string")
    return Situation(
        text=(task.get("text") or text or "").strip(),
        kind=kind or None,
        fields={str(k): v for k, v in fields.items()},
        entity=entity or None,
        tags=tuple(tags),
        attributes={str(k): v for k, v in attributes.items()},
    )


W_KIND, W_FEATURES, W_TEXT, W_ENTITY = 1.0, 1.0, 1.0, 2.0
"""Weights of the similarity's parts (only the parts both situations have count). The same
entity counts most: what worked for this very entity is the best evidence there is; another
entity's outcome still counts, at the weight its kind, attributes and text earn it."""


def situation_similarity(
    a: Situation, b: Situation, *, text_cosine: float | None
) -> float:
    """In [0, 1]: same task kind, same entity, shared attributes, tags and fields (Jaccard), text
    cosine; averaged over the parts both situations describe (0 when they share none). Different
    kinds never pass 0.5."""
    parts: list[tuple[float, float]] = []
    if a.entity and b.entity:
        parts.append((W_ENTITY, 1.0 if _norm(a.entity) == _norm(b.entity) else 0.0))
    if a.kind and b.kind:
        parts.append((W_KIND, 1.0 if _norm(a.kind) == _norm(b.kind) else 0.0))
    fa, fb = a.features(), b.features()
    if fa and fb:
        parts.append((W_FEATURES, len(fa & fb) / len(fa | fb)))
    if text_cosine is not None and a.text and b.text:
        parts.append((W_TEXT, min(1.0, max(0.0, float(text_cosine)))))
    if not parts:
        # Nothing to compare (an episode whose task was never recorded, or was quarantined):
        # it says nothing about this task, rather than counting at even odds for every task.
        return 0.0
    value = sum(w * v for w, v in parts) / sum(w for w, _ in parts)
    if a.kind and b.kind and _norm(a.kind) != _norm(b.kind):
        value = min(value, 0.5)
    return value


_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?\b")


def parse_date(value: Any) -> date | None:
    """A date the value is (``2026-03-01``, an ISO datetime, a ``date``), else None."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        match = _DATE.fullmatch(value.strip())
        if match:
            try:
                return date.fromisoformat(match.group(1))
            except ValueError:
                return None
    return None


def task_dates(situation: Situation) -> dict[str, date]:
    """The dates a task names: its date-valued fields (by name) and dates in its text (``text#0`` …)."""
    found = {
        name: d
        for name, value in situation.fields.items()
        if (d := parse_date(value)) is not None
    }
    for index, match in enumerate(_DATE.finditer(situation.text or "")):
        try:
            found.setdefault(f"text#{index}", date.fromisoformat(match.group(1)))
        except ValueError:
            continue
    return found


def _norm(value: Any) -> str:
    return str(value).strip().lower()
