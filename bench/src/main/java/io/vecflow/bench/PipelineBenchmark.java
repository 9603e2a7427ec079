package io.vecflow.bench;

import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.sflow.SflowDecodeException;
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
 * (b) What the collector does per datagram once it has the bytes, minus real sinks: {@link DatagramProcessor#process}
 * = decode, parse each sampled header ({@code PacketParser.parse}), fill one {@code FlowRow} per flow sample, hand it
 * to a counting {@link FlowSink}, update the shared counters. One operation = one datagram; {@code flowSamples}/s =
 * rows/s; {@code samples}/s counts the rows too (counter samples produce none here and are not counted).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class PipelineBenchmark extends QuietGate {
    /** ALL: every datagram in testdata/sflow; REPLAY: the 12 flow-sample datagrams the loopback replay sends. */
    @Param({"ALL", "REPLAY"})
    public BenchData.Mix mix;

    private byte[][] datagrams;
    private int next;
    private final CountingFlowSink sink = new CountingFlowSink();
    private final CollectorStats stats = new CollectorStats();
    private DatagramProcessor processor;
    private final byte[] peer16 = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xFF, (byte) 0xFF, 127, 0, 0, 1};
    private long lastRows;

    /** Loads the captures and builds the processor. */
    @Setup
    public void load() {
        datagrams = BenchData.sflowDatagrams(mix).toArray(new byte[0][]);
        processor = new DatagramProcessor(stats.decode, stats, List.of(), List.<FlowSink>of(sink));
    }

    /** Processes the next datagram of the mix. @return the failure or null (consumed by JMH) */
    @Benchmark
    public SflowDecodeException process(SamplesCounter c) {
        int i = next;
        next = i + 1 == datagrams.length ? 0 : i + 1;
        byte[] d = datagrams[i];
        SflowDecodeException e = processor.process(d, 0, d.length, 1L, peer16, 6343);
        long rows = sink.rowsWritten();
        c.flowSamples += rows - lastRows;
        c.samples += rows - lastRows;
        lastRows = rows;
        return e;
    }
}
