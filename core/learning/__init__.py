"""Learning that generalises (issue 17): plans as schemas with slots, evidence pooled across
entities by situation similarity, a calibrated success probability, failures by kind, credit to
the step that mattered.

Above ``delta`` (it reuses the credit and migration rules) and below ``gateway`` and
``consolidation`` (which will extract schemas with this machinery). Storage through
:class:`~deltacore.storage.plan_store.PlanRepository`; no policy lives there.
"""

from deltacore.learning.recall import PlanRecall
from deltacore.learning.schemas import SchemaBook

__all__ = ["PlanRecall", "SchemaBook"]
