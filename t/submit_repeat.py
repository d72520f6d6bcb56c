#!/usr/bin/env python3
# submit_repeat.py: capture what a command sends on the controller's Unix
# socket and send it again, for the idempotent submission test
# (t/integration/0330-submit-retry.t). Frames on the Unix socket carry no
# credential (the kernel's peer credentials identify the caller), so the
# same bytes sent again are the same request from whoever sends them.
#   submit_repeat.py record SOCK FILE N: listen on SOCK, take N connections,
#     keep the first frame of each in FILE (one after the other) and close
#     each without an answer, as a controller that never replied.
#   submit_repeat.py send SOCK FILE K: send the first frame of FILE on K
#     connections to SOCK, one after the other; print each reply frame in
#     hex, one a line.
import os, socket, sys

def read_frame(s):
    def exact(n):
        b = b""
        while len(b) < n:
            d = s.recv(n - len(b))
            if not d:
                raise EOFError
            b += d
        return b
    head = exact(4)
    return head + exact(int.from_bytes(head, "big"))

mode, path, file, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if mode == "record":
    if os.path.exists(path):
        os.unlink(path)
    ls = socket.socket(socket.AF_UNIX)
    ls.bind(path)
    os.chmod(path, 0o777)
    ls.listen(4)
    ls.settimeout(30)
    frames = b""
    for _ in range(n):
        c, _ = ls.accept()
        c.settimeout(10)
        frames += read_frame(c)
        c.close()
    open(file + ".tmp", "wb").write(frames)
    os.rename(file + ".tmp", file)
else:
    data = open(file, "rb").read()
    frame = data[:4 + int.from_bytes(data[:4], "big")]
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(path)
        s.sendall(frame)
        print(read_frame(s).hex(), flush=True)
        s.close()
