package io.vecflow.dataplane.plugins.srlb.load;

import java.io.IOException;

/**
 * One server's load metric for SRLB's connect-if-available decision (docs/load-balancing.md §3 "Acceptance policies").
 *
 * <p>{@link #load()} is read per hunting SYN, so it must be a plain read of a cached value: no I/O, no allocation, no
 * lock. Sources that need I/O ({@link ApacheStatusSource}, {@link NginxStatusSource}, {@link CgroupCpuSource}) extend
 * {@link PolledLoadSource}, fetch on a refresh interval off the packet path ({@link LoadSourcePoller}) and publish
 * through a volatile field. {@link SettableLoadSource} is the test and simulation source.
 */
public interface LoadSource {
    /**
     * @return the current metric, in the unit {@link #name()} states (busy workers, active connections, CPU
     *         fraction); {@link Double#NaN} while unknown (never fetched) — a threshold policy then refuses unless
     *         last, as SRLB's Apache policy does without a scoreboard
     */
    double load();

    /** @return what is measured and from where, e.g. {@code apache BusyWorkers http://127.0.0.1/server-status?auto} */
    String name();

    /** A status page or stat file that does not have the expected format; names the line (1-based) and field. */
    final class FormatException extends IOException {
        private final int line;

        /**
         * @param line    1-based line number of the problem, or 0 when it concerns the whole input (e.g. a
         *                missing field)
         * @param message what is wrong, naming the field
         */
        public FormatException(int line, String message) {
            super(line > 0 ? "line " + line + ": " + message : message);
            this.line = line;
        }

        /** @return the 1-based line, 0 if none */
        public int line() {
            return line;
        }
    }
}
