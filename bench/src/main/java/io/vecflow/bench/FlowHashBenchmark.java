package io.vecflow.bench;

import io.vecflow.dataplane.plugins.lb.maglev.FlowHash;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The LB's 5-tuple hash ({@link FlowHash#hash}: xxHash64 rounds over 5 words) against CRC32C of the same 40 key bytes
 * through {@code java.util.zip.CRC32C} ({@link FlowHash.Crc32c}, VPP's function), over 1024 IPv6 keys. One operation
 * = one hash; ns/op and, with {@code -prof gc}, B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class FlowHashBenchmark extends QuietGate {
    private final FlowKey[] keys = new FlowKey[1024];
    private final FlowHash.Crc32c crc = new FlowHash.Crc32c();
    private int next;

    /** Random IPv6 TCP keys. */
    @Setup
    public void keys() {
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new FlowKey().setIpv6(0x20010db800000000L | r.nextInt(1 << 16), r.nextLong(),
                    0x20010db8ffff0000L, 0x80, FlowKey.PROTO_TCP, r.nextInt(65536), 443);
        }
    }

    private FlowKey nextKey() {
        int i = next;
        next = (i + 1) & (keys.length - 1);
        return keys[i];
    }

    /** @return the xxh-round hash of the next key */
    @Benchmark
    public long xxh64Rounds() {
        return FlowHash.hash(0x1234, nextKey());
    }

    /** @return the CRC32C of the next key's bytes */
    @Benchmark
    public long crc32c() {
        return crc.hash(nextKey());
    }
}
