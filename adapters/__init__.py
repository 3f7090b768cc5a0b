"""Framework adapters: thin translation between a framework's interfaces and DeltaCore.

Each subpackage imports its framework; ``import deltacore`` imports none of them. What they have
in common (ids, recording conventions, store handles, memory prompt lines) is in ``_shared``,
which imports no framework either.
"""
