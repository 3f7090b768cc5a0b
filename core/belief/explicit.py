"""A fact event's explicit fields: ``meta`` naming subject, attribute and value outright."""

from __future__ import annotations

from typing import Any


class FactFieldError(ValueError):
    """A fact event's explicit fields are incomplete (raised by :func:`explicit_fields`)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


ATTRIBUTE_KEYS = ("attribute", "predicate")
VALUE_KEYS = ("value", "object")


def explicit_fields(meta: dict[str, Any]) -> tuple[str, str, Any] | None:
    """(subject, attribute, value) of a fact event's ``meta``; None when it names none of them.

    A partial set is a caller mistake: :class:`FactFieldError` names the missing field."""
    attribute = next((meta[k] for k in ATTRIBUTE_KEYS if meta.get(k) not in (None, "")), None)
    value = next((meta[k] for k in VALUE_KEYS if meta.get(k) is not None and meta.get(k) != ""), None)
    subject = meta.get("subject")
    if subject in (None, "") and attribute is None:
        return None  # a bare ``value`` is an adapter's payload (the LangGraph store's), not a fact
    if not isinstance(subject, str) or not subject.strip():
        raise FactFieldError("meta.subject", "a fact with an attribute or value needs a subject (who or what it is about)")
    if attribute is None:
        raise FactFieldError("meta.attribute", f"the fact about {subject!r} needs an attribute (e.g. 'home city')")
    if value is None:
        raise FactFieldError("meta.value", f"the fact {subject!r} / {attribute!r} needs a value")
    if isinstance(value, (dict, list)):
        raise FactFieldError("meta.value", "must be a string, number or boolean")
    return subject, str(attribute), value
