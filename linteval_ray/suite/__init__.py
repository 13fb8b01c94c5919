"""``linteval-ray suite``: the quality of a test suite, measured by the solutions it judges (docs/suite.md).

| module | what it holds |
|---|---|
| ``config.py``, ``presets.py`` | the run's settings; ``suite:bundled`` |
| ``pools.py`` | solution pools: deepmind/code_contests rows and flat rows, checked entry by entry |
| ``index.py`` | the test sources as a problem index (their tests stored once in the content cache) |
| ``units.py``, ``source.py`` | units of work and their shards; the pools as a Ray Data stream of units |
| ``judge.py``, ``rows.py`` | the validation actor judging units; the compact result row |
| ``metrics.py``, ``reduce.py``, ``report.py`` | TPR/TNR as the CodeContests-O pipeline defines them; the cards |
| ``manifest.py``, ``run.py``, ``command.py`` | the manifest and fingerprint, the driver, the command line |
"""
