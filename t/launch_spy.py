#!/usr/bin/env python3
# launch_spy.py: an eavesdropper on srun's step launches, for
# t/integration/0222-launch-replay.t.
#   launch_spy.py P1 P2 OUT -- CMD...
# Runs CMD (srun) in a network namespace of its own where 127.0.0.1:P1 and
# 127.0.0.1:P2 (the node daemons of comp001 and comp002 as the controller
# names them) are this script's listeners; the controller stays reachable
# through its Unix socket. Every connection is relayed to the real port on
# 127.0.0.1 in the host's namespace, but the first frame srun sends to P1
# (its launch for comp001) is first sent, unchanged, to P2 on a connection
# of our own, before srun can reach comp002 (srun waits for comp001's
# answer before it launches there). What that connection got back goes to
# OUT: one line per frame, "<msg type> <body bytes>", then "closed" or
# "open" (still open after 10 s). CMD's exit status is ours.
import ctypes, os, socket, struct, subprocess, sys, threading

p1, p2, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
cmd = sys.argv[sys.argv.index("--") + 1:]
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000

host_ns = os.open("/proc/self/ns/net", os.O_RDONLY)
if libc.unshare(CLONE_NEWNET) != 0:
    sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
listeners = {}
for port in (p1, p2):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(8)
    listeners[port] = ls
child = subprocess.Popen(cmd)          # in the new namespace
if libc.setns(host_ns, CLONE_NEWNET) != 0:
    sys.exit("setns: " + os.strerror(ctypes.get_errno()))


def read_exact(s, n):
    b = b""
    while len(b) < n:
        d = s.recv(n - len(b))
        if not d:
            return None
        b += d
    return b


def read_frame(s):
    h = read_exact(s, 4)
    if h is None:
        return None
    rest = read_exact(s, struct.unpack(">I", h)[0])
    return None if rest is None else h + rest


def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for x in (a, b):
        try:
            x.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def replay(frame):
    lines = []
    s = socket.create_connection(("127.0.0.1", p2), timeout=10)
    s.sendall(frame)
    state = "closed"
    try:
        while True:
            f = read_frame(s)
            if f is None:
                break
            # header: len u32, magic u16, version u16, type u16, auth u16,
            # cred len u32, cred, body
            mtype = struct.unpack(">H", f[8:10])[0]
            clen = struct.unpack(">I", f[12:16])[0]
            lines.append("%d %d" % (mtype, len(f) - 16 - clen))
    except socket.timeout:
        state = "open"
    s.close()
    with open(out + ".tmp", "w") as fp:
        fp.write("".join(l + "\n" for l in lines) + state + "\n")
    os.rename(out + ".tmp", out)


def serve(port):
    first = True
    while True:
        c, _ = listeners[port].accept()
        pre = b""
        if port == p1 and first:
            first = False
            pre = read_frame(c) or b""
            replay(pre)
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(pre)
        threading.Thread(target=pump, args=(c, s), daemon=True).start()
        threading.Thread(target=pump, args=(s, c), daemon=True).start()


for port in (p1, p2):
    threading.Thread(target=serve, args=(port,), daemon=True).start()
sys.exit(child.wait())
