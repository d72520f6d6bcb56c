#!/usr/bin/env python3
# launch_spy.py: an eavesdropper on srun's step launches, for
# t/integration/0222-launch-replay.t.
#   launch_spy.py [--forge] [--relay PORT]... P1 P2 OUT -- CMD...
# Runs CMD (srun) in a network namespace of its own where 127.0.0.1:P1 and
# 127.0.0.1:P2 (the node daemons of comp001 and comp002 as the controller
# names them) are this script's listeners; the controller stays reachable
# through its Unix socket (or, a srun that signs over TCP, through
# --relay of its port). Every connection is relayed to the real port on
# 127.0.0.1 in the host's namespace, but the first frame srun sends to P1
# (its launch for comp001) is first sent to P2 on a connection of our own,
# before srun can reach comp002 (srun waits for comp001's answer before it
# launches there): unchanged, or with --forge rewritten into comp002's
# launch exactly as srun would write it (node_id 1, first_task and ntasks
# from the credential's layout=, topo_addr comp002; everything else, the
# launch_mac too, as captured: an eavesdropper cannot compute another; a
# frame signature (auth/munge, over the body) is dropped, for the same
# reason).
# What that connection got back goes to OUT: one line per frame,
# "<msg type> <body bytes>", then "closed" or "open" (still open after
# 10 s). CMD's exit status is ours.
import ctypes, os, re, socket, struct, subprocess, sys, threading

args = sys.argv[1:sys.argv.index("--")]
forge = "--forge" in args
args = [a for a in args if a != "--forge"]
relay = []
while "--relay" in args:
    i = args.index("--relay")
    relay.append(int(args[i + 1]))
    del args[i:i + 2]
p1, p2, out = int(args[0]), int(args[1]), args[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000

host_ns = os.open("/proc/self/ns/net", os.O_RDONLY)
if libc.unshare(CLONE_NEWNET) != 0:
    sys.exit("unshare: " + os.strerror(ctypes.get_errno()))
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
listeners = {}
for port in [p1, p2] + relay:
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


# The body codec (src/lib/codec.c): fields keyed varint(tag << 3 | wire
# type), wire type 0 a varint, 1 a varint length and that many bytes;
# zero numbers are not sent.
def get_varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def put_varint(v):
    o = b""
    while v >= 0x80:
        o += bytes([(v & 0x7f) | 0x80])
        v >>= 7
    return o + bytes([v])


def decode(body):
    fields, i = {}, 0
    while i < len(body):
        key, i = get_varint(body, i)
        tag, wt = key >> 3, key & 7
        if wt == 0:
            v, i = get_varint(body, i)
        else:
            n, i = get_varint(body, i)
            v, i = body[i:i + n], i + n
        fields[tag] = (wt, v)
    return fields


def encode(fields):
    o = b""
    for tag in sorted(fields):
        wt, v = fields[tag]
        if wt == 0:
            if v:
                o += put_varint(tag << 3) + put_varint(v)
        else:
            o += put_varint(tag << 3 | 1) + put_varint(len(v)) + v
    return o


def forge_node1(frame):
    """comp001's launch (node 0) made into comp002's (node 1)."""
    clen = struct.unpack(">I", frame[12:16])[0]
    f = decode(frame[16 + clen:])
    cred = f[5][1].decode()
    counts = []
    for part in re.search(r" layout=(\S+)", cred).group(1).split(","):
        m = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part)
        counts += [int(m.group(1))] * int(m.group(2) or 1)
    f[12] = (0, 1)                       # node_id
    f[10] = (0, counts[0])               # first_task
    f[9] = (0, counts[1])                # ntasks
    if 19 in f:                          # topo_addr
        f[19] = (1, f[19][1].replace(b"comp001", b"comp002"))
    body = encode(f)
    # magic, version, type as captured; unsigned (auth 0), no credential
    hdr = frame[4:10] + struct.pack(">HI", 0, 0)
    return struct.pack(">I", len(hdr) + len(body)) + hdr + body


def replay(frame):
    if forge:
        frame = forge_node1(frame)
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


for port in [p1, p2] + relay:
    threading.Thread(target=serve, args=(port,), daemon=True).start()
sys.exit(child.wait())
