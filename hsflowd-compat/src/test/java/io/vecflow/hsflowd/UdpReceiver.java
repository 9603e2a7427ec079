package io.vecflow.hsflowd;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecodeException;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Test collector: a real UDP socket on 127.0.0.1:0 read by a background thread (so bursts are not lost to the
 * socket buffer); datagrams are decoded with {@link SflowDecoder} on the test thread and kept as plain copies. All
 * waits are bounded.
 */
final class UdpReceiver implements AutoCloseable {
    /** One received datagram: header fields, wire size, its flow samples and its counter samples. */
    record Datagram(int length, int version, byte[] agentAddress, long subAgentId, long sequence, long uptimeMs,
            long numSamples, List<Sample> samples, InetSocketAddress from, List<Counters> counters) {
        Datagram(int length, int version, byte[] agentAddress, long subAgentId, long sequence, long uptimeMs,
                long numSamples, List<Sample> samples, InetSocketAddress from) {
            this(length, version, agentAddress, subAgentId, sequence, uptimeMs, numSamples, samples, from, List.of());
        }
    }

    /**
     * One decoded counters sample: kind (0:2 / 0:4), sequence, source, record formats in wire order, the generic
     * interface counters (null if absent) and the port name (null if absent).
     */
    record Counters(int kind, long seq, int sourceType, long sourceIndex, List<Integer> formats, long[] ifCounters,
            String portName, long[] ethernet) {}

    /** One decoded flow sample with its sampled_header. */
    record Sample(boolean expanded, long seq, int sourceType, long sourceIndex, long rate, long pool, long drops,
            int inputFormat, long input, int outputFormat, long output, int recordCount, boolean hasHeader,
            int headerProtocol, long frameLength, long stripped, byte[] header) {}

    private record Raw(byte[] bytes, InetSocketAddress from) {}

    private final DatagramChannel channel;
    private final LinkedBlockingQueue<Raw> queue = new LinkedBlockingQueue<>();
    private final Thread reader;
    private final SflowDecoder decoder = new SflowDecoder(new DecodeStats());
    final List<Datagram> datagrams = new ArrayList<>();

    UdpReceiver() throws IOException {
        this(DatagramChannel.open(), new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /**
     * Receives on {@code channel} (e.g. one opened inside a network namespace), bound here to {@code local}; the
     * receiver owns and closes it.
     */
    UdpReceiver(DatagramChannel channel, InetSocketAddress local) throws IOException {
        this.channel = channel;
        channel.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
        channel.bind(local);
        reader = Thread.ofPlatform().daemon().name("udp-receiver").start(this::readLoop);
    }

    private void readLoop() {
        ByteBuffer buf = ByteBuffer.allocate(65536);
        try {
            while (true) {
                buf.clear();
                InetSocketAddress from = (InetSocketAddress) channel.receive(buf);
                queue.add(new Raw(Arrays.copyOf(buf.array(), buf.position()), from));
            }
        } catch (IOException closed) {
            // close() ends the loop
        }
    }

    int port() throws IOException {
        return ((InetSocketAddress) channel.getLocalAddress()).getPort();
    }

    /** Receives until {@code n} datagrams in total arrived or {@code timeoutMs} passed; returns the total. */
    int awaitDatagrams(int n, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        drain(0);
        while (datagrams.size() < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            drain(left);
        }
        return datagrams.size();
    }

    /** Receives until {@code n} flow samples in total arrived or {@code timeoutMs} passed; returns the total. */
    int awaitSamples(int n, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        drain(0);
        while (samples().size() < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            drain(left);
        }
        return samples().size();
    }

    /** Decodes what has arrived, waiting up to {@code nanos} for the first datagram. */
    private void drain(long nanos) throws InterruptedException {
        Raw r = nanos > 0 ? queue.poll(nanos, TimeUnit.NANOSECONDS) : queue.poll();
        while (r != null) {
            decode(r.bytes(), r.bytes().length, r.from());
            r = queue.poll();
        }
    }

    private void decode(byte[] data, int len, InetSocketAddress from) {
        List<Sample> samples = new ArrayList<>();
        List<Counters> counters = new ArrayList<>();
        DatagramHeader[] hdr = new DatagramHeader[1];
        SflowDecodeException e = decoder.decode(data, 0, len, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader h) {
                hdr[0] = h;
            }

            @Override
            public void onFlowSample(DatagramHeader h, FlowSample s) {
                samples.add(new Sample(s.expanded, s.sequenceNumber, s.sourceIdType, s.sourceIdIndex,
                        s.samplingRate, s.samplePool, s.drops, s.inputFormat, s.input, s.outputFormat, s.output,
                        s.recordCount, s.hasSampledHeader, s.sampledHeader.headerProtocol,
                        s.sampledHeader.frameLength, s.sampledHeader.stripped,
                        s.hasSampledHeader ? s.sampledHeader.header.toArray() : null));
            }

            @Override
            public void onCounterSample(DatagramHeader h, CounterSample s) {
                List<Integer> formats = new ArrayList<>();
                for (int i = 0; i < s.recordsListed; i++) {
                    formats.add(s.recordFormats[i]);
                }
                CounterRecords.IfCounters g = s.records.ifCounters;
                long[] ifc = s.records.hasIfCounters ? new long[] {g.ifIndex, g.ifType, g.ifSpeed, g.ifDirection,
                    g.ifStatus, g.inOctets, g.inUcastPkts, g.inMulticastPkts, g.inBroadcastPkts, g.inDiscards,
                    g.inErrors, g.inUnknownProtos, g.outOctets, g.outUcastPkts, g.outMulticastPkts,
                    g.outBroadcastPkts, g.outDiscards, g.outErrors, g.promiscuousMode} : null;
                CounterRecords.EthernetCounters e = s.records.ethernet;
                long[] eth = s.records.hasEthernet ? new long[] {e.alignmentErrors, e.fcsErrors,
                    e.singleCollisionFrames, e.multipleCollisionFrames, e.sqeTestErrors, e.deferredTransmissions,
                    e.lateCollisions, e.excessiveCollisions, e.internalMacTransmitErrors, e.carrierSenseErrors,
                    e.frameTooLongs, e.internalMacReceiveErrors, e.symbolErrors} : null;
                counters.add(new Counters(s.kind, s.sequenceNumber, s.sourceIdType, s.sourceIdIndex,
                        List.copyOf(formats), ifc, s.records.hasPortName ? s.records.portName.name.asString() : null,
                        eth));
            }

            @Override
            public void onSkippedSample(DatagramHeader h, int dataFormat, int offset, int length) {
                throw new AssertionError("agent sent a sample the decoder skipped: format " + dataFormat);
            }
        });
        assertThat(e).as("decode error").isNull();
        DatagramHeader h = hdr[0];
        datagrams.add(new Datagram(len, h.version, Arrays.copyOf(h.agentAddress, h.agentAddressLength()),
                h.subAgentId, h.sequenceNumber, h.uptimeMs, h.numSamples, List.copyOf(samples), from,
                List.copyOf(counters)));
    }

    /** All flow samples received so far, in arrival order. */
    List<Sample> samples() {
        List<Sample> all = new ArrayList<>();
        for (Datagram d : datagrams) {
            all.addAll(d.samples());
        }
        return all;
    }

    /** All counter samples received so far, in arrival order. */
    List<Counters> counterSamples() {
        List<Counters> all = new ArrayList<>();
        for (Datagram d : datagrams) {
            all.addAll(d.counters());
        }
        return all;
    }

    /** Receives until {@code n} counter samples in total arrived or {@code timeoutMs} passed; returns the total. */
    int awaitCounters(int n, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        drain(0);
        while (counterSamples().size() < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            drain(left);
        }
        return counterSamples().size();
    }

    @Override
    public void close() throws Exception {
        channel.close();
        reader.join(5000);
    }
}
