"""The truth benchmark's parts: vocabularies and phrasings (two disjoint sets, ``tune`` and
``heldout``), the seeded timeline world with its ground truth, the arms (peers and DeltaCore) and
the metrics. ``benchmarks/truth.py`` wires them together."""
