package io.vecflow.collector.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.Captures;
import io.vecflow.collector.Collector;
import io.vecflow.collector.TestSupport;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus endpoint: process counters, decode errors by kind, and per-agent loss accounting; only /metrics
 * and /-/healthy answer; optional basic authentication.
 */
class CollectorMetricsTest {
    @Test
    void scrapeShowsCountersErrorsAndAgents() throws Exception {
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.threads = 1;
        TestSupport.CopyingSink sink = new TestSupport.CopyingSink();
        s.extraFlowSinks.add(sink);
        try (Collector c = new Collector(s);
                CollectorMetrics m = new CollectorMetrics(c, InetAddress.getLoopbackAddress(), 0);
                TestSupport.Sender tx = new TestSupport.Sender(c.localAddress())) {
            List<byte[]> payloads = Captures.udpPayloads("tcpdump-sflow_multiple_counter_30_pdus.pcap");
            tx.sendPaced(payloads, 8, () -> c.stats().datagramsReceived.sum());
            TestSupport.await("30 datagrams", Duration.ofSeconds(10),
                    () -> c.stats().datagramsReceived.sum() == payloads.size());
            String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + m.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(text).contains("vecflow_collector_datagrams_total 30.0")
                    .contains("vecflow_collector_datagrams_truncated_total 0.0")
                    .contains("vecflow_collector_decode_errors_total{kind=\"NOT_SFLOW_V5\",level=\"datagram\"} 5.0")
                    .contains("vecflow_collector_decode_errors_total{kind=\"LENGTH_OUT_OF_BOUNDS\",level=\"sample\"} "
                            + "0.0")
                    .contains("vecflow_collector_counter_samples_total 144.0") // 142 expanded + 2 compact
                    .contains("vecflow_agent_datagrams_total{agent=")
                    .contains("vecflow_agent_samples_total{agent=")
                    .contains("family=\"counters\"")
                    .contains("vecflow_collector_sink_rows_total{result=\"written\",sink=\"copy\"}")
                    .doesNotContain("NaN");
            long agentDatagrams = text.lines().filter(l -> l.startsWith("vecflow_agent_datagrams_total{"))
                    .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
            assertThat(agentDatagrams).as("sFlow datagrams attributed to agents").isEqualTo(25);
        }
    }

    private static HttpResponse<String> get(int port, String path, String auth) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (auth != null) {
            b.header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(auth.getBytes(
                    java.nio.charset.StandardCharsets.UTF_8)));
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void onlyMetricsAndHealthAnswerAndBasicAuthGuardsThemWhenUsersAreSet() throws Exception {
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 0;
        s.threads = 1;
        try (Collector c = new Collector(s);
                CollectorMetrics open = new CollectorMetrics(c, InetAddress.getLoopbackAddress(), 0);
                CollectorMetrics guarded = new CollectorMetrics(c, InetAddress.getLoopbackAddress(), 0,
                        java.util.Map.of("prometheus", io.vecflow.common.BasicCredentials.hashPassword(
                                "s3cret".toCharArray())))) {
            assertThat(get(open.port(), "/metrics", null).body()).contains("vecflow_collector_datagrams_total");
            assertThat(get(open.port(), "/-/healthy", null).statusCode()).isEqualTo(200);
            for (String path : new String[] {"/", "/index.html", "/debug", "/../../etc/passwd"}) {
                HttpResponse<String> r = get(open.port(), path, null);
                assertThat(r.statusCode()).as(path).isEqualTo(404);
                assertThat(r.body()).as(path).doesNotContain("vecflow_");
            }
            HttpResponse<String> none = get(guarded.port(), "/metrics", null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
                    .startsWith("Basic realm="));
            assertThat(get(guarded.port(), "/metrics", "prometheus:wrong").statusCode()).isEqualTo(401);
            assertThat(get(guarded.port(), "/metrics", "nobody:s3cret").statusCode()).isEqualTo(401);
            HttpResponse<String> ok = get(guarded.port(), "/metrics", "prometheus:s3cret");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).contains("vecflow_collector_datagrams_total");
            assertThat(get(guarded.port(), "/-/healthy", null).statusCode()).isEqualTo(401);
        }
    }
}
