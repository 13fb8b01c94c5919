"""The tracker registry and what a tracker is given, without a tracker server."""

from __future__ import annotations

import pytest

from linteval_ray.config import ConfigError, TrackingConfig
from linteval_ray.config.section import without_credentials
from linteval_ray.reduce.metrics import compute
from linteval_ray.schema import ResultRow, Status
from linteval_ray.track import registry
from linteval_ray.track.base import TrackerUnavailable, flat_metrics
from linteval_ray.track.registry import Trackers, TrackerSpec


def test_a_tracker_whose_package_is_missing_is_refused_with_the_install_line(monkeypatch):
    monkeypatch.setitem(registry.TRACKERS, "neptune",
                        TrackerSpec("linteval_ray.track.neptune", "NeptuneTracker", "neptune_client_absent", "neptune"))
    with pytest.raises(TrackerUnavailable, match=r"pip install 'linteval-ray\[neptune\]'"):
        Trackers(TrackingConfig(log_to=["neptune"]), "set")
    with pytest.raises(ConfigError, match="unknown tracker"):
        Trackers(TrackingConfig(log_to=["tensorboardx"]), "set")


def test_the_installed_trackers_are_built_by_name_and_mlflow_needs_a_tracking_uri(monkeypatch, tmp_path):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with pytest.raises(TrackerUnavailable, match="set MLFLOW_TRACKING_URI or --mlflow-tracking-uri"):
        Trackers(TrackingConfig(log_to=["mlflow"]), "set")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"sqlite:///{tmp_path / 'mlflow.db'}")
    trackers = Trackers(TrackingConfig(log_to=["mlflow", "wandb", "mlflow"]), "set")
    assert trackers.names == ["mlflow", "wandb"]


@pytest.mark.parametrize("uri", ["file:./mlruns", "./mlruns"])
def test_mlflows_file_store_is_refused_before_any_work_unless_the_user_opted_in(monkeypatch, uri):
    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE", raising=False)
    with pytest.raises(TrackerUnavailable, match=r"MLflow's file store.*MLFLOW_ALLOW_FILE_STORE=true; use sqlite:///"):
        Trackers(TrackingConfig(log_to=["mlflow"], mlflow={"tracking_uri": uri}), "set")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow's own opt-in: the store logs again
    assert Trackers(TrackingConfig(log_to=["mlflow"], mlflow={"tracking_uri": uri}), "set").names == ["mlflow"]


def test_every_metric_gets_a_name_both_trackers_accept():
    rows = [ResultRow(sample_id=f"s{i}", draw=0, row_id=f"s{i}/0", status=Status.EVALUATED, language="cpp",
                      pass_at_1=i % 2 == 0) for i in range(4)]
    flat = flat_metrics(compute(rows))
    assert flat["overall/pass_at_1"] == 0.5 and flat["cpp/n"] == 4.0 and flat["overall/pass_at_k/1"] == 0.5
    assert all(set(name) <= set("abcdefghijklmnopqrstuvwxyz0123456789_./- ") for name in flat), flat


def test_credentials_are_cut_from_urls():
    assert without_credentials("failed: http://me:s3cret@mlflow.lab:5000/api") == "failed: http://mlflow.lab:5000/api"
