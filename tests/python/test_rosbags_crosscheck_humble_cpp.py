"""The Humble C++ types, byte-checked against rosbags' Humble store.

test_rosbags_crosscheck.py checks every generated C++ type of Jazzy against
rosbags (`Stores.ROS2_JAZZY`) through `hibari-crosscheck-cpp`. The C++ emitter
(hibari-cpp-gen) is the same for both distros; only the definitions it is given
differ. A Humble type whose definition (constants and fields), and that of
every type it contains, transitively, equals Jazzy's gets the same C++ code,
already byte-checked through the Jazzy binary: its `.msg` header is identical
to Jazzy's (`.srv`/`.action` headers differ only by the `<Service>_Event`
messages Jazzy adds). A full Humble build costs as much as Jazzy's (75 s
measured on 2 busy cores), so this file builds (`build.py --only`, ~15 s) and
byte-checks only:

* the Humble types whose definition differs from Jazzy's, or contains one
  that does, per rosbags' two stores (`humble_differing`; today 12 of the 273
  checked Humble types: `sensor_msgs/msg/Range` lacks `variance`, and
  Log/BatteryState/NavSatStatus/Marker have other constants, plus the 7 types
  that contain them), and
* the Humble types Jazzy lacks (today none).

`test_cpp_humble_selection` keeps the criterion honest on hibari's side too:
every Humble type whose generated `TYPE_HASH` (RIHS01: its fields and those of
its contained types) differs from Jazzy's must be selected, and every other
Humble `.msg` header must be byte-identical to Jazzy's.

The checks are those the Jazzy side runs: rosbags' little- and big-endian
bytes of `CROSSCHECK_SAMPLES` samples are decoded by the generated type and by
its zero-copy view, and both must re-encode exactly rosbags' little-endian
bytes; every truncation is a decode error; a word forged to 0xffffffff is a
decode error or a decode, never a crash or an allocation failure (1 GiB
address-space limit).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
import test_rosbags_crosscheck as rc
from rosbags.interfaces import Nodetype

if TYPE_CHECKING:
    from pathlib import Path

    from rosbags.typesys.store import Typestore

DISTRO = 'humble'
BASELINE = 'jazzy'  # the distro whose C++ types are all byte-checked
TYPE_HASH = re.compile(r'TYPE_NAME = "([^"]+)";\s*static constexpr const char \*TYPE_HASH = "([^"]+)"')


def _contained(store: Typestore, name: str) -> set[str]:
    """The message types the fields of `name` name directly."""
    out: set[str] = set()
    for _, desc in store.fielddefs[name][1]:
        inner = desc[1][0] if desc[0] in (Nodetype.ARRAY, Nodetype.SEQUENCE) else desc
        if inner[0] == Nodetype.NAME:
            out.add(inner[1])
    return out


def humble_differing() -> tuple[list[str], frozenset[str]]:
    """(the Humble types the C++ side checks, those whose own definition differs).

    A checked Humble type is selected if Jazzy's store lacks it or has another
    definition (constants or fields) of it or of a type it contains.
    """
    ours, base = rc.DISTROS[DISTRO].store, rc.DISTROS[BASELINE].store
    own = frozenset(
        t for t in ours.fielddefs if t not in base.fielddefs or ours.fielddefs[t] != base.fielddefs[t]
    )

    @functools.cache
    def differs(name: str) -> bool:
        return name in own or any(differs(t) for t in _contained(ours, name))

    checked = rc.DISTROS[DISTRO].checked
    return sorted(t for t in checked if differs(t)), frozenset(t for t in own if t in checked)


CPP_TYPES, OWN_DIFFERENCES = humble_differing()
CPP_PARAMS = [pytest.param(typ, i, id=f'{DISTRO}-{typ}-seed{i}') for typ in CPP_TYPES for i in range(rc.SAMPLES)]


def _type_hashes(include: Path) -> dict[str, str]:
    """ROS type name → `TYPE_HASH` of every struct in the generated headers."""
    return {m[1]: m[2] for p in include.rglob('*.hpp') for m in TYPE_HASH.finditer(p.read_text())}


@pytest.fixture(scope='module')
def cpp_humble() -> Iterator[rc.Crosscheck]:
    """`hibari-crosscheck-cpp` serving only the Humble types of `CPP_TYPES`."""
    build = rc.cpp_build_module()
    try:
        binary = build.build(DISTRO, only=CPP_TYPES)
    except build.BuildError as exc:
        pytest.fail(f'building tests/crosscheck_cpp for {DISTRO} failed: {exc}')
    cc = rc.Crosscheck(binary, address_space=rc.CPP_ADDRESS_SPACE)
    yield cc
    cc.close()


@pytest.fixture(scope='module')
def humble_replies(cpp_humble: rc.Crosscheck) -> dict[tuple[str, int, str], dict[str, Any]]:
    """The C++ replies to rosbags' bytes of every checked type, sample and byte order, in one batch."""
    keys: list[tuple[str, int, str]] = []
    reqs: list[dict[str, object]] = []
    for typ in CPP_TYPES:
        for i in range(rc.SAMPLES):
            s = rc.rosbags_sample(DISTRO, typ, i)
            if s.rosbags_error is None:
                for order, data in (('le', s.le), ('be', s.be)):
                    keys.append((typ, i, order))
                    reqs.append({'op': 'roundtrip', 'distro': DISTRO, 'type': typ, 'hex': data.hex()})
    return dict(zip(keys, cpp_humble.batch(reqs), strict=True))


def test_cpp_humble_selection(cpp_humble: rc.Crosscheck) -> None:
    """The binary serves exactly the selection, and hibari's generated code
    agrees that the rest is Jazzy's (see the module docstring)."""
    assert CPP_TYPES, 'no Humble type differs from Jazzy: the criterion is broken'
    served = set(cpp_humble.request({'op': 'types'})['types'])
    want = set(CPP_TYPES)
    assert served == want, f'extra {sorted(served - want)}, missing {sorted(want - served)}'
    build = rc.cpp_build_module()
    gens = {d: build.generate(d) for d in (DISTRO, BASELINE)}
    ours, base = (_type_hashes(gens[d].include) for d in (DISTRO, BASELINE))
    checked = set(rc.DISTROS[DISTRO].checked)
    by_hash = sorted(t for t in checked if ours.get(t) is None or ours.get(t) != base.get(t))
    assert set(by_hash) <= want, f'TYPE_HASH differs from Jazzy, not selected: {sorted(set(by_hash) - want)}'
    same_headers = {h for ros, _, h in gens[DISTRO].types if ros in checked and ros not in want and '/msg/' in h}
    changed = sorted(h for h in same_headers if (gens[DISTRO].include / h).read_bytes()
                     != (gens[BASELINE].include / h).read_bytes())
    assert not changed, f'.msg headers of unselected types differ from Jazzy: {changed}'
    only_humble = sorted(checked - set(rc.DISTROS[BASELINE].store.fielddefs))
    times = sorted(gens[DISTRO].work.glob('subset-*/build-time.txt'))
    print(
        f'\nC++ {DISTRO}: byte-checked {len(CPP_TYPES)} of {len(checked)} checked types, those whose '
        f'definition differs from {BASELINE} (own: {sorted(OWN_DIFFERENCES)}; TYPE_HASH: {by_hash}) or contains '
        f'one that does, and {len(only_humble)} {BASELINE} lacks {only_humble}; the other '
        f'{len(checked) - len(CPP_TYPES)} have {BASELINE}\'s code ({len(same_headers)} .msg headers '
        f'identical), byte-checked there; last build: {times[-1].read_text().strip() if times else "?"}',
    )


@pytest.mark.parametrize(('typ', 'sample'), CPP_PARAMS)
def test_rosbags_to_cpp_humble(humble_replies: dict[tuple[str, int, str], dict[str, Any]], typ: str,
                               sample: int) -> None:
    s = rc.rosbags_sample(DISTRO, typ, sample)
    assert s.rosbags_error is None, f'seed {s.seed}: rosbags could not serialize: {s.rosbags_error}'
    for order, what in (('le', 'little-endian'), ('be', 'big-endian')):
        reply = humble_replies[(typ, sample, order)]
        assert 'error' not in reply, f'C++ failed on seed {s.seed} {what} bytes {s.le.hex()}: {reply["error"]}'
        got = bytes.fromhex(reply['typed'])
        assert got == s.le, f'C++ re-encode of seed {s.seed} {what} bytes differs from rosbags: {rc.hexdiff(s.le, got)}'
        view = bytes.fromhex(reply['view'])
        assert view == s.le, f'C++ view of seed {s.seed} {what} bytes copies differently: {rc.hexdiff(s.le, view)}'


def test_cpp_humble_refuses_truncations_and_forged_counts(cpp_humble: rc.Crosscheck) -> None:
    """Every strict prefix is a decode error; each of the first 64 words set
    to 0xffffffff is a decode error or a decode that both paths agree on."""
    truncated: list[tuple[str, bytes]] = []
    forged: list[tuple[str, bytes]] = []
    for typ in CPP_TYPES:
        full = rc.rosbags_sample(DISTRO, typ, 0).le
        cuts = {0, 2, 4, 5, len(full) // 3, len(full) // 2, len(full) - 4, len(full) - 2, len(full) - 1}
        truncated += [(typ, full[:n]) for n in sorted(cuts) if 0 <= n < len(full)]
        forged += [(typ, full[:at] + b'\xff' * 4 + full[at + 4 :]) for at in range(4, min(len(full) - 3, 4 + 256), 4)]
    for (typ, data), reply in zip(truncated, rc.cpp_errors(cpp_humble, truncated), strict=True):
        assert str(reply.get('error', '')).startswith('decode:'), f'{typ} truncated to {len(data)} bytes: {reply}'
    for (typ, data), reply in zip(forged, rc.cpp_errors(cpp_humble, forged), strict=True):
        if 'error' in reply:
            assert reply['error'].startswith('decode:'), f'{typ} {data.hex()}: {reply}'
        else:
            assert reply['view'] == reply['typed'], f'{typ} {data.hex()}: the view copies differently: {reply}'
    print(f'\n{DISTRO}: {len(truncated)} truncated payloads refused, {len(forged)} forged words survived')
