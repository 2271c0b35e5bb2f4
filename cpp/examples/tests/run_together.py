#!/usr/bin/env python3
"""Runs programs together as one ctest test, in a ROS domain of their own.

    run_together.py [--timeout S] [--env K=V]...
        --fg 'NAME|COMMAND'   a program that must exit with status 0
        --bg 'NAME|COMMAND'   a program stopped (SIGINT, then SIGKILL) at the end
        --expect 'NAME|REGEX' NAME's output (stdout and stderr) must match
        --until 'NAME|REGEX'  the run succeeds once NAME's output matches,
                              without waiting for the --fg programs
        --clean-exit NAME     NAME (a --bg program) must end with status 0
                              on the SIGINT that stops it
        --stdin 'NAME|LINE'   writes LINE to NAME's standard input when it
                              starts; that input stays open until the end
                              (it is closed before the SIGINT)

Programs start in the order given. `{domain}` and `{topic}` in commands are
replaced by a domain id held for this run alone (the abstract socket
"hibari-test-domain/<id>" the Rust and Python tests claim too, also exported
as ROS_DOMAIN_ID) and by a topic name no other run uses. The test fails —
never hangs — when a --fg program exits non-zero, when the timeout passes
first, or when an expectation is not met; every program's output is printed
with its name in front, for ctest's log.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

FIRST_DOMAIN, DOMAINS = 1, 199


def reserve_domain() -> tuple[int, socket.socket]:
    start = os.getpid() % DOMAINS
    for i in range(DOMAINS):
        d = FIRST_DOMAIN + (start + i) % DOMAINS
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.bind(f"\0hibari-test-domain/{d}")
        except OSError:
            s.close()
            continue
        return d, s
    raise SystemExit(f"all {DOMAINS} test domains from {FIRST_DOMAIN} are held")


class Program:
    def __init__(self, name: str, command: list[str], env: dict[str, str],
                 stdin: list[str]) -> None:
        self.name = name
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.proc = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, start_new_session=True,
        )
        if self.proc.stdin is not None:
            self.proc.stdin.write("".join(line + "\n" for line in stdin).encode())
            self.proc.stdin.flush()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            print(f"[{self.name}] {line}", flush=True)
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()

    def output(self) -> str:
        with self.changed:
            return "\n".join(self.lines)

    def stop(self) -> str | None:
        """Stops it if it runs: SIGINT, then SIGKILL after 5 s. Returns
        how a SIGINT'd program failed to end cleanly, if it did."""
        failure = None
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(0.5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                code = self.proc.wait(5)
                if code != 0:
                    failure = f"{self.name} ended with status {code} on SIGINT"
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                failure = f"{self.name} did not end within 5 s of SIGINT"
        self.reader.join(5)
        return failure


def split(spec: str, what: str) -> tuple[str, str]:
    name, sep, rest = spec.partition("|")
    if not sep or not name or not rest:
        raise SystemExit(f"{what} wants 'NAME|…', got {spec!r}")
    return name, rest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--fg", action="append", default=[], dest="programs", type=lambda s: ("fg", s))
    parser.add_argument("--bg", action="append", default=[], dest="programs", type=lambda s: ("bg", s))
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--until", default=None)
    parser.add_argument("--clean-exit", action="append", default=[])
    parser.add_argument("--stdin", action="append", default=[])
    args = parser.parse_args()

    domain, claim = reserve_domain()
    topic = f"/cpp_{os.getpid()}_{int(time.time() * 1000) % 1_000_000}"
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain))
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    print(f"domain {domain}, topic {topic}", flush=True)

    programs: list[tuple[str, Program]] = []
    failures: list[str] = []
    try:
        stdin: dict[str, list[str]] = {}
        for spec in args.stdin:
            name, line = split(spec, "--stdin")
            stdin.setdefault(name, []).append(line)
        for kind, spec in args.programs:
            name, command = split(spec, f"--{kind}")
            command = command.replace("{domain}", str(domain)).replace("{topic}", topic)
            programs.append((kind, Program(name, shlex.split(command), env, stdin.get(name, []))))
        by_name = {p.name: p for _, p in programs}
        deadline = time.monotonic() + args.timeout
        until = split(args.until, "--until") if args.until else None
        if until and until[0] not in by_name:
            raise SystemExit(f"--until names no program: {until[0]}")
        while True:
            if until:
                if re.search(until[1], by_name[until[0]].output(), re.M):
                    break
            elif all(p.proc.poll() is not None for kind, p in programs if kind == "fg"):
                break
            for kind, p in programs:
                code = p.proc.poll()
                if kind == "fg" and code not in (None, 0):
                    failures.append(f"{p.name} exited with status {code}")
            if failures:
                break
            if time.monotonic() > deadline:
                failures.append(f"timed out after {args.timeout:.0f} s")
                break
            time.sleep(0.05)
        for kind, p in programs:
            if kind == "fg" and not until and p.proc.poll() not in (None, 0):
                msg = f"{p.name} exited with status {p.proc.poll()}"
                if msg not in failures:
                    failures.append(msg)
    finally:
        for _, p in reversed(programs):
            unclean = p.stop()
            if unclean and p.name in args.clean_exit:
                failures.append(unclean)
        claim.close()
    for name in args.clean_exit:
        if name not in {p.name for _, p in programs}:
            failures.append(f"--clean-exit names no program: {name}")
    for spec in args.expect:
        name, pattern = split(spec, "--expect")
        if name not in {p.name for _, p in programs}:
            failures.append(f"--expect names no program: {name}")
        elif not re.search(pattern, dict((p.name, p) for _, p in programs)[name].output(), re.M):
            failures.append(f"{name}'s output does not match {pattern!r}")
    for failure in failures:
        print(f"FAILED: {failure}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
