"""A seeded timeline world: fact slots whose values change over a year, the statements that
report them (in arrival order), unrelated chatter, and the questions with their ground truth.

A slot is (entity, attribute): Anna's home city, billing-api's version in production, Project
Falcon's deadline. Each changes 0 (a control slot) or 1–5 times; every value is stated when it
starts, often repeated in other words later, sometimes restated after it ended by a low-trust
source (a document, a peer agent, a newcomer), sometimes reported late (an older statement that
arrives after a newer one, with its true time). Look-alike slots sit side by side: Ana and
Anna, home and work city, staging and production. The world ends the day before ``anchor``.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from _truth.phrasings import JSON_KEYS, NOISE, OBSERVATIONS, T, TIMES, TOOL_STAMPS, TOOLS, WEATHER, WEEKDAYS, render_json, with_article
from _truth import fresh3, fresh4
from _truth.sets import BLIND, MODULES, name
from _truth.vocab import VOCABULARIES, Vocabulary

YEAR_DAYS = 365
STALE_CUTOFF_DAY = 300
"""A stale observation is last seen on or before this day (65+ days before the end); a fresh
one is seen again in the world's last two days."""
NOISE_PER_FACT = 3

REPORTERS = {
    "tune": (("Priya", "user:priya.ops"), ("Marco", "user:marco.hr"), ("Jun", "user:jun.pm")),
    "heldout": (("Tamsin", "user:tamsin.it"), ("Bodhi", "user:bodhi.people"), ("Lucia", "user:lucia.eng")),
    **{name(m): m.REPORTERS for m in MODULES},
}
LOW_TRUST = {
    "tune": (("document", "doc:team-wiki-export"), ("document", "doc:onboarding-2024.pdf"), ("peer", "agent:research-assistant")),
    "heldout": (("document", "doc:intranet-snapshot"), ("document", "doc:old-org-chart.xlsx"), ("peer", "agent:triage-helper")),
    **{name(m): m.LOW_TRUST for m in MODULES},
}
SCHEMA = {
    "tune": {"person": ("home_city", "work_city", "employer", "language", "role"), "deployment": ("status", "version", "region"),
             "service": ("owner",), "team": ("oncall",), "project": ("deadline", "lead", "project_status")},
    **{name(m): m.SCHEMA for m in MODULES},
}
VOCABULARIES.update({name(m): m.VOCAB for m in MODULES if hasattr(m, "VOCAB")})  # fresh's is vocab.FRESH
SALTS = {name(m): m.SEED_SALT for m in MODULES}
PERSON_VALUED = ("oncall", "lead", "sponsor", "champion") + tuple(a for m in BLIND for a in m.PERSON_VALUED)
"""Attributes whose values are the world's people."""
SELF_EXCLUDED = ("manager", "mentor") + tuple(a for m in BLIND for a in m.SELF_EXCLUDED)
"""Person-valued attributes of a person that never name the person themself."""
SCHEMA["heldout"] = SCHEMA["tune"]
"""Which attributes each kind of entity has, per template set."""
SIBLINGS = {"home_city": "work_city", "work_city": "home_city", **{k: v for m in BLIND for k, v in m.SIBLINGS.items()}}
"""Two slots of one person that look alike: an unchanged one sits next to its changed sibling."""
VERSIONED = ("version",) + tuple(a for m in BLIND for a in m.VERSIONED)
"""Attributes whose values are versions (spelled per the vocabulary's ``version_style``)."""
DATED = ("deadline", "launch_date") + tuple(a for m in BLIND for a in m.DATED)
"""Attributes whose values are future dates (in the vocabulary's ``date_format``)."""
DATE_FIELDS = {name(m): m.date_fields for m in BLIND}
"""A set's other spellings of ``{date}`` (``{date_iso}``, …)."""


@dataclass
class Slot:
    key: str
    entity_kind: str
    attribute: str
    fields: dict[str, str]
    values: list[tuple[str, datetime]] = field(default_factory=list)
    """(value, valid from), in time order; the last one is current."""
    lookalikes: list[str] = field(default_factory=list)
    stale: bool | None = None
    """Observations only: True when not re-observed since long before the end."""

    @property
    def changed(self) -> bool:
        return len(self.values) > 1

    def value_at(self, moment: datetime) -> str | None:
        current = None
        for value, start in self.values:
            if start <= moment:
                current = value
        return current


@dataclass
class Statement:
    id: str
    text: str
    ts: datetime
    arrival: datetime
    channel: str
    source: str
    actor: str
    role: str
    """origin, change, correction, as_of, repeat, reobserve, late, old_restatement or noise."""
    kind: str = "message"
    tool_name: str | None = None
    slot: str | None = None
    value: str | None = None

    def event(self) -> dict[str, object]:
        event: dict[str, object] = {"id": self.id, "text": self.text, "ts": self.ts, "actor": self.actor,
                                    "source": self.source, "role": "tool" if self.kind == "tool_result" else "user"}
        if self.kind != "message":
            event.update(kind=self.kind, tool_name=self.tool_name)
        return event


@dataclass
class Question:
    id: str
    kind: str
    """current, as_of or history."""
    slot: str
    text: str
    expected: str
    as_of: datetime | None = None


@dataclass
class World:
    template_set: str
    seed: int
    anchor: datetime
    slots: dict[str, Slot]
    statements: list[Statement]
    """In arrival order."""
    questions: list[Question]
    paraphrase_pairs: list[tuple[str, str]]
    """Two statements of the same slot and value in different words (corroboration, not conflict)."""


def default_anchor() -> datetime:
    """Today at midnight UTC: the engine judges age against the clock, so the year ends now."""
    return datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)


def build_world(template_set: str, n_slots: int, seed: int, anchor: datetime | None = None) -> World:
    if template_set not in VOCABULARIES:
        raise ValueError(f"template_set must be one of {sorted(VOCABULARIES)}, not {template_set!r}")
    if n_slots < 20:
        raise ValueError(f"n_slots must be at least 20 (one of each entity kind), got {n_slots}")
    return _Builder(template_set, n_slots, seed, anchor or default_anchor()).build()


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", ".", name.lower()).strip(".")


class _Builder:
    def __init__(self, template_set: str, n_slots: int, seed: int, anchor: datetime) -> None:
        self.set = template_set
        self.vocab: Vocabulary = VOCABULARIES[template_set]
        # The fresh sets draw from their own streams (a salted seed), not siblings of the first two.
        self.rng = random.Random(f"{seed}:{SALTS[template_set]}" if template_set in SALTS else f"{seed}:{template_set}")
        self.schema = SCHEMA[template_set]
        self.n_slots, self.seed = n_slots, seed
        self.start = anchor - timedelta(days=YEAR_DAYS)
        self.anchor = anchor
        self.statements: list[Statement] = []
        self.seen: set[tuple[str, str]] = set()
        self.worded: set[tuple[str, str, str]] = set()
        """(slot, value, text) already said: a repeat says it in other words."""
        self.pairs: list[tuple[str, str]] = []

    # ---- entities and slots ------------------------------------------------------------------

    def build(self) -> World:
        slots = self._slots()
        for slot in slots.values():
            self._timeline(slot)
        facts = len(self.statements)
        for _ in range(NOISE_PER_FACT * facts):
            self._noise()
        self.statements.sort(key=lambda s: (s.arrival, s.ts, s.id))
        questions = self._questions(slots)
        return World(self.set, self.seed, self.anchor, slots, self.statements, questions, self.pairs)

    def _slots(self) -> dict[str, Slot]:
        n = self.n_slots
        people = max(2, round(n * 0.42 / 5))
        services = max(1, round(n * 0.34 / 7))
        teams = max(1, round(n * 0.04))
        projects = max(1, (n - 5 * people - 7 * services - teams) // 3)
        names = [name for pair in self.vocab.name_pairs for name in pair]
        if people > len(names):
            names += [f"{first} {last}" for last in self.vocab.surnames for first in names][: people - len(names)]
        self.people = names[:people]
        slots: dict[str, Slot] = {}

        def add(kind: str, entity: str, attribute: str, fields: dict[str, str]) -> Slot:
            slot = Slot(f"{kind}:{entity}:{attribute}", kind, attribute, fields)
            slots[slot.key] = slot
            return slot

        for name in self.people:
            for attribute in self.schema["person"]:
                add("person", name, attribute, {"s": name})
        for i in range(services):
            service = self.vocab.services[i % len(self.vocab.services)] + (f"-{i // len(self.vocab.services) + 1}" if i >= len(self.vocab.services) else "")
            for env in self.vocab.environments:
                for attribute in self.schema["deployment"]:
                    add("deployment", f"{service}@{env}", attribute, {"svc": service, "env": env})
            for attribute in self.schema["service"]:
                add("service", service, attribute, {"svc": service})
        for team in self.vocab.teams[:teams]:
            for attribute in self.schema["team"]:
                add("team", team, attribute, {"team": team})
        for project in self.vocab.projects[:projects]:
            for attribute in self.schema["project"]:
                add("project", project, attribute, {"p": project})
        for slot in slots.values():
            slot.lookalikes = [k for k in (self._twin_key(slot),) + self._sibling_keys(slot) if k in slots]
        return slots

    def _twin_key(self, slot: Slot) -> str:
        if slot.entity_kind == "person":
            for a, b in self.vocab.name_pairs:
                name = slot.fields["s"]
                for x, y in ((a, b), (b, a)):
                    if name == x or name.startswith(x + " "):
                        return f"person:{name.replace(x, y, 1)}:{slot.attribute}"
        if slot.entity_kind == "deployment":
            first, second = self.vocab.environments
            other = second if slot.fields["env"] == first else first
            return f"deployment:{slot.fields['svc']}@{other}:{slot.attribute}"
        return ""

    def _sibling_keys(self, slot: Slot) -> tuple[str, ...]:
        if slot.entity_kind == "person" and slot.attribute in SIBLINGS:
            return (f"person:{slot.fields['s']}:{SIBLINGS[slot.attribute]}",)
        return ()

    # ---- values over time --------------------------------------------------------------------

    def _pool(self, slot: Slot) -> list[str]:
        v = self.vocab
        pools = {"home_city": v.cities, "work_city": v.cities, "employer": v.employers, "language": v.languages,
                 "role": v.roles, "status": v.service_statuses, "region": v.regions, "owner": v.owner_teams,
                 "project_status": v.project_statuses, "team": v.groups, "database": v.databases}
        pools.update(dict(v.pools))
        if slot.attribute in pools:
            return list(pools[slot.attribute])
        if slot.attribute in PERSON_VALUED:
            return list(self.people)
        if slot.attribute in SELF_EXCLUDED:  # nobody manages or mentors themself
            return [p for p in self.people if p != slot.fields["s"]]
        return []

    def _sequence(self, slot: Slot, changes: int) -> list[str]:
        if slot.attribute in VERSIONED:
            if self.vocab.version_style == "firmware":
                return fresh3.firmware_versions(self.rng, changes + 1)
            if self.vocab.version_style == "revision":
                return fresh4.revisions(self.rng, changes + 1)
            if self.vocab.version_style == "semver":
                major, minor, patch = self.rng.randint(1, 4), self.rng.randint(0, 9), self.rng.randint(0, 9)
                out = []
                for _ in range(changes + 1):
                    out.append(f"{major}.{minor}.{patch}")
                    minor, patch = (minor + 1, 0) if self.rng.random() < 0.4 else (minor, patch + self.rng.randint(1, 3))
                return out
            if self.vocab.version_style == "rel":
                release = self.rng.randint(100, 900)
                return [f"rel-{release + 3 * i + self.rng.randint(1, 2)}" for i in range(changes + 1)]
            if self.vocab.version_style == "calver":
                year, n = self.anchor.year - 1, self.rng.randint(1, 20)
                out = []
                for _ in range(changes + 1):
                    out.append(f"{year}.{n}")
                    year, n = (year + 1, 1) if n > 40 else (year, n + self.rng.randint(1, 6))
                return out
            build = self.rng.randint(1000, 4000)
            return [f"build {build + i * self.rng.randint(5, 40) + i}" for i in range(changes + 1)]
        if slot.attribute in DATED:
            day = self.rng.randint(30, 120)
            out = []
            for _ in range(changes + 1):
                out.append((self.anchor + timedelta(days=day)).strftime(self.vocab.date_format))
                day += self.rng.randint(7, 60)
            return out
        return self.rng.sample(self._pool(slot), changes + 1)

    def _timeline(self, slot: Slot) -> None:
        rng = self.rng
        limit = len(self._pool(slot)) - 1 if self._pool(slot) else 5
        # A pool of one value (a mentor in a world of two people) cannot change: small worlds built.
        changes = 0 if rng.random() < 0.3 or limit < 1 else rng.randint(1, min(5, limit))
        if slot.attribute in OBSERVATIONS:
            slot.stale = rng.random() < 0.5
        last_day = STALE_CUTOFF_DAY if slot.stale else YEAR_DAYS - 3
        days = [rng.randint(0, 30)] + self._change_days(changes, 45, last_day - 10)
        values = self._sequence(slot, changes)
        slot.values = [(value, self._at(day, 9)) for value, day in zip(values, days)]
        ends = days[1:] + [last_day]
        for j, (value, day) in enumerate(zip(values, days)):
            main = self._main(slot, j, value, values[j - 1] if j else None, day)
            texts = [main]
            for _ in range(rng.choice((0, 1, 1, 2))):
                if ends[j] - day >= 6:
                    texts.append(self._repeat(slot, value, rng.randint(day + 2, ends[j] - 2)))
            if j + 1 < len(values) and ends[j] - day >= 6 and rng.random() < 0.25:
                arrival = min(ends[j] + rng.randint(1, 10), last_day)
                texts.append(self._late(slot, value, rng.randint(day + 1, ends[j] - 2), arrival))
            if j >= 1 and ends[j] - day >= 5 and rng.random() < 0.45:
                old = values[rng.randrange(j)]
                self._old_restatement(slot, old, rng.randint(day + 2, ends[j] - 1))
            if T[self.set][slot.attribute].get("distractor") and ends[j] - day >= 3 and rng.random() < 0.6:
                self._distractor(slot, values, rng.randint(day + 1, ends[j] - 1))
            statements = [s for s in texts if s is not None]
            self.pairs += [(a.id, b.id) for i, a in enumerate(statements) for b in statements[i + 1 :]]
        if slot.stale is False:
            before = self._last_of(slot, values[-1])
            again = self._repeat(slot, values[-1], YEAR_DAYS - rng.randint(1, 2), role="reobserve", tool=True)
            if again is not None:
                self.pairs.append((before, again.id))

    def _change_days(self, changes: int, low: int, high: int) -> list[int]:
        for _ in range(1000):
            days = sorted(self.rng.sample(range(low, high), changes))
            if all(b - a >= 25 for a, b in zip(days, days[1:])):
                return days
        return [low + i * (high - low) // max(changes, 1) for i in range(changes)]

    def _at(self, day: int, hour: int | None = None) -> datetime:
        hour = self.rng.randint(8, 18) if hour is None else hour
        return self.start + timedelta(days=day, hours=hour, minutes=self.rng.randint(0, 59))

    def _last_of(self, slot: Slot, value: str) -> str:
        return [s.id for s in self.statements if s.slot == slot.key and s.value == value and s.role != "old_restatement"][-1]

    # ---- statements --------------------------------------------------------------------------

    def _fields(self, slot: Slot, value: str, old: str | None = None, date: datetime | None = None) -> dict[str, str]:
        out = dict(slot.fields, v=value, a_v=with_article(value), old=old or "", key=JSON_KEYS[self.set][slot.attribute])
        if date is not None:
            out["date"] = date.strftime(self.vocab.date_format)
            out.update(DATE_FIELDS[self.set](date) if self.set in DATE_FIELDS else {})
        return out

    def _emit(self, slot: Slot | None, value: str | None, text: str, ts: datetime, arrival: datetime, channel: str,
              source: str, actor: str, role: str, tool_name: str | None = None) -> Statement | None:
        if (source, text) in self.seen:
            return None
        self.seen.add((source, text))
        if slot is not None and value is not None:
            self.worded.add((slot.key, value, text))
        statement = Statement(f"{self.set}-{len(self.statements):05d}", text, ts, arrival, channel, source, actor, role,
                              "tool_result" if tool_name else "message", tool_name, slot.key if slot else None, value)
        self.statements.append(statement)
        return statement

    def _tool(self, slot: Slot, value: str, ts: datetime, role: str, arrival: datetime | None = None) -> Statement | None:
        tool_name, shape = TOOLS[self.set][slot.entity_kind]
        key, time_format = TOOL_STAMPS[self.set]
        text = json.dumps({**render_json(shape, self._fields(slot, value)), key: ts.strftime(time_format)})
        return self._emit(slot, value, text, ts, arrival or ts, "tool", f"tool:{tool_name}", tool_name, role, tool_name)

    def _said(self, slot: Slot, value: str, kinds: list[str], ts: datetime, role: str, old: str | None = None,
              date: datetime | None = None, arrival: datetime | None = None, speaker: tuple[str, str, str] | None = None) -> Statement | None:
        """A sentence from one of ``kinds`` (tried in a random order until one is new for its source)."""
        templates = [(kind, t) for kind in kinds for t in T[self.set][slot.attribute].get(kind, [])]
        self.rng.shuffle(templates)
        for kind, template in templates:
            if speaker is not None:
                channel, source, actor = speaker
            elif kind.startswith("first"):
                channel, source, actor = "user", f"user:{slug(slot.fields['s'])}", slot.fields["s"]
            else:
                actor, source = self.rng.choice(REPORTERS[self.set])
                channel = "user"
            text = template.format(**self._fields(slot, value, old, date))
            if role != "old_restatement" and (slot.key, value, text) in self.worded:
                continue
            made = self._emit(slot, value, text, ts, arrival or ts, channel, source, actor, role)
            if made is not None:
                return made
        return None

    def _main(self, slot: Slot, j: int, value: str, old: str | None, day: int) -> Statement | None:
        ts = slot.values[j][1]
        person = slot.entity_kind == "person"
        if j == 0:
            style = self.rng.choices(("state", "first", "tool"), (0.5, 0.25 if person else 0.0, 0.25))[0]
            if style == "tool":
                return self._tool(slot, value, ts, "origin")
            return self._said(slot, value, ["first_state"] if style == "first" else ["state"], ts, "origin")
        style = self.rng.choices(("change", "first", "tool", "correction", "as_of"),
                                 (0.35, 0.2 if person else 0.0, 0.2, 0.15, 0.1))[0]
        if style == "tool":
            return self._tool(slot, value, ts, "change")
        if style == "as_of":  # said a little later about the day it took effect
            said = ts + timedelta(days=self.rng.randint(0, 3), hours=2)
            return self._said(slot, value, ["as_of"], said, "as_of", date=ts)
        kinds = {"change": ["change"], "first": ["first_change"], "correction": ["correction"]}[style]
        return self._said(slot, value, kinds, ts, style if style == "correction" else "change", old=old)

    def _repeat(self, slot: Slot, value: str, day: int, role: str = "repeat", tool: bool = False) -> Statement | None:
        ts = self._at(day)
        if tool or self.rng.random() < 0.3:
            made = self._tool(slot, value, ts, role)
            if made is not None or tool:
                return made
        kinds = ["state", "first_state"] if slot.entity_kind == "person" else ["state"]
        if self.rng.random() < 0.15:  # a current wiki page says it too
            channel, source = LOW_TRUST[self.set][0]
            return self._said(slot, value, ["state"], ts, role, speaker=(channel, source, source))
        return self._said(slot, value, kinds, ts, role)

    def _late(self, slot: Slot, value: str, day: int, arrival_day: int) -> Statement | None:
        ts, arrival = self._at(day), self._at(arrival_day)
        if self.rng.random() < 0.4:
            return self._tool(slot, value, ts, "late", arrival=arrival)
        return self._said(slot, value, ["state"], ts, "late", arrival=arrival)

    def _old_restatement(self, slot: Slot, old: str, day: int) -> None:
        ts = self._at(day)
        if self.rng.random() < 0.34:
            source = f"user:guest-{self.rng.getrandbits(32):08x}"
            speaker = ("user", source, source.split(":", 1)[1])
        else:
            channel, source = self.rng.choice(LOW_TRUST[self.set])
            speaker = (channel, source, source)
        self._said(slot, old, ["state"], ts, "old_restatement", speaker=speaker)

    def _distractor(self, slot: Slot, values: list[str], day: int) -> None:
        """A sentence naming the subject and another value of the slot's kind that does not set the
        slot (a trip, a relative, a second tool, a plan): it is no statement of any slot."""
        others = [x for x in self._pool(slot) if x not in values]
        if not others:
            return
        fields = dict(self._fields(slot, values[0]), x=self.rng.choice(others))
        text = self.rng.choice(T[self.set][slot.attribute]["distractor"]).format(**fields)
        actor, source = self.rng.choice(REPORTERS[self.set])
        ts = self._at(day)
        self._emit(None, None, text, ts, ts, "user", source, actor, "distractor")

    def _noise(self) -> None:
        rng, noise = self.rng, NOISE[self.set]
        fields = {"name": rng.choice(self.people), "city": rng.choice(self.vocab.cities), "food": rng.choice(self.vocab.foods),
                  "topic": rng.choice(self.vocab.topics), "n": str(rng.randint(2, 99)), "n2": str(rng.randint(10, 99)),
                  "weekday": rng.choice(WEEKDAYS), "time": rng.choice(TIMES), "weather": rng.choice(WEATHER)}
        ts = self._at(rng.randint(0, YEAR_DAYS - 1))
        for _ in range(20):
            if rng.random() < 0.7:
                text = rng.choice(noise["chat"]).format(**fields)
                speaker = rng.choice(self.people[:12] + [name for name, _ in REPORTERS[self.set]])
                if self._emit(None, None, text, ts, ts, "user", f"user:{slug(speaker)}", speaker, "noise"):
                    return
            else:
                i = rng.randrange(len(noise["tool"]))
                tool_name = noise["tool_names"][i]
                text = noise["tool"][i].format(**fields)
                if self._emit(None, None, text, ts, ts, "tool", f"tool:{tool_name}", tool_name, "noise", tool_name):
                    return
            fields["n"], fields["n2"] = str(rng.randint(2, 999)), str(rng.randint(10, 999))

    # ---- questions ---------------------------------------------------------------------------

    def _questions(self, slots: dict[str, Slot]) -> list[Question]:
        out: list[Question] = []
        templates = T[self.set]
        for slot in slots.values():
            current = slot.values[-1][0]
            kinds = templates[slot.attribute]
            out.append(Question(f"q{len(out)}", "current", slot.key, kinds["q_current"][0].format(**self._fields(slot, current)), current))
            if not slot.changed:
                continue
            j = self.rng.randrange(len(slot.values) - 1)
            start, end = slot.values[j][1], slot.values[j + 1][1]
            moment = (start + (end - start) / 2).replace(hour=12, minute=0, second=0, microsecond=0)
            text = kinds["q_as_of"][0].format(**self._fields(slot, slot.values[j][0], date=moment))
            out.append(Question(f"q{len(out)}", "as_of", slot.key, text, slot.values[j][0], as_of=moment))
            i = self.rng.randrange(1, len(slot.values))
            text = kinds["q_history"][0].format(**self._fields(slot, slot.values[i][0]))
            out.append(Question(f"q{len(out)}", "history", slot.key, text, slot.values[i - 1][0]))
        return out
