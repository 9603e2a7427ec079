package io.vecflow.bench;

import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleSubscriber;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The dataplane main thread's send path (issue 24 goal 3): PSAMPLE samples per second through
 * {@link PsampleEmitter#emit} with one message per datagram ({@code batchBytes = 0}) against several per datagram
 * ({@code sflow.psample-batch-bytes}, 8192 by default), a burst of {@value #BURST} samples then
 * {@link PsampleEmitter#flush()} as each drain pass ends. Real NETLINK_USERSOCK unicast to a subscriber that a
 * second thread drains (the agent's side: {@link PsampleSubscriber#poll}), so the kernel does its whole work per
 * datagram; samples are 128-byte headers as sFlow takes them. The score counts emit calls; the line printed at
 * tear-down gives what the receiver got and what the kernel refused (EAGAIN: the receiver behind) over the whole trial
 * (warm-up and measurement, {@value #TRIAL_SECONDS} s): delivered samples per second are what to compare, since a
 * sender faster than its receiver is only refused faster.
 *
 * <pre>
 * ./mvnw -pl bench -am package -DskipTests
 * java -jar bench/target/benchmarks.jar PsampleEmitBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
public class PsampleEmitBenchmark extends QuietGate {
    /** Samples per drain pass. */
    public static final int BURST = 64;
    /** Seconds of one trial: 3 warm-up and 5 measured iterations of 2 s. */
    public static final int TRIAL_SECONDS = 16;

    /** Bytes of messages per datagram: 0 = one sample per datagram. */
    @Param({"0", "8192"})
    public int batchBytes;

    private PsampleSubscriber sub;
    private PsampleEmitter emitter;
    private Thread drain;
    private volatile boolean running;
    private final AtomicLong received = new AtomicLong();
    private final PsampleSample sample = new PsampleSample();
    private long seq;
    private static final Duration POLL = Duration.ofMillis(50);

    /** Opens the pair and starts the receiving thread. */
    @Setup(Level.Trial)
    public void open() throws Exception {
        sub = PsampleSubscriber.openUnicast();
        emitter = PsampleEmitter.openUnicast(sub.portId(), Psample.Convention.VPP);
        emitter.batchBytes(batchBytes);
        byte[] header = new byte[128];
        header[12] = 0x08;
        header[14] = 0x45;
        sample.clear().sampleGroup(3).iifIndex(1).oifIndex(2).origSize(1500).sampleRate(100)
                .data(header, 0, header.length);
        running = true;
        drain = Thread.ofPlatform().name("psample-drain").start(() -> {
            try {
                while (running) {
                    int n = sub.poll(POLL, s -> { });
                    received.addAndGet(n);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** One drain pass: {@value #BURST} samples, then the batch goes out. */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public int burst() {
        int ok = 0;
        for (int i = 0; i < BURST; i++) {
            sample.groupSeq(++seq & 0xFFFFFFFFL);
            if (emitter.emit(sample)) {
                ok++;
            }
        }
        return ok - emitter.flush();
    }

    /** Stops the receiver and reports what arrived. */
    @TearDown(Level.Trial)
    public void close() throws Exception {
        Thread.sleep(200);
        running = false;
        drain.join(2000);
        System.err.printf("psample batch %d: sent %d in %d datagrams, failed %d (last errno %d), received %d: "
                + "%.0f delivered/s over the trial%n", batchBytes, emitter.sent(), emitter.datagrams(),
                emitter.sendFailed(), emitter.lastErrno(), received.get(), received.get() / (double) TRIAL_SECONDS);
        emitter.close();
        sub.close();
    }
}
