"""The benchmark's baseline: a bare msgspec decode of a trace's payloads, nothing else.

Reads the file, cuts out each ``data:`` payload the simplest way, and decodes it with msgspec
into plain Python objects. ``replay-tui check`` is measured against this, as a whole process.
"""

import sys

import msgspec


def main() -> None:
    decode = msgspec.json.Decoder().decode
    count = 0
    with open(sys.argv[1], "rb") as fh:
        data = fh.read()
    for event in data.split(b"\n\n"):
        if event.startswith(b"data: ") and event != b"data: [DONE]":
            decode(event[6:])
            count += 1
    print(count)


if __name__ == "__main__":
    main()
