package io.vecflow.collector.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.ConsoleFixture;
import io.vecflow.collector.console.Browser;
import io.vecflow.collector.console.ConsoleServer;
import io.vecflow.collector.console.ConsoleSettings;
import io.vecflow.collector.sink.duckdb.DuckDbStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The console in Debian's headless Chromium (Selenium) over a real embedded store: {@link ConsoleFixture} (every
 * capture of testdata/sflow and a load balancer's decisions) through a real collector into DuckDB, the console's
 * server and API over it. Each page draws data: Visualize (a filter narrows it, the graph switches to a sankey, a bad
 * filter shows its position), Drops (by reason, the latest dropped packets), Load balancer (placements per VIP and
 * backend, first vs second choice, fairness per VIP), Pipeline (the agents and their coverage); after each the
 * browser console has logged no error. With {@code -Dvecflow.screenshots=DIR} the pages' screenshots are written
 * there (docs/images holds the committed ones). Fails (never skips) when chromium or chromedriver is missing.
 */
class ConsoleBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    @TempDir
    static Path dir;
    private static DuckDbStore store;
    private static JdbcQueryRunner runner;
    private static ConsoleServer server;
    private static Browser b;

    @BeforeAll
    static void start() throws Exception {
        ConsoleFixture.replay(ConsoleFixture.embedded(dir.resolve("vecflow.duckdb")), ConsoleFixture.datagrams());
        store = new DuckDbStore(dir.resolve("vecflow.duckdb"), "vecflow");
        runner = store.queryRunner();
        ConsoleSettings cs = new ConsoleSettings("127.0.0.1", 0, ConsoleSettings.Auth.NONE, Map.of(),
                ConsoleSettings.DEFAULT_HEADER);
        server = ConsoleServer.start(cs, new ConsoleApi(runner, SqlDialect.duckDb(), "vecflow test"));
        b = new Browser();
    }

    @AfterAll
    static void stop() {
        if (b != null) {
            b.close();
        }
        if (server != null) {
            server.close();
        }
        runner.close();
        store.close();
    }

    @AfterEach
    void noBrowserError() {
        assertThat(b.consoleEntries().stream().filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(e -> e.getMessage()).toList()).as("browser console errors").isEmpty();
    }

    private static void screenshot(String name) throws java.io.IOException {
        String to = System.getProperty("vecflow.screenshots");
        b.screenshot((to == null || to.isBlank() ? dir : Path.of(to)).resolve(name));
    }

    private static String text(String id) {
        return b.driver().findElement(By.id(id)).getText();
    }

    private static void open(String page) {
        b.open("about:blank");
        b.open(server.url() + "#" + page);
    }

    @Test
    void visualizeDrawsFiltersAndSwitchesToASankey() throws Exception {
        open("visualize");
        b.awaitReady("viz-chart", WAIT);
        int all = b.points("viz-chart");
        assertThat(all).as("points drawn").isPositive();
        assertThat(b.driver().findElement(By.id("viz-table")).getText()).contains("AS0");

        WebElement filter = b.driver().findElement(By.id("viz-filter"));
        filter.sendKeys("Proto = udp");
        b.js("document.getElementById('viz-chart').dataset.ready = 'false'");
        b.driver().findElement(By.id("viz-apply")).click();
        b.awaitReady("viz-chart", WAIT);
        assertThat(b.points("viz-chart")).as("points with the filter").isPositive();

        new Select(b.driver().findElement(By.id("viz-dimension"))).selectByVisibleText("Proto");
        new Select(b.driver().findElement(By.id("viz-graph"))).selectByValue("sankey");
        b.js("document.getElementById('viz-chart').dataset.ready = 'false'");
        b.driver().findElement(By.id("viz-apply")).click();
        b.awaitReady("viz-chart", WAIT);
        assertThat(b.points("viz-chart")).as("sankey links").isPositive();
        screenshot("console-sankey.png");

        filter.sendKeys(Keys.END, " AND");
        b.driver().findElement(By.id("viz-apply")).click();
        WebElement err = new org.openqa.selenium.support.ui.WebDriverWait(b.driver(), WAIT)
                .until(d -> {
                    WebElement e = d.findElement(By.id("viz-filter-error"));
                    return e.isDisplayed() ? e : null;
                });
        assertThat(err.getText()).contains("unexpected end of filter");
        assertThat(err.getDomAttribute("data-position")).isEqualTo("15");
    }

    @Test
    void dropsDrawsByReasonAndListsTheLatestDroppedPackets() throws Exception {
        open("drops");
        b.awaitReady("drops-chart", WAIT);
        assertThat(b.points("drops-chart")).as("drop points").isPositive();
        b.awaitReady("drops-rows", WAIT);
        assertThat(b.points("drops-rows")).as("dropped packets listed").isEqualTo(2);
        // goflow2's two discard samples: reason 1 and the egress-queue / ACL records
        assertThat(text("drops-chart") + text("drops-rows")).contains("192.168.119.184");
        screenshot("console-drops.png");
        new Select(b.driver().findElement(By.id("drops-dimension"))).selectByVisibleText("AgentAddress");
        b.awaitReady("drops-chart", WAIT);
        assertThat(b.points("drops-chart")).isPositive();
    }

    @Test
    void loadBalancerShowsPlacementsPerVipAndBackendAndTheChoice() throws Exception {
        open("lb");
        b.awaitReady("lb-chart", WAIT);
        assertThat(b.points("lb-chart")).as("placements drawn").isPositive();
        b.awaitReady("lb-sankey", WAIT);
        assertThat(b.points("lb-sankey")).as("VIP → backend links").isEqualTo(6);
        String table = text("lb-table");
        assertThat(table).contains("192.0.2.10", "10.0.0.1", "10.0.0.4", "2001:db8:100::1", "2001:db8:200::2");
        // 10.0.0.1 took 4 of the VIP's 10 new flows: 4 of the 15 decisions in all
        assertThat(table).contains("26.7 %");
        // fairness per VIP, Jain's index: Maglev's 4, 3, 2, 1 → 100 / (4 × 30); SRLB's 3, 2 → 25 / (2 × 13)
        b.awaitReady("lb-fairness", WAIT);
        assertThat(b.points("lb-fairness")).isEqualTo(2);
        assertThat(text("lb-fairness")).contains("192.0.2.10 4 0.833 40.0 % (even 25.0 %)",
                "2001:db8:100::1 2 0.962 60.0 % (even 50.0 %)");
        b.awaitReady("lb-choice", WAIT);
        assertThat(b.points("lb-choice")).as("first vs second choice").isPositive();
        screenshot("console-lb.png");
    }

    @Test
    void pipelineListsEveryAgentWithItsCoverage() throws Exception {
        open("pipeline");
        b.awaitReady("pipe-table", WAIT);
        assertThat(b.points("pipe-table")).as("agents listed").isGreaterThanOrEqualTo(10);
        assertThat(text("pipe-table")).contains(ConsoleFixture.LB_AGENT, "49.49.49.49", "%");
        b.awaitReady("pipe-chart", WAIT);
        assertThat(b.points("pipe-chart")).isPositive();
        screenshot("console-pipeline.png");
    }
}
