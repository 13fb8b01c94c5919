"""``python -m linteval_ray.toolchain check|install`` (the same as ``linteval-ray toolchain ...``)."""

from linteval_ray.toolchain.check import main

raise SystemExit(main())
