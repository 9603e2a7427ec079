package io.vecflow.collector.enrich.geoip;

import static io.vecflow.collector.TestSupport.addr16;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The watcher: a changed file is loaded within the poll period, a broken one keeps the table and is counted once. */
class GeoIpDatabasesTest {
    private static final Duration POLL = Duration.ofMillis(200);

    @TempDir
    Path dir;

    private static void writeAsn(Path f, long asn, String org) throws IOException {
        new MmdbWriter("GeoLite2-ASN", 6).insert("192.0.2.0/24", Map.of("autonomous_system_number", asn,
                "autonomous_system_organization", org)).write(f);
    }

    /** Replaces a file the way updaters do (write beside, rename over). */
    private static void replace(Path f, byte[] content) throws IOException {
        Path tmp = f.resolveSibling(f.getFileName() + ".new");
        Files.write(tmp, content);
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** @return milliseconds until the condition held; fails after the limit */
    private static long waitFor(BooleanSupplier cond, Duration limit, String what) throws InterruptedException {
        long t0 = System.nanoTime();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() - t0 > limit.toNanos()) {
                throw new AssertionError("not within " + limit + ": " + what);
            }
            Thread.sleep(10);
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void reloadsOnChangeKeepsTheTableOnACorruptFileAndCountsTheFailureOnce() throws Exception {
        Path asn = dir.resolve("asn.mmdb");
        Path country = dir.resolve("country.mmdb");
        writeAsn(asn, 64500, "First");
        new MmdbWriter("country", 4).insert("192.0.2.0/24", Map.of("country_code", "FR")).write(country);
        List<NetworkTable> seen = new CopyOnWriteArrayList<>();
        try (GeoIpDatabases g = new GeoIpDatabases(List.of(asn), List.of(country),
                List.of(StaticNetwork.named("192.0.2.0/25", "lab")), POLL, seen::add)) {
            NetworkTable first = g.table();
            assertThat(seen).containsExactly(first);
            assertThat(first.lookup(addr16("192.0.2.1"), 0).asName().text).isEqualTo("First");
            assertThat(first.lookup(addr16("192.0.2.1"), 0).name().text).isEqualTo("lab");
            assertThat(g.reloads()).isZero();

            // a new file: in force within the poll period (plus the build)
            writeAsn(asn, 64501, "Second");
            long ms = waitFor(() -> g.table().lookup(addr16("192.0.2.1"), 0).asn() == 64501, Duration.ofSeconds(5),
                    "the rewritten ASN database in force");
            assertThat(ms).as("ms until reloaded").isLessThan(POLL.toMillis() + 1500);
            NetworkTable second = g.table();
            assertThat(second.lookup(addr16("192.0.2.200"), 0).asName().text).isEqualTo("Second");
            assertThat(second.lookup(addr16("192.0.2.200"), 0).country().text).isEqualTo("FR");
            assertThat(second.lookup(addr16("192.0.2.1"), 0).name().text).isEqualTo("lab");
            assertThat(g.reloads()).isEqualTo(1);
            waitFor(() -> seen.size() == 2, Duration.ofSeconds(2), "the listener called");
            assertThat(seen.get(1)).isSameAs(second);

            // a corrupt file: the table stays, one failure counted (not one per poll), named in lastError
            replace(country, "garbage, not a database".getBytes());
            waitFor(() -> g.reloadFailures() == 1, Duration.ofSeconds(5), "the failure counted");
            Thread.sleep(POLL.toMillis() * 4);
            assertThat(g.reloadFailures()).isEqualTo(1);
            assertThat(g.table()).isSameAs(second);
            assertThat(g.lastError()).contains(country.toString()).contains("not a readable MaxMind DB file");
            assertThat(seen).hasSize(2);

            // a missing file: another failure, once
            Files.delete(country);
            waitFor(() -> g.reloadFailures() == 2, Duration.ofSeconds(5), "the missing file counted");
            Thread.sleep(POLL.toMillis() * 3);
            assertThat(g.reloadFailures()).isEqualTo(2);
            assertThat(g.lastError()).isEqualTo("GeoIP country database " + country + ": no such file");
            assertThat(g.table()).isSameAs(second);

            // repaired: loaded again
            new MmdbWriter("country", 4).insert("192.0.2.0/24", Map.of("country_code", "DE")).write(country);
            waitFor(() -> g.table().lookup(addr16("192.0.2.9"), 0).country().text.equals("DE"),
                    Duration.ofSeconds(5), "the repaired database in force");
            assertThat(g.reloads()).isEqualTo(2);
            assertThat(g.reloadFailures()).isEqualTo(2);
            waitFor(() -> seen.size() == 3, Duration.ofSeconds(2), "the listener called again");
        }
    }

    @Test
    void aMissingFileAtStartIsAClearError() throws IOException {
        Path asn = dir.resolve("asn.mmdb");
        writeAsn(asn, 64500, "x");
        Path missing = dir.resolve("GeoLite2-Country.mmdb");
        assertThatThrownBy(() -> new GeoIpDatabases(List.of(asn), List.of(missing), List.of()))
                .isInstanceOf(IOException.class).hasMessage("GeoIP country database " + missing + ": no such file");
        Path bad = dir.resolve("bad.mmdb");
        Files.writeString(bad, "nope");
        assertThatThrownBy(() -> new GeoIpDatabases(List.of(bad), List.of(), List.of()))
                .isInstanceOf(IOException.class).hasMessageStartingWith("ASN database " + bad + ": not a readable");
    }

    @Test
    void withoutFilesOrPollingNothingWatches() throws IOException {
        try (GeoIpDatabases g = new GeoIpDatabases(List.of(), List.of(), List.of(StaticNetwork.named("10.0.0.0/8",
                "corp")))) {
            assertThat(g.table().lookup(addr16("10.9.9.9"), 0).name().text).isEqualTo("corp");
            assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("vecflow-geoip-watch"));
        }
        Path asn = dir.resolve("asn.mmdb");
        writeAsn(asn, 64500, "x");
        try (GeoIpDatabases g = new GeoIpDatabases(List.of(asn), List.of(), List.of(), Duration.ZERO, null)) {
            assertThat(g.table().asName(64500).text).isEqualTo("x");
        }
    }

    @Test
    void closeStopsTheWatcher() throws Exception {
        Path asn = dir.resolve("asn.mmdb");
        writeAsn(asn, 64500, "x");
        GeoIpDatabases g = new GeoIpDatabases(List.of(asn), List.of(), List.of(), POLL, null);
        assertThat(Thread.getAllStackTraces().keySet()).anyMatch(t -> t.getName().equals("vecflow-geoip-watch"));
        g.close();
        waitFor(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("vecflow-geoip-watch")), Duration.ofSeconds(2), "watcher gone");
        writeAsn(asn, 64501, "y");
        Thread.sleep(POLL.toMillis() * 2);
        assertThat(g.table().asName(64500).text).isEqualTo("x"); // the last table stays usable, unchanged
        assertThat(g.reloads()).isZero();
    }
}
