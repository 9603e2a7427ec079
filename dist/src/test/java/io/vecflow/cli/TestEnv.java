package io.vecflow.cli;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Access to the real services and third-party judges the end-to-end tests need. Every accessor fails the test
 * loudly, naming how to provide the missing part — nothing is skipped.
 */
final class TestEnv {
    private TestEnv() {}

    /** @return the ClickHouse HTTP URL from VECFLOW_TEST_CLICKHOUSE_URL. */
    static String clickhouseUrl() {
        return env("VECFLOW_TEST_CLICKHOUSE_URL", "ClickHouse");
    }

    /** @return the Kafka bootstrap from VECFLOW_TEST_KAFKA. */
    static String kafka() {
        return env("VECFLOW_TEST_KAFKA", "Kafka");
    }

    private static String env(String name, String what) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            fail(name + " is not set: this test needs a real " + what + ". Run scripts/test.sh, which installs and "
                    + "starts ClickHouse and Kafka and exports it.");
        }
        return v;
    }

    /** Runs a ClickHouse query over plain HTTP (an independent reader, not vecflow's client). */
    static String clickhouse(String sql) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(URI.create(clickhouseUrl() + "/"))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(sql)).build();
        HttpResponse<String> r = HttpClient.newHttpClient().send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            fail("ClickHouse answered " + r.statusCode() + " to " + sql + ": " + r.body());
        }
        return r.body();
    }

    /** Absolute path of a tool on PATH, or a loud failure naming the Debian package. */
    static String tool(String name, String debianPackage) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin")) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return fail(name + " is not installed: apt-get install " + debianPackage + " (scripts/test.sh does it)");
    }

    /** Runs a command to completion (bounded), returning stdout lines; fails on a non-zero exit. */
    static List<String> run(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
        Path out = Files.createTempFile("vecflow-judge", ".out");
        Path err = Files.createTempFile("vecflow-judge", ".err");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("timed out after " + timeoutSeconds + " s: " + cmd);
            }
            if (p.exitValue() != 0) {
                fail(cmd + " exited " + p.exitValue() + ": " + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new ArrayList<>(Files.readAllLines(out, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** The capture bundled with the demo, as a file in the repository. */
    static Path capture() {
        return Path.of("..", "testdata", "traffic", "tcpreplay-test.pcap");
    }
}
