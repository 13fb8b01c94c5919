"""The one place that turns the pydantic result models into an Arrow schema.

Result shards are written with this schema, so every shard of every run has the
same columns and types whatever the first batch happened to contain.
"""

from __future__ import annotations

import types
import typing
from enum import Enum
from functools import cache

import pyarrow as pa
from pydantic import BaseModel

from linteval_ray.schema.result import ResultRow

_SCALARS: dict[type, pa.DataType] = {
    str: pa.string(),
    int: pa.int64(),
    float: pa.float64(),
    bool: pa.bool_(),
}


def arrow_type(annotation: typing.Any) -> pa.DataType:
    """Arrow type of a field annotation (scalars, enums, Optional, list, nested models)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"unsupported union {annotation!r}")
        return arrow_type(args[0])
    if origin is list:
        (item,) = typing.get_args(annotation)
        return pa.list_(arrow_type(item))
    if origin is dict:
        key, value = typing.get_args(annotation)
        return pa.map_(arrow_type(key), arrow_type(value))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return pa.struct(model_fields(annotation))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return pa.string()
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    raise TypeError(f"no Arrow type for {annotation!r}")


def model_fields(model: type[BaseModel]) -> list[pa.Field]:
    return [pa.field(name, arrow_type(f.annotation)) for name, f in model.model_fields.items()]


@cache
def result_schema() -> pa.Schema:
    """Arrow schema of a result shard."""
    return pa.schema(model_fields(ResultRow))


def conformed(table: pa.Table) -> pa.Table:
    """``table`` with ``result_schema``'s columns, in its order and types: a column a shard written by an
    earlier version lacks (a field added since, such as ``task``) comes back as nulls."""
    schema = result_schema()
    if table.schema == schema:
        return table
    present = set(table.column_names)
    columns = [table.column(f.name) if f.name in present else pa.nulls(table.num_rows, f.type) for f in schema]
    return pa.Table.from_arrays(columns, names=schema.names).cast(schema)


def rows_to_table(rows: list[ResultRow]) -> pa.Table:
    return pa.Table.from_pylist([r.model_dump(mode="json") for r in rows], schema=result_schema())


def table_to_rows(table: pa.Table) -> list[ResultRow]:
    return [ResultRow.model_validate(d) for d in table.to_pylist()]
