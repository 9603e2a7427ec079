package io.vecflow.collector;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Private services for the tests that need a server of their own (TLS listeners, users): runs
 * {@code scripts/services/NAME.sh start|stop DIR} with the environment given, on loopback ports from
 * {@link #freePort()}, and fails with the script's output when it does.
 */
public final class ServiceScript {
    private ServiceScript() {}

    /** @return the repository root: the first directory above the working directory holding scripts/services */
    public static Path repoRoot() {
        for (Path x = Path.of("").toAbsolutePath(); x != null; x = x.getParent()) {
            if (Files.isRegularFile(x.resolve("scripts/services/kafka.sh"))) {
                return x;
            }
        }
        throw new IllegalStateException("cannot find scripts/services/kafka.sh above " + Path.of("").toAbsolutePath());
    }

    /** @return a TCP port free on 127.0.0.1 now */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Runs {@code scripts/services/<script> <action> <dir>} (bounded: 300 s), its output in {@code dir}'s sibling
     * {@code <script>-<action>.log}.
     *
     * @throws IllegalStateException it failed or took longer, with its output
     */
    public static void run(String script, String action, Path dir, Map<String, String> env)
            throws IOException, InterruptedException {
        Path log = dir.resolveSibling(script + "-" + action + ".log");
        ProcessBuilder pb = new ProcessBuilder("bash", repoRoot().resolve("scripts/services/" + script).toString(),
                action, dir.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(script + " " + action + " took more than 300 s: " + Files.readString(log));
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(script + " " + action + " failed (exit " + p.exitValue() + "): "
                    + Files.readString(log));
        }
    }
}
