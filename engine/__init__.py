"""sikpan engine: pure, synchronous, deterministic computation of 式盤 charts.

No I/O beyond reading the package's own data files (loaded once, lazily).
"""
