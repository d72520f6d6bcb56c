#!/usr/bin/env python3
# replay.py: capture and replay what a client sends, for the replay tests
# (t/integration/0060-auth.t in shared-key mode, 0110-munge.t with MUNGE).
#   replay.py record PORT FILE: a one-connection proxy to 127.0.0.1:PORT
#     that prints its own port and keeps what the client sent in FILE.
#   replay.py send PORT FILE: send FILE's bytes to 127.0.0.1:PORT again and
#     print how many bytes came back.
import select, socket, sys
mode, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if mode == "record":
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    print(ls.getsockname()[1], flush=True)
    ls.settimeout(20)
    c, _ = ls.accept()
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    sent = bytearray()
    peer = {c: s, s: c}
    while peer:
        r, _, _ = select.select(list(peer), [], [], 20)
        if not r:
            break
        for x in r:
            if x not in peer:
                continue
            d = x.recv(65536)
            if not d:
                other = peer.pop(x)
                peer.pop(other, None)
                for y in (x, other):
                    try:
                        y.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                continue
            if x is c:
                sent += d
            peer[x].sendall(d)
    open(path + ".tmp", "wb").write(sent)
    import os
    os.rename(path + ".tmp", path)
else:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(open(path, "rb").read())
    got = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += d
    except socket.timeout:
        pass
    print(len(got))
