"""Tasks: the benchmarks the engine evaluates (LintEval, CodeContests-O, ...), each one package.

``base.py`` is the contract, ``registry.py`` knows the tasks by name; each task's package
(``linteval_ray/tasks/<name>/``) holds its ``TASK``. Nothing but the registry loads a task's package.
"""
