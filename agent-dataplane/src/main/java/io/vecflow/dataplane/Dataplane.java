package io.vecflow.dataplane;

import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.packet.PcapFile;
import java.util.ArrayList;
import java.util.List;

/**
 * A running dataplane: W workers, each with its buffer pool, sample FIFO and graph
 * {@code port-input → ethernet-input → sflow → (l2-xconnect | error-drop)}, fed by a {@link PcapReplayPort}, and the
 * {@link SflowMainThread} that turns samples into PSAMPLE messages.
 */
public final class Dataplane implements AutoCloseable {
    /** Dataplane settings (defaults as in VPP where VPP has one). */
    public static final class Settings {
        /** Worker threads (default 2). */
        public int workers = 2;
        /** sFlow sampling rate N (default 10000, VPP's default; 0 disables). */
        public int samplingRate = 10_000;
        /** Header bytes copied per sample (default 128, max 256). */
        public int headerBytes = 128;
        /** Sample FIFO records per worker (default 2047, VPP's usable ring size). */
        public int fifoCapacity = 2047;
        /** Buffers per worker (default 4096). */
        public int buffersPerWorker = 4096;
        /** ifIndex of the replay port (default 1). */
        public int ifIndex = 1;
        /** ifIndex the xconnect output sends to (default 2). */
        public int xconnectIfIndex = 2;
        /** true: output node l2-xconnect; false: error-drop (default true). */
        public boolean xconnect = true;
        /** Capture replays (default 1). */
        public long loops = 1;
        /** Total packets/s, 0 = as fast as possible (default 0). */
        public double packetsPerSecond;
        /** PSAMPLE sample group for ingress samples (default 1). */
        public int sampleGroup = 1;
    }

    /** Totals over all workers, read while running or after. */
    public record Stats(long packetsReplayed, long bytesReplayed, long samplePool, long samplesTaken,
            long fifoDrops, long psampleSent, long psampleFailed, long fifoDropsCarried, long outputPackets,
            long ip4, long ip6, long otherEthertypes) {}

    private final Settings settings;
    private final PcapReplayPort port;
    private final List<Worker> workers = new ArrayList<>();
    private final List<SampleFifo> fifos = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final SflowMainThread main;
    private Thread mainThread;

    /**
     * Builds the graph and workers (not started).
     *
     * @param s settings
     * @param capture Ethernet capture to replay
     * @param emitter where the main thread sends PSAMPLE messages (owned by the caller)
     */
    public Dataplane(Settings s, PcapFile capture, PsampleEmitter emitter) {
        this.settings = s;
        this.port = new PcapReplayPort(capture, s.ifIndex, s.workers, s.loops, s.packetsPerSecond);
        String out = s.xconnect ? CountingOutputNode.L2_XCONNECT : CountingOutputNode.ERROR_DROP;
        for (int w = 0; w < s.workers; w++) {
            SampleFifo fifo = new SampleFifo(s.fifoCapacity);
            fifos.add(fifo);
            Graph g = new Graph()
                    .register(ReplayInputNode.NAME, i -> port.inputNode(i, EthernetInputNode.NAME))
                    .register(EthernetInputNode.NAME, i -> new EthernetInputNode(SflowNode.NAME,
                            CountingOutputNode.ERROR_DROP))
                    .register(SflowNode.NAME, i -> new SflowNode(i, s.samplingRate, s.headerBytes, fifo, out))
                    .register(CountingOutputNode.L2_XCONNECT,
                            i -> new CountingOutputNode(CountingOutputNode.L2_XCONNECT, s.xconnectIfIndex))
                    .register(CountingOutputNode.ERROR_DROP,
                            i -> new CountingOutputNode(CountingOutputNode.ERROR_DROP, 0));
            workers.add(new Worker(w, g, new BufferPool(s.buffersPerWorker, BufferPool.DEFAULT_BUFFER_BYTES)));
        }
        this.main = new SflowMainThread(fifos, emitter, s.sampleGroup, 4096);
    }

    /** Starts the main thread and the workers. */
    public synchronized void start() {
        mainThread = Thread.ofPlatform().name("vecflow-main").start(main);
        for (Worker w : workers) {
            threads.add(Thread.ofPlatform().name("vecflow-wk-" + w.index()).start(w));
        }
    }

    /**
     * Waits until the replay finished, then lets the main thread drain every FIFO.
     *
     * @throws InterruptedException if interrupted
     */
    public void awaitCompletion() throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
        main.stop();
        mainThread.join();
    }

    /** Stops workers and the main thread early. */
    public void stop() throws InterruptedException {
        for (Worker w : workers) {
            w.stop();
        }
        awaitCompletion();
    }

    /** @return the replay port. */
    public PcapReplayPort port() {
        return port;
    }

    /** @return the workers. */
    public List<Worker> workers() {
        return List.copyOf(workers);
    }

    /** @return the settings. */
    public Settings settings() {
        return settings;
    }

    /** @return totals over all workers. */
    public Stats stats() {
        long pk = 0, by = 0, pool = 0, taken = 0, drops = 0, out = 0, v4 = 0, v6 = 0, oth = 0;
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            ReplayInputNode in = (ReplayInputNode) w.node(ReplayInputNode.NAME);
            SflowNode sf = (SflowNode) w.node(SflowNode.NAME);
            EthernetInputNode eth = (EthernetInputNode) w.node(EthernetInputNode.NAME);
            CountingOutputNode o = (CountingOutputNode) w.node(settings.xconnect ? CountingOutputNode.L2_XCONNECT
                    : CountingOutputNode.ERROR_DROP);
            pk += in.rxPackets();
            by += in.rxBytes();
            pool += sf.samplePool();
            taken += sf.samplesTaken();
            drops += fifos.get(i).dropped();
            out += o.outPackets();
            v4 += eth.ip4();
            v6 += eth.ip6();
            oth += eth.other();
        }
        return new Stats(pk, by, pool, taken, drops, main.emitted(), main.emitFailed(), main.fifoDropsCarried(), out,
                v4, v6, oth);
    }

    @Override
    public void close() {
        for (Worker w : workers) {
            w.pool().close();
        }
        port.close();
    }
}
