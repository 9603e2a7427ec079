package io.vecflow.dataplane;

/**
 * A worker's ingress samples whose output interface is not decided yet. The {@code sflow} node samples on the
 * {@code device-input} arc, before any lookup, so it copies the header and input there but holds the record instead
 * of publishing it; the record is completed when the graph has decided the packet's fate:
 * <ul>
 *   <li>{@code interface-output} ({@link InterfaceOutputNode}): the output is the transmit ifIndex the packet was
 *       given (the cross-connect peer, the route's adjacency, the load balancer's encap next hop);</li>
 *   <li>{@code error-drop} ({@link ErrorDropNode}): output 0 (unknown; the drop itself is the discard sample);</li>
 *   <li>the end of the dispatch round ({@link #flush}, from {@link Worker#runOnce}) for a packet neither sent nor
 *       dropped (consumed by a node, e.g. a CLOVE feedback or probe reply): output 0.</li>
 * </ul>
 * Every packet of a round finishes within the round (no node keeps a buffer across rounds, and no buffer is
 * allocated after the input nodes ran), so a buffer index names one packet for as long as its sample is held. This is
 * VPP's way of carrying per-packet state between nodes (a slot in the buffer's opaque metadata) plus a per-frame
 * flush; VPP's own plugin always sends output 0 on ingress.
 *
 * <p>Costs: per sampled packet one array store at ingress and one at completion; per other packet nothing at
 * ingress, and at interface-output / error-drop one array load per packet only while a sample is outstanding
 * ({@link #pending()} &gt; 0), none otherwise. Allocation-free after construction. Single-threaded (one per worker).
 */
public final class IngressSampleHold {
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

    /** @return samples held and not completed yet; interface-output and error-drop look only while this is &gt; 0 */
    public int pending() {
        return pending;
    }

    /**
     * Completes {@code buffer}'s held sample, if any: sets its output and publishes it to the FIFO.
     *
     * @param buffer a buffer index
     * @param outputIfIndex the packet's transmit ifIndex, or 0 when it has none (dropped, consumed)
     */
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

    /** End of a dispatch round: completes every sample still held with output 0, in the order they were taken. */
    public void flush() {
        for (int i = 0; i < count && pending > 0; i++) {
            complete(held[i], 0);
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
