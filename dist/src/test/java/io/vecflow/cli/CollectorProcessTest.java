package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `vecflow collector` as its own process: SIGTERM flushes every row before exit and prints the counters; a second
 * collector on the same port is refused instead of silently sharing the traffic.
 */
class CollectorProcessTest {
    @TempDir
    Path dir;

    private static Process start(List<String> args, Path log) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-cp",
                System.getProperty("java.class.path"), VecflowCommand.class.getName()));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void awaitLine(Path log, String text, Process p) throws Exception {
        long end = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < end) {
            if (Files.exists(log) && Files.readString(log).contains(text)) {
                return;
            }
            assertThat(p.isAlive()).as("process alive; output: %s", Files.exists(log) ? Files.readString(log) : "")
                    .isTrue();
            Thread.sleep(50);
        }
        throw new AssertionError("no '" + text + "' within 20 s: " + Files.readString(log));
    }

    @Test
    void sigtermFlushesEveryRowAndPrintsCounters() throws Exception {
        // Datagrams from a real demo run: 179 flow samples.
        Demo.Options o = new Demo.Options();
        o.out = dir.resolve("demo");
        o.collectorPort = 0;
        Demo.Result r = Demo.run(o, new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));
        List<byte[]> datagrams = Datagrams.payloads(r.datagramsPcap());

        int port;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Path json = dir.resolve("flows.jsonl");
        Path log = dir.resolve("collector.log");
        Process p = start(List.of("collector", "--listen", "127.0.0.1", "--port", Integer.toString(port), "--json",
                json.toString(), "--metrics-port", "0"), log);
        try {
            awaitLine(log, "listening on udp", p);

            // A second collector on the same port is refused (SO_REUSEPORT would have split the traffic).
            Path log2 = dir.resolve("second.log");
            Process second = start(List.of("collector", "--listen", "127.0.0.1", "--port", Integer.toString(port),
                    "--json", dir.resolve("second.jsonl").toString(), "--metrics-port", "0"), log2);
            assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(second.exitValue()).isEqualTo(1);
            assertThat(Files.readString(log2)).contains("Address already in use").contains(Integer.toString(port));

            try (DatagramSocket s = new DatagramSocket()) {
                for (byte[] d : datagrams) {
                    s.send(new DatagramPacket(d, d.length, InetAddress.getLoopbackAddress(), port));
                }
            }
            Thread.sleep(300); // received, but rows may still sit in the file buffer
            p.destroy(); // SIGTERM
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        List<String> rows = Files.readAllLines(json, StandardCharsets.UTF_8);
        assertThat(rows).hasSize(179);
        assertThat(rows.getLast()).startsWith("{").endsWith("}");
        String out = Files.readString(log);
        assertThat(out).contains(String.format("datagrams received %,d", datagrams.size()))
                .contains("flow rows 179").contains("179 rows written, 0 failed");
        try (BufferedReader b = new BufferedReader(new InputStreamReader(Files.newInputStream(log)))) {
            assertThat(b.lines().noneMatch(l -> l.contains("Exception"))).as(out).isTrue();
        }
    }
}
