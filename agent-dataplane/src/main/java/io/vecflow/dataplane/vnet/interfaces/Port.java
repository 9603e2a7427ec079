package io.vecflow.dataplane.vnet.interfaces;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.vnet.error.DropReason;

/**
 * An interface of the dataplane (VPP's hardware interface + device class): frames come in on per-worker receive
 * queues and go out on per-worker transmit queues. Queue {@code q} is used only by worker {@code q}, so
 * implementations keep per-queue state without locks (AF_PACKET: one socket per worker joined by PACKET_FANOUT).
 *
 * <p>Implementations allocate nothing per frame: received frames are copied into the worker's {@link BufferPool}
 * buffers, transmitted frames are read from them.
 */
public abstract class Port implements AutoCloseable {
    private final String name;
    private final int ifIndex;
    private final PortCounters counters;

    /**
     * @param name interface name shown by {@code show interfaces} (for AF_PACKET, the Linux name, e.g. {@code veth0})
     * @param ifIndex the dataplane's ifIndex of this port (sFlow {@code ifIndex}, PSAMPLE IIFINDEX/OIFINDEX), ≥ 1
     * @param queues receive/transmit queues, one per worker, ≥ 1
     */
    protected Port(String name, int ifIndex, int queues) {
        if (ifIndex < 1) {
            throw new IllegalArgumentException("port " + name + ": ifIndex must be >= 1, got " + ifIndex);
        }
        this.name = name;
        this.ifIndex = ifIndex;
        this.counters = new PortCounters(queues);
    }

    /** @return the interface name. */
    public final String name() {
        return name;
    }

    /** @return the dataplane ifIndex. */
    public final int ifIndex() {
        return ifIndex;
    }

    /** @return number of queues (workers). */
    public final int queues() {
        return counters.queues();
    }

    /** @return this port's counters (rx/tx packets, octets, discards, errors per queue). */
    public final PortCounters counters() {
        return counters;
    }

    /**
     * Receives up to {@code max} frames from receive queue {@code queue} into buffers allocated from {@code pool},
     * appending their indices to {@code out}. For each frame the port sets {@code pool.length} (bytes, frames longer
     * than a buffer are truncated and counted as {@link PortCounters#RX_ERRORS}), {@code rxIfIndex} = {@link
     * #ifIndex()}, {@code txIfIndex} = 0 and {@code timestampNanos} (System.nanoTime). An empty pool stops the burst
     * and counts the frame as {@link PortCounters#RX_DISCARDS} when the frame was already taken off the wire. Never
     * blocks.
     *
     * @param queue receive queue = worker index
     * @param pool the worker's buffers
     * @param out vector to append to; the caller guarantees {@code out.count + max <= PacketVector.CAPACITY}
     * @param max frames to receive at most
     * @return frames appended
     */
    public abstract int rx(int queue, BufferPool pool, PacketVector out, int max);

    /**
     * Transmits every frame of {@code v} on transmit queue {@code queue} ({@code pool.length} bytes from each buffer),
     * then frees every buffer to {@code pool} and empties {@code v}. Frames that cannot be sent are counted as
     * {@link PortCounters#TX_DISCARDS} or {@link PortCounters#TX_ERRORS} and freed. Never blocks for long (a full
     * transmit ring drops).
     *
     * @param queue transmit queue = worker index
     * @param pool the worker's buffers
     * @param v frames to send
     */
    public abstract void tx(int queue, BufferPool pool, PacketVector v);

    /**
     * As {@link #tx(int, BufferPool, PacketVector)}, but every frame the port cannot send is appended to
     * {@code rejected} instead of being freed, with {@link BufferPool#dropReason} set to its
     * {@link DropReason} (still counted at the port): {@code port-output} sends them to
     * error-drop, so each shows in {@code show errors} and becomes a discard sample. Appends at most
     * {@code PacketVector.CAPACITY − rejected.count} buffers. The default sends with the 3-argument form (a port
     * that never rejects).
     *
     * @param queue transmit queue = worker index
     * @param pool the worker's buffers
     * @param v frames to send (emptied)
     * @param rejected where rejected frames go (the caller empties it), or null to free them
     */
    public void tx(int queue, BufferPool pool, PacketVector v, PacketVector rejected) {
        tx(queue, pool, v);
    }

    /**
     * @param queue receive queue
     * @return true when this queue will never receive again (end of a replay or of a counted generator run)
     */
    public boolean rxExhausted(int queue) {
        return false;
    }

    /** @return interface speed in bits/s for the sFlow ifSpeed counter (0 when unknown). */
    public long speedBitsPerSecond() {
        return 0;
    }

    /** Releases sockets and memory; the port must not be used afterwards. */
    @Override
    public void close() {
    }
}
