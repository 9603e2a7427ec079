package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The Prometheus endpoint of the dataplane: what it serves, and what an operator reads when it cannot start. */
class DataplaneMetricsTest {

    private static DataplaneSpec topology() {
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(2);
        t.interfaces.add(new SinkPort("eth9", 1, 1), 0x020000000001L, 1500, false);
        t.forwarding = new Forwarding.Builder().build();
        return t;
    }

    @Test
    void aPortInUseIsNamedWithItsAddressAndConfigKey() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (ServerSocket taken = new ServerSocket(0, 1, lo);
                PsampleEmitter em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
                Dataplane dp = new Dataplane(topology(), em, null, null)) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> new DataplaneMetrics(dp, lo, port)).isInstanceOf(IOException.class)
                    .hasMessageContaining("metrics endpoint")
                    .hasMessageContaining("127.0.0.1:" + port)
                    .hasMessageContaining("metrics.port")
                    .hasMessageContaining("in use");
        }
    }

    @Test
    void servesTheInterfaceCountersOfItsPorts() throws Exception {
        try (PsampleEmitter em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
                Dataplane dp = new Dataplane(topology(), em, null, null);
                DataplaneMetrics m = new DataplaneMetrics(dp, InetAddress.getLoopbackAddress(), 0);
                HttpClient c = HttpClient.newHttpClient()) {
            String body = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port() + "/metrics"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(body)
                    .contains("vecflow_dataplane_interface_packets_total{direction=\"rx\",interface=\"eth9\"} 0.0");
            assertThat(c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port() + "/-/healthy"))
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            for (String path : new String[] {"/", "/x", "/../etc/passwd"}) {
                HttpResponse<String> other = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port()
                        + path)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(other.statusCode()).as(path).isEqualTo(404);
                assertThat(other.body()).as(path).doesNotContain("vecflow_");
            }
        }
    }

    @Test
    void usersTurnOnBasicAuthenticationOnEveryPath() throws Exception {
        String hash = io.vecflow.common.BasicCredentials.hashPassword("scrape-pw".toCharArray());
        try (PsampleEmitter em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
                Dataplane dp = new Dataplane(topology(), em, null, null);
                DataplaneMetrics m = new DataplaneMetrics(dp, InetAddress.getLoopbackAddress(), 0,
                        java.util.Map.of("prometheus", hash));
                HttpClient c = HttpClient.newHttpClient()) {
            URI metrics = URI.create("http://127.0.0.1:" + m.port() + "/metrics");
            HttpResponse<String> none = c.send(HttpRequest.newBuilder(metrics).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
                    .startsWith("Basic realm=\"vecflow-metrics\""));
            assertThat(none.body()).doesNotContain("vecflow_dataplane");
            for (String[] cred : new String[][] {{"prometheus", "wrong"}, {"nobody", "scrape-pw"}}) {
                HttpResponse<String> bad = c.send(HttpRequest.newBuilder(metrics).header("Authorization", basic(
                        cred[0], cred[1])).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(bad.statusCode()).as(cred[0] + ":" + cred[1]).isEqualTo(401);
            }
            HttpResponse<String> ok = c.send(HttpRequest.newBuilder(metrics).header("Authorization", basic(
                    "prometheus", "scrape-pw")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).contains("vecflow_dataplane_interface_packets_total");
            assertThat(c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port() + "/-/healthy"))
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        }
    }

    private static String basic(String user, String password) {
        return "Basic " + java.util.Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
