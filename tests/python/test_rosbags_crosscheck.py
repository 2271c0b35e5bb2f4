"""Byte-for-byte cross-check of hibari's CDR against rosbags, every bundled type.

rosbags 0.11.9 (`Typestore.serialize_cdr` / `deserialize_cdr`) is the oracle
(interop.md §1.11). For each distro (Humble, Jazzy), each type, and
`CROSSCHECK_SAMPLES` seeds (default 3):

* rosbags → hibari: a random instance built with rosbags' classes is
  serialized by rosbags; hibari decodes it and re-encodes it three ways (the
  generated type, `hibari_dynamic`, and through rosbridge JSON), and all three
  must equal rosbags' bytes; the zero-copy view must match the typed decode.
* rosbags big-endian → hibari: the same instance serialized big-endian must
  re-encode (hibari always writes little-endian) to rosbags' little-endian
  bytes.
* hibari → rosbags: hibari generates a random instance (checked inside the
  binary to encode identically through the dynamic, typed and JSON paths);
  rosbags must deserialize it and serialize it back to the same bytes.

Types: every generated type rosbags' stock store knows, plus the `.srv`/
`.action` parts and the vendored packages (test_msgs, example_interfaces:
scripts/vendor_interfaces.sh), which rosbags' stores lack. Those are
registered into the rosbags store from the bundled text (parsed by rosbags)
and, for the derived action messages, from the rosidl conventions, so they
are checked against rosbags' serializer too. `test_type_sets` asserts that the
stock store lacks exactly those.

The C++ side (Jazzy; test_rosbags_crosscheck_humble_cpp.py checks the Humble
types whose definitions differ from Jazzy's, the rest having Jazzy's code):
the headers `hibari-cpp-gen --bundled` writes for every bundled type, compiled
into `hibari-crosscheck-cpp` (tests/crosscheck_cpp, built and cached by its
build.py; `HIBARI_CROSSCHECK_CPP_BIN` overrides). For every type it decodes
rosbags' little- and big-endian bytes of the same samples
with the generated C++ type, and parses them as its zero-copy view
(`T::View::parse`, then `to_message()`), and both must re-encode exactly
rosbags' little-endian bytes; this includes the `<Service>_Event` messages rosidl generates on Jazzy
(registered into rosbags' store here, as the parts are). Malformed input
(truncated, hostile counts, missing NUL, bound overflow, bad bool or header,
trailing bytes) must be a decode error, never a crash nor an allocation (the
process runs under a 1 GiB address-space limit), with the same message from
the typed decode and the view (the C++ side checks they agree). wstring, which rosbags lacks,
is checked against real rclpy when scripts/ros2-peer.sh has installed it.

The Rust side is one long-lived `hibari-crosscheck` process speaking one JSON
object per line; each distro's requests go in one batch. The binary is taken
from `HIBARI_CROSSCHECK_BIN`, else `<repo>/target/release/hibari-crosscheck`.
`CROSSCHECK_SEED` (default 0) shifts every seed, to explore new samples.

rosbags caveats (interop.md §1.11) and how they are handled: it does not
enforce bounds, so the generators here respect `string<=N` and `T[<=N]`
themselves (hibari refuses out-of-bound values on write); it has no
wstring, so the vendored types with wstring fields (test_msgs/msg/WStrings,
example_interfaces/msg/WString) are not cross-checked; its RIHS01 for `char` is wrong, which
does not affect bytes. NaN is not generated: its payload bits are not
guaranteed to survive rosbridge JSON (`null`).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import os
import random
import re
import resource
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pytest
from rosbags.interfaces import Nodetype
from rosbags.serde.utils import ndtype
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

if TYPE_CHECKING:
    from rosbags.interfaces.typing import Basetype, Fielddefs, FieldDesc, Typesdict
    from rosbags.typesys.store import Typestore

REPO = Path(__file__).resolve().parents[2]
INTERFACES = REPO / 'crates' / 'hibari-idl' / 'interfaces'
STORES: dict[str, Stores] = {'humble': Stores.ROS2_HUMBLE, 'jazzy': Stores.ROS2_JAZZY}
SAMPLES = int(os.environ.get('CROSSCHECK_SAMPLES', '3'))
SEED_BASE = int(os.environ.get('CROSSCHECK_SEED', '0'))
MAX_SEQ = 8
MAX_CHARS = 8
# rosidl's member of an otherwise empty message; always written as 0.
DUMMY_FIELD = 'structure_needs_at_least_one_member'
# Characters strings are drawn from: ASCII, controls (never NUL), 2/3/4-byte UTF-8.
CHARS = 'aZ0 /_"\\\n\t\x01\x7féßΩ\x80日本\ufffd\uffff🦀😀\U0010ffff'
INT_RANGES: dict[str, tuple[int, int]] = {
    'byte': (-(2**7), 2**7 - 1),  # rosbags packs `byte` as a signed char
    'char': (0, 2**8 - 1),
    'int8': (-(2**7), 2**7 - 1),
    'uint8': (0, 2**8 - 1),
    'int16': (-(2**15), 2**15 - 1),
    'uint16': (0, 2**16 - 1),
    'int32': (-(2**31), 2**31 - 1),
    'uint32': (0, 2**32 - 1),
    'int64': (-(2**63), 2**63 - 1),
    'uint64': (0, 2**64 - 1),
}


# --- the rosbags side: stores, hand-written parts, random instances ----------


def _parse_part(text: str, name: str) -> Typesdict:
    """Parses one section of a `.srv`/`.action` file as the message `name`.

    rosbags mangles `pkg/srv/T` names (to `pkg/srv/msg/T`, and resolves
    relative field types into that folder), so the text is parsed as
    `pkg/msg/T` and renamed.
    """
    pkg, _, short = name.split('/')
    parsed = get_types_from_msg(text, f'{pkg}/msg/{short}')
    consts, fields = parsed[f'{pkg}/msg/{short}']
    if not fields:
        fields = [(DUMMY_FIELD, (Nodetype.BASE, ('uint8', 0)))]
    return {name: (consts, fields)}


def _named(typ: str) -> FieldDesc:
    return (Nodetype.NAME, typ)


def hand_written_parts(distro: str) -> Typesdict:
    """The message parts of the bundled hand-written `.srv` and `.action` files.

    Request/response and goal/result/feedback come from the file text; the
    derived action messages follow rosidl (`rosidl_parser` `action.py`).
    """
    typs: Typesdict = {}
    root = INTERFACES / distro
    for path in sorted(root.glob('*/srv/*.srv')):
        base = f'{path.parts[-3]}/srv/{path.stem}'
        sections = path.read_text().split('\n---\n')
        assert len(sections) == 2, path
        typs |= _parse_part(sections[0], f'{base}_Request')
        typs |= _parse_part(sections[1], f'{base}_Response')
    for path in sorted(root.glob('*/action/*.action')):
        base = f'{path.parts[-3]}/action/{path.stem}'
        sections = (path.read_text() + '\n').split('\n---\n')
        assert len(sections) == 3, path
        for section, part in zip(sections, ('Goal', 'Result', 'Feedback'), strict=True):
            typs |= _parse_part(section, f'{base}_{part}')
        uuid = _named('unique_identifier_msgs/msg/UUID')
        typs[f'{base}_SendGoal_Request'] = ([], [('goal_id', uuid), ('goal', _named(f'{base}_Goal'))])
        typs[f'{base}_SendGoal_Response'] = (
            [],
            [('accepted', (Nodetype.BASE, ('bool', 0))), ('stamp', _named('builtin_interfaces/msg/Time'))],
        )
        typs[f'{base}_GetResult_Request'] = ([], [('goal_id', uuid)])
        typs[f'{base}_GetResult_Response'] = (
            [],
            [('status', (Nodetype.BASE, ('int8', 0))), ('result', _named(f'{base}_Result'))],
        )
        typs[f'{base}_FeedbackMessage'] = ([], [('goal_id', uuid), ('feedback', _named(f'{base}_Feedback'))])
    return typs


def _at_most_one(typ: str) -> FieldDesc:
    """`typ[<=1]`."""
    return cast('FieldDesc', (Nodetype.SEQUENCE, (_named(typ), 1)))


def service_events(distro: str) -> Typesdict:
    """rosidl's `<Service>_Event` message of every bundled service (action
    services included), for distros with `service_msgs` (Jazzy): the
    `ServiceEventInfo info`, `<Service>_Request[<=1] request` and
    `<Service>_Response[<=1] response` of `ServiceDef::event_message`."""
    info = 'service_msgs/msg/ServiceEventInfo'
    if info not in get_typestore(STORES[distro]).fielddefs:
        return {}
    root = INTERFACES / distro
    services = [f'{p.parts[-3]}/srv/{p.stem}' for p in sorted(root.glob('*/srv/*.srv'))]
    for path in sorted(root.glob('*/action/*.action')):
        base = f'{path.parts[-3]}/action/{path.stem}'
        services += [f'{base}_SendGoal', f'{base}_GetResult']
    return {
        f'{srv}_Event': (
            [],
            [
                ('info', _named(info)),
                ('request', _at_most_one(f'{srv}_Request')),
                ('response', _at_most_one(f'{srv}_Response')),
            ],
        )
        for srv in services
    }


VENDORED_MARK = '# Copied by scripts/vendor_interfaces.sh'
WSTRING = re.compile(r'^\s*wstring\b', re.MULTILINE)


def vendored_msgs(distro: str) -> tuple[Typesdict, frozenset[str]]:
    """The `.msg` types of the vendored packages (scripts/vendor_interfaces.sh),
    which rosbags' stores lack, parsed by rosbags from the bundled text; and
    those left out because they have `wstring` fields, which rosbags cannot
    represent (it reads `wstring` as a message name)."""
    typs: Typesdict = {}
    unsupported: set[str] = set()
    for path in sorted((INTERFACES / distro).glob('*/msg/*.msg')):
        text = path.read_text()
        if not text.startswith(VENDORED_MARK):
            continue
        name = f'{path.parts[-3]}/msg/{path.stem}'
        if WSTRING.search(text):
            unsupported.add(name)
        else:
            typs |= get_types_from_msg(text, name)
    return typs, frozenset(unsupported)


@dataclass(frozen=True)
class DistroTypes:
    """rosbags' view of one distro."""

    stock: frozenset[str]  # what the stock rosbags store knows
    parts: frozenset[str]  # hand-written srv/action parts registered on top
    vendored: frozenset[str]  # vendored messages registered on top
    unchecked: frozenset[str]  # vendored messages rosbags cannot represent
    bundled_msgs: frozenset[str]  # the bundled `.msg` files of the distro
    events: frozenset[str]  # service event messages (C++ only) registered on top
    store: Typestore  # stock + parts + vendored + events

    @property
    def checked(self) -> list[str]:
        """The types cross-checked: bundled and known to the (extended) store."""
        return sorted((self.bundled_msgs & self.stock) | self.parts | self.vendored)


def load_distro(distro: str) -> DistroTypes:
    store = get_typestore(STORES[distro])
    stock = frozenset(store.fielddefs)
    parts = hand_written_parts(distro)
    vendored, unchecked = vendored_msgs(distro)
    events = service_events(distro)
    store.register(vendored | parts | events)
    root = INTERFACES / distro
    msgs = frozenset(f'{p.parts[-3]}/msg/{p.stem}' for p in root.glob('*/msg/*.msg'))
    return DistroTypes(stock=stock, parts=frozenset(parts), vendored=frozenset(vendored),
                       unchecked=unchecked, bundled_msgs=msgs, events=frozenset(events), store=store)


DISTROS: dict[str, DistroTypes] = {d: load_distro(d) for d in STORES}


def rand_int(rng: random.Random, lo: int, hi: int) -> int:
    """Often an edge (min, max, 0, ±1 clamped into range), else uniform."""
    pick = rng.randrange(8)
    if pick < 5:
        return min(max((lo, hi, 0, 1, -1)[pick], lo), hi)
    return rng.randint(lo, hi)


def rand_float(rng: random.Random, bits: int) -> float:
    """A finite float64, or a float32 value: zeros, subnormals, huge, random bits."""
    fmt, ifmt, mant, fmax, fmin = (
        ('<d', '<Q', 52, 1.7976931348623157e308, 2.2250738585072014e-308)
        if bits == 64
        else ('<f', '<I', 23, 3.4028234663852886e38, 1.1754943508222875e-38)
    )
    sign = rng.choice((-1.0, 1.0))
    pick = rng.randrange(10)
    if pick == 0:
        return -0.0
    if pick == 1:
        return 0.0
    if pick == 2:  # subnormal
        x: float = struct.unpack(fmt, struct.pack(ifmt, rng.randrange(1, 1 << mant)))[0]
        return sign * x
    if pick == 3:
        return sign * fmin
    if pick == 4:
        x = struct.unpack(fmt, struct.pack(fmt, fmax * max(rng.random(), 0.5)))[0]
        return sign * x
    if pick == 5:
        return sign * fmax
    if pick in (6, 7):
        x = struct.unpack(fmt, struct.pack(fmt, rng.random() * 1000.0))[0]
        return sign * x
    while True:
        x = struct.unpack(fmt, rng.randbytes(bits // 8))[0]
        if math.isfinite(x):
            return x


def rand_string(rng: random.Random, bound: int) -> str:
    """Up to MAX_CHARS characters, at most `bound` UTF-8 bytes if bounded."""
    out = ''
    for _ in range(rng.randint(0, MAX_CHARS)):
        c = chr(rng.randrange(0x20, 0x7F)) if rng.random() < 0.5 else rng.choice(CHARS)
        if bound and len((out + c).encode()) > bound:
            break
        out += c
    return out


def rand_scalar(rng: random.Random, base: Basetype) -> object:
    name, bound = base
    if name == 'bool':
        return rng.random() < 0.5
    if name == 'string':
        return rand_string(rng, bound)
    if name in ('float32', 'float64'):
        return rand_float(rng, 32 if name == 'float32' else 64)
    lo, hi = INT_RANGES[name]
    return rand_int(rng, lo, hi)


def rand_field(store: Typestore, desc: FieldDesc, rng: random.Random) -> object:
    if desc[0] == Nodetype.BASE:
        return rand_scalar(rng, desc[1])
    if desc[0] == Nodetype.NAME:
        return rand_message(store, desc[1], rng)
    sub, n = desc[1]
    length = n if desc[0] == Nodetype.ARRAY else rng.randint(0, min(n, MAX_SEQ) if n else MAX_SEQ)
    if sub[0] == Nodetype.BASE and sub[1][0] != 'string':
        # rosbags keeps primitive arrays as numpy arrays (its deserializer
        # uses numpy.frombuffer with `ndtype`: bool_, uint8 for char, byte = int8).
        dtype = np.dtype(getattr(np, ndtype(sub[1][0])))
        return np.array([rand_scalar(rng, sub[1]) for _ in range(length)], dtype=dtype)
    return [rand_field(store, sub, rng) for _ in range(length)]


def rand_message(store: Typestore, name: str, rng: random.Random) -> object:
    fields: Fielddefs = store.fielddefs[name][1]
    kwargs: dict[str, object] = {}
    for fname, desc in fields:
        kwargs[fname] = 0 if fname == DUMMY_FIELD else rand_field(store, desc, rng)
    cls: Any = store.types[name]
    return cls(**kwargs)


# --- the hibari side: one long-lived process ----------------------------------


def crosscheck_bin() -> Path:
    env = os.environ.get('HIBARI_CROSSCHECK_BIN')
    return Path(env) if env else REPO / 'target' / 'release' / 'hibari-crosscheck'


class Crosscheck:
    """The `hibari-crosscheck` process: one JSON request/reply per line."""

    def __init__(self, binary: Path, *, address_space: int | None = None) -> None:
        if not binary.is_file():
            pytest.fail(
                f'{binary} not found: run `cargo build --release -p hibari-crosscheck` '
                'or set HIBARI_CROSSCHECK_BIN',
            )

        def limit() -> None:
            if address_space is not None:
                resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

        self.name = binary.name
        self.proc = subprocess.Popen(  # noqa: S603
            [str(binary)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding='utf-8',
            preexec_fn=limit,  # noqa: PLW1509  (no threads yet in the child)
        )

    def request(self, req: dict[str, object]) -> dict[str, Any]:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(req) + '\n')
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            pytest.fail(f'{self.name} exited (code {self.proc.poll()})')
        reply: dict[str, Any] = json.loads(line)
        return reply

    def batch(self, reqs: list[dict[str, object]]) -> list[dict[str, Any]]:
        replies: list[dict[str, Any]] = self.request({'op': 'batch', 'requests': reqs})['replies']
        assert len(replies) == len(reqs)
        return replies

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope='module')
def crosscheck() -> Iterator[Crosscheck]:
    cc = Crosscheck(crosscheck_bin())
    yield cc
    cc.close()


# --- the samples: built and sent once per distro, checked per test -------------


def seed_for(distro: str, typ: str, sample: int) -> int:
    """A stable 63-bit seed per (distro, type, sample)."""
    return (zlib.crc32(f'{distro}|{typ}'.encode()) << 31) ^ (SEED_BASE * 1_000_003 + sample)


@dataclass
class Sample:
    """Everything checked for one (distro, type, sample)."""

    seed: int
    rosbags_error: str | None = None  # building/serializing with rosbags failed
    le: bytes = b''
    be: bytes = b''
    le_reply: dict[str, Any] | None = None
    be_reply: dict[str, Any] | None = None
    random_reply: dict[str, Any] | None = None


@functools.cache
def rosbags_bytes(distro: str, typ: str, sample: int) -> tuple[int, bytes, bytes, str | None]:
    """(seed, little-endian bytes, big-endian bytes, rosbags error) of one random instance."""
    dt = DISTROS[distro]
    seed = seed_for(distro, typ, sample)
    try:
        msg = rand_message(dt.store, typ, random.Random(seed))
        le = bytes(dt.store.serialize_cdr(msg, typ, little_endian=True))
        be = bytes(dt.store.serialize_cdr(msg, typ, little_endian=False))
    except Exception as exc:  # noqa: BLE001  (reported by the test)
        return seed, b'', b'', f'{type(exc).__name__}: {exc}'
    return seed, le, be, None


def rosbags_sample(distro: str, typ: str, sample: int) -> Sample:
    seed, le, be, error = rosbags_bytes(distro, typ, sample)
    return Sample(seed=seed, rosbags_error=error, le=le, be=be)


class Samples:
    """Lazily computes every sample of a distro in one batch."""

    def __init__(self, cc: Crosscheck) -> None:
        self.cc = cc
        self.by_distro: dict[str, dict[tuple[str, int], Sample]] = {}

    def get(self, distro: str, typ: str, sample: int) -> Sample:
        if distro not in self.by_distro:
            self.by_distro[distro] = self._compute(distro)
        return self.by_distro[distro][(typ, sample)]

    def _compute(self, distro: str) -> dict[tuple[str, int], Sample]:
        dt = DISTROS[distro]
        samples: dict[tuple[str, int], Sample] = {}
        reqs: list[dict[str, object]] = []
        slots: list[tuple[Sample, str]] = []
        for typ in dt.checked:
            for i in range(SAMPLES):
                s = rosbags_sample(distro, typ, i)
                samples[(typ, i)] = s
                base = {'distro': distro, 'type': typ}
                if s.rosbags_error is None:
                    reqs.append({'op': 'roundtrip', 'hex': s.le.hex(), **base})
                    slots.append((s, 'le_reply'))
                    reqs.append({'op': 'roundtrip', 'hex': s.be.hex(), **base})
                    slots.append((s, 'be_reply'))
                reqs.append({'op': 'random', 'seed': s.seed, **base})
                slots.append((s, 'random_reply'))
        for (s, slot), reply in zip(slots, self.cc.batch(reqs), strict=True):
            setattr(s, slot, reply)
        return samples


@pytest.fixture(scope='module')
def samples(crosscheck: Crosscheck) -> Samples:
    return Samples(crosscheck)


PARAMS = [
    pytest.param(distro, typ, i, id=f'{distro}-{typ}-seed{i}')
    for distro, dt in DISTROS.items()
    for typ in dt.checked
    for i in range(SAMPLES)
]


def hexdiff(want: bytes, got: bytes) -> str:
    """Where two byte strings first differ, with context."""
    at = next((i for i, (a, b) in enumerate(zip(want, got, strict=False)) if a != b), min(len(want), len(got)))
    lo = max(0, at - 8)
    return (
        f'lengths {len(want)} vs {len(got)}; first difference at byte {at} (payload offset {at - 4})\n'
        f'  rosbags: ...{want[lo : at + 16].hex(" ")}\n'
        f'  hibari:  ...{got[lo : at + 16].hex(" ")}\n'
        f'  full rosbags: {want.hex()}\n  full hibari:  {got.hex()}'
    )


def check_roundtrip(reply: dict[str, Any] | None, want: bytes, what: str) -> None:
    assert reply is not None
    assert 'error' not in reply, f'hibari failed on {what} bytes {want.hex()}: {reply["error"]}'
    for path in ('typed', 'dynamic', 'json'):
        got = bytes.fromhex(reply[path])
        assert got == want, f'{path} re-encode of {what} bytes differs from rosbags: {hexdiff(want, got)}'
    assert reply['view_matches'], f'view.to_owned_message() differs from the typed decode of {want.hex()}'


# --- the tests -------------------------------------------------------------


@pytest.mark.parametrize('distro', list(STORES))
def test_type_sets(distro: str, crosscheck: Crosscheck) -> None:
    """hibari's types beyond rosbags' stock store are exactly the hand-written parts."""
    ours = set(crosscheck.request({'op': 'types', 'distro': distro})['types'])
    dt = DISTROS[distro]
    only_ours = ours - dt.stock
    only_rosbags = dt.stock - ours
    print(
        f'\n{distro}: hibari {len(ours)} types, rosbags {len(dt.stock)}; '
        f'checked {len(ours & dt.stock)} against the stock store and '
        f'{len(only_ours & dt.parts)} hand-written srv/action parts registered into it; '
        f'hibari-only not hand-written: {sorted(only_ours - dt.parts)}; '
        f'rosbags-only (packages not bundled): {sorted(only_rosbags)}',
    )
    assert ours == dt.bundled_msgs | dt.parts, (
        f'TYPE_NAMES differs from the bundled files: extra {sorted(ours - dt.bundled_msgs - dt.parts)}, '
        f'missing {sorted((dt.bundled_msgs | dt.parts) - ours)}'
    )
    beyond = dt.parts | dt.vendored | dt.unchecked
    assert only_ours == beyond, (
        f'types hibari has and rosbags lacks must be the srv/action parts and the vendored packages: '
        f'unexpected {sorted(only_ours - beyond)}, missing {sorted(beyond - only_ours)}'
    )
    # rosbags also ships packages hibari deliberately leaves out (scripts/
    # gen_interfaces.py PACKAGE_SOURCES), but a bundled package must be whole.
    our_pkgs = {t.split('/')[0] for t in ours}
    partial = sorted(t for t in only_rosbags if t.split('/')[0] in our_pkgs)
    assert not partial, f'types of bundled packages that hibari lacks: {partial}'


@pytest.mark.parametrize(('distro', 'typ', 'sample'), PARAMS)
def test_rosbags_to_hibari(samples: Samples, distro: str, typ: str, sample: int) -> None:
    s = samples.get(distro, typ, sample)
    assert s.rosbags_error is None, f'seed {s.seed}: rosbags could not serialize: {s.rosbags_error}'
    check_roundtrip(s.le_reply, s.le, f'seed {s.seed} little-endian')


@pytest.mark.parametrize(('distro', 'typ', 'sample'), PARAMS)
def test_rosbags_big_endian_to_hibari(samples: Samples, distro: str, typ: str, sample: int) -> None:
    s = samples.get(distro, typ, sample)
    assert s.rosbags_error is None, f'seed {s.seed}: rosbags could not serialize: {s.rosbags_error}'
    assert s.be[:4] == b'\x00\x00\x00\x00'
    # hibari writes little-endian: re-encoding the big-endian input must give
    # exactly rosbags' little-endian bytes of the same message.
    check_roundtrip(s.be_reply, s.le, f'seed {s.seed} big-endian')


@pytest.mark.parametrize(('distro', 'typ', 'sample'), PARAMS)
def test_hibari_to_rosbags(samples: Samples, distro: str, typ: str, sample: int) -> None:
    s = samples.get(distro, typ, sample)
    reply = s.random_reply
    assert reply is not None
    assert 'error' not in reply, f'seed {s.seed}: hibari could not generate: {reply["error"]}'
    ours = bytes.fromhex(reply['hex'])
    store = DISTROS[distro].store
    msg = store.deserialize_cdr(ours, typ)
    back = bytes(store.serialize_cdr(msg, typ, little_endian=True))
    assert back == ours, f'seed {s.seed}: rosbags re-serializes hibari bytes differently: {hexdiff(back, ours)}'


# --- the C++ side: generated headers compiled into hibari-crosscheck-cpp -------

CPP_DISTRO = 'jazzy'
# The C++ process's address space: a decoder that believed a forged count
# would fail to allocate (std::bad_alloc) instead of reporting a decode error.
CPP_ADDRESS_SPACE = 1 << 30
CPP_BUILD = REPO / 'tests' / 'crosscheck_cpp' / 'build.py'
ROS2_PEER_ENV = REPO / '.venv-ros2-jazzy' / 'env.sh'


def cpp_checked() -> list[str]:
    """The types the C++ side is checked on: the Rust side's, plus service events."""
    dt = DISTROS[CPP_DISTRO]
    return sorted(set(dt.checked) | dt.events)


def cpp_build_module() -> Any:
    spec = importlib.util.spec_from_file_location('crosscheck_cpp_build', CPP_BUILD)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope='module')
def cpp() -> Iterator[Crosscheck]:
    env = os.environ.get('HIBARI_CROSSCHECK_CPP_BIN')
    if env:
        binary = Path(env)
    else:
        build = cpp_build_module()
        try:
            binary = build.build(CPP_DISTRO)
        except build.BuildError as exc:
            pytest.fail(f'building tests/crosscheck_cpp failed: {exc}')
    cc = Crosscheck(binary, address_space=CPP_ADDRESS_SPACE)
    yield cc
    cc.close()


class CppSamples:
    """rosbags' bytes of every checked type and sample, decoded and
    re-encoded by the C++ process in one batch."""

    def __init__(self, cc: Crosscheck) -> None:
        self.cc = cc
        self.replies: dict[tuple[str, int, str], dict[str, Any]] | None = None

    def get(self, typ: str, sample: int) -> tuple[Sample, dict[str, Any], dict[str, Any]]:
        if self.replies is None:
            keys: list[tuple[str, int, str]] = []
            reqs: list[dict[str, object]] = []
            for t in cpp_checked():
                for i in range(SAMPLES):
                    s = rosbags_sample(CPP_DISTRO, t, i)
                    if s.rosbags_error is None:
                        for order, data in (('le', s.le), ('be', s.be)):
                            keys.append((t, i, order))
                            reqs.append({'op': 'roundtrip', 'distro': CPP_DISTRO, 'type': t, 'hex': data.hex()})
            self.replies = dict(zip(keys, self.cc.batch(reqs), strict=True))
        s = rosbags_sample(CPP_DISTRO, typ, sample)
        assert s.rosbags_error is None, f'seed {s.seed}: rosbags could not serialize: {s.rosbags_error}'
        return s, self.replies[(typ, sample, 'le')], self.replies[(typ, sample, 'be')]


@pytest.fixture(scope='module')
def cpp_samples(cpp: Crosscheck) -> CppSamples:
    return CppSamples(cpp)


def test_cpp_types_are_every_bundled_type_with_service_events(cpp: Crosscheck) -> None:
    ours = set(cpp.request({'op': 'types'})['types'])
    dt = DISTROS[CPP_DISTRO]
    want = dt.bundled_msgs | dt.parts | dt.events
    build_times = sorted((REPO / 'target' / 'crosscheck_cpp' / CPP_DISTRO).glob('build-*/build-time.txt'))
    print(
        f'\nC++ {CPP_DISTRO}: {len(ours)} generated message types; cross-checked {len(cpp_checked())} '
        f'({len(dt.events)} of them service events); not checked against rosbags (wstring): '
        f'{sorted(dt.unchecked)}, test_msgs/msg/WStrings is checked against rclpy instead; '
        f'last build: {build_times[-1].read_text().strip() if build_times else "?"}',
    )
    assert ours == want, f'extra {sorted(ours - want)}, missing {sorted(want - ours)}'


def test_cpp_headers_each_compile_alone() -> None:
    """Every generated header includes what it uses: a translation unit with
    only it (twice: the include guard) passes g++ -fsyntax-only -Wall -Wextra
    -Werror. Cached by build.py until a header or cdr.hpp changes."""
    build = cpp_build_module()
    try:
        count, took = build.check_headers(CPP_DISTRO)
    except build.BuildError as exc:
        pytest.fail(f'a generated header does not compile alone: {exc}')
    print(f'\n{count} headers compile alone ({took:.1f} s; 0.0 when cached)')
    assert count == len({h for _, _, h in build.generate(CPP_DISTRO).types})


CPP_PARAMS = [pytest.param(typ, i, id=f'{CPP_DISTRO}-{typ}-seed{i}') for typ in cpp_checked() for i in range(SAMPLES)]


@pytest.mark.parametrize(('typ', 'sample'), CPP_PARAMS)
def test_rosbags_to_cpp(cpp_samples: CppSamples, typ: str, sample: int) -> None:
    s, le_reply, be_reply = cpp_samples.get(typ, sample)
    for reply, what in ((le_reply, 'little-endian'), (be_reply, 'big-endian')):
        assert 'error' not in reply, f'C++ failed on seed {s.seed} {what} bytes {s.le.hex()}: {reply["error"]}'
        got = bytes.fromhex(reply['typed'])
        assert got == s.le, f'C++ re-encode of seed {s.seed} {what} bytes differs from rosbags: {hexdiff(s.le, got)}'
        view = bytes.fromhex(reply['view'])
        assert view == s.le, f'C++ view of seed {s.seed} {what} bytes copies differently: {hexdiff(s.le, view)}'


def cpp_errors(cpp: Crosscheck, cases: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    reqs: list[dict[str, object]] = [{'op': 'roundtrip', 'type': t, 'hex': b.hex()} for t, b in cases]
    replies = cpp.batch(reqs)
    assert cpp.request({'op': 'types'})['types'], 'the C++ process stopped serving'
    return replies


def test_cpp_refuses_every_truncation(cpp: Crosscheck) -> None:
    """No field ends in optional bytes, so every strict prefix is an error."""
    cases: list[tuple[str, bytes]] = []
    for typ in cpp_checked():
        full = rosbags_sample(CPP_DISTRO, typ, 0).le
        cuts = {0, 2, 4, 5, len(full) // 3, len(full) // 2, len(full) - 4, len(full) - 2, len(full) - 1}
        cases += [(typ, full[:n]) for n in sorted(cuts) if 0 <= n < len(full)]
    for (typ, data), reply in zip(cases, cpp_errors(cpp, cases), strict=True):
        assert str(reply.get('error', '')).startswith('decode:'), f'{typ} truncated to {len(data)} bytes: {reply}'
    print(f'\n{len(cases)} truncated payloads refused')


def test_cpp_survives_every_word_set_to_a_huge_count(cpp: Crosscheck) -> None:
    """Each 4-byte word of the first 256 payload bytes of every type's sample
    set to 0xffffffff: a decode error or a decode, never an allocation failure
    (std::bad_alloc under the address-space limit) or a crash."""
    cases: list[tuple[str, bytes]] = []
    for typ in cpp_checked():
        full = rosbags_sample(CPP_DISTRO, typ, 0).le
        for at in range(4, min(len(full) - 3, 4 + 256), 4):
            cases.append((typ, full[:at] + b'\xff\xff\xff\xff' + full[at + 4 :]))
    refused = 0
    for (typ, data), reply in zip(cases, cpp_errors(cpp, cases), strict=True):
        if 'error' in reply:
            assert reply['error'].startswith('decode:'), f'{typ} {data.hex()}: {reply}'
            refused += 1
        else:
            assert bytes.fromhex(reply['typed']), f'{typ} {data.hex()}: {reply}'
            assert reply['view'] == reply['typed'], f'{typ} {data.hex()}: the view copies differently: {reply}'
    print(f'\n{len(cases)} payloads with a forged word: {refused} refused, {len(cases) - refused} decoded')


def _with_field(typ: str, seed: int, **fields: object) -> bytes:
    """rosbags' bytes of a random `typ` with `fields` set (rosbags does not check bounds)."""
    store = DISTROS[CPP_DISTRO].store
    msg = rand_message(store, typ, random.Random(seed))
    for name, value in fields.items():
        setattr(msg, name, value)
    return bytes(store.serialize_cdr(msg, typ, little_endian=True))


def test_cpp_refuses_malformed_values_with_a_clear_message(cpp: Crosscheck) -> None:
    hello = bytes.fromhex('000100000600000068656c6c6f00')
    bounded = np.array([1, 2, 3, 4], dtype=np.int32)
    cases = [
        ('std_msgs/msg/String', bytes.fromhex('00010000ffffffff'), 'needs at least 4294967295 bytes'),
        ('std_msgs/msg/String', bytes.fromhex('000100000500000068656c6c6f'), 'does not end with a NUL'),
        ('std_msgs/msg/Bool', bytes.fromhex('0001000002'), 'expected 0 or 1'),
        ('std_msgs/msg/String', bytes.fromhex('00070000') + hello[4:], 'encapsulation header 00 07 00 00'),
        ('std_msgs/msg/String', hello + b'\0\0\0\0', '4 bytes follow the end of the message'),
        ('visualization_msgs/msg/MarkerArray', bytes.fromhex('00010000ffffff7f'), 'field `markers`: count 2147483647'),
        ('sensor_msgs/msg/PointCloud2', rosbags_sample(CPP_DISTRO, 'sensor_msgs/msg/PointCloud2', 0).le[:12]
         + b'\xff\xff\xff\xff', 'field `frame_id`: count 4294967295 at offset 12'),
        ('test_msgs/msg/Strings', _with_field('test_msgs/msg/Strings', 1, bounded_string_value='x' * 23),
         'field `bounded_string_value`: string of 23 bytes'),
        ('test_msgs/msg/BoundedPlainSequences', _with_field('test_msgs/msg/BoundedPlainSequences', 1,
                                                            int32_values=bounded),
         'field `int32_values`: sequence count 4 at offset'),
    ]
    replies = cpp_errors(cpp, [(t, b) for t, b, _ in cases])
    for (typ, data, want), reply in zip(cases, replies, strict=True):
        assert want in str(reply.get('error')), f'{typ} {data.hex()}: want an error with {want!r}, got {reply}'
    # Within the rules: 3 trailing bytes, a bounded string at its bound.
    at_bound = _with_field('test_msgs/msg/Strings', 1, bounded_string_value='x' * 22)
    ok = [
        ('std_msgs/msg/String', hello + b'\0\0\0', hello),
        ('test_msgs/msg/Strings', at_bound, at_bound),
    ]
    for (typ, data, same), reply in zip(ok, cpp_errors(cpp, [(t, b) for t, b, _ in ok]), strict=True):
        assert reply.get('typed') == same.hex(), f'{typ} {data.hex()}: {reply}'
        assert reply.get('view') == same.hex(), f'{typ} {data.hex()}: {reply}'


# wstring: rosbags has none, so the oracle is real ROS 2 (rclpy over
# rmw_fastrtps, C type support), when scripts/ros2-peer.sh has installed it.
WSTRING_PEER = '''
import json, sys
from rclpy.serialization import deserialize_message, serialize_message
from test_msgs.msg import WStrings
FIELDS = ('wstring_value', 'wstring_value_default1', 'wstring_value_default2', 'wstring_value_default3',
          'array_of_wstrings', 'bounded_sequence_of_wstrings', 'unbounded_sequence_of_wstrings')
out = []
for sample, ours in json.load(sys.stdin):
    m = WStrings()
    for k in FIELDS:
        setattr(m, k, sample[k])
    back = deserialize_message(bytes.fromhex(ours), WStrings) if ours else None
    out.append({'rclpy': serialize_message(m).hex(),
                'decoded': None if back is None else {k: list(getattr(back, k)) if k.endswith('s') else getattr(back, k)
                                                       for k in FIELDS}})
print(json.dumps(out))
'''


def _wstring_bytes(sample: dict[str, Any]) -> bytes:
    """test_msgs/msg/WStrings as rosidl_typesupport_fastrtps writes it: every
    field a uint32 count of UTF-16 code units, then each unit as a uint32."""

    def one(s: str) -> bytes:
        units = struct.unpack(f'<{len(s.encode("utf-16-le")) // 2}H', s.encode('utf-16-le'))
        return struct.pack(f'<I{len(units)}I', len(units), *units)

    out = b'\x00\x01\x00\x00'
    for k in ('wstring_value', 'wstring_value_default1', 'wstring_value_default2', 'wstring_value_default3'):
        out += one(sample[k])
    out += b''.join(one(s) for s in sample['array_of_wstrings'])
    for k in ('bounded_sequence_of_wstrings', 'unbounded_sequence_of_wstrings'):
        out += struct.pack('<I', len(sample[k])) + b''.join(one(s) for s in sample[k])
    return out


def _run_peer(items: list[tuple[dict[str, Any], str]]) -> list[dict[str, Any]]:
    proc = subprocess.run(  # noqa: S603
        ['bash', '-c', f'. "{ROS2_PEER_ENV}" && exec "$ROS2_PYTHON" -c "$0"', WSTRING_PEER],  # noqa: S607
        input=json.dumps(items), capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, f'rclpy peer failed: {proc.stderr}'
    result: list[dict[str, Any]] = json.loads(proc.stdout.splitlines()[-1])
    return result


def test_cpp_wstring_matches_rclpy(cpp: Crosscheck) -> None:
    if not ROS2_PEER_ENV.is_file():
        pytest.skip('ROS 2 Jazzy peer not installed (scripts/ros2-peer.sh jazzy)')
    rng = random.Random(SEED_BASE)

    def text() -> str:
        return ''.join(rng.choice(CHARS + 'ab') for _ in range(rng.randint(0, 6))).replace('\0', '')

    samples = [
        {
            'wstring_value': text(), 'wstring_value_default1': text(), 'wstring_value_default2': '',
            'wstring_value_default3': 'ハローワールド😀', 'array_of_wstrings': [text(), text(), text()],
            'bounded_sequence_of_wstrings': [text() for _ in range(rng.randint(0, 3))],
            'unbounded_sequence_of_wstrings': [text() for _ in range(rng.randint(0, 5))],
        }
        for _ in range(max(SAMPLES, 3))
    ]
    ours = [_wstring_bytes(s) for s in samples]
    peer = _run_peer([(s, o.hex()) for s, o in zip(samples, ours, strict=True)])
    replies = cpp_errors(cpp, [('test_msgs/msg/WStrings', o) for o in ours])
    for sample, mine, got, reply in zip(samples, ours, peer, replies, strict=True):
        rclpy_bytes = bytes.fromhex(got['rclpy'])
        # rclpy's serialize_message returns the buffer's estimated size (here
        # larger, with stale bytes after the message): compare the message.
        assert rclpy_bytes[: len(mine)] == mine, f'{sample}: {hexdiff(rclpy_bytes[: len(mine)], mine)}'
        assert got['decoded'] == sample, f'rclpy decodes our bytes as {got["decoded"]}, not {sample}'
        assert reply.get('typed') == mine.hex(), f'C++ re-encode of {sample}: {reply}'
        assert reply.get('view') == mine.hex(), f'C++ view of {sample}: {reply}'
