#!/usr/bin/python3
"""Writes the SA score fragment table: assets/sascore-fragments.bin.gz plus its sidecar assets/sascore-fragments.json.

Run with the Debian Python:  /usr/bin/python3 scripts/build-sascore-asset.py [path/to/fpscores.pkl.gz]

Source: RDKit's Contrib/SA_Score/fpscores.pkl.gz (Debian package rdkit-data puts it under
/usr/share/RDKit/Contrib/SA_Score/), the fragment contributions of the synthetic accessibility score of
Ertl & Schuffenhauer (J. Cheminform. 2009, 1:8) as RDKit's sascorer.py uses them. The pickle is a list of
rows [score, id1, id2, ...]: every unfolded Morgan radius-2 environment id of a row has that row's score.
It is read with an unpickler that refuses every global, so the file can hold nothing but plain data.

Binary format (all little-endian), gzip-compressed (level 9, no file name, mtime 0: deterministic):
  magic        4 bytes  "SAFS"
  version      u32      1
  row_count    u32      R: number of distinct scores
  id_count     u32      N: number of fragment ids
  scores       R x i16  score x 10000 (the source has 4 decimals; checked), rows ordered by how many ids
                        they hold, most first (ties: source order), so that common rows get small numbers
  id deltas    N varints (LEB128, unsigned): ids sorted ascending, each written as the difference from the
                        previous id (the first from 0)
  rows low     N x u8   low byte of the row number of each id, in id order
  rows high    N x u8   high byte of the same
The byte planes and frequency order make the row numbers compress to about 4 bits per id. A reader
decodes it in one pass into a sorted Uint32Array of ids and a parallel row array (binary search).
The script decodes its own output and checks it against the pickle before writing.
"""
import gzip
import hashlib
import io
import json
import os
import pickle
import struct
import sys
from collections import Counter

import rdkit

DEFAULT_SOURCE = "/usr/share/RDKit/Contrib/SA_Score/fpscores.pkl.gz"
SASCORER = "/usr/share/RDKit/Contrib/SA_Score/sascorer.py"
DEBIAN_COPYRIGHT = "/usr/share/doc/rdkit-data/copyright"
MAGIC = b"SAFS"
VERSION = 1
SCALE = 10000
CITATION = ("Ertl, P.; Schuffenhauer, A. (2009) 'Estimation of synthetic accessibility score of drug-like molecules "
            "based on molecular complexity and fragment contributions', Journal of Cheminformatics, 1, 8, "
            "https://doi.org/10.1186/1758-2946-1-8")


class DataOnlyUnpickler(pickle.Unpickler):
    """Refuses every global: lists, ints, floats and strings load; nothing executable can."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refused global {module}.{name} in the fragment-score pickle")


def load_rows(path):
    with gzip.open(path, "rb") as fh:
        data = DataOnlyUnpickler(fh).load()
    if not isinstance(data, list) or not data:
        sys.exit("build-sascore-asset: the pickle is not a non-empty list")
    rows = []
    for k, row in enumerate(data):
        if not isinstance(row, list) or len(row) < 2 or not isinstance(row[0], (int, float)):
            sys.exit(f"build-sascore-asset: row {k} is not [score, id, ...]")
        ids = row[1:]
        if not all(isinstance(i, int) and 0 <= i < 2**32 for i in ids):
            sys.exit(f"build-sascore-asset: row {k} holds an id that is not a 32-bit unsigned integer")
        score = float(row[0])
        scaled = round(score * SCALE)
        if not -32768 <= scaled <= 32767 or scaled / SCALE != score:
            sys.exit(f"build-sascore-asset: row {k} score {score!r} is not exact at 4 decimals")
        rows.append((scaled, ids))
    return rows


def varint(value, out):
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def encode(rows):
    sizes = Counter()
    for k, (_, ids) in enumerate(rows):
        sizes[k] = len(ids)
    order = sorted(range(len(rows)), key=lambda k: (-sizes[k], k))  # most ids first, then source order
    rank = {k: r for r, k in enumerate(order)}
    pairs = sorted((i, rank[k]) for k, (_, ids) in enumerate(rows) for i in ids)
    for (a, _), (b, _) in zip(pairs, pairs[1:]):
        if a == b:
            sys.exit(f"build-sascore-asset: id {a} appears twice")
    if len(rows) > 65536:
        sys.exit("build-sascore-asset: more rows than a 16-bit row number holds")
    out = bytearray(MAGIC)
    out += struct.pack("<III", VERSION, len(rows), len(pairs))
    out += struct.pack(f"<{len(rows)}h", *(rows[k][0] for k in order))
    prev = 0
    for i, _ in pairs:
        varint(i - prev, out)
        prev = i
    out += bytes(r & 0xFF for _, r in pairs)
    out += bytes(r >> 8 for _, r in pairs)
    return bytes(out)


def decode(blob):
    """Independent reader of the format, used to check the output before it is written."""
    if blob[:4] != MAGIC:
        raise ValueError("bad magic")
    version, nrows, nids = struct.unpack_from("<III", blob, 4)
    if version != VERSION:
        raise ValueError("bad version")
    pos = 16
    scores = struct.unpack_from(f"<{nrows}h", blob, pos)
    pos += 2 * nrows
    ids = []
    prev = 0
    for _ in range(nids):
        value = shift = 0
        while True:
            byte = blob[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        prev += value
        ids.append(prev)
    low, high = blob[pos:pos + nids], blob[pos + nids:pos + 2 * nids]
    pos += 2 * nids
    if pos != len(blob):
        raise ValueError("trailing bytes")
    return {i: scores[lo | (hi << 8)] / SCALE for i, lo, hi in zip(ids, low, high)}


def uncomment(line):
    """A '#' comment line's text. sascorer.py indents its copyright lines by two spaces ("#  Copyright ...")
    and the licence body by one ("# Redistribution ...", "#     * Redistributions ...")."""
    text = line[1:].rstrip()
    if text.startswith("  ") and not text.startswith("   "):
        return text[2:]
    return text.removeprefix(" ")


def comment_block_with(path, marker):
    """The '#' comment block of a file that contains `marker`, without the '#' marks."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    blocks, current = [], []
    for line in lines + [""]:
        if line.startswith("#"):
            current.append(uncomment(line))
        elif current:
            blocks.append(current)
            current = []
    for block in blocks:
        if any(marker in line for line in block):
            while block and not block[0].strip():
                block.pop(0)
            while block and not block[-1].strip():
                block.pop()
            return "\n".join(block)
    sys.exit(f"build-sascore-asset: no comment block with {marker!r} in {path}")


def rdkit_notice():
    """RDKit's own copyright line and BSD-3-Clause terms, from Debian's rdkit-data copyright file."""
    with open(DEBIAN_COPYRIGHT, encoding="utf-8") as fh:
        paragraphs = fh.read().split("\n\n")
    files = next(p for p in paragraphs if p.startswith("Files: *"))
    holders = " ".join(line.strip() for line in files.splitlines()[1:] if not line.startswith("License:"))
    holders = " ".join(holders.replace("Copyright:", "Copyright (c)").split())
    terms = next(p for p in paragraphs if p.startswith("License: BSD-3-clause\n"))
    body = [line[1:] if line.startswith(" ") else line for line in terms.splitlines()[1:]]
    body = ["" if line.strip() == "." else line for line in body]
    return holders + "\n\n" + "\n".join(body)


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_SOURCE
    rows = load_rows(source)
    blob = encode(rows)
    expected = {i: scaled / SCALE for scaled, ids in rows for i in ids}
    if decode(blob) != expected:
        sys.exit("build-sascore-asset: the encoded table does not decode to the source")

    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(blob)
    packed = buf.getvalue()

    with open(source, "rb") as fh:
        source_sha = hashlib.sha256(fh.read()).hexdigest()
    assets = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets"))
    os.makedirs(assets, exist_ok=True)
    out_bin = os.path.join(assets, "sascore-fragments.bin.gz")
    with open(out_bin, "wb") as fh:
        fh.write(packed)

    scores = [scaled / SCALE for scaled, _ in rows]
    sidecar = {
        "asset": "sascore-fragments.bin.gz",
        "description": ("Fragment contributions of the synthetic accessibility (SA) score: unfolded Morgan radius-2 "
                        "environment ids (RDKit GetMorganFingerprint ids) and their scores, as RDKit's "
                        "Contrib/SA_Score/sascorer.py uses them (a fragment missing from the table scores -4)"),
        "citation": CITATION,
        "source": {
            "file": "Contrib/SA_Score/fpscores.pkl.gz",
            "path_read": source,
            "sha256": source_sha,
            "rdkit_version": rdkit.__version__,
            "distribution": "Debian package rdkit-data",
            "generator": "scripts/build-sascore-asset.py",
        },
        "license": {
            "spdx": "BSD-3-Clause",
            "rdkit": rdkit_notice(),
            "sa_score_contrib": comment_block_with(SASCORER, "Copyright"),
        },
        "format": {
            "compression": "gzip",
            "magic": MAGIC.decode(),
            "version": VERSION,
            "layout": ["magic[4]", "version u32", "row_count u32", "id_count u32", "scores i16[row_count] (x 1e-4)",
                       "id deltas LEB128[id_count] (ascending ids)", "row low bytes u8[id_count]",
                       "row high bytes u8[id_count]"],
            "byte_order": "little-endian",
        },
        "counts": {"rows": len(rows), "ids": len(expected), "score_min": min(scores), "score_max": max(scores)},
        "sha256": hashlib.sha256(packed).hexdigest(),
        "bytes": len(packed),
    }
    out_json = os.path.join(assets, "sascore-fragments.json")
    with open(out_json, "w", encoding="utf-8", newline="\n") as fh:
        json.dump(sidecar, fh, indent=2, ensure_ascii=True)
        fh.write("\n")
    print(f"wrote {out_bin} ({len(packed)} bytes, {len(rows)} scores, {len(expected)} ids) and {out_json}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
