package io.vecflow.lab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vecflow.collector.Collector;
import io.vecflow.hsflowd.HsflowdDaemon;
import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.dropmon.DropmonDaemon;
import io.vecflow.hsflowd.dropmon.DropmonSettings;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecodeException;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * vecflow's agent and collector as the guest checks run them, in this JVM: a {@link Collector} on 127.0.0.1 (an
 * ephemeral UDP port) writing its JSON-lines sink, and the hsflowd-compatible agent ({@link SflowAgent} +
 * {@link HsflowdDaemon}, optionally {@link DropmonDaemon}) configured from hsflowd.conf text whose collector line
 * points at it. Every datagram the agent sends is also decoded here (sflow-v5 {@link SflowDecoder}) into
 * {@link SeenSample}s, which keeps the exact header bytes the JSON rows do not carry.
 *
 * <p>Closing stops the agent (it sends its pending datagram), waits until the collector has written a row for every
 * sample sent (or 30 s), then closes the collector.
 */
public final class AgentUnderTest implements AutoCloseable {
    /** Longest wait for samples or rows, ms (the guest is emulated; the agent flushes every second). */
    public static final long WAIT_MS = 60_000;

    private final Collector collector;
    private final Path jsonLines;
    private final SflowAgent agent;
    private final HsflowdDaemon daemon;
    private final DropmonDaemon dropmon;
    private final List<SeenSample> seen = new ArrayList<>();
    private final SflowDecoder decoder = new SflowDecoder(new DecodeStats());
    private long datagramsDecodeFailed;
    private boolean closed;

    /**
     * Starts collector, agent and modules.
     *
     * @param name        names the JSON-lines file ({@code /tmp/vflab-NAME.jsonl})
     * @param confBody    hsflowd.conf lines inside {@code sflow { }} except the collector line, e.g.
     *                    {@code "sampling = 1\n psample { group = 5 }"}
     * @throws Exception the config is invalid or a channel cannot be opened (the message names it)
     */
    public AgentUnderTest(String name, String confBody) throws Exception {
        jsonLines = Path.of("/tmp", "vflab-" + name + ".jsonl");
        Collector.Settings cs = new Collector.Settings();
        cs.bindAddress = "127.0.0.1";
        cs.port = 0;
        cs.threads = 1;
        cs.jsonLines = jsonLines;
        collector = new Collector(cs);
        try {
            int port = collector.localAddress().getPort();
            String conf = "sflow {\n  agentIP = 127.0.0.1\n  polling = 0\n  collector { ip = 127.0.0.1 udpport = "
                    + port + " }\n  " + confBody + "\n}\n";
            Path file = Path.of("/tmp", "vflab-" + name + ".conf");
            Files.writeString(file, conf);
            System.out.println("hsflowd.conf:\n" + conf.strip());
            HsflowdConfig c = HsflowdConfig.load(file);
            agent = new SflowAgent(c, InetAddress.getByName("127.0.0.1"));
            agent.addListener((datagram, length, to, sent) -> decode(datagram, length));
            daemon = new HsflowdDaemon(agent, HsflowdDaemon.openSubscriber(c));
            DropmonDaemon d = null;
            if (c.dropmon != null) {
                DropmonSettings ds = DropmonSettings.from(c.dropmon);
                try {
                    d = new DropmonDaemon(agent, ds, c.headerBytes, DropmonDaemon.openSubscriber(ds));
                } catch (Exception e) {
                    daemon.close();
                    throw e;
                }
            }
            dropmon = d;
        } catch (Exception e) {
            collector.close();
            throw e;
        }
    }

    private void decode(byte[] datagram, int length) {
        SflowDecodeException e = decoder.decode(datagram, 0, length, new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader header) {
            }

            @Override
            public void onFlowSample(DatagramHeader header, FlowSample sample) {
                add(SeenSample.of(sample));
            }

            @Override
            public void onDiscardSample(DatagramHeader header, FlowSample sample) {
                add(SeenSample.of(sample));
            }
        });
        if (e != null) {
            synchronized (seen) {
                datagramsDecodeFailed++;
            }
            System.out.println("agent datagram does not decode: " + e.getMessage());
        }
    }

    private void add(SeenSample s) {
        synchronized (seen) {
            seen.add(s);
            seen.notifyAll();
        }
    }

    /** @return the agent. */
    public SflowAgent agent() {
        return agent;
    }

    /** @return the PSAMPLE module. */
    public HsflowdDaemon daemon() {
        return daemon;
    }

    /** @return the dropmon module, or null without a {@code dropmon {}} block. */
    public DropmonDaemon dropmon() {
        return dropmon;
    }

    /**
     * Waits until {@code count} decoded samples match {@code filter} (at most {@link #WAIT_MS}).
     *
     * @return a copy of all samples decoded so far, in send order
     */
    public List<SeenSample> awaitSamples(Predicate<SeenSample> filter, int count) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_MS * 1_000_000L;
        synchronized (seen) {
            while (seen.stream().filter(filter).count() < count) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    break;
                }
                seen.wait(Math.min(left, 200));
            }
            return List.copyOf(seen);
        }
    }

    /** @return a copy of the samples decoded so far. */
    public List<SeenSample> samples() {
        synchronized (seen) {
            return List.copyOf(seen);
        }
    }

    /** @return agent datagrams that did not decode. */
    public long datagramsDecodeFailed() {
        synchronized (seen) {
            return datagramsDecodeFailed;
        }
    }

    /**
     * Stops the agent (idempotent), then reads the collector's rows: waits until there are as many as the agent sent
     * flow and discard samples (at most {@link #WAIT_MS}).
     *
     * @return one JSON object per row, in file order
     */
    public List<JsonNode> stopAndReadRows() throws Exception {
        stopAgent();
        long want = agent.samplesSent() + agent.discardsSent();
        long deadline = System.nanoTime() + WAIT_MS * 1_000_000L;
        List<JsonNode> rows = List.of();
        while (System.nanoTime() < deadline) {
            collector.flush();
            rows = readRows();
            if (rows.size() >= want) {
                break;
            }
            Thread.sleep(200);
        }
        return rows;
    }

    private List<JsonNode> readRows() throws IOException {
        ObjectMapper m = new ObjectMapper();
        List<JsonNode> rows = new ArrayList<>();
        if (!Files.exists(jsonLines)) {
            return rows;
        }
        for (String line : Files.readAllLines(jsonLines)) {
            if (!line.isBlank()) {
                rows.add(m.readTree(line));
            }
        }
        return rows;
    }

    private void stopAgent() throws Exception {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (dropmon != null) {
                dropmon.close();
            }
        } finally {
            daemon.close(); // sends the pending datagram
        }
    }

    @Override
    public void close() throws Exception {
        try {
            stopAgent();
        } finally {
            collector.close();
        }
    }
}
