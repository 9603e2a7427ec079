#!/usr/bin/env python3
"""SRv6 End.DX4 (RFC 8986 section 4.6) in user space on a TUN device, for the namespace tests of vecflow.

Used where the kernel has no seg6local (CONFIG_IPV6_SEG6_LWTUNNEL) and no GRE/IPIP: the test routes the SID
(an IPv6 /128) into the TUN device; this program reads each IPv6 packet, walks its extension headers
(hop-by-hop 0, routing 43 with Segments Left 0, destination options 60), and when the upper layer is IPv4 (4)
writes the inner IPv4 packet back into the device, where the kernel delivers or forwards it as End.DX4's
"forward to the IPv4 next hop" would. Anything else is counted and dropped; counts go to stdout once a second.

    srv6_end_dx4.py TUN_NAME READY_FILE

The device is created by TUNSETIFF in the calling network namespace (run it with ip netns exec); READY_FILE is
written once it exists. Ends on SIGTERM.
"""
import fcntl
import os
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def inner_ipv4(pkt):
    """The IPv4 packet inside an IPv6 packet, or None (not IPv6, Segments Left > 0, no IPv4 inside)."""
    if len(pkt) < 40 or pkt[0] >> 4 != 6:
        return None
    nh, off = pkt[6], 40
    while nh in (0, 43, 60):
        if off + 8 > len(pkt):
            return None
        if nh == 43 and pkt[off + 3] != 0:
            return None  # Segments Left > 0: not the last segment, End.DX4 does not apply
        nh, off = pkt[off], off + (pkt[off + 1] + 1) * 8
    if nh != 4 or off + 20 > len(pkt):
        return None
    return pkt[off:]


def main():
    name, ready = sys.argv[1], sys.argv[2]
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    with open(ready, "w") as f:
        f.write(name + "\n")
    decapsulated = dropped = 0
    last = time.monotonic()
    while True:
        r, _, _ = select.select([fd], [], [], 1.0)
        if r:
            pkt = os.read(fd, 65535)
            inner = inner_ipv4(pkt)
            if inner is None:
                dropped += 1
            else:
                os.write(fd, inner)
                decapsulated += 1
        if time.monotonic() - last >= 1.0:
            print("decapsulated %d dropped %d" % (decapsulated, dropped), flush=True)
            last = time.monotonic()


if __name__ == "__main__":
    main()
