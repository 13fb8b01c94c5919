"""The performance benchmark: the pipeline against a naive sequential harness (see README.md)."""
