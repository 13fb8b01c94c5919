"""Validation: lint, compile and testlib-test a revision in a sandbox."""
