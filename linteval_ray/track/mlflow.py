"""MLflow: one MLflow run per evaluated model, in an experiment named after the set.

The tracking URI is ``tracking.mlflow.tracking_uri`` (``--mlflow-tracking-uri``), else
``MLFLOW_TRACKING_URI`` (one of them is required: results should not land in a file of
whatever folder the run started in): a server (``http://mlflow.lab:5000``, ``databricks``) or a
database MLflow's full package serves (``sqlite:///mlflow.db``, which this extra installs; its
artifacts go to ``./mlruns`` unless the experiment says otherwise). MLflow's file store
(``file:./mlruns``) is in maintenance mode and refuses new runs unless
``MLFLOW_ALLOW_FILE_STORE=true``: it is refused before any work, not once per model. The
experiment is ``tracking.mlflow.experiment``, else ``MLFLOW_EXPERIMENT_NAME``, else the set's run
name. Metrics are logged at the checkpoint's step. MLflow retries an unreachable server for
minutes by default: unless the environment says otherwise, a request here is tried 3 times with
a 30 s timeout, so a tracker that is down costs one warning after about a minute and a half, not
a stalled evaluation.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from linteval_ray.config import TrackingConfig
from linteval_ray.track.base import TrackedRun, Tracker, TrackerUnavailable

if TYPE_CHECKING:
    from mlflow.tracking import MlflowClient

BATCH_METRICS = 1000  # MLflow's log_batch limit
HTTP_RETRY_DEFAULTS = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2", "MLFLOW_HTTP_REQUEST_TIMEOUT": "30"}


class MlflowTracker(Tracker):
    name = "mlflow"

    def __init__(self, config: TrackingConfig, group: str) -> None:
        settings = config.mlflow
        uri = settings.tracking_uri or os.environ.get("MLFLOW_TRACKING_URI")
        if not uri:  # MLflow's own default is a sqlite file in the current folder: wherever the job started
            raise TrackerUnavailable("--log-to mlflow: no tracking URI named: set MLFLOW_TRACKING_URI or "
                                     "--mlflow-tracking-uri (e.g. http://mlflow.lab:5000, sqlite:///mlflow.db)")
        _refuse_file_store(uri)
        for variable, value in HTTP_RETRY_DEFAULTS.items():
            os.environ.setdefault(variable, value)
        self._uri = uri
        self._experiment = settings.experiment or os.environ.get("MLFLOW_EXPERIMENT_NAME") or group
        self._client: MlflowClient | None = None
        self._experiment_id: str | None = None

    def log(self, run: TrackedRun) -> str:
        from mlflow.entities import Metric

        client = self._connected()
        created = client.create_run(self._experiment_id_of(client), run_name=run.name,
                                    tags={"mlflow.runName": run.name, **run.tags})
        run_id: str = created.info.run_id
        now = int(time.time() * 1000)
        step = run.step or 0
        metrics = [Metric(key, value, now, step) for key, value in sorted(run.metrics.items())]
        for start in range(0, len(metrics), BATCH_METRICS):
            client.log_batch(run_id, metrics=metrics[start:start + BATCH_METRICS])
        for artifact in run.artifacts:
            client.log_artifact(run_id, str(artifact))
        client.set_terminated(run_id)
        return run_id

    def _connected(self) -> MlflowClient:
        """The client, made on first use: a URI it cannot serve is the tracker's failure (a warning)."""
        if self._client is None:
            from mlflow.tracking import MlflowClient

            self._client = MlflowClient(tracking_uri=self._uri)
        return self._client

    def _experiment_id_of(self, client: MlflowClient) -> str:
        if self._experiment_id is None:
            experiment = client.get_experiment_by_name(self._experiment)
            self._experiment_id = (experiment.experiment_id if experiment is not None
                                   else client.create_experiment(self._experiment))
        return self._experiment_id


def _refuse_file_store(uri: str) -> None:
    """MLflow's file store raises on every run unless the user opted in: say so once, before any work."""
    from mlflow.environment_variables import MLFLOW_ALLOW_FILE_STORE

    allowed = MLFLOW_ALLOW_FILE_STORE.get()  # type: ignore[no-untyped-call]  # mlflow leaves it untyped
    if urlparse(uri).scheme in ("", "file") and not allowed:
        raise TrackerUnavailable(f"--log-to mlflow: {uri} is MLflow's file store, which refuses new runs (maintenance "
                                 "mode) unless MLFLOW_ALLOW_FILE_STORE=true; use sqlite:///mlflow.db or an http:// "
                                 "server")
