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
#   submit_repeat.py lose SOCK FILE N CTLD K: listen on SOCK, take N
#     connections and pass the first frame of each to the controller's
#     socket CTLD; the first K replies are lost (the client's connection is
#     closed without it, as by a controller that crashed after its commit),
#     the others passed back. FILE gets a line per connection: the
#     monotonic time it was accepted and the time it was closed.
import os, socket, sys, time

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
elif mode == "lose":
    ctld, lost = sys.argv[5], int(sys.argv[6])
    if os.path.exists(path):
        os.unlink(path)
    ls = socket.socket(socket.AF_UNIX)
    ls.bind(path)
    os.chmod(path, 0o777)
    ls.listen(4)
    ls.settimeout(30)
    times = ""
    for i in range(n):
        c, _ = ls.accept()
        accepted = time.monotonic()
        c.settimeout(10)
        frame = read_frame(c)
        u = socket.socket(socket.AF_UNIX)
        u.settimeout(10)
        u.connect(ctld)
        u.sendall(frame)
        reply = read_frame(u)
        u.close()
        if i >= lost:
            c.sendall(reply)
        c.close()
        times += "%.6f %.6f\n" % (accepted, time.monotonic())
    open(file + ".tmp", "w").write(times)
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
