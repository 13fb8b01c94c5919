"""Read an offline W&B run back: the records of its ``run-<id>.wandb`` file.

The file is W&B's transaction log (what ``wandb sync`` uploads): a 7-byte header (``:W&B``, a
magic number, a version) and then LevelDB's log format, 32 KiB blocks of records, each with a
7-byte header (checksum, length, type: full, first, middle, last), holding one protobuf
``Record`` each. wandb itself no longer ships a Python reader for it (its core is in Go).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

HEADER = 7
BLOCK = 32768
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def records(path: Path) -> list[Any]:
    from wandb.proto import wandb_internal_pb2

    data = path.read_bytes()
    assert data[:4] == b":W&B", f"{path} is not a W&B transaction log"
    out, pending, offset = [], b"", HEADER
    while offset + HEADER <= len(data):
        left_in_block = BLOCK - offset % BLOCK
        if left_in_block < HEADER:  # the block's tail is padding
            offset += left_in_block
            continue
        _checksum, length, kind = struct.unpack("<IHB", data[offset:offset + HEADER])
        payload = data[offset + HEADER:offset + HEADER + length]
        offset += HEADER + length
        if kind == 0 and length == 0:  # zero padding
            continue
        pending += payload
        if kind in (FULL, LAST):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            out.append(record)
            pending = b""
    return out

