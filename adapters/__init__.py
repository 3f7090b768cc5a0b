"""Framework adapters: thin translation between a framework's interfaces and DeltaCore.

Each subpackage imports its framework; ``import deltacore`` imports none of them.
"""
