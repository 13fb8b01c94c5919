"""Tests for linteval_ray.validate.sandbox (real bubblewrap)."""
