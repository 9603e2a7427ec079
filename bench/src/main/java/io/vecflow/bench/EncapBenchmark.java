package io.vecflow.bench;

import io.vecflow.dataplane.plugins.lb.encap.Encap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
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
 * What the shift costs: {@link Encap#gre4} moves the inner IP packet forward by 24 bytes because the buffer has no
 * headroom. Per op, the frame is first rewritten from a template ({@link #reload} alone is the baseline); then
 * {@link #gre4} = reload + encapsulation (shift + headers), {@link #shiftOnly} = reload + the same overlapping
 * copy without headers — so {@code gre4 − shiftOnly} estimates an encapsulation into headroom (headers only), and
 * {@code shiftOnly − reload} the shift. 64-byte (50-byte IP packet) and 1514-byte (1500) frames.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class EncapBenchmark extends QuietGate {
    /** Ethernet frame length. */
    @Param({"64", "1514"})
    public int frameBytes;

    private MemorySegment template;
    private MemorySegment buf;
    private int ipLen;
    private final Encap encap = new Encap(2048, Encap.DEFAULT_TTL, 0xC0000201, 0, 0);

    /** An Ethernet + IPv4 (DF) + TCP frame of {@code frameBytes}. */
    @Setup
    public void frame() {
        Arena a = Arena.ofAuto();
        template = a.allocate(2048, 64);
        buf = a.allocate(2048, 64);
        ipLen = frameBytes == 64 ? 50 : frameBytes - 14;
        byte[] f = new byte[frameBytes];
        f[12] = 8;
        f[14] = 0x45; f[16] = (byte) (ipLen >>> 8); f[17] = (byte) ipLen; f[20] = 0x40; f[22] = 61; f[23] = 6;
        f[26] = (byte) 198; f[27] = 51; f[28] = 100; f[29] = 7; f[30] = (byte) 203; f[33] = 10;
        MemorySegment.copy(f, 0, template, ValueLayout.JAVA_BYTE, 0, frameBytes);
    }

    /** @return a byte of the frame */
    @Benchmark
    public byte reload() {
        MemorySegment.copy(template, 0, buf, 0, frameBytes);
        return buf.get(ValueLayout.JAVA_BYTE, 17);
    }

    /** @return the shifted packet's first byte */
    @Benchmark
    public byte shiftOnly() {
        MemorySegment.copy(template, 0, buf, 0, frameBytes);
        MemorySegment.copy(buf, 14, buf, 38, ipLen);
        return buf.get(ValueLayout.JAVA_BYTE, 38);
    }

    /** @return the new frame length */
    @Benchmark
    public int gre4() {
        MemorySegment.copy(template, 0, buf, 0, frameBytes);
        return encap.gre4(buf, 0, 0, frameBytes, 14, 0x0A010203);
    }
}
