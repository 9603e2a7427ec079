package io.vecflow.bench;

import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecodeException;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * (a) {@link SflowDecoder#decode} alone, cycling over real datagrams (testdata/sflow). One operation = one datagram,
 * so the score is datagrams/s and {@code -prof gc}'s {@code gc.alloc.rate.norm} is bytes per datagram; the
 * {@link SamplesCounter} fields give samples/s. The visitor only counts and reads one field per sample.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class DecodeBenchmark extends QuietGate {
    /** ALL: every datagram in testdata/sflow; REPLAY: the 12 flow-sample datagrams the loopback replay sends. */
    @Param({"ALL", "REPLAY"})
    public BenchData.Mix mix;

    private byte[][] datagrams;
    private int next;
    private final SflowDecoder decoder = new SflowDecoder(new DecodeStats());
    private final Counting visitor = new Counting();

    /** Loads the captures. */
    @Setup
    public void load() {
        List<byte[]> l = BenchData.sflowDatagrams(mix);
        datagrams = l.toArray(new byte[0][]);
    }

    /**
     * Decodes the next datagram of the mix. @return a value derived from every sample (defeats dead-code elimination)
     */
    @Benchmark
    public long decode(SamplesCounter c) {
        int i = next;
        next = i + 1 == datagrams.length ? 0 : i + 1;
        byte[] d = datagrams[i];
        Counting v = visitor;
        v.samples = v.flows = 0;
        SflowDecodeException e = decoder.decode(d, 0, d.length, v);
        c.samples += v.samples;
        c.flowSamples += v.flows;
        return v.sink + (e == null ? 0 : 1);
    }

    /** Counts samples and folds one field of each into {@link #sink}. */
    static final class Counting implements SflowVisitor {
        long samples, flows, sink;

        @Override
        public void onDatagram(DatagramHeader header) {
            sink += header.sequenceNumber;
        }

        @Override
        public void onFlowSample(DatagramHeader header, FlowSample s) {
            samples++;
            flows++;
            sink += s.sequenceNumber + s.sampledHeader.frameLength;
        }

        @Override
        public void onDiscardSample(DatagramHeader header, FlowSample s) {
            samples++;
            sink += s.sequenceNumber;
        }

        @Override
        public void onCounterSample(DatagramHeader header, CounterSample s) {
            samples++;
            sink += s.sequenceNumber;
        }
    }
}
