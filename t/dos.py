#!/usr/bin/env python3
# dos.py: hostile clients for t/integration/0230-dos.t (stdlib only).
#   dos.py tiny PORT TYPE MB AUTH: one frame of MB megabytes of one-byte
#     strings (a strv field of message TYPE) with no credential (AUTH=none)
#     or a garbage one (AUTH=garbage); prints what became of it.
#   dos.py hold PORT TYPE AUTH N ANNOUNCE_MB SEND_MB READY: N connections
#     each announcing a frame of ANNOUNCE_MB megabytes (AUTH: none, or a
#     garbage credential) and sending SEND_MB of it; touches READY once
#     done, then holds them until killed.
#   dos.py idle PORT N READY: N connections, half sending nothing, half a
#     partial header; touches READY, then holds them until killed.
#   dos.py slowloris PORT TYPE SECONDS: sends a frame one byte a second;
#     prints after how many seconds the daemon closed the connection, or
#     "open" after SECONDS.
import socket, struct, sys, time

PROTO_VERSION = 1
MAGIC = 0x534C
AUTH_NONE, AUTH_HMAC = 0, 1
# the size of an auth/slurm credential (version 2), all zeros but its version
GARBAGE_CRED = b"\x02" + b"\x00" * 96


def header(total_len, mtype, auth, cred_len):
    # u32 length (excluding itself), magic, version, type, auth, u32 cred len
    return struct.pack(">IHHHHI", total_len - 4, MAGIC, PROTO_VERSION, mtype, auth, cred_len)


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


# The strv field of each message type used here: job_desc_t.argv (tag 3),
# msg_launch_step_t.argv (tag 6).
STRV_TAG = {3: 3, 26: 6}


def tiny_body(mtype, size):
    """A body of about size bytes: one strv of one-byte strings."""
    n = max(1, (size - 16) // 2)
    inner = varint(n) + b"\x01x" * n
    return varint(STRV_TAG[mtype] << 3 | 1) + varint(len(inner)) + inner


def frame(mtype, body, auth):
    cred = GARBAGE_CRED if auth == "garbage" else b""
    kind = AUTH_HMAC if cred else AUTH_NONE
    return header(16 + len(cred) + len(body), mtype, kind, len(cred)) + cred + body


def connect(port, timeout=10):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return s


def answer(s):
    """Read until EOF or timeout; return a short description."""
    got = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += d
    except (socket.timeout, ConnectionResetError):
        pass
    return "closed, %d bytes back" % len(got)


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "tiny":
        mtype, mb, auth = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
        f = frame(mtype, tiny_body(mtype, mb << 20), auth)
        s = connect(port, 30)
        t0 = time.time()
        try:
            s.sendall(f)
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            print("send stopped: %s" % e.strerror)
        print("%s after %.1f s" % (answer(s), time.time() - t0))
    elif mode == "hold":
        mtype, auth, n, amb, smb, ready = (int(sys.argv[3]), sys.argv[4], int(sys.argv[5]),
                                           int(sys.argv[6]), int(sys.argv[7]), sys.argv[8])
        cred = GARBAGE_CRED if auth == "garbage" else b""
        chunk = b"\x00" * (1 << 20)
        conns = []
        for _ in range(n):
            s = connect(port)
            s.settimeout(2)
            conns.append(s)
            try:
                s.sendall(header(amb << 20, mtype, AUTH_HMAC if cred else AUTH_NONE, len(cred))
                          + cred)
                for _ in range(smb):
                    s.sendall(chunk)
            except OSError:
                pass
        open(ready, "w").close()
        time.sleep(120)
    elif mode == "idle":
        n, ready = int(sys.argv[3]), sys.argv[4]
        conns = []
        for i in range(n):
            try:
                s = connect(port, 5)
                if i % 2:
                    s.send(header(1 << 20, 3, AUTH_HMAC, len(GARBAGE_CRED))[:10])
                conns.append(s)
            except OSError:
                pass
        open(ready, "w").close()
        time.sleep(120)
    elif mode == "slowloris":
        mtype, secs = int(sys.argv[3]), int(sys.argv[4])
        f = frame(mtype, tiny_body(mtype, 4096), "garbage")
        s = connect(port)
        s.settimeout(1)
        t0 = time.time()
        for b in f:
            if time.time() - t0 > secs:
                print("open")
                return
            try:
                s.send(bytes([b]))
                d = s.recv(65536)
                if not d:
                    print("closed after %d s" % round(time.time() - t0))
                    return
            except socket.timeout:
                continue
            except OSError:
                print("closed after %d s" % round(time.time() - t0))
                return
        print("open")


main()
