"""Pieces of the memory-poisoning benchmark (``benchmarks/poisoning.py``).

``data`` builds benign memory and the query split from LoCoMo, ``text`` holds the LLM-free
rewriting tools (question to statement, wrong answers, obfuscation, synonyms), ``attacks`` the
attack families, ``trigger_search`` the gradient-free trigger optimisation, ``harness`` drives
DeltaCore stores with the defence on and off, and ``metrics`` turns what was retrieved into the
per-family figures.
"""
