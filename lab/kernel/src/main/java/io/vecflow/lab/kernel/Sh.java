package io.vecflow.lab.kernel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the guest's setup commands ({@code ip}, {@code tc}, {@code nft}, {@code sysctl}) with a time limit. */
public final class Sh {
    private Sh() {}

    /** Time limit of one command, seconds (generous: the guest is emulated, ~20× slower than the host). */
    public static final long TIMEOUT_S = 60;

    /**
     * Runs {@code argv}, stdout and stderr merged.
     *
     * @return the output
     * @throws IllegalStateException if it exits non-zero or runs longer than {@link #TIMEOUT_S} (the message holds
     *         the command and its output)
     */
    public static String run(String... argv) {
        return run(true, argv);
    }

    /**
     * Runs {@code argv}; with {@code check} false a non-zero exit is returned as output instead of thrown (cleanup).
     *
     * @return the output
     * @throws IllegalStateException on a timeout, or a non-zero exit when {@code check}
     */
    public static String run(boolean check, String... argv) {
        try {
            Process p = new ProcessBuilder(List.of(argv)).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes(); // ends when the command closes its output
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", argv) + ": still running after " + TIMEOUT_S + " s");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (check && p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", argv) + ": exit " + p.exitValue() + ": "
                        + text.strip());
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", argv) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(String.join(" ", argv) + ": interrupted", e);
        }
    }

    /** ifindex of {@code dev} from {@code /sys/class/net/DEV/ifindex}. */
    public static int ifindex(String dev) {
        try {
            return Integer.parseInt(java.nio.file.Files.readString(java.nio.file.Path.of("/sys/class/net", dev,
                    "ifindex")).strip());
        } catch (IOException e) {
            throw new IllegalStateException("no network device " + dev + ": " + e.getMessage(), e);
        }
    }

    /** MAC address of {@code dev} as 6 bytes, from {@code /sys/class/net/DEV/address}. */
    public static byte[] mac(String dev) {
        try {
            String[] p = java.nio.file.Files.readString(java.nio.file.Path.of("/sys/class/net", dev, "address"))
                    .strip().split(":");
            byte[] m = new byte[6];
            for (int i = 0; i < 6; i++) {
                m[i] = (byte) Integer.parseInt(p[i], 16);
            }
            return m;
        } catch (IOException e) {
            throw new IllegalStateException("no network device " + dev + ": " + e.getMessage(), e);
        }
    }
}
