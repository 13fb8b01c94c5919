"""The names of the languages, as the schema checks a record's ``language``.

The built-in languages are named here, in the dataset's order (a package of this folder
each); a language registered from elsewhere (``registry.register_language``) adds its name.
This module imports nothing of the project: the schema sits below every language package.
"""

from __future__ import annotations

from pydantic_core import PydanticCustomError

# One package of this folder each (``linteval_ray.languages.<name>``), in the dataset's order.
BUILTIN_LANGUAGES = ("cpp", "py3", "java")

_added: list[str] = []


def language_names() -> tuple[str, ...]:
    """Every language's name: the built-in ones, then the registered ones in registration order."""
    return (*BUILTIN_LANGUAGES, *_added)


def add_language_name(name: str) -> None:
    """Make ``name`` a language the schema accepts (the registry calls it when a spec registers)."""
    if name not in language_names():
        _added.append(name)


def check_language_name(name: str) -> str:
    """``name`` if it is a language's, else pydantic's error for a value outside a closed set
    (the same words as a ``Literal`` field's, the names listed)."""
    names = language_names()
    if name not in names:
        listed = [repr(n) for n in names]
        expected = listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} or {listed[-1]}"
        raise PydanticCustomError("literal_error", "Input should be {expected}", {"expected": expected})
    return name
