package io.vecflow.packet;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * An immutable packet loaded from a pcap file by {@link PcapReader#readAll(java.nio.file.Path)}.
 * Meant for load time (tests, replay, fixtures); the streaming hot path uses {@link PcapRecord}.
 *
 * @param timestampNanos capture time in nanoseconds since the Unix epoch (UTC)
 * @param originalLength length of the packet on the wire ({@code orig_len}) in bytes
 * @param data           the captured bytes ({@code incl_len} of them) starting at the link-layer
 *                       header; copied on construction and by the accessor, so the record is
 *                       immutable
 */
public record PcapPacket(long timestampNanos, int originalLength, byte[] data) {

    /**
     * Copies {@code data} so that later changes to the caller's array are not seen.
     *
     * @throws NullPointerException if {@code data} is null
     */
    public PcapPacket {
        data = Objects.requireNonNull(data, "data").clone();
    }

    /**
     * A copy of the captured bytes.
     *
     * @return a new array of {@link #capturedLength()} bytes
     */
    @Override
    public byte[] data() {
        return data.clone();
    }

    /**
     * Number of captured bytes ({@code incl_len}).
     *
     * @return the captured length in bytes
     */
    public int capturedLength() {
        return data.length;
    }

    /**
     * A read-only view of the captured bytes, without copying; suitable for
     * {@link PacketParser#parse(MemorySegment, long, int, LinkType, ParsedPacket)}.
     *
     * @return a read-only heap segment of {@link #capturedLength()} bytes
     */
    public MemorySegment segment() {
        return MemorySegment.ofArray(data).asReadOnly();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PcapPacket p
                && p.timestampNanos == timestampNanos
                && p.originalLength == originalLength
                && Arrays.equals(p.data, data);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(timestampNanos) * 31 * 31 + originalLength * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        int shown = Math.min(data.length, 32);
        return "PcapPacket[timestampNanos=" + timestampNanos + ", originalLength=" + originalLength
                + ", capturedLength=" + data.length + ", data=" + HexFormat.of().formatHex(data, 0, shown)
                + (shown < data.length ? "..." : "") + "]";
    }
}
