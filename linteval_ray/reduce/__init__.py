"""Reduction: result shards → metrics."""
