"""``LintEvalError``: the root of every error a user can fix (a wrong path, a config typo, a
missing tool or credential, an output folder holding another run).

Each subclass's message names what is wrong and what to do; the CLI prints it as one line
(with ``--debug``, the traceback too). Anything else is a bug and still crashes loudly.
"""

from __future__ import annotations


class LintEvalError(Exception):
    """A mistake or missing prerequisite on the user's side; the message says what to do."""
