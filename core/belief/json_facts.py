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
from typing import Any

from deltacore.belief.claims import FactClaim, timestamp_of
from deltacore.belief.lexicon import ENVIRONMENTS, canonical_subject, clean

MAX_JSON_FIELDS = 20


def json_claims(text: str, event: Any, attribute_of: Callable[[str], str]) -> list[FactClaim]:
    """Facts of a tool result that is a JSON object about an identified entity."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    leaves = _leaves(data)
    identity = _identity(leaves)
    if identity is None:
        return []
    subject_name = leaves[identity].strip()
    qualifier = next(
        (str(v) for k, v in leaves.items() if k != identity and _key(k) in _QUALIFIER_KEYS and isinstance(v, str)
         and v.strip().casefold() in ENVIRONMENTS),
        None,
    )
    if qualifier:
        subject_name = f"{subject_name} {qualifier.strip()}"
    subject = canonical_subject(subject_name)
    if subject is None:
        return []
    reference = event.ts.timestamp()
    valid_from = next(
        (t for t in (timestamp_of(v) for k, v in leaves.items() if _key(k) in _TIME_KEYS) if t),
        None,
    )
    found = []
    for key, value in leaves.items():
        name = _key(key)
        if key == identity or name in _JSON_SKIP or name in _QUALIFIER_KEYS and qualifier or value is None:
            continue
        if _TIMESTAMP_KEY.search(name):
            continue
        text_value = str(value).lower() if isinstance(value, bool) else str(value)
        if not text_value.strip() or len(text_value) > 100:
            continue
        attribute = attribute_of(name)
        found.append(
            FactClaim(subject, subject_name, attribute, clean(text_value), 0.9 * float(event.confidence),
                      "tool_result", valid_from if valid_from and valid_from <= reference + 300 else None)
        )
        if len(found) == MAX_JSON_FIELDS:
            break
    return found



def _key(path: str) -> str:
    return path.rsplit(".", 1)[-1].casefold()


def _leaves(data: dict[str, Any], prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """Scalar fields of a JSON object, nested objects flattened (two levels): "record.name"."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and depth < 2 and key.casefold() not in _JSON_SKIP:
            out.update(_leaves(value, f"{path}.", depth + 1))
        elif not isinstance(value, (dict, list)):
            out[path] = value
    return out


# Keys that name what a JSON object is about, most specific first; any "…name" or "…_id" key too.
_IDENTITY_KEYS = ("name", "id", "service", "svc", "app", "application", "project", "team", "squad", "group", "entity",
                  "subject", "user", "username", "person", "employee", "customer", "host", "hostname", "repo", "device")
_QUALIFIER_KEYS = frozenset({"environment", "env", "stage", "tier", "deployment", "cluster"})
_TIME_KEYS = frozenset({"as_of", "checked_at", "observed_at", "updated_at", "timestamp", "fetched_at", "retrieved",
                        "retrieved_at", "read_at", "time", "date"})
_TIMESTAMP_KEY = re.compile(r"(?:^|_)(?:at|on|ts|time|timestamp|retrieved|fetched)$")


def _identity(leaves: dict[str, Any]) -> str | None:
    named = [k for k, v in leaves.items() if isinstance(v, str) and v.strip()]
    for wanted in _IDENTITY_KEYS:
        for key in named:
            if _key(key) == wanted:
                return key
    for key in named:
        k = _key(key)
        if k.endswith(("name", "_id")) and k not in _JSON_SKIP:
            return key
    return None


_JSON_SKIP = frozenset(
    {"as_of", "checked_at", "observed_at", "updated_at", "created_at", "timestamp", "ts", "time", "date", "message",
     "description", "details", "detail", "error", "errors", "url", "link", "type", "kind", "note", "notes", "text"}
)


