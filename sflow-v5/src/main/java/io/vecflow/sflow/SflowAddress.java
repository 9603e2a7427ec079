package io.vecflow.sflow;

import io.vecflow.common.IpAddresses;
import java.util.Arrays;

/**
 * An sFlow {@code address} (sFlow v5 "address"): u32 type (0 unknown, 1 IPv4, 2 IPv6) then 0, 4 or 16 bytes.
 * Mutable and reused.
 */
public final class SflowAddress {
    /** Address type: {@link SflowFormats#ADDRESS_UNKNOWN}, {@link SflowFormats#ADDRESS_IPV4} or IPV6. */
    public int type;
    /** Address bytes: 4 used for IPv4, 16 for IPv6. */
    public final byte[] bytes = new byte[16];

    /** @return 0, 4 or 16. */
    public int length() {
        return type == SflowFormats.ADDRESS_IPV4 ? 4 : type == SflowFormats.ADDRESS_IPV6 ? 16 : 0;
    }

    /** Sets an IPv4 (4 bytes) or IPv6 (16 bytes) address, or unknown for anything else; returns this. */
    public SflowAddress set(byte[] addr) {
        Arrays.fill(bytes, (byte) 0);
        if (addr.length == 4 || addr.length == 16) {
            type = addr.length == 4 ? SflowFormats.ADDRESS_IPV4 : SflowFormats.ADDRESS_IPV6;
            System.arraycopy(addr, 0, bytes, 0, addr.length);
        } else {
            type = SflowFormats.ADDRESS_UNKNOWN;
        }
        return this;
    }

    /** Writes the address as 16 bytes, IPv4 mapped to ::ffff:a.b.c.d, unknown as zeros. */
    public void writeMapped16(byte[] dst, int off) {
        Arrays.fill(dst, off, off + 16, (byte) 0);
        if (type == SflowFormats.ADDRESS_IPV6) {
            System.arraycopy(bytes, 0, dst, off, 16);
        } else if (type == SflowFormats.ADDRESS_IPV4) {
            dst[off + 10] = (byte) 0xFF;
            dst[off + 11] = (byte) 0xFF;
            System.arraycopy(bytes, 0, dst, off + 12, 4);
        }
    }

    /** Clears to the unknown address. */
    public void clear() {
        type = SflowFormats.ADDRESS_UNKNOWN;
        Arrays.fill(bytes, (byte) 0);
    }

    /** Copies another address. */
    public void copyFrom(SflowAddress o) {
        type = o.type;
        System.arraycopy(o.bytes, 0, bytes, 0, 16);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SflowAddress a && a.type == type && Arrays.equals(a.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return type * 31 + Arrays.hashCode(bytes);
    }

    /** @return dotted quad, RFC 5952 IPv6, or "" when unknown (allocates). */
    @Override
    public String toString() {
        int n = length();
        return n == 0 ? "" : IpAddresses.toString(bytes, 0, n);
    }
}
