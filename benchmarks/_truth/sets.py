"""The template sets that live in a module of their own, registered once, here.

``world.py``, ``phrasings.py`` and ``truth.py`` derive every per-set table from these tuples
(phrasings, tool shapes, noise, schema, reporters, seeds, vocabularies, the attributes whose
values are people, dates or versions, siblings, date spellings, the ``--templates`` choices), so
adding a set is its module plus one entry in ``BLIND`` (and its import). ``tune`` and
``heldout`` are not here: their tables are written out in ``phrasings.py`` and ``vocab.py``.
"""

from __future__ import annotations

from types import ModuleType

from _truth import fresh, fresh2, fresh3, fresh4, fresh5, fresh6, fresh7, fresh8, fresh9, fresh10, fresh11, fresh12, fresh13, fresh14

BLIND: tuple[ModuleType, ...] = (fresh3, fresh4, fresh5, fresh6, fresh7, fresh8, fresh9, fresh10, fresh11, fresh12, fresh13, fresh14)
"""Sets with the whole module interface (``fresh3.py`` on): besides what every module has (see
``MODULES``), a ``VOCAB``, ``PERSON_VALUED``, ``SELF_EXCLUDED``, ``SIBLINGS``, ``VERSIONED``,
``DATED`` and ``date_fields(date)``."""

MODULES: tuple[ModuleType, ...] = (fresh, fresh2) + BLIND
"""Every set with a module: ``SEED_SALT``, ``SCHEMA``, ``ATTRIBUTES``, ``T``, ``TOOLS``,
``TOOL_STAMP``, ``JSON_KEYS``, ``NOISE``, ``REPORTERS`` and ``LOW_TRUST``. The two older ones
are narrower: ``fresh``'s vocabulary is ``vocab.FRESH`` and ``fresh2`` has a ``VOCAB`` but none
of the blind sets' extra tables (its person-valued and self-excluded attributes are spelled out
in ``world.py``)."""


def name(module: ModuleType) -> str:
    """A set's name is its module's: ``_truth.fresh7`` is ``fresh7``."""
    return module.__name__.rsplit(".", 1)[-1]


BY_NAME: dict[str, ModuleType] = {name(m): m for m in MODULES}
NAMES: tuple[str, ...] = ("tune", "heldout") + tuple(BY_NAME)
"""Every template set, in the order ``truth.py --templates all`` runs them."""
