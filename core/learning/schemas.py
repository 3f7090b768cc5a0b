"""Schemas as stored: materialised from outcomes, edited, rolled back, exported and imported.

A schema's versions are append-only (``dc_schemas``); the highest is current. ``schema_update``
and ``schema_rollback`` (which copies an older version's body) add a version, so every change
can be undone. The reliability a schema reports is read live from this store's episodes.

**Bundles.** ``schema_export`` writes ``{"format": "deltacore.schemas", "version": 1,
"tenant", "exported_at", "schemas": [...], "checksum"}``, the checksum being the SHA-256 of the
canonical JSON of ``schemas``. ``schema_import`` checks format, version, checksum and every
schema before writing anything (one transaction): a corrupt or foreign bundle is refused with
the field at fault and the store is unchanged. Imported schemas are cold-start priors:
provenance ``PRIOR``, the utility they earned where they came from, confidence
:data:`PRIOR_CONFIDENCE`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from typing import Any

from deltacore.errors import InvalidQueryError, NotFoundError
from deltacore.learning.episodes import Trace, schema_id_of
from deltacore.learning.evidence import prior_of
from deltacore.learning.recall import PlanRecall
from deltacore.model.plans import Schema, SchemaStep, Slot
from deltacore.storage.database import Database
from deltacore.storage.plan_store import PlanRepository
from pydantic import ValidationError

BUNDLE_FORMAT = "deltacore.schemas"
BUNDLE_VERSION = 1
PRIOR_CONFIDENCE = 0.3
MAX_EXAMPLES = 5
"""Task texts and situations kept per schema (for similarity and slot filling without episodes)."""
UPDATABLE = (
    "steps",
    "slots",
    "utility",
    "confidence",
    "kind",
    "text_templates",
    "situations",
    "disabled",
    "note",
    "provenance",
)


class SchemaBook:
    def __init__(
        self, database: Database, plans: PlanRepository, recall: PlanRecall
    ) -> None:
        self._database = database
        self._plans = plans
        self._recall = recall

    # ---- learned schemas ------------------------------------------------------------------------

    def after_outcome(self, tenant: str, episode_id: str) -> str | None:
        """Materialise the episode's pattern as a schema (version 1) when it is new; its id."""
        with self._database.writer() as conn:
            traces = self._recall.traces(conn, tenant, episode_ids=[episode_id])
            if not traces or not traces[0].plan:
                return None
            trace = traces[0]
            if trace.schema_id in self._plans.known_schema_ids(conn, tenant):
                return trace.schema_id
            self._plans.add_schema_version(
                conn, tenant, trace.schema_id, 1, "LEARNED", body_of(trace)
            )
        return trace.schema_id

    # ---- reading ----------------------------------------------------------------------------------

    def get(self, schema_id: str, tenant: str) -> Schema:
        with self._database.reader() as conn:
            rows = self._plans.schema_versions(conn, tenant, schema_id)
            if not rows:
                raise NotFoundError(f"no schema {schema_id!r} in tenant {tenant!r}")
            stats = self._stats(conn, tenant).get(schema_id)
        return _record(rows[-1], tenant, stats)

    def _stats(self, conn: Any, tenant: str) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for trace in self._recall.traces(conn, tenant):
            entry = found.setdefault(
                trace.schema_id,
                {"successes": 0, "failures": 0, "transient_failures": 0, "traces": []},
            )
            key = {
                "success": "successes",
                "failure": "failures",
                "transient": "transient_failures",
            }[trace.status]
            entry[key] += 1
            entry["traces"].append(trace)
        return found

    # ---- changing -------------------------------------------------------------------------------

    def update(self, schema_id: str, tenant: str, changes: Mapping[str, Any]) -> Schema:
        unknown = sorted(set(changes) - set(UPDATABLE))
        if unknown:
            raise InvalidQueryError(
                unknown[0],
                f"not a schema field that can be changed; use {', '.join(UPDATABLE)}",
            )
        if not changes:
            raise InvalidQueryError(
                "changes", f"say what to change ({', '.join(UPDATABLE)})"
            )
        with self._database.writer() as conn:
            rows = self._plans.schema_versions(conn, tenant, schema_id)
            if not rows:
                raise NotFoundError(f"no schema {schema_id!r} in tenant {tenant!r}")
            body = dict(rows[-1]["body"])
            provenance = str(changes.get("provenance", rows[-1]["provenance"]))
            for key, value in changes.items():
                if key != "provenance":
                    body[key] = value
            body = _checked_body(body, "changes")
            if provenance not in ("LEARNED", "PRIOR"):
                raise InvalidQueryError("provenance", "must be 'LEARNED' or 'PRIOR'")
            self._plans.add_schema_version(
                conn,
                tenant,
                schema_id,
                rows[-1]["version"] + 1,
                provenance,
                body,
                note=body.get("note"),
            )
        return self.get(schema_id, tenant)

    def rollback(self, schema_id: str, tenant: str, version: int) -> Schema:
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise InvalidQueryError(
                "version", f"must be a version number (1 or more), got {version!r}"
            )
        with self._database.writer() as conn:
            rows = self._plans.schema_versions(conn, tenant, schema_id)
            if not rows:
                raise NotFoundError(f"no schema {schema_id!r} in tenant {tenant!r}")
            old = next((row for row in rows if row["version"] == version), None)
            if old is None:
                raise InvalidQueryError(
                    "version",
                    f"schema {schema_id!r} has versions 1-{rows[-1]['version']}, not {version}",
                )
            self._plans.add_schema_version(
                conn,
                tenant,
                schema_id,
                rows[-1]["version"] + 1,
                old["provenance"],
                dict(old["body"]),
                note=f"rollback to {version}",
            )
        return self.get(schema_id, tenant)

    # ---- bundles --------------------------------------------------------------------------------

    def export(self, tenant: str) -> dict[str, Any]:
        with self._database.reader() as conn:
            rows = self._plans.current_schemas(conn, tenant)
            stats = self._stats(conn, tenant)
        items = []
        for schema_id in sorted(rows):
            record = _record(rows[schema_id], tenant, stats.get(schema_id))
            body = dict(rows[schema_id]["body"])
            entry = stats.get(schema_id)
            if entry and entry["traces"]:
                # What this store learned travels with the schema: its success rate and examples.
                body["utility"] = round(record.reliability["probability"], 6)
                body["text_templates"] = merge_examples(
                    body.get("text_templates", []),
                    [t.text_template for t in entry["traces"] if t.text_template],
                )
                body["situations"] = merge_examples(
                    body.get("situations", []),
                    [t.situation.describe() for t in entry["traces"]],
                )
            items.append(
                {
                    "schema_id": schema_id,
                    "version": record.version,
                    "provenance": record.provenance,
                    "reliability": record.reliability,
                    "body": body,
                }
            )
        return {
            "format": BUNDLE_FORMAT,
            "version": BUNDLE_VERSION,
            "tenant": tenant,
            "exported_at": time.time(),
            "schemas": items,
            "checksum": checksum(items),
        }

    def import_bundle(self, bundle: Any, tenant: str, provenance: str) -> int:
        if provenance not in ("LEARNED", "PRIOR"):
            raise InvalidQueryError(
                "provenance", "must be 'PRIOR' (cold-start knowledge) or 'LEARNED'"
            )
        items = check_bundle(bundle)
        with self._database.writer() as conn:
            current = self._plans.current_schemas(conn, tenant)
            for item in items:
                body = dict(item["body"])
                if provenance == "PRIOR":
                    body["confidence"] = PRIOR_CONFIDENCE
                version = (
                    current[item["schema_id"]]["version"] + 1
                    if item["schema_id"] in current
                    else 1
                )
                self._plans.add_schema_version(
                    conn,
                    tenant,
                    item["schema_id"],
                    version,
                    provenance,
                    body,
                    note="imported",
                )
        return len(items)


def checksum(items: Any) -> str:
    return hashlib.sha256(
        json.dumps(items, sort_keys=True, separators=(",", ":"), default=str).encode()
    ).hexdigest()


def check_bundle(bundle: Any) -> list[dict[str, Any]]:
    """The bundle's schemas, each body checked; a clear error naming the field otherwise."""
    if isinstance(bundle, (str, bytes)):
        try:
            bundle = json.loads(bundle)
        except ValueError as exc:
            raise InvalidQueryError("bundle", f"is not JSON ({exc})") from exc
    if not isinstance(bundle, Mapping):
        raise InvalidQueryError(
            "bundle", "must be the dict schema_export returned (or its JSON)"
        )
    if bundle.get("format") != BUNDLE_FORMAT:
        raise InvalidQueryError(
            "bundle.format", f"must be {BUNDLE_FORMAT!r}, got {bundle.get('format')!r}"
        )
    if bundle.get("version") != BUNDLE_VERSION:
        raise InvalidQueryError(
            "bundle.version",
            f"this DeltaCore reads schema bundles of version {BUNDLE_VERSION}, got {bundle.get('version')!r}",
        )
    items = bundle.get("schemas")
    if not isinstance(items, list):
        raise InvalidQueryError("bundle.schemas", "must be a list of schemas")
    if bundle.get("checksum") != checksum(items):
        raise InvalidQueryError(
            "bundle.checksum",
            "does not match the schemas: the bundle is corrupt or was edited; export it again",
        )
    checked = []
    for index, item in enumerate(items):
        where = f"bundle.schemas[{index}]"
        if (
            not isinstance(item, Mapping)
            or not isinstance(item.get("schema_id"), str)
            or not isinstance(item.get("body"), Mapping)
        ):
            raise InvalidQueryError(
                where, "each schema needs a 'schema_id' string and a 'body' mapping"
            )
        checked.append(
            {
                "schema_id": item["schema_id"],
                "body": _checked_body(dict(item["body"]), f"{where}.body"),
            }
        )
    return checked


def _checked_body(body: dict[str, Any], where: str) -> dict[str, Any]:
    try:
        steps = [SchemaStep.model_validate(s) for s in body.get("steps") or ()]
        slots = [Slot.model_validate(s) for s in body.get("slots") or ()]
    except (ValidationError, TypeError) as exc:
        raise InvalidQueryError(
            f"{where}.steps",
            f"steps must be {{tool, template, read_only}} and slots {{name, source}}: {exc}",
        ) from exc
    if not steps:
        raise InvalidQueryError(f"{where}.steps", "a schema needs at least one step")
    for key in ("utility", "confidence"):
        value = body.get(key, 0.5 if key == "utility" else 0.0)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not 0.0 <= value <= 1.0
            or (key == "confidence" and value >= 1)
        ):
            raise InvalidQueryError(
                f"{where}.{key}",
                f"must be a number in [0, 1{']' if key == 'utility' else ')'}, got {value!r}",
            )
    body["steps"] = [s.model_dump() for s in steps]
    body["slots"] = [s.model_dump() for s in slots]
    body["text_templates"] = [str(t) for t in body.get("text_templates") or ()]
    body["situations"] = [
        dict(s) for s in body.get("situations") or () if isinstance(s, Mapping)
    ]
    body["disabled"] = bool(body.get("disabled", False))
    return body


def body_of(trace: Trace) -> dict[str, Any]:
    return {
        "steps": [
            {"tool": c.tool, "template": t, "read_only": c.read_only}
            for c, t in zip(trace.plan, trace.templates)
        ],
        "slots": [
            s.model_copy(update={"value": None}).model_dump() for s in trace.slots
        ],
        "utility": 0.5,
        "confidence": 0.0,
        "kind": trace.situation.kind,
        "text_templates": [trace.text_template] if trace.text_template else [],
        "situations": [trace.situation.describe()],
        "disabled": False,
    }


def _record(
    row: Mapping[str, Any], tenant: str, stats: Mapping[str, Any] | None
) -> Schema:
    body = row["body"]
    a0, b0 = prior_of(body.get("utility", 0.5), body.get("confidence", 0.0))
    s = stats or {}
    successes, failures = int(s.get("successes", 0)), int(s.get("failures", 0))
    alpha, beta = a0 + successes, b0 + failures
    return Schema(
        schema_id=row["schema_id"],
        tenant=tenant,
        version=int(row["version"]),
        steps=tuple(SchemaStep.model_validate(x) for x in body.get("steps", ())),
        slots=tuple(Slot.model_validate(x) for x in body.get("slots", ())),
        utility=float(body.get("utility", 0.5)),
        confidence=float(body.get("confidence", 0.0)),
        provenance=row["provenance"],
        reliability={
            "successes": float(successes),
            "failures": float(failures),
            "transient_failures": float(s.get("transient_failures", 0)),
            "alpha": alpha,
            "beta": beta,
            "probability": alpha / (alpha + beta),
        },
        kind=body.get("kind"),
        text_templates=tuple(body.get("text_templates", ())),
        situations=tuple(body.get("situations", ())),
        disabled=bool(body.get("disabled", False)),
        note=row.get("note"),
        created=float(row["created"]),
        support=dict(body["support"]) if isinstance(body.get("support"), Mapping) else None,
        merged_from=tuple(dict(m) for m in body.get("merged_from") or () if isinstance(m, Mapping)),
        merged_into=body.get("merged_into") if isinstance(body.get("merged_into"), str) else None,
    )


def merge_examples(old: list[Any], new: list[Any]) -> list[Any]:
    merged: list[Any] = []
    for item in [*new[::-1], *old]:
        if item not in merged:
            merged.append(item)
    return merged[:MAX_EXAMPLES]


__all__ = ["SchemaBook", "body_of", "check_bundle", "checksum", "merge_examples", "schema_id_of"]
