"""The external tools: one table of them, discovery, manifest (versions + hashes), install and check.

Imports point one way, from the leaves up (nothing below imports anything above it):

    probe, locate, recipes   how a tool is probed, found, installed (kinds of value; no toolchain imports)
      -> spec                ToolSpec, a row: languages hold their own (``languages/<lang>/tools.py``)
        -> tools             the table: the judge's rows and every registered language's (asked at call time)
          -> manifest        probes the table's tools; ToolchainManifest and toolchain_id
            -> discover      default_prefix, ToolchainError, Toolchain (uses manifest)
          -> install         runs the table's recipes
              -> check       ToolStatus, CheckReport, the CLI (uses discover and install)
"""

from linteval_ray.toolchain.check import CheckReport, ToolStatus, check
from linteval_ray.toolchain.discover import Toolchain, ToolchainError, default_prefix
from linteval_ray.toolchain.install import InstallStep, install
from linteval_ray.toolchain.manifest import ToolchainManifest, ToolInfo
from linteval_ray.toolchain.spec import ToolSpec
from linteval_ray.toolchain.tools import tool, tools

__all__ = [
    "CheckReport",
    "InstallStep",
    "ToolInfo",
    "ToolSpec",
    "ToolStatus",
    "Toolchain",
    "ToolchainError",
    "ToolchainManifest",
    "check",
    "default_prefix",
    "install",
    "tool",
    "tools",
]
