"""Slot identity: canonical subjects, normalised attributes and values (pure, curated).

A slot is (subject canonical id, normalised attribute). Two statements belong to one slot only
when both parts match exactly after normalisation: "Anna" is never "Ana", "home city" is never
"work city". The lexicons are small on purpose: a missed synonym costs a duplicate slot, a wrong
one costs a wrong supersede.
"""

from __future__ import annotations

import re

from deltacore.belief.dates import date_key
from deltacore.belief_policy import (  # noqa: F401 - re-exported
    ATTRIBUTE_CLASSES,
    CLASSES,
    MULTI_VALUED_ATTRIBUTES,
    attribute_class,
)

_SPACES = re.compile(r"\s+")
_EDGE_PUNCT = re.compile(r"^[\s\"'`“”‘’(\[]+|[\s\"'`“”‘’.,;:!?)\]]+$")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)

# attribute synonym -> normalised attribute
_ATTRIBUTE_SYNONYMS: dict[str, tuple[str, ...]] = {
    "home city": ("home city", "city", "residence", "city of residence", "home", "home location", "hometown city"),
    "work city": ("work city", "office city", "work location", "office location", "office"),
    "employer": ("employer", "company", "workplace", "organisation", "organization", "firm", "current employer"),
    "preferred language": (
        "preferred language", "favorite language", "favourite language", "programming language", "language",
        "main language", "primary language", "language of choice", "preferred programming language",
    ),
    "preferred editor": ("preferred editor", "editor", "favorite editor", "favourite editor", "ide"),
    "preferred database": ("preferred database", "database", "db", "datastore"),
    "job title": ("job title", "title", "role", "position", "job", "occupation"),
    "status": ("status", "state", "health", "current status", "condition"),
    "location": ("location", "current location", "whereabouts"),
    "email": ("email", "email address", "e-mail", "mail"),
    "phone": ("phone", "phone number", "telephone", "mobile"),
    "manager": ("manager", "boss", "supervisor", "line manager", "reports to"),
    "team": ("team", "squad", "group"),
    "version": ("version", "release", "current version"),
    "port": ("port", "listening port"),
    "region": ("region", "cloud region"),
    "owner": ("owner", "maintainer", "owning team", "owning squad", "owning group", "steward"),
    "lead": ("lead", "project lead", "leader"),
    "on call": ("on call", "on-call", "oncall", "on call person", "on-call person"),
    "deadline": ("deadline", "due date", "due"),
    "gp": ("gp", "family doctor", "general practitioner", "family physician", "primary care doctor"),
    "dentist": ("dentist", "dental practitioner", "dental surgeon"),
    "firmware": ("firmware", "firmware version", "fw version", "fw"),
    "commute": ("commute", "commute mode", "mode of commute", "way to work", "travel to work"),
    "likes": ("likes", "like", "loves", "enjoys", "interests", "hobbies", "hobby"),
}
# Words of a slot's name that say the same thing ("main route" is the "primary route"): whole
# words only, never a slot's whole name, so "home city" and "work city" stay apart.
_WORD_SENSES: tuple[tuple[str, ...], ...] = (
    ("main", "primary", "principal"),
    ("backup", "relief", "secondary", "standby", "fallback", "reserve"),
    ("exam", "examination", "inspection"),
    ("carrier", "haulier", "hauler"),
)
WORD_SENSE: dict[str, str] = {word: group[0] for group in _WORD_SENSES for word in group}
# What a question may call a thing by its kind ("which vehicle does Deniz drive?" of a slot "van"):
# read on the question side only, since a van and a car are two slots of one person.
BROADER: dict[str, str] = {
    "van": "vehicle", "car": "vehicle", "lorry": "vehicle", "truck": "vehicle", "bike": "vehicle",
    "phone": "number", "mobile": "number",
}
MULTI_VALUED = MULTI_VALUED_ATTRIBUTES  # a new value joins the others, never replaces them
# Attributes only a person has: a deployment does not live anywhere or work for anyone.
PERSON_ATTRIBUTES = frozenset({"home city", "work city", "employer", "preferred language", "job title", "manager",
                               "preferred editor", "preferred database", "email", "phone", "team"})
ATTRIBUTES: dict[str, str] = {syn: name for name, syns in _ATTRIBUTE_SYNONYMS.items() for syn in syns}


# value category -> (attribute, normalised values); "user switched to Go" is about a language.
_VALUE_CATEGORIES: dict[str, tuple[str, ...]] = {
    "preferred language": (
        "python", "go", "rust", "java", "javascript", "typescript", "c", "c++", "c#", "ruby", "kotlin", "swift",
        "scala", "php", "elixir", "haskell", "clojure", "julia", "r", "perl", "lua", "dart", "zig", "ocaml", "f#",
    ),
    "preferred editor": ("vim", "neovim", "emacs", "vscode", "sublime text", "intellij", "pycharm", "helix", "nano"),
    "preferred database": ("postgresql", "mysql", "sqlite", "mongodb", "redis", "cassandra", "dynamodb", "mariadb"),
}
VALUE_CATEGORY: dict[str, str] = {value: attr for attr, values in _VALUE_CATEGORIES.items() for value in values}

_VALUE_SYNONYMS = {
    "golang": "go", "python3": "python", "py": "python", "js": "javascript", "ts": "typescript",
    "postgres": "postgresql", "psql": "postgresql", "mongo": "mongodb", "nvim": "neovim",
    "vs code": "vscode", "visual studio code": "vscode", "nyc": "new york", "new york city": "new york",
    "sf": "san francisco",
    # service status: one word per state
    "running": "up", "healthy": "up", "operational": "up", "online": "up", "green": "up", "available": "up",
    "ok": "up", "offline": "down", "unavailable": "down", "unreachable": "down", "failing": "down",
    "crashed": "down", "red": "down", "broken": "down", "stopped": "down", "dead": "down",
    "slow": "degraded", "unstable": "degraded", "yellow": "degraded",
}
STATUS_WORDS = frozenset({"up", "down", "degraded", *(k for k, v in _VALUE_SYNONYMS.items() if v in ("up", "down", "degraded"))})

FIRST_PERSON = frozenset({"i", "me", "my", "myself", "mine"})
USER_WORDS = frozenset({"user", "the user", "our user", "the customer", "customer"})
_COMPANY_SUFFIX = re.compile(r",?\s+(?:inc|corp|corporation|ltd|limited|llc|plc|gmbh|ag|co|company|group)\.?$")
_TRAILING_NOISE = re.compile(r"\s+(?:now|these days|nowadays|currently|anymore|again|too|as well)$", re.IGNORECASE)


def clean(text: str) -> str:
    spaced = _SPACES.sub(" ", text).strip()
    out = _EDGE_PUNCT.sub("", spaced).strip()
    # A closing bracket that closes one opened inside the value stays: "Ward 10 (General Surgery)".
    tail = spaced[spaced.find(out) + len(out):] if out else ""
    for opener, closer in (("(", ")"), ("[", "]")):
        missing = min(out.count(opener) - out.count(closer), tail.count(closer))
        if missing > 0:
            out += closer * missing
    return out


# Deployment qualifiers: "billing-api in staging", "the staging billing-api", "the staging
# deployment of billing-api" and {"service": "billing-api", "env": "staging"} are one subject,
# "billing-api staging", and never the production one (E06 disambiguation keys).
ENVIRONMENTS: dict[str, str] = {
    "staging": "staging", "stage": "staging", "stg": "staging", "production": "production", "prod": "production",
    "prd": "production", "live": "production", "development": "development", "dev": "development",
    "test": "test", "testing": "test", "qa": "qa", "sandbox": "sandbox", "preprod": "preprod",
    "pre-production": "preprod", "uat": "uat", "canary": "canary",
    "stable": "stable",  # a release ring, beside canary ("billing in stable")
}
# Words that name an environment only where a key or a preposition says so: a status or an update
# channel may read "stable" too.
RING_WORDS = frozenset({"stable"})
_QUALIFIER_FILLER = frozenset(
    {"the", "a", "an", "in", "on", "of", "for", "at", "deployment", "deployments", "environment", "env", "instance",
     "cluster", "stack", "tier", "version", "side"}
)
_TOKEN = re.compile(r"[\w][\w.+#&-]*")
# Words that say what kind of thing a name is: "Project Falcon" and {"project": "Falcon"} are one
# subject, "falcon"; "the identity team" is "identity".
TYPE_NOUNS = frozenset(
    {"project", "team", "service", "squad", "group", "deployment", "initiative", "site", "office", "campus",
     "program", "programme", "study", "department", "app", "application", "cluster", "environment", "hq"}
)


def untyped(folded: str) -> str:
    tokens = folded.split()
    while len(tokens) > 1 and tokens[0] in TYPE_NOUNS:
        tokens = tokens[1:]
    while len(tokens) > 1 and tokens[-1] in TYPE_NOUNS:
        tokens = tokens[:-1]
    return " ".join(tokens)


def qualified(folded: str) -> str:
    """A subject named with an environment word: the rest first, the environment last."""
    tokens = _TOKEN.findall(folded)
    envs = [ENVIRONMENTS[t] for t in tokens if t in ENVIRONMENTS]
    if len(envs) != 1 or len(tokens) < 2:
        return folded
    rest = [t for t in tokens if t not in ENVIRONMENTS and t not in _QUALIFIER_FILLER]
    if not rest or len(rest) > 2:
        return folded
    return " ".join([*rest, envs[0]])


# A place's name may hold numbers: "the infusion pump on Ward 7B", "the crane at Pier 4".
_PLACED = re.compile(
    r"^([a-z][\w-]*(?: [\w-]+){0,2}) (?:in|on|at) (?:the ([a-z0-9][\w-]*(?: [\w-]+){0,2})|([a-z]{3,15} [a-z]?\d{1,4}[a-z]?))$"
)
PLACING_WORDS = frozenset({"in", "on", "at"})
_NUMBERED_FIRST = re.compile(r"^([a-z]{3,15} [a-z]?\d{1,4}[a-z]?) ([a-z][\w-]*(?: [a-z][\w-]*){0,2})$")
# How record keys end without saying what they hold ("phase_name", "vehicle_reg", "runtime_env").
KEY_SUFFIXES = frozenset({"name", "id", "env", "reg", "no", "num", "code", "ref", "value", "val", "expires", "choice", "label"})


def canonical_subject(name: str, actor: str | None = None, user_id: str | None = None) -> str | None:
    """The subject's id: casefolded, articles and possessives removed; "I" is the speaker and
    "the user" the event's user. None when it cannot be resolved (first person, no speaker)."""
    text = clean(name)
    text = re.sub(r"(?:'s|’s|')$", "", text).strip()
    folded = text.casefold()
    if folded in FIRST_PERSON:
        who = actor or user_id
        return canonical_subject(who) if who else None
    if folded in USER_WORDS:
        return canonical_subject(user_id) if user_id else "user"
    folded = _ARTICLE.sub("", folded).strip()
    folded = re.sub(r"[()\[\]]", " ", folded)
    # "the centrifuge in the upstairs lab" and "the reach truck on the North Yard" are named by
    # where they are: "centrifuge (upstairs lab)".
    folded = _PLACED.sub(lambda m: f"{m[1]} {m[2] or m[3]}", folded)
    # …and "the Ward 7B infusion pump" is the infusion pump on Ward 7B: "infusion pump ward 7b".
    folded = _NUMBERED_FIRST.sub(r"\2 \1", folded)
    folded = untyped(qualified(" ".join(folded.split())))
    return folded or None


def normalise_attribute(phrase: str) -> str:
    text = _ARTICLE.sub("", clean(phrase).casefold()).strip()
    text = re.sub(r"[_-]+", " ", text)
    text = re.sub(r"^(?:current|present|new)\s+", "", text) if text not in ATTRIBUTES else text
    # A record's "asset_status" or "device_state" is the thing's status, as "status" is.
    text = re.sub(r"^(?:asset|device|equipment|item|unit|machine|system|operational)\s+(?=(?:status|state)$)", "", text)
    if text not in ATTRIBUTES and text.endswith("s") and text[:-1] in ATTRIBUTES:
        text = text[:-1]  # "maintainers" of a service name its owner, as "maintainer" does
    return ATTRIBUTES.get(text, text)


def value_key(value: str) -> str:
    """Normalised value: "Golang" and "go", "Berlin." and "berlin", "4/3/27" and "Thursday 4 March
    2027" are one value."""
    if (day := date_key(str(value))) is not None:
        return day
    text = _TRAILING_NOISE.sub("", clean(str(value)).casefold())
    text = _ARTICLE.sub("", text).strip()
    text = re.sub(r"\s+(?:city|language|lang)$", "", text) if text not in VALUE_CATEGORY else text
    text = _COMPANY_SUFFIX.sub("", text) or text  # "Acme Corp" is "Acme"
    text = untyped(text)  # "the platform team" is "platform", "the Oslo office" is "oslo"
    text = re.sub(r"^(?:version|build|release|v)\s*(?=\d)", "", text)  # "version 2.3" is "2.3"
    return _VALUE_SYNONYMS.get(text, text)


def category_of(value: str) -> str | None:
    """The attribute a bare value implies ("Go" -> preferred language), if the lexicon knows it."""
    return VALUE_CATEGORY.get(value_key(value))
