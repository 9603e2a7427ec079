package io.vecflow.dataplane.plugins.srlb.load;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A cgroup v2 group's CPU use as a fraction: {@code Δusage_usec / (Δt · cpus)} between two refreshes, from the
 * group's {@code cpu.stat} (kernel Documentation/admin-guide/cgroup-v2.rst, "cpu.stat": flat keyed
 * {@code key value} lines, {@code usage_usec} always present). 1.0 = {@code cpus} CPUs fully busy over the window;
 * the window is the refresh interval. SRLB's {@code cpuacct} policy compares such a fraction with "x %" (its code
 * reads cgroup v1 {@code cpuacct.usage}; v2 is what current systems have).
 *
 * <p>The first refresh only records a sample (no value yet); a counter that goes backwards (group re-created) starts
 * over the same way.
 */
public final class CgroupCpuSource extends PolledLoadSource {
    /** Largest cpu.stat read (bytes). */
    static final int MAX_FILE_BYTES = 64 * 1024;

    private final Path cpuStat;
    private final double cpus;
    private long prevUsageUsec = -1;
    private long prevNanos;

    /**
     * @param cpuStat the group's {@code cpu.stat}, e.g. {@code /sys/fs/cgroup/system.slice/nginx.service/cpu.stat}
     * @param cpus    the CPU capacity that counts as 100 % (&gt; 0; e.g. the {@code cpu.max} quota/period)
     */
    public CgroupCpuSource(Path cpuStat, double cpus) {
        this.cpuStat = Objects.requireNonNull(cpuStat, "cpuStat");
        if (!(cpus > 0) || Double.isInfinite(cpus)) {
            throw new IllegalArgumentException("cgroup CPU capacity must be > 0 CPUs, got " + cpus);
        }
        this.cpus = cpus;
    }

    @Override
    protected double fetch(long nowNanos) throws IOException {
        String text;
        try (InputStream in = Files.newInputStream(cpuStat)) {
            byte[] b = in.readNBytes(MAX_FILE_BYTES + 1);
            if (b.length > MAX_FILE_BYTES) {
                throw new IOException(cpuStat + ": longer than " + MAX_FILE_BYTES + " bytes, not a cpu.stat");
            }
            text = new String(b, StandardCharsets.US_ASCII);
        }
        return sample(parseUsageUsec(text), nowNanos);
    }

    /**
     * Feeds one sample (what {@link #fetch} does after reading the file); for tests and replay.
     *
     * @param usageUsec {@code usage_usec} read at {@code nowNanos}
     * @param nowNanos  the sample time, nanoseconds (monotonic)
     * @return the fraction over the window since the previous sample, or NaN for the first sample, a backwards
     *         counter, or a window of 0 ns
     */
    double sample(long usageUsec, long nowNanos) {
        long prevU = prevUsageUsec, prevT = prevNanos;
        prevUsageUsec = usageUsec;
        prevNanos = nowNanos;
        if (prevU < 0 || usageUsec < prevU || nowNanos - prevT <= 0) {
            return Double.NaN;
        }
        double windowUsec = (nowNanos - prevT) / 1000.0;
        return (usageUsec - prevU) / (windowUsec * cpus);
    }

    /**
     * @param text a cgroup v2 {@code cpu.stat}
     * @return its {@code usage_usec}
     * @throws LoadSource.FormatException if the key is missing or its value is not a non-negative integer (naming
     *         the line)
     */
    public static long parseUsageUsec(String text) throws LoadSource.FormatException {
        String[] lines = text.split("\n", 64);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].trim();
            if (line.startsWith("usage_usec ")) {
                String v = line.substring("usage_usec ".length()).trim();
                try {
                    long u = Long.parseLong(v);
                    if (u >= 0) {
                        return u;
                    }
                } catch (NumberFormatException e) {
                    // fall through
                }
                throw new LoadSource.FormatException(i + 1, "usage_usec must be a non-negative integer, got '"
                        + v + "'");
            }
        }
        throw new LoadSource.FormatException(0, "no usage_usec line in cpu.stat (" + lines.length
                + " lines) — is this a cgroup v2 cpu.stat?");
    }

    @Override
    public String name() {
        return "cgroup2 CPU fraction of " + cpus + " CPUs " + cpuStat;
    }
}
