package io.vecflow.sflow;

import java.nio.ByteBuffer;

/**
 * Test-side sFlow v5 datagram assembly from hand-written pieces (independent of the encoder, so it can write what the
 * encoder refuses: duplicated records, records shorter than their structure, lengths that are not multiples of 4).
 * Layouts from sflow_version_5.txt: datagram header with an IPv4 agent, compact flow_sample (0:1) and counters_sample
 * (0:2), records as data_format, length, body padded to 4 bytes.
 */
public final class HandDatagram {
    private HandDatagram() {}

    /** @return a datagram from agent 10.0.0.1, sub-agent 0, with the given samples (each a whole sample). */
    public static byte[] datagram(long sequence, long uptimeMs, byte[]... samples) {
        int n = 28;
        for (byte[] s : samples) {
            n += s.length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        b.putInt(5).putInt(1).put(new byte[] {10, 0, 0, 1}).putInt(0).putInt((int) sequence).putInt((int) uptimeMs)
                .putInt(samples.length);
        for (byte[] s : samples) {
            b.put(s);
        }
        return b.array();
    }

    /** @return a compact flow_sample (0:1): source 0:7, 1-in-100, input 1, output 2, and the records. */
    public static byte[] flowSample(long sequence, byte[]... records) {
        int body = 32;
        for (byte[] r : records) {
            body += r.length;
        }
        ByteBuffer b = ByteBuffer.allocate(8 + body);
        b.putInt(SflowFormats.FLOW_SAMPLE).putInt(body).putInt((int) sequence).putInt(7).putInt(100).putInt(1000)
                .putInt(0).putInt(1).putInt(2).putInt(records.length);
        for (byte[] r : records) {
            b.put(r);
        }
        return b.array();
    }

    /** @return a compact counters_sample (0:2) of source 0:7 with the records. */
    public static byte[] counterSample(long sequence, byte[]... records) {
        int body = 12;
        for (byte[] r : records) {
            body += r.length;
        }
        ByteBuffer b = ByteBuffer.allocate(8 + body);
        b.putInt(SflowFormats.COUNTERS_SAMPLE).putInt(body).putInt((int) sequence).putInt(7).putInt(records.length);
        for (byte[] r : records) {
            b.put(r);
        }
        return b.array();
    }

    /** @return a record whose body is the given u32 words (length = 4 × words). */
    public static byte[] record(int format, int... words) {
        ByteBuffer b = ByteBuffer.allocate(8 + 4 * words.length);
        b.putInt(format).putInt(4 * words.length);
        for (int w : words) {
            b.putInt(w);
        }
        return b.array();
    }

    /**
     * @return a record declaring {@code length} bytes whose wire body holds the given words (at least
     *         {@code pad4(length)} bytes of them): the way to write a record shorter than its structure
     */
    public static byte[] recordWithLength(int format, int length, int... words) {
        ByteBuffer b = ByteBuffer.allocate(8 + 4 * words.length);
        b.putInt(format).putInt(length);
        for (int w : words) {
            b.putInt(w);
        }
        return b.array();
    }
}
