"""linteval-ray: a Ray-based, cluster-scale evaluator for LintEval.

The package follows the pipeline: ``load`` → ``prompt`` → ``generate`` →
``validate`` → ``store`` → ``reduce`` → ``report``.
"""

__version__ = "0.1.0"
