package io.vecflow.collector.sink;

/** Where raw datagrams go, unchanged (Kafka raw topic, forwarders). Thread-safe. */
public interface RawSink extends AutoCloseable {
    /**
     * Takes one datagram; the buffer is reused by the caller after return, so implementations copy what they keep.
     *
     * @param data buffer
     * @param off offset of the UDP payload
     * @param len payload length in bytes
     * @param receivedNanos receive time, ns since the UNIX epoch
     * @param peer16 UDP source address, 16 bytes (IPv4 mapped)
     * @param peerPort UDP source port
     */
    void accept(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort);

    /** Waits until everything accepted is acknowledged. @throws Exception on failure */
    void flush() throws Exception;

    /** @return datagrams acknowledged by the destination. */
    long written();

    /** @return datagrams that could not be written. */
    long failed();

    /** @return a short name for reports. */
    String name();

    @Override
    void close() throws Exception;
}
