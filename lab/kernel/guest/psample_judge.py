#!/usr/bin/env python3
"""Independent PSAMPLE reader for the kernel lab: the judge of what reaches the kernel's "packets" group.

Usage: psample_judge.py --count N [--pid P] [--timeout S]

Plain sockets, no vecflow code: resolves the generic-netlink family "psample" and its "packets" multicast group
(CTRL_CMD_GETFAMILY, Linux include/uapi/linux/genetlink.h), joins the group, prints "ready FAMILY_ID GROUP_ID", then
"msg HEX" per PSAMPLE message whose nlmsg_pid is P (every sender when P < 0): the whole message (nlmsghdr, genlmsghdr,
attributes) as it arrived, after checking that its attributes walk to its end. Ends with "done N" after N
messages, or "timeout K" after S seconds (exit 1). Needs root (joining "packets" needs CAP_NET_ADMIN).
"""
import argparse
import select
import socket
import struct
import sys
import time

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2
NLMSG_ERROR = 2
NLM_F_REQUEST = 1


def attrs(buf, off, end):
    """Yields (type without flags, payload bytes) of the netlink attributes in buf[off:end]."""
    while off + 4 <= end:
        length, typ = struct.unpack_from("=HH", buf, off)
        if length < 4 or off + length > end:
            raise ValueError(f"bad nlattr at offset {off}: nla_len {length}")
        yield typ & 0x3FFF, buf[off + 4:off + length]
        off += (length + 3) & ~3


def resolve(sock, name):
    payload = name.encode() + b"\0"
    attr = struct.pack("=HH", 4 + len(payload), CTRL_ATTR_FAMILY_NAME) + payload
    attr += b"\0" * ((4 - len(attr) % 4) % 4)
    body = struct.pack("=BBH", CTRL_CMD_GETFAMILY, 1, 0) + attr
    sock.send(struct.pack("=IHHII", 16 + len(body), GENL_ID_CTRL, NLM_F_REQUEST, 1, 0) + body)
    buf = sock.recv(65536)
    length, typ = struct.unpack_from("=IH", buf, 0)
    if typ == NLMSG_ERROR:
        (err,) = struct.unpack_from("=i", buf, 16)
        raise SystemExit(f"psample_judge: GETFAMILY {name}: error {err} (modprobe psample?)")
    family, groups = None, {}
    for t, v in attrs(buf, 20, length):
        if t == CTRL_ATTR_FAMILY_ID:
            (family,) = struct.unpack_from("=H", v, 0)
        elif t == CTRL_ATTR_MCAST_GROUPS:
            for _, grp in attrs(v, 0, len(v)):
                gname, gid = None, None
                for gt, gv in attrs(grp, 0, len(grp)):
                    if gt == CTRL_ATTR_MCAST_GRP_NAME:
                        gname = gv.rstrip(b"\0").decode()
                    elif gt == CTRL_ATTR_MCAST_GRP_ID:
                        (gid,) = struct.unpack_from("=I", gv, 0)
                groups[gname] = gid
    return family, groups


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--pid", type=int, default=-1)
    ap.add_argument("--timeout", type=float, default=60.0)
    a = ap.parse_args()
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.bind((0, 0))
    family, groups = resolve(sock, "psample")
    group = groups["packets"]
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, group)
    print(f"ready {family} {group}", flush=True)
    deadline = time.monotonic() + a.timeout
    n = 0
    while n < a.count:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            print(f"timeout {n}", flush=True)
            return 1
        buf = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(buf) and n < a.count:
            length, typ, flags, seq, pid = struct.unpack_from("=IHHII", buf, off)
            if length < 16 or off + length > len(buf):
                raise SystemExit(f"psample_judge: bad nlmsg_len {length} at offset {off}")
            if typ == family and (a.pid < 0 or pid == a.pid):
                list(attrs(buf, off + 20, off + length))  # walks the attributes: a bad nla_len fails here
                print("msg " + buf[off:off + length].hex())
                n += 1
            off += (length + 3) & ~3
    print(f"done {n}", flush=True)  # the msg lines are flushed with it: one write, no per-line cost
    return 0


if __name__ == "__main__":
    sys.exit(main())
