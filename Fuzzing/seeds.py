#!/usr/bin/env python3
"""Writes the committed seed corpus of each fuzz target (Fuzzing/Corpus/<target>/).

Each seed is a small, meaningful input: a predicate users write, a stored value of each
kind, a store's recorded model schema, a change file as a peer uploads it, an event payload,
a cloud name. The binary layouts follow Sources/StrataSync/Files/ChangeFile.swift and
Sources/StrataSync/Events/EventPayload.swift and CellValue.swift. Run from the repository
root: python3 Fuzzing/seeds.py (it replaces the folders' contents).
"""
import json
import os
import plistlib
import shutil
import struct
import uuid
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# --- FuzzPredicate: a selector byte (the argument list, see FuzzPredicate.swift) + the format.
PREDICATES = [
    (0, "title == 'abc'"),
    (0, "count > 3 AND NOT flag == YES"),
    (0, "ANY tags.name ==[cd] \"r\u00e9sum\u00e9\""),
    (0, "title BEGINSWITH[c] 'he' OR name LIKE 'a*b?'"),
    (0, "score BETWEEN {1, 2.5}"),
    (0, "count IN {1, 2, 3} && small != -4"),
    (0, "group.parent.name MATCHES '^a.*$'"),
    (0, "TRUEPREDICATE"),
    (0, "created < CAST(86400, \"NSDate\")"),
    (0, "uid == nil OR link == NULL"),
    (0, "tags.@count > 2"),
    (0, "ALL tags.name != 'x'"),
    (0, "NONE steps.note ENDSWITH 'z'"),
    (0, "#title == 'x' || price >= 1.25"),
    (0, "(items.title CONTAINS[d] 'q') AND NOT (rank < 0)"),
    (1, "title == %@"),
    (2, "count >= %d"),
    (3, "score < %f"),
    (5, "%K CONTAINS %@"),
    (7, "count IN %@"),
    (8, "title == %@"),
    (10, "created > %@"),
    (11, "price <= %@"),
    (12, "uid == %@"),
    (13, "link == %@"),
    (14, "%K ==[c] %@ AND count > %ld"),
    (15, "name IN %@ AND %K != nil"),
    (0, "SUBQUERY(group.items, $i, $i.score > 1 AND ANY $i.tags.name ==[c] \"x\").@count >= 1"),
    (0, "SUBQUERY(tags, $t, SUBQUERY($t.items, $u, $u.steps.@count > 0 OR $u == nil).@count == 0).@count < 2"),
    (0, "group.items.@sum.score > 2 OR group.children.@avg.rank == nil AND group.items.@min.group.rank <= 1"),
    (1, "2 > SUBQUERY(steps, $s, $s.owner.title == %@).@count"),
]

# Inputs the fuzzer found (the fixes and their tests: PredicateFuzzRegressionTests).
PREDICATE_REGRESSIONS = [
    ("hash-hash-key", 10, "##################uid == %@"),       # two escapes collapsed: '#uid', then 'uid'
    ("escaped-number-key", 0, "#5= 1.25"),                      # printed as '5 == 1.25', a number
    ("escape-then-mark", 0, "title BEGINSWITH[c] 'H\r\u05bf'"),  # the mark after \r ate the escape
    ("mark-after-quote", 0, "name == '\u0301x'"),                # the opening quote and the mark are one character
    ("printed-nesting", 11, "!" * 25 + "d >%@"),                  # printed as 25 'NOT (', which counted twice
    ("nested-aggregates", 0, "count IN " + "{" * 3000),           # recursed until the stack overflowed
    ("deep-nesting", 0, "title BEGINSWITH[c] 'He' OR " + "!" * 135 + "name LIKE 'a*b?='"),  # SQLite's parser stack overflowed
]

# --- FuzzStoredValue: a selector byte (0 blob, 1 text, 2 integer, 3 real) + the bytes.
PAYLOAD = {"name": "a", "count": 3, "ratio": 0.5, "tags": ["x", "y"], "nested": {"k": [1, 2]}}


def stored_values():
    yield "json", 0, json.dumps(PAYLOAD, sort_keys=True).encode()
    yield "json-as-text", 1, json.dumps(dict(PAYLOAD, when=86400.0), sort_keys=True).encode()
    plist = dict(PAYLOAD, bytes=b"\x01\x02")
    yield "plist", 0, plistlib.dumps(plist, fmt=plistlib.FMT_BINARY)
    yield "uuid-bytes", 0, uuid.UUID("E621E1F8-C36C-495A-93FC-0C247A3E6E5F").bytes
    yield "uuid-text", 1, b"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
    yield "nan-bits", 0, struct.pack(">d", float("nan"))
    yield "minus-zero-bits", 0, struct.pack(">d", -0.0)
    yield "decimal-text", 1, b"12345.678"
    yield "url-text", 1, b"https://example.com/a?b=c"
    yield "not-utf8", 1, b"a\xff\xfeb"
    yield "integer", 2, struct.pack(">q", 40000)
    yield "real", 3, struct.pack(">d", 2.5)


# --- FuzzStoredSchema: the JSON a store records (StoredSchema, format 1).
def schema():
    return {
        "format": 1,
        "entities": [
            {"name": "Note", "columns": ["title", "body", "created", "folder"],
             "attributes": [
                 {"name": "title", "type": "string", "optional": False, "indexed": True, "unique": False},
                 {"name": "body", "type": "transformable", "optional": True, "indexed": False, "unique": False, "transformer": "json"},
                 {"name": "created", "type": "date", "optional": True, "indexed": False, "unique": False}],
             "relationships": [
                 {"name": "folder", "destination": "Folder", "inverse": "notes", "toMany": False, "ordered": False,
                  "optional": True, "deleteRule": "nullify"}]},
            {"name": "Folder", "columns": ["name"],
             "attributes": [{"name": "name", "type": "string", "optional": True, "indexed": False, "unique": True}],
             "relationships": [
                 {"name": "notes", "destination": "Note", "inverse": "folder", "toMany": True, "ordered": True,
                  "optional": True, "deleteRule": "cascade"}]},
        ],
    }


# --- StrataSync's binary layouts.
def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def zigzag(n):
    return varint(((n << 1) ^ (n >> 63)) & 0xFFFFFFFFFFFFFFFF)


def string(s):
    b = s.encode()
    return varint(len(b)) + b


def cell(property_index, value):
    """A cell record's tail: the property's name index, then the value's bytes."""
    return varint(property_index) + varint(len(value)) + value


def payload(sequence, coverage, records):
    """records: (kind, stamp index, entity name index, gid, extra bytes); names and stamps fixed."""
    stamps = [(7, 1_700_000_000_000, "peer-a")]
    names = ["Note", "title", "folder", "tags"]
    head = bytes([1]) + varint(sequence) + varint(len(coverage))
    for peer, seq, lamport in coverage:
        head += string(peer) + varint(seq) + varint(lamport)
    head += varint(len(stamps))
    for lamport, ms, peer in stamps:
        head += varint(lamport) + zigzag(ms) + string(peer)
    head += varint(len(names)) + b"".join(string(n) for n in names)
    body = varint(len(records))
    for kind, stamp, entity, gid, extra in records:
        body += bytes([kind]) + varint(stamp) + varint(entity) + string(gid) + extra
    return head + body


EVENTS = payload(3, [], [
    (1, 0, 0, "g1", b""),                                               # insert
    (3, 0, 0, "g1", cell(1, bytes([3]) + string("hello"))),            # a string cell
    (3, 0, 0, "g1", cell(2, bytes([12]) + string("g2"))),               # a to-one's reference
    (4, 0, 0, "g1", varint(3) + string("t1") + bytes([1])),            # member added
    (2, 0, 0, "g0", b""),                                               # delete
])
BASELINE = payload(0, [("peer-a", 2, 5), ("peer-b", 1, 6)], [(1, 0, 0, "g1", b"")])
BLOB_REFERENCE = bytes([0xB1]) + string("00000000000000000007_peer-a_1.blob") + varint(70000) + struct.pack("<I", 0xCAFEBABE)


def change_file(lamport, peer, kind, model, payload_bytes, ms=1_700_000_000_000):
    short = lambda s: bytes([len(s)]) + s.encode()
    body = struct.pack("<QqQI", lamport, ms, len(payload_bytes), zlib.crc32(payload_bytes)) + short(peer) + short(kind) + short(model)
    prefix = struct.pack("<HH", 1, len(body))
    checksum = zlib.crc32(body, zlib.crc32(prefix))
    return b"\x89STRSYN\n" + prefix + struct.pack("<I", checksum) + body + payload_bytes


def main():
    for target in os.listdir(ROOT) if os.path.isdir(ROOT) else []:
        shutil.rmtree(os.path.join(ROOT, target))
    for i, (selector, text) in enumerate(PREDICATES):
        write("FuzzPredicate", f"{i:02}", bytes([selector]) + text.encode())
    for name, selector, text in PREDICATE_REGRESSIONS:
        write("FuzzPredicate", f"regression-{name}", bytes([selector]) + text.encode())
    for name, selector, data in stored_values():
        write("FuzzStoredValue", name, bytes([selector]) + data)
    write("FuzzStoredSchema", "two-entities.json", json.dumps(schema(), sort_keys=True))
    write("FuzzStoredSchema", "empty-model.json", json.dumps({"format": 1, "entities": []}))
    events = change_file(7, "peer-a", "events", "v1hash", EVENTS)
    # FuzzChangeFile: a selector byte (even: as is; odd: checksums rewritten) + the file.
    write("FuzzChangeFile", "events", b"\x00" + events)
    write("FuzzChangeFile", "baseline", b"\x00" + change_file(9, "peer-b", "baseline", "v1hash", BASELINE))
    write("FuzzChangeFile", "blob", b"\x00" + change_file(7, "peer-a", "blob", "v1hash", b"\x00" * 32))
    write("FuzzChangeFile", "empty-payload", b"\x00" + change_file(1, "c0ffee-42", "events", "m", b""))
    write("FuzzChangeFile", "truncated", b"\x00" + events[:-3])
    write("FuzzChangeFile", "future-version-fixed", b"\x01" + events[:8] + b"\x02\x00" + events[10:])
    write("FuzzEventPayload", "events", EVENTS)
    write("FuzzEventPayload", "baseline", BASELINE)
    write("FuzzEventPayload", "blob-reference", BLOB_REFERENCE)
    write("FuzzEventPayload", "cell-uuid", bytes([8]) + uuid.UUID(int=1).bytes)
    write("FuzzEventPayload", "cell-order", bytes([13]) + varint(2) + string("g1") + string("g2"))
    write("FuzzEventPayload", "cell-double", bytes([2]) + struct.pack("<d", 2.5))
    write("FuzzEventPayload", "cell-decimal", bytes([10]) + string("-12.5"))
    write("FuzzEventPayload", "cell-json", bytes([11]) + string('{"name":"a","values":[1,2]}'))
    # FuzzSyncState: an object row's packed cells (count, then property, lamport, ms, peer, value).
    def cell(prop, lamport, ms, peer, value):
        return string(prop) + zigzag(lamport) + zigzag(ms) + string(peer) + varint(len(value)) + value
    write("FuzzSyncState", "two-cells", varint(2) + cell("rank", 3, 1700000000000, "peer-a", bytes([1]) + zigzag(7))
          + cell("title", 5, 1700000000001, "peer-b", bytes([4]) + string("Dune")))
    write("FuzzSyncState", "empty", varint(0))
    write("FuzzSyncState", "unsorted-duplicate", varint(2) + cell("b", 1, 1, "p", b"") + cell("b", 2, -1, "q", b"x"))
    for name in ["00000000000000000042_peer-a_events.strata", "00000000000000000009_c0ffee-42_baseline.strata",
                 "events/00000000000000000042_peer-a_events.strata", "peers/peer-a", "identity", "blobs/00000000000000000007_peer-a_1.blob",
                 "../escape", "a\u202eb", ".DS_Store", "notes (conflicted copy).strata"]:
        write("FuzzCloudName", name.replace("/", "_").replace(".", "_")[:40] or "empty", name)


if __name__ == "__main__":
    main()
