"""The simulated operations world, agent policy and memories of ``benchmarks/self_learning.py``."""
