package io.vecflow.dataplane.plugins.srlb.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Load-source parsing on real-format pages and files, and polling through real HTTP and file reads. */
class LoadSourceTest {
    /** mod_status ?auto of Apache 2.4 with the event MPM (which prints BusyWorkers/IdleWorkers twice). */
    static final String APACHE_AUTO = """
            lb-server-3
            ServerVersion: Apache/2.4.58 (Ubuntu)
            ServerMPM: event
            Server Built: 2024-07-17T18:57:26
            CurrentTime: Tuesday, 13-May-2025 10:21:07 UTC
            RestartTime: Tuesday, 13-May-2025 09:02:51 UTC
            ParentServerConfigGeneration: 1
            ParentServerMPMGeneration: 0
            ServerUptimeSeconds: 4696
            ServerUptime: 1 hour 18 minutes 16 seconds
            Load1: 0.41
            Load5: 0.32
            Load15: 0.30
            Total Accesses: 5120
            Total kBytes: 20480
            Total Duration: 3310
            CPUUser: 3.12
            CPUSystem: 1.9
            CPUChildrenUser: 0
            CPUChildrenSystem: 0
            CPULoad: .106899
            Uptime: 4696
            ReqPerSec: 1.09029
            BytesPerSec: 4465.83
            BytesPerReq: 4096
            DurationPerReq: .646484
            BusyWorkers: 5
            GracefulWorkers: 0
            IdleWorkers: 45
            Processes: 2
            Stopping: 0
            BusyWorkers: 5
            IdleWorkers: 45
            ConnsTotal: 9
            ConnsAsyncWriting: 0
            ConnsAsyncKeepAlive: 4
            ConnsAsyncClosing: 0
            Scoreboard: __W__R___K____W_______W___________________C____....................................
            """;

    static final String NGINX_STUB = """
            Active connections: 291 \r
            server accepts handled requests\r
             16630948 16630948 31070465 \r
            Reading: 6 Writing: 179 Waiting: 106 \r
            """;

    static final String CPU_STAT = """
            usage_usec 26435364554
            user_usec 22583899060
            system_usec 3851465493
            nr_periods 0
            nr_throttled 0
            throttled_usec 0
            nr_bursts 0
            burst_usec 0
            """;

    @Test
    void apacheAutoPage() throws Exception {
        ApacheStatusSource.Status s = ApacheStatusSource.parse(APACHE_AUTO);
        assertThat(s.busyWorkers()).isEqualTo(5);
        assertThat(s.idleWorkers()).isEqualTo(45);
        assertThat(s.count('W')).isEqualTo(3);
        assertThat(s.count('R')).isEqualTo(1);
        assertThat(s.count('.')).isEqualTo(36);
        assertThat(ApacheStatusSource.value(s, ApacheStatusSource.Metric.BUSY_WORKERS)).isEqualTo(5.0);
        assertThat(ApacheStatusSource.value(s, ApacheStatusSource.Metric.SENDING)).isEqualTo(3.0);
    }

    @Test
    void apacheErrorsNameTheLine() {
        assertThatThrownBy(() -> ApacheStatusSource.parse(APACHE_AUTO.replace("BusyWorkers: 5\nGraceful",
                "BusyWorkers: five\nGraceful"))).isInstanceOf(LoadSource.FormatException.class)
                .hasMessage("line 27: BusyWorkers must be a non-negative integer, got 'five'");
        assertThatThrownBy(() -> ApacheStatusSource.parse(APACHE_AUTO.replace("BusyWorkers: 5\nIdleWorkers: 45\nConns",
                "BusyWorkers: 6\nIdleWorkers: 45\nConns")))
                        .hasMessageStartingWith("line 32: BusyWorkers 6 differs from 5");
        assertThatThrownBy(() -> ApacheStatusSource.parse("<html><body>It works!</body></html>"))
                .hasMessageContaining("no BusyWorkers line").hasMessageContaining("?auto");
    }

    @Test
    void nginxStubStatus() throws Exception {
        NginxStatusSource.Status s = NginxStatusSource.parse(NGINX_STUB);
        assertThat(s).isEqualTo(new NginxStatusSource.Status(291, 16630948, 16630948, 31070465, 6, 179, 106));
        assertThatThrownBy(() -> NginxStatusSource.parse(NGINX_STUB.replace("Writing: 179", "Writing: x")))
                .hasMessage("line 4: Writing must be a non-negative integer, got 'x'");
        assertThatThrownBy(() -> NginxStatusSource.parse("Active connections: 1\n"))
                .hasMessageContaining("expected 4");
    }

    @Test
    void cgroupCpuFraction() throws Exception {
        assertThat(CgroupCpuSource.parseUsageUsec(CPU_STAT)).isEqualTo(26_435_364_554L);
        assertThatThrownBy(() -> CgroupCpuSource.parseUsageUsec("user_usec 1\nsystem_usec 2\n"))
                .hasMessageContaining("no usage_usec");
        assertThatThrownBy(() -> CgroupCpuSource.parseUsageUsec("usage_usec -4\n")).hasMessageStartingWith("line 1");
        CgroupCpuSource src = new CgroupCpuSource(Path.of("unused"), 2.0);
        assertThat(src.sample(1_000_000, 0)).as("first sample").isNaN();
        // 0.5 CPU-seconds over 1 s on 2 CPUs = 0.25
        assertThat(src.sample(1_500_000, 1_000_000_000L)).isEqualTo(0.25);
        assertThat(src.sample(1_400_000, 2_000_000_000L)).as("counter went back: restart").isNaN();
        assertThat(src.sample(3_400_000, 3_000_000_000L)).as("2 CPU-s over 1 s on 2 CPUs").isEqualTo(1.0);
    }

    @Test
    void cgroupSourceReadsTheFileOnRefresh(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("cpu.stat");
        Files.writeString(f, CPU_STAT);
        CgroupCpuSource src = new CgroupCpuSource(f, 1.0);
        assertThat(src.refresh(0)).isFalse();
        assertThat(src.load()).isNaN();
        Files.writeString(f, CPU_STAT.replace("26435364554", "26435464554")); // +100 ms of CPU
        assertThat(src.refresh(400_000_000L)).isTrue(); // over 400 ms
        assertThat(src.load()).isEqualTo(0.25);
        Files.writeString(f, "garbage\n");
        assertThat(src.refresh(800_000_000L)).isFalse();
        assertThat(src.load()).as("previous value kept").isEqualTo(0.25);
        assertThat(src.errors()).isEqualTo(1);
        assertThat(src.lastError()).contains("no usage_usec");
        assertThat(src.refreshes()).isEqualTo(3);
    }

    @Test
    void httpSourcesPollARealServer() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String[] apacheBody = {APACHE_AUTO};
        server.createContext("/server-status", ex -> {
            byte[] b = apacheBody[0].getBytes(StandardCharsets.US_ASCII);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.createContext("/nginx_status", ex -> {
            byte[] b = NGINX_STUB.getBytes(StandardCharsets.US_ASCII);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.createContext("/missing", ex -> {
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        server.start();
        try (HttpClient client = HttpClient.newHttpClient()) {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            Duration timeout = Duration.ofSeconds(5);
            ApacheStatusSource apache = new ApacheStatusSource(client, URI.create(base + "/server-status?auto"),
                    ApacheStatusSource.Metric.BUSY_WORKERS, timeout);
            assertThat(apache.load()).isNaN();
            assertThat(apache.refresh(1)).isTrue();
            assertThat(apache.load()).isEqualTo(5.0);
            apacheBody[0] = APACHE_AUTO.replace("BusyWorkers: 5", "BusyWorkers: 12");
            assertThat(apache.refresh(2)).isTrue();
            assertThat(apache.load()).isEqualTo(12.0);
            assertThat(apache.name()).startsWith("apache BusyWorkers http://127.0.0.1:");

            NginxStatusSource nginx = new NginxStatusSource(client, URI.create(base + "/nginx_status"), timeout);
            assertThat(nginx.refresh(1)).isTrue();
            assertThat(nginx.load()).isEqualTo(291.0);

            NginxStatusSource missing = new NginxStatusSource(client, URI.create(base + "/missing"), timeout);
            assertThat(missing.refresh(1)).isFalse();
            assertThat(missing.lastError()).contains("HTTP status 404");

            // the poller refreshes on its own thread; the value appears within a bounded wait
            apacheBody[0] = APACHE_AUTO.replace("BusyWorkers: 5", "BusyWorkers: 21");
            ApacheStatusSource polled = new ApacheStatusSource(client, URI.create(base + "/server-status?auto"),
                    ApacheStatusSource.Metric.SENDING, timeout);
            try (LoadSourcePoller poller = new LoadSourcePoller()) {
                poller.add(polled, Duration.ofMillis(20));
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (polled.refreshes() < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
            }
            assertThat(polled.refreshes()).isGreaterThanOrEqualTo(2);
            assertThat(polled.load()).isEqualTo(3.0);
        } finally {
            server.stop(0);
        }
    }

    @Test
    void settableSource() {
        SettableLoadSource s = new SettableLoadSource("test busy-workers", 0);
        assertThat(s.load()).isZero();
        s.set(7);
        assertThat(s.load()).isEqualTo(7.0);
        assertThat(s.name()).isEqualTo("test busy-workers");
    }
}
