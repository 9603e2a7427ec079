package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.collector.console.Browser;
import io.vecflow.collector.console.ConsoleSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;

/**
 * After a real demo run (the bundled capture through dataplane, PSAMPLE, agent and collector into the embedded store,
 * as {@code ./vecflow demo --serve} does), the console the demo serves is opened in Debian's headless Chromium: every
 * page loads without a browser error; Visualize draws the demo's flows (and switches to lines and a sankey);
 * Pipeline lists the demo's agent with every sample received; Drops and Load balancer answer "no data" (the demo's
 * dataplane drops nothing and balances nothing: those pages are tested with data by the collector's
 * ConsoleBrowserTest). With {@code -Dvecflow.screenshots=DIR} the Visualize screenshot the README shows is written
 * there. Then the store the demo left is served read-only as {@code vecflow console --store FILE} does. Fails
 * (never skips) without chromium and chromedriver.
 */
class DemoConsoleBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @TempDir
    Path out;

    @Test
    void everyPageOfTheDemosConsoleLoadsAndShowsTheDemosData() throws Exception {
        Demo.Options o = new Demo.Options();
        o.loops = 20; // as ./vecflow demo --serve --loops 20 --pps 300: 12 s of flows to draw
        o.packetsPerSecond = 300;
        o.out = out;
        o.collectorPort = 0;
        ConsoleSettings settings = new ConsoleSettings("127.0.0.1", 0, ConsoleSettings.Auth.NONE, Map.of(),
                ConsoleSettings.DEFAULT_HEADER);
        long[] agentSamples = new long[1];
        o.hold = (collector, result) -> {
            agentSamples[0] = result.agentSamplesIn();
            try (Consoles.Running console = Consoles.over(collector, settings, collector.settings());
                    Browser b = new Browser()) {
                browse(b, console.url());
            }
        };
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Demo.Result r = Demo.run(o, new PrintStream(log, true));
        assertThat(r.collectorFlowRows()).as(log.toString()).isPositive();
        assertThat(agentSamples[0]).isEqualTo(179L * 20);
        assertThat(Files.size(Demo.storeFile(out))).isPositive();
        // the store is checkpointed before the console serves it: no write-ahead log left to lose on Ctrl-C
        assertThat(out.resolve("store").resolve("vecflow.duckdb.wal")).satisfiesAnyOf(
                p -> assertThat(p).doesNotExist(), p -> assertThat(Files.size(p)).isZero());

        // A second demo into the same --out appends to the store (its AS names and exporters replace their rows)
        Demo.Options again = new Demo.Options();
        again.out = out;
        again.collectorPort = 0;
        Demo.Result r2 = Demo.run(again, new PrintStream(new ByteArrayOutputStream(), true));
        assertThat(r2.collectorFlowRows()).isEqualTo(179);

        // After the demo: `vecflow console --store FILE` serves the file it left, read-only.
        try (Consoles.Running console = Consoles.duckDbFile(Demo.storeFile(out), "vecflow", settings)) {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> cfg = http.send(HttpRequest.newBuilder(URI.create(console.url()
                    + "api/v0/configuration")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(cfg.statusCode()).isEqualTo(200);
            assertThat(cfg.body()).contains("\"store\":\"duckdb\"", "\"flows\"");
            HttpResponse<String> rows = http.send(HttpRequest.newBuilder(URI.create(console.url() + "api/v0/rows"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"source\":\"flows\",\"start\":\""
                            + java.time.Instant.now().minusSeconds(3600) + "\",\"end\":\""
                            + java.time.Instant.now().plusSeconds(60) + "\",\"limit\":5}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(rows.statusCode()).as(rows.body()).isEqualTo(200);
            assertThat(rows.body()).contains("TimeReceived");
        }
        assertThatThrownBy(() -> Consoles.duckDbFile(out.resolve("nothing.duckdb"), "vecflow", settings))
                .hasMessageContaining("--store").hasMessageContaining("no such file");
    }

    private static void open(Browser b, String url, String page) {
        b.open("about:blank");
        b.open(url + "#" + page);
    }

    private static String text(Browser b, String id) {
        return b.driver().findElement(By.id(id)).getText();
    }

    private static void browse(Browser b, String url) throws Exception {
        open(b, url, "visualize");
        b.awaitReady("viz-chart", WAIT);
        assertThat(b.points("viz-chart")).as("the demo's flows drawn").isPositive();
        assertThat(text(b, "store")).contains("duckdb");
        String screenshots = System.getProperty("vecflow.screenshots");
        if (screenshots != null && !screenshots.isBlank()) {
            b.screenshot(Path.of(screenshots).resolve("console-visualize.png"));
        }
        new Select(b.driver().findElement(By.id("viz-dimension"))).selectByVisibleText("DstAddr");
        new Select(b.driver().findElement(By.id("viz-graph"))).selectByValue("lines");
        b.js("document.getElementById('viz-chart').dataset.ready = 'false'");
        b.driver().findElement(By.id("viz-apply")).click();
        b.awaitReady("viz-chart", WAIT);
        assertThat(b.points("viz-chart")).as("lines by DstAddr").isPositive();
        assertThat(text(b, "viz-table")).contains("DstAddr", "172.16.11.12", "AS3561 CenturyLink");
        new Select(b.driver().findElement(By.id("viz-graph"))).selectByValue("sankey");
        b.js("document.getElementById('viz-chart').dataset.ready = 'false'");
        b.driver().findElement(By.id("viz-apply")).click();
        b.awaitReady("viz-chart", WAIT);
        assertThat(b.points("viz-chart")).as("sankey links").isPositive();
        noError(b, "visualize");

        open(b, url, "pipeline");
        b.awaitReady("pipe-table", WAIT);
        assertThat(b.points("pipe-table")).as("agents").isEqualTo(1);
        assertThat(text(b, "pipe-table")).contains("127.0.0.1", "3.58 k", "100.00 %");
        noError(b, "pipeline");

        for (String[] page : List.of(new String[] {"drops", "drops-chart"}, new String[] {"lb", "lb-chart"})) {
            open(b, url, page[0]);
            b.awaitReady(page[1], WAIT);
            assertThat(b.points(page[1])).as(page[0]).isZero();
            // the chart says so (echarts draws its title on the canvas: read it from the chart's option)
            assertThat(b.js("const o = echarts.getInstanceByDom(document.getElementById(arguments[0])).getOption();"
                    + " return o.title && o.title.length ? o.title[0].text : '';", page[1])).as(page[0])
                    .isEqualTo("no data in this range");
            noError(b, page[0]);
        }
    }

    private static void noError(Browser b, String page) {
        assertThat(b.consoleEntries().stream().filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(e -> e.getMessage()).toList()).as("browser console errors on " + page).isEmpty();
    }
}
