"""The ``DeltaCore`` facade: wires the layers together and holds no business logic.

>>> from deltacore import DeltaCore
>>> from deltacore.testing import FakeEmbedder
>>> import tempfile
>>> with DeltaCore.open(tempfile.mkdtemp(), embedder=FakeEmbedder()) as memory:
...     _ = memory.ingest([{"text": "the api service runs on port 8080", "kind": "fact"}])
...     memory.query("which port does the api use?", top_k=1)[0].text
'the api service runs on port 8080'
"""

from deltacore.engine.store import DeltaCore

__all__ = ["DeltaCore"]
