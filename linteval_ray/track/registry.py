"""The trackers by name, loaded only when asked for, and ``Trackers``: every tracker of a run,
where a failure is a warning.

After Inspect AI's registries: a name maps to where its implementation lives and what installs
it, so ``--log-to wandb`` without wandb installed fails at once with the line that fixes it,
and a tracker's package is imported only by the runs that log to it.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
from typing import NamedTuple

from linteval_ray.config import ConfigError, TrackingConfig
from linteval_ray.config.section import without_credentials
from linteval_ray.track.base import TrackedRun, Tracker, TrackerUnavailable

log = logging.getLogger(__name__)


class TrackerSpec(NamedTuple):
    module: str  # where the Tracker subclass lives
    cls: str
    package: str  # the import its module needs
    extra: str  # pip install 'linteval-ray[<extra>]'


TRACKERS: dict[str, TrackerSpec] = {
    "mlflow": TrackerSpec("linteval_ray.track.mlflow", "MlflowTracker", "mlflow", "mlflow"),
    "wandb": TrackerSpec("linteval_ray.track.wandb", "WandbTracker", "wandb", "wandb"),
}


def build_tracker(name: str, config: TrackingConfig, group: str) -> Tracker:
    """The tracker ``name`` (``TrackerUnavailable`` naming the extra to install when its package is missing)."""
    spec = TRACKERS.get(name)
    if spec is None:
        raise ConfigError(f"--log-to {name}: unknown tracker (known: {', '.join(sorted(TRACKERS))})")
    if importlib.util.find_spec(spec.package) is None:
        raise TrackerUnavailable(f"--log-to {name}: the {spec.package} package is not installed; "
                                 f"pip install 'linteval-ray[{spec.extra}]'")
    tracker_class: type[Tracker] = getattr(importlib.import_module(spec.module), spec.cls)
    return tracker_class(config, group)  # type: ignore[call-arg]  # each takes (config, group)


class Trackers:
    """The run's trackers. Logging to one that fails (down, refused, misconfigured) is a warning,
    and that tracker is left alone for the rest of the run: an evaluation never waits on it twice."""

    def __init__(self, config: TrackingConfig, group: str) -> None:
        self._trackers = {name: build_tracker(name, config, group) for name in dict.fromkeys(config.log_to)}
        self.warnings: list[str] = []

    @property
    def names(self) -> list[str]:
        return list(self._trackers)

    def log(self, run: TrackedRun, done: dict[str, str]) -> dict[str, str]:
        """Log ``run`` to every tracker that has not recorded it yet (``done``: tracker -> run id);
        the ids of those that recorded it now."""
        logged: dict[str, str] = {}
        for name, tracker in list(self._trackers.items()):
            if name in done:
                continue
            try:
                logged[name] = tracker.log(run)
            except Exception as exc:  # noqa: BLE001 - any tracker failure is a warning, never the evaluation's
                reason = without_credentials(f"{type(exc).__name__}: {str(exc)[:300]}")  # the URL in an error
                warning = (f"{name}: could not log model {run.name} ({reason}); the results are in the run folder, "
                           "and a rerun of the same command logs it")
                log.warning("%s", warning)
                self.warnings.append(warning)
                self._trackers.pop(name)
                tracker.close()
        return logged

    def close(self) -> None:
        for tracker in self._trackers.values():
            tracker.close()
