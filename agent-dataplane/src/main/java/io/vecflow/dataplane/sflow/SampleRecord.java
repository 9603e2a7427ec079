package io.vecflow.dataplane.sflow;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.vnet.error.DropReason;

/**
 * One packet sample handed from a worker to the main thread: a preallocated, reused slot (VPP's
 * {@code sflow_sample_t}: 288 bytes with up to 256 header bytes), plus vecflow's drop reason and timestamp.
 */
public final class SampleRecord {
    /** Largest header a record holds, in bytes (VPP's limit). */
    public static final int MAX_HEADER_BYTES = 256;

    /** Sampling rate N in force when the sample was taken. */
    public int samplingRate;
    /** Input interface ifIndex. */
    public int inputIfIndex;
    /**
     * Output interface ifIndex: the transmit port (egress; ingress once the graph decided it, see
     * {@link IngressSampleHold}), 0 when the packet was dropped or not transmitted.
     */
    public int outputIfIndex;
    /** Frame length in bytes, without FCS. */
    public int frameLength;
    /** Bytes used in {@link #header}. */
    public int headerLength;
    /** {@link DropReason#ordinal()} for drop samples, or -1 for a normal sample. */
    public int dropReason = -1;
    /** Sampling direction: 0 ingress, 1 egress, 2 drop. */
    public int direction;
    /** System.nanoTime when the sample was taken. */
    public long timestampNanos;
    /** Captured header bytes, from the start of the frame. */
    public final byte[] header = new byte[MAX_HEADER_BYTES];
    /**
     * Largest PSAMPLE user cookie a record holds, bytes ({@code Psample.MAX_USER_COOKIE}: room for an IPv6
     * {@code LbDecisionCookie}).
     */
    public static final int MAX_COOKIE_BYTES = BufferPool.COOKIE_BYTES;
    /** The load-balancer decision made on this packet, as a PSAMPLE USER_COOKIE ({@code LbDecisionCookie}). */
    public final byte[] cookie = new byte[MAX_COOKIE_BYTES];
    /** Bytes used in {@link #cookie}; 0 = the packet carried no decision. */
    public int cookieLength;
}
