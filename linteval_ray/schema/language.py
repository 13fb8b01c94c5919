"""A record's ``language``: the name of a registered language (``linteval_ray/languages/``).

The set is open: a language registered from outside the package (a plugin, a test) is accepted
like a built-in one. The registry sits above the schema, so it is asked when a name is checked,
not when this module is imported.
"""

from __future__ import annotations

from pydantic_core import PydanticCustomError


def check_language_name(name: str) -> str:
    """``name`` if a language is registered by it, else pydantic's error for a value outside a
    closed set (the same words as a ``Literal`` field's, the names listed)."""
    from linteval_ray.languages.registry import language_names  # above this layer: asked, not imported

    names = language_names()
    if name not in names:
        listed = [repr(n) for n in names]
        expected = listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} or {listed[-1]}"
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
    return name
