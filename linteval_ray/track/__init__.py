"""Experiment trackers an evaluation is logged to (``--log-to mlflow|wandb``), optional extras.

One interface (``base.Tracker``), one registry (``registry.TRACKERS``: name → module, class,
package and the extra that installs it), one module per tracker. Each evaluated model becomes
one tracker run: its overall, per-language and per-category metrics at its checkpoint step,
its ``results.parquet`` and the set's leaderboard as artifacts, and as tags the run folder's
URL and the manifest's dataset and toolchain hashes. A tracker that cannot be reached costs a
warning (``registry.Trackers``), never the evaluation; a tracker whose package is missing is
refused before any work, with the ``pip install`` line that adds it.
"""
