package io.vecflow.collector;

import io.vecflow.sflow.DatagramBuilder;
import java.util.Arrays;

/**
 * sFlow agents for fault tests: each datagram has the agent's next datagram sequence number and {@code samples}
 * expanded flow samples whose sample sequence numbers rise per source, so that every stored row is identified by
 * (agent, source, sample sequence) and every datagram by (agent, datagram sequence). Built with the agent's own
 * encoder ({@link DatagramBuilder}); each sampled header is a 60-byte Ethernet/IPv4/UDP frame.
 */
final class SyntheticAgents {
    private final DatagramBuilder[] builders;
    private final long[] datagramSeq, sampleSeq;
    private final int samples;
    private final byte[] header = new byte[60];
    private long datagrams, samplesSent;

    /**
     * @param agents number of agents, 192.0.2.1 .. 192.0.2.N
     * @param samples flow samples per datagram
     */
    SyntheticAgents(int agents, int samples) {
        this.samples = samples;
        builders = new DatagramBuilder[agents];
        datagramSeq = new long[agents];
        sampleSeq = new long[agents];
        for (int a = 0; a < agents; a++) {
            builders[a] = new DatagramBuilder(1400, new byte[] {(byte) 192, 0, 2, (byte) (a + 1)}, 0);
        }
        // Ethernet II, IPv4, UDP 10.0.0.1 -> 10.0.0.2
        header[12] = 0x08;
        header[14] = 0x45;
        header[17] = 46;
        header[22] = 64;
        header[23] = 17;
        header[26] = 10;
        header[29] = 1;
        header[30] = 10;
        header[33] = 2;
    }

    /** @return agent {@code a}'s next datagram (a new array). */
    byte[] next(int a) {
        DatagramBuilder b = builders[a];
        b.reset();
        for (int k = 0; k < samples; k++) {
            long s = ++sampleSeq[a];
            header[34] = (byte) (s >>> 8);
            header[35] = (byte) s;
            b.addFlowSampleExpanded(s, 0, 7, 100, s * 100, 0, 0, 7, 0, 8, 1, 64, 4, header, 0, header.length);
        }
        int len = b.finish(++datagramSeq[a], datagramSeq[a] * 10);
        datagrams++;
        samplesSent += samples;
        return Arrays.copyOf(b.buffer(), len);
    }

    /** @return datagrams made. */
    long datagrams() {
        return datagrams;
    }

    /** @return flow samples made (rows expected). */
    long samples() {
        return samplesSent;
    }

    /** @return number of agents. */
    int agents() {
        return builders.length;
    }
}
