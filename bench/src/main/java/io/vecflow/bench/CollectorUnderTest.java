package io.vecflow.bench;

import io.vecflow.collector.Collector;
import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.sink.FlowSink;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * vecflow's collector as the peer comparison (bench/peers) runs it: {@link Collector} on one UDP port with
 * {@code threads} inlet threads (1 in the comparison), no storage sink, only a {@link CountingFlowSink}. Its counters
 * go to a status file every {@code --interval-ms} (written atomically: temp file + rename) and once more on SIGTERM /
 * SIGINT, after the collector closed, so that a driver can read the processed-row count before and after a load step.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.vecflow.bench.CollectorUnderTest \
 *     [--bind 127.0.0.1] [--port 6343] [--threads 1] [--rcvbuf 8388608] [--status FILE] [--interval-ms 200]
 *     [--inlet udp|recvmmsg [--slots 32] [--slot-bytes 2048]] [--enrich none|sflow|full]
 * </pre>
 *
 * {@code --inlet udp} (default) is the production {@link Collector}; {@code --inlet recvmmsg} is a bench-only
 * prototype ({@link RecvmmsgInlet}: the same handler and {@link DatagramProcessor}, read with recvmmsg) used to size
 * what batching the receive would gain.
 *
 * Status line: {@code rows=N datagrams=N bytes=N flow_samples=N counter_samples=N bad_datagrams=N sink_errors=N
 * uptime_ms=N}; rows = flow samples the counting sink received.
 */
public final class CollectorUnderTest {
    private CollectorUnderTest() {}

    /** @param args see the class comment */
    public static void main(String[] args) throws Exception {
        Collector.Settings s = new Collector.Settings();
        s.bindAddress = "127.0.0.1";
        s.port = 6343;
        s.threads = 1;
        Path status = null;
        long intervalMs = 200;
        String inletKind = "udp";
        int slots = 32, slotBytes = 2048;
        String enrich = "none";
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                usage("missing value for " + a);
            }
            String v = args[++i];
            switch (a) {
                case "--bind" -> s.bindAddress = v;
                case "--port" -> s.port = Integer.parseInt(v);
                case "--threads" -> s.threads = Integer.parseInt(v);
                case "--rcvbuf" -> s.receiveBufferBytes = Integer.parseInt(v);
                case "--status" -> status = Path.of(v);
                case "--interval-ms" -> intervalMs = Long.parseLong(v);
                case "--inlet" -> inletKind = v;
                case "--slots" -> slots = Integer.parseInt(v);
                case "--slot-bytes" -> slotBytes = Integer.parseInt(v);
                case "--enrich" -> enrich = v;
                default -> usage("unknown option " + a);
            }
        }
        switch (enrich) {
            case "none" -> s.enrichment.enabled = false; // the figures before enrichment existed
            case "sflow" -> { } // the production default: metadata the agents send
            case "full" -> s.enrichment = BenchEnrichment.full(BenchData.Mix.REPLAY);
            default -> usage("--enrich must be none, sflow or full");
        }
        CountingFlowSink sink = new CountingFlowSink();
        s.extraFlowSinks.add(sink);
        long t0 = System.nanoTime();
        final AutoCloseable c;
        final CollectorStats stats;
        final InetSocketAddress bound;
        String detail;
        switch (inletKind) {
            case "udp" -> { // the production collector
                Collector col = new Collector(s);
                c = col;
                stats = col.stats();
                bound = col.localAddress();
                detail = "threads=" + s.threads;
            }
            case "recvmmsg" -> { // bench-only prototype: UdpInlet reading with recvmmsg (see RecvmmsgInlet)
                stats = new CollectorStats();
                DatagramProcessor proc = new DatagramProcessor(stats.decode, stats, List.of(), List.<FlowSink>of(sink));
                RecvmmsgInlet in = new RecvmmsgInlet(new InetSocketAddress(s.bindAddress, s.port), s.receiveBufferBytes,
                        slots, slotBytes, proc);
                c = in;
                bound = in.localAddress();
                detail = "prototype recvmmsg inlet, threads=1 slots=" + slots + " slot-bytes=" + slotBytes;
            }
            default -> {
                usage("--inlet must be udp or recvmmsg");
                return;
            }
        }
        System.out.println("collector-under-test listening on udp " + bound + " " + detail
                + " rcvbuf=" + s.receiveBufferBytes + " cpus=" + Runtime.getRuntime().availableProcessors());
        System.out.flush();

        CountDownLatch done = new CountDownLatch(1);
        Path statusFile = status;
        Thread hook = new Thread(() -> {
            try {
                c.close();
            } catch (Exception e) {
                System.err.println("close: " + e);
            }
            String line = line(stats, sink, t0);
            write(statusFile, line, true);
            System.out.println("collector-under-test final " + line);
            System.out.flush();
            done.countDown();
        }, "collector-under-test-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);

        while (done.getCount() > 0) {
            write(statusFile, line(stats, sink, t0), false);
            if (done.await(intervalMs, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                break;
            }
        }
    }

    private static String line(CollectorStats st, CountingFlowSink sink, long t0) {
        return "rows=" + sink.rowsWritten() + " datagrams=" + st.datagramsReceived.sum() + " bytes="
                + st.bytesReceived.sum() + " flow_samples=" + st.decode.flowSamples() + " counter_samples="
                + st.decode.counterSamples() + " bad_datagrams=" + st.decode.badDatagrams() + " sink_errors="
                + st.sinkErrors.sum() + " duplicate_datagrams=" + st.datagramsDuplicate.sum()
                + " uptime_ms=" + (System.nanoTime() - t0) / 1_000_000;
    }

    private static boolean finalWritten;

    /** Writes the status file; once the final line is written, periodic (older) lines no longer overwrite it. */
    private static synchronized void write(Path file, String line, boolean last) {
        if (file == null || finalWritten) {
            return;
        }
        finalWritten = last;
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, line + "\n");
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("status file " + file + ": " + e);
        }
    }

    private static void usage(String msg) {
        System.err.println("CollectorUnderTest: " + msg + "\nusage: CollectorUnderTest [--bind ADDR] [--port N]"
                + " [--threads N] [--rcvbuf BYTES] [--status FILE] [--interval-ms N]"
                + " [--inlet udp|recvmmsg [--slots N] [--slot-bytes N]] [--enrich none|sflow|full]");
        System.exit(2);
    }
}
