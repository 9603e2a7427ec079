package io.vecflow.dataplane.sflow;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.BufferHold;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.vnet.error.ErrorDropNode;

/**
 * A worker's ingress samples whose output interface is not decided yet. The {@code sflow} node samples on the
 * {@code device-input} arc, before any lookup, so it copies the header and input there but holds the record (by buffer
 * index) instead of publishing it; the record is completed once the graph has decided the packet's fate:
 * <ul>
 *   <li>{@code error-drop} ({@link ErrorDropNode}): output 0 (unknown; the drop itself is the discard sample);</li>
 *   <li>the end of the dispatch round ({@link #flush}, from {@link Worker#runOnce}): output = the buffer's transmit
 *       ifIndex, which the forwarding node set (the cross-connect peer, the route's adjacency, a load balancer's encap
 *       next hop) — 0 for a packet a node consumed without sending it, since every port's receive sets it to 0.</li>
 * </ul>
 * This relies on the graph's round invariant: every packet of a round finishes within the round (no node keeps a
 * buffer across rounds) and only input nodes allocate buffers, so a buffer index names one packet, and its metadata
 * stays as the graph left it, until the round ends — even after the port sent and freed it. In VPP terms: a slot in
 * the buffer's opaque metadata plus a per-round completion; VPP's own plugin always sends output 0 on ingress.
 *
 * <p>Costs: per sampled packet one array store at ingress and the completion; per other packet nothing, except at
 * error-drop one array load per dropped packet while a sample is outstanding ({@link #pending()} &gt; 0).
 * Allocation-free after construction. Single-threaded (one per worker).
 */
public final class IngressSampleHold implements BufferHold {
    private final SampleRecord[] byBuffer;
    private final int[] held;
    private int count;
    private int pending;
    private SampleFifo fifo;
    private long completedWithOutput, completedWithoutOutput;

    /** @param buffers the worker's buffer count (buffer indexes are 0..buffers−1) */
    public IngressSampleHold(int buffers) {
        if (buffers < 1) {
            throw new IllegalArgumentException("buffers must be >= 1, got " + buffers);
        }
        byBuffer = new SampleRecord[buffers];
        held = new int[buffers];
    }

    /**
     * Holds a filled ingress record for {@code buffer} until the packet's output is known. A buffer that already holds
     * one (it entered device-input twice in a round) has the older record completed with output 0 first.
     *
     * @param buffer the sampled packet's buffer index
     * @param r the record (from {@code fifo}; everything but the output filled)
     * @param fifo where the record is published on completion (the worker's sample FIFO)
     */
    public void hold(int buffer, SampleRecord r, SampleFifo fifo) {
        if (byBuffer[buffer] != null) {
            complete(buffer, 0);
        } else {
            held[count++] = buffer;
        }
        this.fifo = fifo;
        r.outputIfIndex = 0;
        byBuffer[buffer] = r;
        pending++;
    }

    /** @return samples held and not completed yet; error-drop looks only while this is &gt; 0 */
    @Override
    public int pending() {
        return pending;
    }

    /**
     * Completes {@code buffer}'s held sample, if any: sets its output and publishes it to the FIFO.
     *
     * @param buffer a buffer index
     * @param outputIfIndex the packet's transmit ifIndex, or 0 when it has none (dropped)
     */
    @Override
    public void complete(int buffer, int outputIfIndex) {
        SampleRecord r = byBuffer[buffer];
        if (r == null) {
            return;
        }
        byBuffer[buffer] = null;
        pending--;
        r.outputIfIndex = outputIfIndex;
        if (outputIfIndex != 0) {
            completedWithOutput++;
        } else {
            completedWithoutOutput++;
        }
        fifo.publish(r);
    }

    /**
     * End of a dispatch round: completes every sample still held, in the order they were taken, with the transmit
     * ifIndex its buffer carries ({@link BufferPool#txIfIndex}: set by the forwarding node, 0 when none was).
     *
     * @param pool the worker's buffers (indexes held are still this round's packets)
     */
    @Override
    public void flush(BufferPool pool) {
        int[] tx = pool.txIfIndex;
        for (int i = 0; i < count && pending > 0; i++) {
            int b = held[i];
            complete(b, tx[b]);
        }
        count = 0;
    }

    /** @return ingress samples published with an output ifIndex (plain read; eventually consistent elsewhere). */
    public long completedWithOutput() {
        return completedWithOutput;
    }

    /** @return ingress samples published with output 0 (dropped or consumed packets). */
    public long completedWithoutOutput() {
        return completedWithoutOutput;
    }
}
