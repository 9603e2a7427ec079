package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tiny sample FIFO overflows; every drop is counted and reaches the summary and the agent's drops field. */
class DemoFifoDropsTest {
    @TempDir
    Path out;

    @Test
    void fifoDropsReachTheSummaryAndTheDropsField() throws Exception {
        Demo.Options o = new Demo.Options();
        o.loops = 400;
        o.samplingRate = 1;
        o.workers = 2;
        o.fifoSize = 2;
        o.out = out;
        o.collectorPort = 0;
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(text, true, StandardCharsets.UTF_8);
        Demo.Result r = Demo.run(o, ps);
        Demo.printSummary(r, ps);
        String summary = text.toString(StandardCharsets.UTF_8);
        System.out.println(summary);

        long drops = r.dataplane().fifoDrops();
        assertThat(drops).as("a 2-slot FIFO against 143,200 samples overflows").isPositive();
        assertThat(r.dataplane().samplesTaken()).isEqualTo(400L * 179);
        assertThat(r.dataplane().psampleSent() + r.dataplane().psampleFailed() + drops)
                .isEqualTo(r.dataplane().samplesTaken());
        assertThat(r.dataplane().fifoDropsCarried()).isEqualTo(drops);
        // The agent turns sequence gaps into drops: FIFO drops plus any failed netlink send.
        long lost = drops + r.dataplane().psampleFailed();
        assertThat(r.agentSequenceGapDrops()).isEqualTo(lost);
        assertThat(r.agentLastDrops()).isEqualTo(lost);
        assertThat(summary).contains(String.format("samples dropped in FIFOs %,d", drops))
                .contains(String.format("last drops field %,d", lost));
        // ...and the collector stored it: the largest drops value in the rows.
        ObjectMapper json = new ObjectMapper();
        long maxDrops = 0;
        for (String line : Files.readAllLines(out.resolve("flows.jsonl"))) {
            maxDrops = Math.max(maxDrops, json.readTree(line).get("drops").asLong());
        }
        assertThat(maxDrops).isEqualTo(lost);
        assertThat(r.collectorFlowRows()).isEqualTo(r.dataplane().psampleSent());
    }
}
