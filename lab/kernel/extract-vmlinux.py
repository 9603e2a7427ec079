#!/usr/bin/env python3
"""Extracts the uncompressed ELF vmlinux from an x86 bzImage (Debian's /boot/vmlinuz-*).

Usage: extract-vmlinux.py VMLINUZ OUT

The bzImage holds the kernel as one xz stream (Debian builds with CONFIG_KERNEL_XZ): the first offset of the xz magic
FD 37 7A 58 5A 00 whose stream decompresses to an ELF image (7F 45 4C 46) is taken. QEMU boots that ELF directly
through its PVH note (CONFIG_PVH=y), which skips the in-guest decompression: about 5 s per boot under TCG
(kernel-lab.md). Exits 1 with a message when no stream yields an ELF.
"""
import lzma
import sys

XZ_MAGIC = b"\xfd7zXZ\x00"
MAX_CANDIDATES = 16  # the magic can also occur by chance; try a few offsets, never scan forever


def main() -> int:
    src, out = sys.argv[1], sys.argv[2]
    data = open(src, "rb").read()
    start = 0
    for _ in range(MAX_CANDIDATES):
        off = data.find(XZ_MAGIC, start)
        if off < 0:
            break
        start = off + 1
        try:
            image = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[off:])
        except lzma.LZMAError:
            continue
        if image[:4] == b"\x7fELF":
            with open(out, "wb") as f:
                f.write(image)
            print(f"vmlinux: {len(image)} bytes from the xz stream at offset {off} of {src}")
            return 0
    print(f"extract-vmlinux: no xz stream holding an ELF image in {src} (checked {MAX_CANDIDATES} offsets at most)",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
