package io.vecflow.hsflowd.net;

import java.net.InetSocketAddress;

/** Observes every datagram the agent sends (e.g. to write them to a pcap). Called on the agent thread. */
@FunctionalInterface
public interface DatagramListener {
    /**
     * @param datagram buffer holding the datagram from offset 0
     * @param length datagram length in bytes
     * @param collector where it was sent
     * @param sent true if the send succeeded
     */
    void onDatagram(byte[] datagram, int length, InetSocketAddress collector, boolean sent);
}
