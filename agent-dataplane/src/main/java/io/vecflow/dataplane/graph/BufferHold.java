package io.vecflow.dataplane.graph;

/**
 * Per-buffer state a node attaches to a packet and completes once the graph has decided the packet's fate — a slot in
 * the buffer's opaque metadata plus a per-round completion, in VPP terms. The worker completes everything still held
 * at the end of each dispatch round ({@link #flush}); a node that ends a packet early (error-drop) completes it itself
 * ({@link #complete}). One per worker ({@link Worker#bufferHold(Class, java.util.function.IntFunction)}); the engine
 * knows only this contract, the feature that holds state (sFlow's ingress samples) implements it.
 */
public interface BufferHold {
    /** @return buffers holding state not completed yet; a node looks only while this is &gt; 0 */
    int pending();

    /**
     * Completes {@code buffer}'s held state, if any.
     *
     * @param buffer a buffer index
     * @param outputIfIndex the packet's transmit ifIndex, or 0 when it has none (dropped)
     */
    void complete(int buffer, int outputIfIndex);

    /**
     * End of a dispatch round: completes everything still held with the transmit ifIndex its buffer carries.
     *
     * @param pool the worker's buffers (indexes held are still this round's packets)
     */
    void flush(BufferPool pool);
}
