#!/usr/bin/env python3
"""Builds hibari-crosscheck-cpp: the generated C++ types of every bundled
package of a distro, compiled into one line-protocol program (main.cpp) that
tests/python/test_rosbags_crosscheck.py drives.

    python3 tests/crosscheck_cpp/build.py                  # builds, prints the binary's path
    python3 tests/crosscheck_cpp/build.py --check-headers  # also: every header compiles alone
    python3 tests/crosscheck_cpp/build.py --distro humble --only sensor_msgs/msg/Range  # a subset

Steps:
1. `hibari-cpp-gen --bundled --distro D --out <work>/include --manifest <work>/manifest.tsv`
   (the generator rewrites only changed headers; stale ones are removed here);
2. the dispatch table: `<work>/src/dispatch_<k>.cpp`, each including a share of
   the headers and registering `roundtrip<T>` (roundtrip.hpp) by ROS type name,
   and `dispatch.cpp`, which calls them all;
3. g++ -std=c++17 -O1 -Wall -Wextra -Werror, one object per source, in parallel,
   then linked. The binary is cached under `<work>/build-<key>/`, the key being a
   hash of every input (headers, sources, flags, compiler version), so a rerun
   with nothing changed only runs the generator and hashes.

`--only T...` (`build(only=...)`) registers only the named types: the dispatch
sources include only their headers (and what those include), so the build takes
seconds instead of a minute. Its sources go to `<work>/src-subset/` and its binary
to `<work>/subset-<key>/`, cached apart from the full build (the key also hashes
every generated header, as the full build's does).

`--check-headers` compiles, for each generated header, a translation unit that
includes only it (twice, for the include guard) with -fsyntax-only: each header
includes what it uses. Cached the same way (a stamp file per key).

<work> is `<target>/crosscheck_cpp/<distro>` (<target>: CARGO_TARGET_DIR or the
repo's target/). Environment: HIBARI_CPP_GEN (the generator; default: built with
`cargo build -p hibari-codegen --bin hibari-cpp-gen`), CXX (default g++),
CROSSCHECK_CPP_JOBS (default: the CPU count), CROSSCHECK_CPP_OPT (default -O1).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RUNTIME_INCLUDE = REPO / 'crates' / 'hibari-c' / 'include'
SOURCES = ('main.cpp', 'json.hpp', 'roundtrip.hpp')
# The runtime headers generated headers include.
RUNTIME_HEADERS = ('cdr.hpp', 'span.hpp', 'view.hpp')
WARNINGS = ['-Wall', '-Wextra', '-Werror']


class BuildError(RuntimeError):
    """A step failed; the message carries the command and its output."""


@dataclass(frozen=True)
class Generated:
    work: Path
    include: Path
    types: list[tuple[str, str, str]]  # (ros name, C++ name, header)

    @property
    def headers(self) -> list[str]:
        return sorted({h for _, _, h in self.types})


def target_dir() -> Path:
    env = os.environ.get('CARGO_TARGET_DIR')
    return Path(env) if env else REPO / 'target'


def jobs() -> int:
    return int(os.environ.get('CROSSCHECK_CPP_JOBS') or os.cpu_count() or 1)


def cxx() -> str:
    return os.environ.get('CXX', 'g++')


def run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=cwd, env=env)  # noqa: S603
    if proc.returncode != 0:
        raise BuildError(f'{" ".join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}')
    return proc


def generator() -> Path:
    env = os.environ.get('HIBARI_CPP_GEN')
    if env:
        return Path(env)
    path = os.environ.get('PATH', '')
    cargo_bin = str(Path.home() / '.cargo' / 'bin')
    env_vars = {**os.environ, 'PATH': f'{cargo_bin}:{path}'}
    run(['cargo', 'build', '-q', '-p', 'hibari-codegen', '--bin', 'hibari-cpp-gen'], cwd=REPO, env=env_vars)
    return target_dir() / 'debug' / 'hibari-cpp-gen'


def write_if_changed(path: Path, text: str) -> None:
    if path.is_file() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def generate(distro: str) -> Generated:
    work = target_dir() / 'crosscheck_cpp' / distro
    include = work / 'include'
    manifest = work / 'manifest.tsv'
    run([str(generator()), '--bundled', '--distro', distro, '--out', str(include), '--manifest', str(manifest)])
    types = [tuple(line.split('\t')) for line in manifest.read_text().splitlines() if line]
    gen = Generated(work=work, include=include, types=types)  # type: ignore[arg-type]
    keep = set(gen.headers)
    for path in include.rglob('*.hpp'):
        if path.relative_to(include).as_posix() not in keep:
            path.unlink()
    return gen


def write_dispatch(gen: Generated, parts: int, src: Path, types: list[tuple[str, str, str]]) -> list[Path]:
    """In `src`: dispatch_<k>.cpp for `parts` shares of the headers of `types`
    (balanced by size), registering `types`, and dispatch.cpp."""
    sizes = {h: (gen.include / h).stat().st_size for h in sorted({h for _, _, h in types})}
    shares: list[list[str]] = [[] for _ in range(parts)]
    totals = [0] * parts
    for h in sorted(sizes, key=lambda h: (-sizes[h], h)):
        k = totals.index(min(totals))
        shares[k].append(h)
        totals[k] += sizes[h]
    files = []
    banner = '// Generated by tests/crosscheck_cpp/build.py: do not edit.\n'
    for k, share in enumerate(shares):
        mine = set(share)
        lines = [banner, '#include "roundtrip.hpp"\n']
        lines += [f'#include <{h}>\n' for h in sorted(share)]
        lines.append(f'\nnamespace crosscheck {{\n\nvoid register_types_{k}(RoundtripTable &table) {{\n')
        lines += [f'  table["{ros}"] = &roundtrip<{cpp}>;\n' for ros, cpp, h in types if h in mine]
        lines.append('}\n\n}  // namespace crosscheck\n')
        path = src / f'dispatch_{k}.cpp'
        write_if_changed(path, ''.join(lines))
        files.append(path)
    lines = [banner, '#include "roundtrip.hpp"\n\nnamespace crosscheck {\n\n']
    lines += [f'void register_types_{k}(RoundtripTable &table);\n' for k in range(parts)]
    lines.append('\nvoid register_all_types(RoundtripTable &table) {\n')
    lines += [f'  register_types_{k}(table);\n' for k in range(parts)]
    lines.append('}\n\n}  // namespace crosscheck\n')
    path = src / 'dispatch.cpp'
    write_if_changed(path, ''.join(lines))
    for stale in src.glob('dispatch_*.cpp'):
        if stale not in files:
            stale.unlink()
    return [path, *files]


def inputs_key(gen: Generated, extra: list[Path], flags: list[str]) -> str:
    """A hash of everything a build reads."""
    h = hashlib.sha256()
    h.update(run([cxx(), '--version']).stdout.encode())
    h.update('\0'.join(flags).encode())
    files = [gen.include / p for p in gen.headers]
    files += [RUNTIME_INCLUDE / 'hibari' / h for h in RUNTIME_HEADERS]
    files += [*(HERE / s for s in SOURCES), *extra]
    for f in files:
        h.update(str(f).encode() + b'\0' + f.read_bytes() + b'\0')
    return h.hexdigest()[:16]


def compile_all(commands: list[list[str]]) -> None:
    with ThreadPoolExecutor(max_workers=jobs()) as pool:
        failures = [r for r in pool.map(_try, commands) if r]
    if failures:
        raise BuildError('\n'.join(failures[:5]))


def _try(cmd: list[str]) -> str:
    try:
        run(cmd)
    except BuildError as e:
        return str(e)
    return ''


def build(distro: str = 'jazzy', parts: int | None = None, only: Collection[str] | None = None) -> Path:
    """Builds (or finds cached) the crosscheck binary for `distro`; returns its
    path. With `only`, the binary serves only those ROS types (see --only)."""
    gen = generate(distro)
    types = gen.types
    src, prefix = gen.work / 'src', 'build-'
    if only is not None:
        unknown = sorted(set(only) - {ros for ros, _, _ in gen.types})
        if unknown:
            raise BuildError(f'--only: no generated {distro} type {", ".join(unknown)}')
        types = [t for t in gen.types if t[0] in only]
        src, prefix = gen.work / 'src-subset', 'subset-'
    parts = max(1, min(parts or jobs(), len({h for _, _, h in types})))
    sources = [HERE / 'main.cpp', *write_dispatch(gen, parts, src, types)]
    flags = [
        '-std=c++17',
        os.environ.get('CROSSCHECK_CPP_OPT', '-O1'),
        *WARNINGS,
        f'-DHIBARI_CROSSCHECK_DISTRO="{distro}"',
        f'-I{gen.include}',
        f'-I{RUNTIME_INCLUDE}',
        f'-I{HERE}',
    ]
    key = inputs_key(gen, sources, flags)
    out_dir = gen.work / f'{prefix}{key}'
    binary = out_dir / 'hibari-crosscheck-cpp'
    if binary.is_file():
        return binary
    for old in gen.work.glob(f'{prefix}*'):
        shutil.rmtree(old, ignore_errors=True)
    out_dir.mkdir(parents=True)
    started = time.monotonic()
    objects = [out_dir / f'{s.stem}.o' for s in sources]
    compile_all([[cxx(), *flags, '-c', str(s), '-o', str(o)] for s, o in zip(sources, objects, strict=True)])
    tmp = out_dir / 'hibari-crosscheck-cpp.tmp'
    run([cxx(), *[str(o) for o in objects], '-o', str(tmp)])
    tmp.rename(binary)
    took = time.monotonic() - started
    (out_dir / 'build-time.txt').write_text(
        f'{took:.1f} s: {len(types)} types in {len({h for _, _, h in types})} headers, '
        f'{len(sources)} translation units, {jobs()} jobs, {flags[1]}\n',
    )
    print(f'built {binary} in {took:.1f} s ({len(sources)} translation units, {jobs()} jobs)', file=sys.stderr)
    return binary


def check_headers(distro: str = 'jazzy') -> tuple[int, float]:
    """Compiles each generated header alone (-fsyntax-only); returns (headers, seconds, 0 if cached)."""
    gen = generate(distro)
    flags = ['-std=c++17', '-fsyntax-only', *WARNINGS, f'-I{gen.include}', f'-I{RUNTIME_INCLUDE}']
    key = inputs_key(gen, [], flags)
    stamp = gen.work / f'headers-ok-{key}'
    if stamp.is_file():
        return len(gen.headers), 0.0
    for old in gen.work.glob('headers-ok-*'):
        old.unlink()
    tu_dir = gen.work / 'alone'
    shutil.rmtree(tu_dir, ignore_errors=True)
    commands = []
    for i, header in enumerate(gen.headers):
        tu = tu_dir / f'{i:04}.cpp'
        write_if_changed(tu, f'#include <{header}>\n#include <{header}>\n')
        commands.append([cxx(), *flags, '-x', 'c++', str(tu)])
    started = time.monotonic()
    compile_all(commands)
    took = time.monotonic() - started
    stamp.write_text(f'{len(commands)} headers compiled alone in {took:.1f} s\n')
    return len(commands), took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--distro', default='jazzy', choices=['jazzy', 'humble'])
    parser.add_argument('--parts', type=int, default=None, help='dispatch translation units (default: jobs)')
    parser.add_argument('--check-headers', action='store_true', help='also compile every header alone')
    parser.add_argument('--only', nargs='+', metavar='TYPE', help='register only these ROS types (a quick build)')
    args = parser.parse_args()
    try:
        print(build(args.distro, args.parts, args.only))
        if args.check_headers:
            n, took = check_headers(args.distro)
            print(f'{n} headers compile alone ({took:.1f} s; 0 means cached)', file=sys.stderr)
    except BuildError as e:
        print(f'build.py: {e}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
