"""Python's tools: pylint and astroid, in this interpreter's environment (submissions run under
``validation.python``, a system interpreter the judge takes as configured)."""

from __future__ import annotations

from linteval_ray.toolchain.locate import InstalledDistribution
from linteval_ray.toolchain.probe import DistributionVersion
from linteval_ray.toolchain.recipes import PipPackage
from linteval_ray.toolchain.spec import ANY_VERSION, Pin, ToolSpec

PYLINT_VERSION = "4.1.4"

PYLINT = ToolSpec(
    name="pylint",  # runs in this interpreter (``Toolchain.python``)
    locate=InstalledDistribution("pylint"), probe=DistributionVersion("pylint"),
    pin=Pin(PYLINT_VERSION), install=PipPackage("pylint", PYLINT_VERSION),
)
ASTROID = ToolSpec(
    # astroid decides what pylint infers, so its version is part of the identity; it comes
    # with pylint (which pins its range), so check lists pylint only and installing means pylint.
    name="astroid",
    locate=InstalledDistribution("astroid"), probe=DistributionVersion("astroid"),
    pin=ANY_VERSION, install=PipPackage("pylint", PYLINT_VERSION),
    listed_by_check=False,
)
