"""``SQLStore``: the database together with the event, provenance and log repositories.

The write pipeline, the orchestrator, the routers and the reindexer receive one object with
every statement they run (``insert_batch``, ``fetch_events``, ``ancestry``, ``reader()``, …);
that object is this class. Newer code takes only the repository it needs
(:class:`~deltacore.storage.event_reads.EventReads`, :class:`~deltacore.storage.event_writes.EventWrites`,
:class:`~deltacore.storage.system_log.SystemLog`, the trust, learning, drift and decision
repositories), each over the same :class:`~deltacore.storage.database.Database`. The learning
repository's statements are here too because the E01 playbook propagates taint on this object
(``deltacore.delta.propagation.PropagationStore``).
"""

from __future__ import annotations

from deltacore.config import DeltaCoreConfig
from deltacore.storage.database import Database
from deltacore.storage.event_reads import EventReads
from deltacore.storage.event_writes import EventWrites
from deltacore.storage.learning_store import LearningRepository
from deltacore.storage.system_log import SystemLog
from deltacore.storage.version_store import VersionRepository


class SQLStore(Database, EventReads, EventWrites, SystemLog, LearningRepository, VersionRepository):
    """Reads and writes the SQL tables. Knows nothing about embeddings or retrieval.

    >>> from deltacore.config import DeltaCoreConfig
    >>> import tempfile
    >>> store = SQLStore(DeltaCoreConfig.build(path=tempfile.mkdtemp()))
    >>> store.setup() > 0
    True
    >>> store.dialect.name
    'sqlite'
    >>> store.close()
    """

    def __init__(self, config: DeltaCoreConfig) -> None:
        Database.__init__(self, config)
        # The repositories' statements run on this very database.
        self.database = self
