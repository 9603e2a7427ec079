package io.vecflow.lab.kernel;

import java.util.Objects;

/**
 * Assertions of the guest checks: each failure throws an {@link AssertionError} naming what was compared and both
 * values, so the guest log says what the kernel sent. (The guest runs plain {@code java}, without a test framework.)
 */
public final class Check {
    private Check() {}

    /**
     * @param what name of the compared value (e.g. {@code "sample 3 input ifIndex"})
     * @throws AssertionError if {@code expected} and {@code actual} differ ({@link Objects#equals})
     */
    public static void equal(String what, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    /**
     * @param what name of the compared value
     * @throws AssertionError if {@code expected != actual}
     */
    public static void equal(String what, long expected, long actual) {
        if (expected != actual) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    /**
     * @param what what must hold
     * @throws AssertionError if {@code condition} is false
     */
    public static void that(String what, boolean condition) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    /**
     * @param what name of the value
     * @throws AssertionError if {@code value} is outside {@code [min, max]}
     */
    public static void between(String what, long min, long max, long value) {
        if (value < min || value > max) {
            throw new AssertionError(what + ": expected " + min + ".." + max + ", got " + value);
        }
    }

    private static final long START_MS = ProcessHandle.current().info().startInstant()
            .map(java.time.Instant::toEpochMilli).orElse(System.currentTimeMillis());

    /** Prints {@code String.format(format, args)} prefixed with the seconds since the JVM started. */
    public static void log(String format, Object... args) {
        String text = args.length == 0 ? format : String.format(format, args);
        System.out.printf("[%6.1fs] %s%n", (System.currentTimeMillis() - START_MS) / 1000.0, text.stripTrailing());
    }

    /** Lower-case hex of {@code b[off..off+len)}, for messages. */
    public static String hex(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder(len * 2);
        for (int i = off; i < off + len; i++) {
            sb.append(Character.forDigit(b[i] >> 4 & 0xF, 16)).append(Character.forDigit(b[i] & 0xF, 16));
        }
        return sb.toString();
    }
}
