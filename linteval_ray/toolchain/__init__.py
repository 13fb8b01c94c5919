"""The external tools: one table of them, discovery, manifest (versions + hashes), install and check.

Imports point one way, from the leaves up (nothing below imports anything above it):

    probe, locate, recipes   how a tool is probed, found, installed (kinds of value; no toolchain imports)
      -> spec                ToolSpec, a row: languages hold their own (``languages/<lang>/tools.py``)
        -> tools             the table: every language's rows (the registry's) and the judge's
          -> manifest        probes the table's tools; ToolchainManifest and toolchain_id
            -> discover      default_prefix, ToolchainError, Toolchain (uses manifest)
          -> install         runs the table's recipes
              -> check       ToolStatus, CheckReport, the CLI (uses discover and install)

This face imports none of them: a language's rows sit between ``spec`` and ``tools``.
"""
