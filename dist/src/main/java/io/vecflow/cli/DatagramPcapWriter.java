package io.vecflow.cli;

import io.vecflow.hsflowd.net.DatagramListener;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PcapWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * Writes every datagram the agent sends to a pcap file as Ethernet / IPv4 / UDP frames (RFC 791 header with a valid
 * checksum, UDP checksum 0 as RFC 768 allows over IPv4), so third-party decoders (tshark, sfacctd via replay) can read
 * exactly what went on the wire. IPv4 agents only; other datagrams are counted as skipped.
 */
public final class DatagramPcapWriter implements DatagramListener, AutoCloseable {
    private static final int HEADERS = 14 + 20 + 8;
    private final PcapWriter pcap;
    private final byte[] src4;
    private final int srcPort;
    private final byte[] frame = new byte[HEADERS + 65535];
    private int ipId;
    private long written, skipped;

    /**
     * @param file output pcap
     * @param agent the agent's address (IPv4 source of the frames)
     * @param agentPort the agent's UDP source port
     * @throws IOException if the file cannot be created
     */
    public DatagramPcapWriter(Path file, InetAddress agent, int agentPort) throws IOException {
        this.pcap = PcapWriter.create(file, LinkType.ETHERNET, 65535);
        this.src4 = agent instanceof Inet4Address ? agent.getAddress() : new byte[] {127, 0, 0, 1};
        this.srcPort = agentPort;
    }

    @Override
    public synchronized void onDatagram(byte[] datagram, int length, InetSocketAddress collector, boolean sent) {
        if (!(collector.getAddress() instanceof Inet4Address)) {
            skipped++;
            return;
        }
        byte[] f = frame;
        // Ethernet: locally administered MACs, ethertype IPv4.
        byte[] mac = {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01};
        System.arraycopy(mac, 0, f, 0, 12);
        f[12] = 0x08;
        f[13] = 0x00;
        int ipLen = 20 + 8 + length;
        int p = 14;
        f[p] = 0x45;
        f[p + 1] = 0;
        f[p + 2] = (byte) (ipLen >>> 8);
        f[p + 3] = (byte) ipLen;
        ipId = (ipId + 1) & 0xFFFF;
        f[p + 4] = (byte) (ipId >>> 8);
        f[p + 5] = (byte) ipId;
        f[p + 6] = 0x40; // DF
        f[p + 7] = 0;
        f[p + 8] = 64;
        f[p + 9] = 17;
        f[p + 10] = 0;
        f[p + 11] = 0;
        System.arraycopy(src4, 0, f, p + 12, 4);
        System.arraycopy(collector.getAddress().getAddress(), 0, f, p + 16, 4);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((f[p + i] & 0xFF) << 8) | (f[p + i + 1] & 0xFF);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        sum = ~sum & 0xFFFF;
        f[p + 10] = (byte) (sum >>> 8);
        f[p + 11] = (byte) sum;
        p += 20;
        int udpLen = 8 + length;
        f[p] = (byte) (srcPort >>> 8);
        f[p + 1] = (byte) srcPort;
        f[p + 2] = (byte) (collector.getPort() >>> 8);
        f[p + 3] = (byte) collector.getPort();
        f[p + 4] = (byte) (udpLen >>> 8);
        f[p + 5] = (byte) udpLen;
        f[p + 6] = 0;
        f[p + 7] = 0;
        System.arraycopy(datagram, 0, f, HEADERS, length);
        try {
            long now = System.currentTimeMillis() * 1_000_000L;
            pcap.write(now, f, 0, HEADERS + length, HEADERS + length);
            written++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return datagrams written. */
    public synchronized long written() {
        return written;
    }

    @Override
    public synchronized void close() throws IOException {
        pcap.close();
    }
}
