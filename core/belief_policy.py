"""The belief layer's knobs (``DeltaCoreConfig.belief``), in a leaf module so config imports no layer.

Which attributes are observations of a changing world (and go stale) is policy too: the map
below, extended per store by ``BeliefPolicy.attribute_classes``.
"""

from __future__ import annotations

from deltacore.errors import ConfigurationError
from pydantic import BaseModel, ConfigDict, Field

HOUR = 3600.0

# Attribute -> class. Classes other than ``stable`` are observations of a changing world and
# lose confidence with time (half-lives in BeliefPolicy).
ATTRIBUTE_CLASSES: dict[str, str] = {
    "status": "status",
    "health": "status",
    "load": "status",
    # how a device or a service is reachable right now: re-observed, not established
    "connection": "status",
    "connectivity": "status",
    "availability": "status",
    "location": "location",
}
CLASSES = ("stable", "status", "location")

# Attributes that hold many values at once ("likes", "skills"): a new value joins the others and
# never supersedes or contests them; extended per store by ``BeliefPolicy.multi_valued``.
MULTI_VALUED_ATTRIBUTES = frozenset({"likes", "skills", "languages spoken", "pets", "allergies", "hobbies", "interests"})


# "X status" is an observation of X ("build status", "ci status", "service health", "device state") unless X is
# one of the standing conditions of a person or an account that no one re-observes by the hour.
STATUS_HEADS = frozenset({"status", "health", "state"})
STANDING_STATUSES = frozenset({
    "marital", "relationship", "immigration", "visa", "employment", "residency", "citizenship", "legal",
    "tax", "vaccination", "membership", "student", "veteran", "disability", "residence", "work", "home", "birth", "native",
})  # fmt: skip


def attribute_class(attribute: str, extra: dict[str, str] | None = None) -> str:
    if extra and attribute in extra:
        return extra[attribute]
    if attribute in ATTRIBUTE_CLASSES:
        return ATTRIBUTE_CLASSES[attribute]
    words = attribute.split()
    if len(words) > 1 and words[-1] in STATUS_HEADS and not STANDING_STATUSES & set(words[:-1]):
        return "status"
    return "stable"


class BeliefPolicy(BaseModel):
    """How facts replace each other and how observations go stale."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    supersede_confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    """A new value supersedes the current one only when its confidence is above this."""
    supersede_window_hours: float = Field(default=168.0, gt=0.0)
    """…and when it is at most this far behind the slot's latest observation (7 days)."""
    trusted_min: float = Field(default=0.7, ge=0.0, le=1.0)
    """…and when the gateway's trust score of its write is at least this."""
    auto_resolve_observations: int = Field(default=5, ge=1)
    """Independent observations after a conflict opened that settle it toward their majority."""
    newcomer_weight: float = Field(default=0.1, ge=0.0, le=1.0)
    """Belief weight factor of a value stated by a source without standing."""
    conflict_flag_min_belief: float = Field(default=0.2, ge=0.0, le=1.0)
    """A memory is flagged CONTRADICTED when a competing value holds at least this belief."""
    half_life_hours: dict[str, float] = Field(default_factory=lambda: {"status": 1.0, "location": 24.0})
    """Attribute class -> half-life of an observation's confidence; ``stable`` never decays."""
    half_life_from_cadence: bool = True
    """A slot observed at longer intervals than its class's half-life decays at its own pace:
    the half-life is the slot's mean interval between observations when that is longer (a
    monthly report is not stale the next day). Off: the class's half-life alone."""
    attribute_classes: dict[str, str] = Field(default_factory=dict)
    """Extra attribute -> class assignments (e.g. ``{"queue depth": "status"}``)."""
    stale_below: float = Field(default=0.5, ge=0.0, le=1.0)
    """A belief below this confidence is STALE (E05): re-observe before acting."""
    attribute_similarity: float = Field(default=0.62, ge=0.0, le=1.0)
    """Slot identity: a predicate or attribute name the lexicon does not know takes the nearest
    known attribute when its embedding's cosine similarity is at least this (and clearly ahead
    of the next attribute); below it the predicate states no fact."""
    shift_boost: float = Field(default=0.25, ge=0.0, le=10.0)
    """After a distribution shift (E07), memories written since it score this much higher…"""
    shift_promotion_hours: float = Field(default=168.0, gt=0.0)
    """…for this long after the shift began."""
    multi_valued: list[str] = Field(default_factory=list)
    """Extra attributes that hold many values at once (a new value never replaces another)."""
    attribute_embedding: bool = True
    """Use the store's embedder for that similarity (off: the curated lexicon only)."""
    slot_similarity: float = Field(default=0.7, ge=0.0, le=1.0)
    """Open-vocabulary slots: an attribute the lexicon does not name ("favourite lang") joins the
    subject's existing slot ("preferred language") when their phrases' cosine similarity is at
    least this and clearly ahead of the subject's next slot; below it, it is a slot of its own.
    Qualified look-alikes ("home city" / "work city") are never joined."""
    unread_evidence_window: int = Field(default=10, ge=0, le=100)
    """A question about a slot: a newer memory among the query's first this many that the rules
    could not read but that names the subject and the slot, from a trusted writer, leads above
    the stored value (``deltacore.belief.unread``); 0 turns the check off."""
    restated_window: int = Field(default=20, ge=0, le=100)
    """Among the query's first this many memories, ones that state one form with another value
    ("X looks nominal on the board" after "X looks in a brownout on the board") are ordered newest
    first by established writers (``deltacore.belief.restated``); 0 turns it off."""

    other_subjects_window: int = Field(default=20, ge=0, le=100)
    """Among the query's first this many memories, when the question names a subject the store
    holds facts of, memories about one of its look-alikes (the pump on Ward 7B for a question
    about the one on Ward 7A, Anna for Ana) go below the rest of them (E06); when it asks about
    one slot the store tracks, memories that say nothing of its subject go below those that do
    (a memory of the day the question names, about something else, does not answer it); other
    subjects' memories that name it keep their places. 0 turns both off."""

    form_support: int = Field(default=2, ge=0, le=100)
    """Learned forms (``deltacore.belief.forms``): a line the rules cannot read is read in a form
    seen stating known values of one slot for at least this many different subjects ("{S} reports
    to the {V} site daily."); 0 turns learning and reading forms off."""

    def checked(self) -> BeliefPolicy:
        known = set(CLASSES) | set(self.half_life_hours)
        for attribute, klass in self.attribute_classes.items():
            if klass not in known:
                raise ConfigurationError(
                    f"belief.attribute_classes.{attribute}",
                    f"unknown attribute class {klass!r}; use one of {sorted(known)} or give it a half_life_hours entry",
                )
        for klass, hours in self.half_life_hours.items():
            if hours <= 0:
                raise ConfigurationError(f"belief.half_life_hours.{klass}", f"must be > 0 hours, got {hours!r}")
        return self

    def is_multi_valued(self, attribute: str) -> bool:
        return attribute in MULTI_VALUED_ATTRIBUTES or attribute in self.multi_valued

    def class_of(self, attribute: str) -> str:
        return attribute_class(attribute, self.attribute_classes)
