#!/usr/bin/env python3
# http_dos.py: hostile HTTP clients for t/integration/0505-metrics-access.t
# (stdlib only), from a chosen source address on loopback.
#   http_dos.py idle PORT SRC N READY: N connections, half sending nothing,
#     half the start of a request line; touches READY, then holds them
#     until killed; prints how many the server had closed when it is.
#   http_dos.py slowloris PORT SRC SECONDS: sends a request one byte every
#     0.5 s; prints after how many seconds the server closed the
#     connection, or "open" after SECONDS.
#   http_dos.py huge PORT SRC KB: a GET with a KB-kilobyte header; prints
#     the status code, or "closed" if none came.
import signal, socket, sys, time


def conn(port, src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    return s


def idle(port, src, n, ready):
    socks = []
    for i in range(n):
        try:
            s = conn(port, src)
            if i % 2:
                s.sendall(b"GET /met")
            socks.append(s)
        except OSError:
            pass
    open(ready, "w").close()

    def report(*_):
        closed = 0
        for s in socks:
            s.setblocking(False)
            try:
                if s.recv(1) == b"":
                    closed += 1
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        print(closed, flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, report)
    while True:
        time.sleep(1)


def slowloris(port, src, seconds):
    s = conn(port, src)
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 100
    t0 = time.time()
    for b in req:
        if time.time() - t0 > seconds:
            print("open")
            return
        try:
            s.sendall(bytes([b]))
        except OSError:
            print(int(time.time() - t0))
            return
        s.settimeout(0.5)
        try:
            if s.recv(1) == b"":
                print(int(time.time() - t0))
                return
        except socket.timeout:
            pass
        except OSError:
            print(int(time.time() - t0))
            return
    print("open")


def huge(port, src, kb):
    s = conn(port, src)
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (kb * 1024) + b"\r\n\r\n")
    except OSError:
        pass
    try:
        data = s.recv(100)
    except OSError:
        data = b""
    print(data.split(b" ")[1].decode() if data.startswith(b"HTTP/") else "closed")


if __name__ == "__main__":
    mode, port, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if mode == "idle":
        idle(port, src, int(sys.argv[4]), sys.argv[5])
    elif mode == "slowloris":
        slowloris(port, src, float(sys.argv[4]))
    elif mode == "huge":
        huge(port, src, int(sys.argv[4]))
