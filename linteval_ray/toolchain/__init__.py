"""The external tools: discovery, manifest (versions + hashes), install and check."""

from linteval_ray.toolchain.check import CheckReport, ToolStatus, check
from linteval_ray.toolchain.discover import Toolchain, ToolchainError, default_prefix
from linteval_ray.toolchain.install import InstallStep, install
from linteval_ray.toolchain.manifest import ToolchainManifest, ToolInfo

__all__ = [
    "CheckReport",
    "InstallStep",
    "ToolInfo",
    "Toolchain",
    "ToolchainError",
    "ToolchainManifest",
    "ToolStatus",
    "check",
    "default_prefix",
    "install",
]
