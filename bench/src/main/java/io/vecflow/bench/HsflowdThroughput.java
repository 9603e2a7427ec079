package io.vecflow.bench;

import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.packet.LinkType;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * Agent throughput driver ({@code bench/hsflowd-throughput.sh} starts the agent and runs this): sends PSAMPLE
 * messages (kernel convention) on a NETLINK_USERSOCK multicast group at a target rate for a fixed time, receives the
 * agent's sFlow datagrams on a UDP sink on 127.0.0.1, and counts the flow samples that arrive. Rates climb; a step is
 * loss-free when every sample sent reached the sink. Prints one JSON line per step and a summary.
 *
 * <p>Arguments: {@code --group G --port P --agent-pid PID [--rates 10000,20000,...] [--duration S] [--repeats N]
 * [--stop-after-lossy N] [--header-bytes B] [--max-seconds S] [--other-max-pct PCT] [--retries N] [--out FILE]}.
 * Frames: every Ethernet packet of the embedded testdata/traffic captures, cut to {@code --header-bytes} (128),
 * cycled. Units: rates in samples/s; CPU in % of one CPU (user + system, from /proc/PID/stat, USER_HZ 100).
 *
 * <p>Pacing: the sender follows the schedule {@code rate × elapsed}; when it falls behind it sends at most 2 ms of
 * schedule at once and lets the rest slip (no catch-up bursts), so {@code achieved} can be below the target.
 * A step during which other processes used more than {@code --other-max-pct} of a CPU (busy time of the whole
 * machine minus the agent's and this driver's) is redone, at most {@code --retries} times, and the disturbed
 * attempts are kept in the output with {@code "counted":false}.
 */
public final class HsflowdThroughput {
    private HsflowdThroughput() {}

    private static final long HZ = 100;

    private static final class Sink implements Runnable {
        final DatagramChannel ch;
        volatile long flowSamples;
        volatile long datagrams;
        volatile long decodeErrors;
        volatile long maxDrops;
        volatile boolean running = true;

        Sink(DatagramChannel ch) {
            this.ch = ch;
        }

        @Override
        public void run() {
            ByteBuffer buf = ByteBuffer.allocateDirect(65536);
            byte[] arr = new byte[65536];
            SflowDecoder dec = new SflowDecoder(new DecodeStats());
            long[] local = new long[2];
            SflowVisitor v = new SflowVisitor() {
                @Override
                public void onDatagram(DatagramHeader header) {}

                @Override
                public void onFlowSample(DatagramHeader header, FlowSample sample) {
                    local[0]++;
                    if (sample.drops > local[1]) {
                        local[1] = sample.drops;
                    }
                }

                @Override
                public void onCounterSample(DatagramHeader header, CounterSample sample) {}
            };
            while (running) {
                try {
                    buf.clear();
                    if (ch.receive(buf) == null) {
                        continue;
                    }
                    buf.flip();
                    int n = buf.remaining();
                    buf.get(arr, 0, n);
                    if (dec.decode(arr, 0, n, v) != null) {
                        decodeErrors++;
                    }
                    datagrams++;
                    flowSamples = local[0];
                    maxDrops = local[1];
                } catch (java.nio.channels.ClosedChannelException e) {
                    return;
                } catch (IOException e) {
                    System.err.println("sink: " + e);
                    return;
                }
            }
        }
    }

    /**
     * Runs the climb.
     *
     * @param args see the class comment
     * @throws Exception on a setup failure (socket, netlink group, /proc)
     */
    public static void main(String[] args) throws Exception {
        int group = 0;
        int port = 0;
        long agentPid = 0;
        String rates = "10000,20000,40000,60000,80000,100000,125000,150000,175000,200000,250000,300000";
        double duration = 5;
        int repeats = 1;
        int stopAfterLossy = 2;
        int headerBytes = 128;
        double maxSeconds = 900;
        double otherMaxPct = 25;
        int retries = 3;
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (a) {
                case "--group" -> group = Integer.parseInt(v);
                case "--port" -> port = Integer.parseInt(v);
                case "--agent-pid" -> agentPid = Long.parseLong(v);
                case "--rates" -> rates = v;
                case "--duration" -> duration = Double.parseDouble(v);
                case "--repeats" -> repeats = Integer.parseInt(v);
                case "--stop-after-lossy" -> stopAfterLossy = Integer.parseInt(v);
                case "--header-bytes" -> headerBytes = Integer.parseInt(v);
                case "--max-seconds" -> maxSeconds = Double.parseDouble(v);
                case "--other-max-pct" -> otherMaxPct = Double.parseDouble(v);
                case "--retries" -> retries = Integer.parseInt(v);
                case "--out" -> out = Path.of(v);
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
            i++;
        }
        if (group < 1 || group > 32 || port < 1 || port > 65535 || agentPid <= 0) {
            throw new IllegalArgumentException("--group 1..32, --port and --agent-pid are required");
        }

        List<PsampleSample> frames = new ArrayList<>();
        for (BenchData.Packet p : BenchData.trafficPackets()) {
            if (p.linkType() == LinkType.ETHERNET && p.data().length >= 14) {
                int n = Math.min(headerBytes, p.data().length);
                frames.add(new PsampleSample().sampleGroup(1).iifIndex(2).oifIndex(3)
                        .origSize(p.data().length + 4).sampleRate(1).data(p.data(), 0, n));
            }
        }
        if (frames.isEmpty()) {
            throw new IllegalStateException("no Ethernet frames in testdata/traffic");
        }
        PsampleSample[] ring = frames.toArray(new PsampleSample[0]);

        DatagramChannel ch = DatagramChannel.open();
        ch.setOption(StandardSocketOptions.SO_RCVBUF, 8 << 20);
        ch.bind(new InetSocketAddress("127.0.0.1", port));
        Sink sink = new Sink(ch);
        Thread sinkThread = Thread.ofPlatform().name("sink").daemon().start(sink);

        long t0 = System.nanoTime();
        long seq = 0;
        int lossyRun = 0;
        long bestTarget = 0;
        String bestLine = null;
        PrintWriter console = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        console.printf("hsflowd throughput: %d frames (%d-byte headers) cycled, USERSOCK group %d -> agent pid %d -> "
                + "udp 127.0.0.1:%d; %s s per step, %d repeat(s)%n", ring.length, headerBytes, group, agentPid, port,
                fmt(duration), repeats);
        try (PsampleEmitter em = PsampleEmitter.open(PsampleTransport.USERSOCK, group, Psample.Convention.KERNEL)) {
            // warm-up outside the measurement: JIT of both sides, 2 s at 20k/s
            seq = send(em, ring, seq, 20_000, 2.0).seq;
            drain(sink, Long.MAX_VALUE);
            climb:
            for (String rs : rates.split(",")) {
                long rate = Long.parseLong(rs.strip());
                boolean lossy = false;
                for (int r = 0; r < repeats; r++) {
                    for (int attempt = 0; ; attempt++) {
                        if ((System.nanoTime() - t0) / 1e9 > maxSeconds) {
                            console.println("time bound reached (" + fmt(maxSeconds) + " s): stopping");
                            break climb;
                        }
                        waitQuiet(agentPid, otherMaxPct, 30);
                        long f0 = sink.flowSamples;
                        long d0 = sink.datagrams;
                        long drops0 = sink.maxDrops;
                        long failed0 = em.sendFailed();
                        long a0 = cpuTicks(agentPid);
                        long s0 = selfTicks();
                        long b0 = busyTicks();
                        long w0 = System.nanoTime();
                        Sent st = send(em, ring, seq, rate, duration);
                        double secs = (System.nanoTime() - w0) / 1e9;
                        long a1 = cpuTicks(agentPid);
                        long s1 = selfTicks();
                        long b1 = busyTicks();
                        seq = st.seq;
                        long expected = st.sent;
                        drain(sink, f0 + expected);
                        long got = sink.flowSamples - f0;
                        long failed = em.sendFailed() - failed0;
                        double agentCpu = 100.0 * (a1 - a0) / HZ / secs;
                        double otherCpu = 100.0 * ((b1 - b0) - (a1 - a0) - (s1 - s0)) / HZ / secs;
                        boolean counted = otherCpu <= otherMaxPct || attempt >= retries;
                        boolean lost = got != expected || failed != 0;
                        String line = String.format(Locale.ROOT, "{\"target\":%d,\"repeat\":%d,\"attempt\":%d,"
                                + "\"sent\":%d,\"send_failed\":%d,\"seconds\":%.3f,\"achieved\":%.0f,"
                                + "\"received\":%d,\"lost\":%d,\"received_per_s\":%.0f,\"datagrams\":%d,"
                                + "\"agent_drops_field_increase\":%d,\"decode_errors\":%d,\"agent_cpu_pct\":%.1f,"
                                + "\"other_cpu_pct\":%.1f,\"counted\":%b,\"loss_free\":%b}",
                                rate, r, attempt, expected, failed, secs, expected / secs, got, expected - got,
                                got / secs, sink.datagrams - d0, sink.maxDrops - drops0, sink.decodeErrors, agentCpu,
                                otherCpu, counted, !lost);
                        console.println(line);
                        if (out != null) {
                            Files.writeString(out, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                        }
                        if (!counted) {
                            continue;
                        }
                        if (lost) {
                            lossy = true;
                        } else if (!lossy && r == repeats - 1 && rate > bestTarget) {
                            bestTarget = rate;
                            bestLine = line;
                        }
                        break;
                    }
                }
                lossyRun = lossy ? lossyRun + 1 : 0;
                if (lossyRun >= stopAfterLossy) {
                    console.println(stopAfterLossy + " consecutive lossy rates: stopping");
                    break;
                }
            }
        } finally {
            sink.running = false;
            ch.close();
            sinkThread.join(2000);
        }
        console.println(bestLine == null ? "no loss-free rate"
                : "highest loss-free target rate " + bestTarget + " samples/s: " + bestLine);
    }

    private record Sent(long seq, long sent) {}

    /** Sends {@code rate × seconds} samples on the schedule (see the class comment); returns the next seq and count. */
    private static Sent send(PsampleEmitter em, PsampleSample[] ring, long seq, long rate, double seconds) {
        long total = (long) (rate * seconds);
        long burst = Math.max(1, rate / 500); // 2 ms of schedule
        long start = System.nanoTime();
        long sent = 0;
        long slipped = 0; // schedule given up (samples), so that a stall is not followed by a burst
        int i = (int) (seq % ring.length);
        while (sent < total) {
            long due = (long) ((System.nanoTime() - start) * 1e-9 * rate) - slipped;
            if (due - sent > burst) {
                slipped += due - sent - burst;
                due = sent + burst;
            }
            if (due <= sent) {
                LockSupport.parkNanos(50_000);
                continue;
            }
            long n = Math.min(due, total) - sent;
            for (long k = 0; k < n; k++) {
                PsampleSample s = ring[i];
                s.groupSeq(++seq & 0xFFFFFFFFL);
                em.emit(s);
                if (++i == ring.length) {
                    i = 0;
                }
            }
            sent += n;
            if (slipped > 0 && (System.nanoTime() - start) * 1e-9 > seconds * 3) {
                break; // bound: a sender far behind stops at 3x the step time
            }
        }
        return new Sent(seq, sent);
    }

    /** Waits until the sink has {@code target} flow samples, or no new one for 2 s (the agent flushes within 1 s). */
    private static void drain(Sink sink, long target) throws InterruptedException {
        long last = sink.flowSamples;
        long lastChange = System.nanoTime();
        long deadline = lastChange + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            long now = sink.flowSamples;
            if (now >= target) {
                Thread.sleep(1200); // anything beyond the target (should be none) shows in the next step's start
                return;
            }
            if (now != last) {
                last = now;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > 2_000_000_000L) {
                return;
            }
            Thread.sleep(20);
        }
    }

    private static void waitQuiet(long agentPid, double maxPct, double maxWaitS) throws IOException,
            InterruptedException {
        long deadline = System.nanoTime() + (long) (maxWaitS * 1e9);
        double pct;
        do {
            long b0 = busyTicks(), s0 = selfTicks(), a0 = cpuTicks(agentPid);
            Thread.sleep(500);
            pct = 100.0 * ((busyTicks() - b0) - (selfTicks() - s0) - (cpuTicks(agentPid) - a0)) / HZ / 0.5;
            if (pct < maxPct) {
                return;
            }
        } while (System.nanoTime() < deadline);
        System.err.printf(Locale.ROOT, "machine still busy (%.0f%% of a CPU used by others) after %.0f s; running%n",
                pct, maxWaitS);
    }

    /** utime + stime of a process, in USER_HZ ticks (proc(5) /proc/PID/stat fields 14, 15). */
    private static long cpuTicks(long pid) throws IOException {
        String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static long selfTicks() throws IOException {
        return cpuTicks(ProcessHandle.current().pid());
    }

    /** Busy ticks of the whole machine (/proc/stat "cpu" line: all but idle and iowait). */
    private static long busyTicks() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/stat"))) {
            if (l.startsWith("cpu ")) {
                String[] f = l.trim().split("\\s+");
                long sum = 0;
                for (int i = 1; i <= 8 && i < f.length; i++) {
                    if (i != 4 && i != 5) {
                        sum += Long.parseLong(f[i]);
                    }
                }
                return sum;
            }
        }
        throw new IOException("/proc/stat has no cpu line");
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
