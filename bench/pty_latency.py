#!/usr/bin/env python3
"""pty_latency: keystroke round trip of srun --pty (docs/benchmarks.md).

  bench/pty_latency.py [KEYS] -- srun --pty sh -c 'echo READY; stty -icanon; head -c KEYS >/dev/null'

Runs the command on a pseudo terminal of its own, waits for READY, then
types KEYS single characters one at a time, each once the previous one's
echo came back: srun -> node daemon's step supervisor -> the task's
terminal (which echoes) -> supervisor -> srun -> this terminal. Prints
the median, p90, p99 and max round trip. Works the same against Sluice
and a real Slurm (source its env.sh first).
"""
import fcntl
import os
import select
import sys
import termios
import time


def main():
    args = sys.argv[1:]
    keys = 200
    if args and args[0] != "--":
        keys = int(args.pop(0))
    if args and args[0] == "--":
        args.pop(0)
    m, s = os.openpty()
    pid = os.fork()
    if pid == 0:
        os.close(m)
        os.setsid()
        fcntl.ioctl(s, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(s, fd)
        os.execvp(args[0], args)
    buf = bytearray()

    def wait_for(pat, limit=30.0):
        end = time.time() + limit
        while pat not in buf:
            r, _, _ = select.select([m], [], [], 0.1)
            if r:
                buf.extend(os.read(m, 65536))
            if time.time() > end:
                sys.exit("timed out waiting for %r" % pat)

    wait_for(b"READY")
    lat = []
    for i in range(keys):
        del buf[:]
        c = bytes([ord("a") + i % 26])
        t0 = time.perf_counter()
        os.write(m, c)
        wait_for(c)
        lat.append((time.perf_counter() - t0) * 1000)
    os.waitpid(pid, 0)
    lat.sort()
    n = len(lat)
    print("%d keys: median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms" %
          (n, lat[n // 2], lat[int(n * 0.9)], lat[int(n * 0.99)], lat[-1]))


if __name__ == "__main__":
    main()
