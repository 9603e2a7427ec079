package io.vecflow.sflow;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * The sFlow v5 datagram header (sFlow v5 "sample_datagram_v5"): version, agent address, sub-agent, sequence number,
 * uptime and sample count. Mutable and reused by {@link SflowDecoder}; u32 fields are held in longs.
 */
public final class DatagramHeader {
    /** Datagram version (always 5 once decoded). */
    public int version;
    /** Agent address type: {@link SflowFormats#ADDRESS_IPV4} or {@link SflowFormats#ADDRESS_IPV6}. */
    public int agentAddressType;
    /** Agent address: 4 bytes (IPv4) or 16 bytes (IPv6) used; see {@link #agentAddressLength()}. */
    public final byte[] agentAddress = new byte[16];
    /** sub_agent_id (u32). */
    public long subAgentId;
    /** sequence_number (u32), +1 per datagram per (agent, sub-agent). */
    public long sequenceNumber;
    /** uptime in ms (u32). */
    public long uptimeMs;
    /** num_samples as declared (u32, already checked against the cap). */
    public long numSamples;
    /** Header length in bytes: 28 (IPv4 agent) or 40 (IPv6 agent). */
    public int headerLength;
    /**
     * True when the datagram's sample structure does not reach its end: a sample header or declared sample length
     * runs past the datagram before the last declared sample, so decoding will stop there (the samples before it are
     * still delivered). Found by a pre-pass over the sample headers and set before {@link SflowVisitor#onDatagram},
     * so rows built from the delivered samples can be marked. Samples that fail inside their own length do not set
     * it (see {@link SflowVisitor#onSampleError}).
     */
    public boolean incomplete;

    /**
     * Rewrites the sequence_number and uptime of an encoded sFlow v5 datagram in place (for replaying a capture as
     * fresh datagrams: load generators and tests; a collector takes same-sequence, same-uptime, same-content copies
     * for duplicates).
     *
     * @param d the datagram
     * @param off its offset
     * @param len its length in bytes
     * @param sequenceNumber new sequence_number (u32)
     * @param uptimeMs new uptime (u32 ms)
     * @return false (nothing written) if the bytes are not an sFlow v5 header with a known address type
     */
    public static boolean rewriteSequence(byte[] d, int off, int len, long sequenceNumber, long uptimeMs) {
        if (len < 28 || be32(d, off) != 5) {
            return false;
        }
        long type = be32(d, off + 4);
        int a = type == SflowFormats.ADDRESS_IPV4 ? 4 : type == SflowFormats.ADDRESS_IPV6 ? 16 : -1;
        if (a < 0 || len < 24 + a) {
            return false;
        }
        put32(d, off + 12 + a, sequenceNumber);
        put32(d, off + 16 + a, uptimeMs);
        return true;
    }

    private static long be32(byte[] b, int o) {
        return (b[o] & 0xFFL) << 24 | (b[o + 1] & 0xFF) << 16 | (b[o + 2] & 0xFF) << 8 | (b[o + 3] & 0xFF);
    }

    private static void put32(byte[] b, int o, long v) {
        b[o] = (byte) (v >>> 24);
        b[o + 1] = (byte) (v >>> 16);
        b[o + 2] = (byte) (v >>> 8);
        b[o + 3] = (byte) v;
    }

    /** @return 4 for an IPv4 agent, 16 for IPv6. */
    public int agentAddressLength() {
        return agentAddressType == SflowFormats.ADDRESS_IPV6 ? 16 : 4;
    }

    /** Writes the agent address IPv4-mapped into 16 bytes ({@code ::ffff:a.b.c.d} for IPv4). */
    public void writeAgentAddress16(byte[] dst, int off) {
        if (agentAddressType == SflowFormats.ADDRESS_IPV6) {
            System.arraycopy(agentAddress, 0, dst, off, 16);
        } else {
            Arrays.fill(dst, off, off + 10, (byte) 0);
            dst[off + 10] = (byte) 0xFF;
            dst[off + 11] = (byte) 0xFF;
            System.arraycopy(agentAddress, 0, dst, off + 12, 4);
        }
    }

    /** @return the agent address as an {@link InetAddress} (allocates; not for hot paths). */
    public InetAddress agentInetAddress() {
        try {
            return InetAddress.getByAddress(Arrays.copyOf(agentAddress, agentAddressLength()));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the agent address as text, IPv6 in RFC 5952 form (allocates). */
    public String agentAddressString() {
        return io.vecflow.common.IpAddresses.toString(agentAddress, 0, agentAddressLength());
    }

    void reset() {
        version = 0;
        agentAddressType = 0;
        Arrays.fill(agentAddress, (byte) 0);
        subAgentId = sequenceNumber = uptimeMs = numSamples = 0;
        headerLength = 0;
        incomplete = false;
    }
}
