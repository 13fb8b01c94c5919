"""Shared fixtures live in tests/fixtures/ as plugins, one module per service."""

pytest_plugins = [
    "tests.fixtures.toolchain",
    "tests.fixtures.s3",
    "tests.fixtures.mlflow_server",
    "tests.fixtures.ray_local",
    "tests.fixtures.ray_cluster",
    "tests.fixtures.cpu_image",
    "tests.fixtures.tiny_model",
]
