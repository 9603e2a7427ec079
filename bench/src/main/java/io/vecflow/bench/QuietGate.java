package io.vecflow.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;

/**
 * Base of the benchmark states: before every warm-up and measurement iteration (outside the measured time) it waits
 * until the rest of the machine is quiet, because the bench machines are shared (2 CPUs, other builds running). Quiet
 * = CPU used by everything but this JVM, over 0.5 s, below {@code VECFLOW_BENCH_QUIET_MAX_PCT} % of one CPU (default
 * 15). It waits at most {@code VECFLOW_BENCH_QUIET_WAIT_S} seconds (default 30; 0 turns the gate off) and then runs
 * anyway, saying so on stderr. Environment variables, because JMH forks inherit the environment.
 */
public abstract class QuietGate {
    private static final double MAX_PCT = env("VECFLOW_BENCH_QUIET_MAX_PCT", 15);
    private static final double WAIT_S = env("VECFLOW_BENCH_QUIET_WAIT_S", 30);
    private static final long HZ = 100; // USER_HZ of /proc/stat and /proc/self/stat on Linux

    /** Waits for a quiet machine (see the class comment). */
    @Setup(Level.Iteration)
    public void waitQuiet() throws InterruptedException {
        if (WAIT_S <= 0 || !Files.isReadable(Path.of("/proc/stat"))) {
            return;
        }
        long deadline = System.nanoTime() + (long) (WAIT_S * 1e9);
        double pct;
        do {
            long b0 = busy(), s0 = self();
            Thread.sleep(500);
            pct = 100.0 * ((busy() - b0) - (self() - s0)) / HZ / 0.5;
            if (pct < MAX_PCT) {
                return;
            }
        } while (System.nanoTime() < deadline);
        System.err.printf("bench: machine still busy (%.0f%% of a CPU used by others) after %.0f s; running anyway%n",
                pct, WAIT_S);
    }

    private static long busy() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/stat"))) {
                if (l.startsWith("cpu ")) {
                    String[] f = l.trim().split("\\s+");
                    // user nice system idle iowait irq softirq steal
                    return Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[3]) + Long.parseLong(f[6])
                            + Long.parseLong(f[7]) + Long.parseLong(f[8]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }

    private static long self() {
        try {
            String s = Files.readString(Path.of("/proc/self/stat"));
            List<String> f = List.of(s.substring(s.lastIndexOf(')') + 2).split(" "));
            return Long.parseLong(f.get(11)) + Long.parseLong(f.get(12)); // utime, stime (fields 14, 15)
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static double env(String name, double dflt) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? dflt : Double.parseDouble(v);
    }
}
