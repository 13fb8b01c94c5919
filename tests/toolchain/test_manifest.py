from __future__ import annotations

from linteval_ray.toolchain import Toolchain, ToolchainManifest, ToolInfo
from linteval_ray.toolchain import pins


def test_manifest_has_the_pinned_versions(toolchain: Toolchain) -> None:
    tools = toolchain.manifest().tools
    assert tools["clang_tidy"].version == pins.CLANG_TIDY_VERSION
    assert tools["pmd"].version == pins.PMD_VERSION
    assert tools["testlib"].version == pins.TESTLIB_VERSION
    assert tools["testlib"].sha256 == pins.TESTLIB_SHA256
    assert tools["pylint"].version == pins.PYLINT_VERSION
    assert tools["gxx"].version.split(".")[0] == str(pins.GXX_MAJOR)
    assert tools["java"].version.split(".")[0] == str(pins.JAVA_MAJOR)
    assert tools["javac"].version.split(".")[0] == str(pins.JAVA_MAJOR)
    assert len(tools["clang_tidy"].sha256 or "") == 64


def test_toolchain_id_ignores_paths_but_not_versions(toolchain: Toolchain) -> None:
    manifest = toolchain.manifest()
    assert toolchain.toolchain_id == manifest.toolchain_id and len(manifest.toolchain_id) == 12
    moved = ToolchainManifest(tools={
        name: info.model_copy(update={"path": f"/elsewhere/{name}"}) for name, info in manifest.tools.items()
    })
    assert moved.toolchain_id == manifest.toolchain_id
    upgraded = dict(manifest.tools)
    upgraded["pylint"] = ToolInfo(version="9.9.9", path=manifest.tools["pylint"].path)
    assert ToolchainManifest(tools=upgraded).toolchain_id != manifest.toolchain_id
