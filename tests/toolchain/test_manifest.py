from __future__ import annotations

from linteval_ray.toolchain import Toolchain, ToolchainManifest, ToolInfo, tool, tools
from linteval_ray.toolchain.probe import PinnedDigest
from linteval_ray.toolchain.recipes import WheelMember

TOOLS = tools()


def test_manifest_has_the_pinned_versions(toolchain: Toolchain) -> None:
    tools = toolchain.manifest().tools
    assert set(tools) == {spec.name for spec in TOOLS}  # bwrap included: it is installed here
    for spec in TOOLS:
        assert spec.pin.accepts(tools[spec.name].version), (spec.name, tools[spec.name].version)
    assert tool("clang_tidy").pin.version == tools["clang_tidy"].version  # exact pins are exact
    testlib = tool("testlib").install
    assert isinstance(testlib, WheelMember) and tools["testlib"].sha256 == testlib.sha256
    assert len(tools["clang_tidy"].sha256 or "") == 64


def test_toolchain_id_ignores_paths(toolchain: Toolchain) -> None:
    manifest = toolchain.manifest()
    assert toolchain.toolchain_id == manifest.toolchain_id and len(manifest.toolchain_id) == 12
    moved = ToolchainManifest(tools={
        name: info.model_copy(update={"path": f"/elsewhere/{name}"}) for name, info in manifest.tools.items()
    })
    assert moved.toolchain_id == manifest.toolchain_id


def test_toolchain_id_follows_the_version_of_every_identity_tool(toolchain: Toolchain) -> None:
    manifest = toolchain.manifest()
    for spec in TOOLS:
        bumped = dict(manifest.tools)
        bumped[spec.name] = ToolInfo(version="9.9.9", path=manifest.tools[spec.name].path)
        changed = ToolchainManifest(tools=bumped).toolchain_id != manifest.toolchain_id
        assert changed == spec.in_identity, spec.name
    assert not tool("bwrap").in_identity  # the sandbox mechanism changes no verdict or alert


def test_a_new_testlib_pin_changes_the_toolchain_id(toolchain: Toolchain) -> None:
    """testlib.h has no version of its own: it is the pinned version only while its hash is the pinned one."""
    manifest = toolchain.manifest()
    re_pinned = PinnedDigest("testlib.h", sha256="0" * 64, version="0.9.46")
    tools = {**manifest.tools, "testlib": re_pinned.read(str(toolchain.testlib_dir))}
    assert tools["testlib"].version == "unknown"
    assert ToolchainManifest(tools=tools).toolchain_id != manifest.toolchain_id
