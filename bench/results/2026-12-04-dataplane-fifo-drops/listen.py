import socket, sys, time
g = int(sys.argv[1]); secs = float(sys.argv[2])
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 2)
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
s.bind((0, 0))
s.setsockopt(270, 1, g)  # NETLINK_ADD_MEMBERSHIP
s.settimeout(0.5)
n = 0; d = 0; end = time.time() + secs
while time.time() < end:
    try:
        b = s.recv(65536); d += 1
        off = 0
        while off + 16 <= len(b):
            ln = int.from_bytes(b[off:off+4], 'little')
            if ln < 16: break
            n += 1; off += (ln + 3) & ~3
    except socket.timeout:
        pass
    except OSError:
        pass  # ENOBUFS: this listener fell behind
print("listener: %d messages in %d datagrams" % (n, d))
