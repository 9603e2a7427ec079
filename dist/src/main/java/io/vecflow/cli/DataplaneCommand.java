package io.vecflow.cli;

import static io.vecflow.cli.VecflowCommand.require;

import io.vecflow.dataplane.Dataplane;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.packet.PcapFile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vecflow dataplane}: replays a capture through the dataplane and emits PSAMPLE for any listening agent. */
@Command(name = "dataplane", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = "Replays a capture through the sampling dataplane (port-input -> ethernet-input -> sflow -> "
            + "l2-xconnect) and emits every sample as a PSAMPLE netlink message; pair it with `vecflow hsflowd` "
            + "or watch with `vecflow psample listen`. Stops at the end of the replay or on Ctrl-C, and prints its "
            + "counters.")
final class DataplaneCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--capture", paramLabel = "FILE", description = "Ethernet pcap (default: the bundled capture).")
    Path capture;

    @Option(names = "--loops", defaultValue = "1", description = "Replays, >= 1 (default ${DEFAULT-VALUE}).")
    long loops;

    @Option(names = "--pps", defaultValue = "0", description = "Packets/s over all workers, 0 = as fast as possible (default ${DEFAULT-VALUE}).")
    double pps;

    @Option(names = "--workers", defaultValue = "2", description = "Worker threads, 1..64 (default ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--sampling-rate", defaultValue = "10000", paramLabel = "N", description = "1-in-N sampling, 0 = off (default ${DEFAULT-VALUE}, VPP's default; a short replay may see no sample).")
    int samplingRate;

    @Option(names = "--header-bytes", defaultValue = "128", description = "Header bytes per sample, 1..256 (default ${DEFAULT-VALUE}).")
    int headerBytes;

    @Option(names = "--fifo-size", defaultValue = "2047", description = "Sample FIFO slots per worker, >= 2 (default ${DEFAULT-VALUE}).")
    int fifoSize;

    @Option(names = "--transport", defaultValue = "usersock", description = "genl (needs the psample kernel module) or usersock (default ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--netlink-group", defaultValue = "30", description = "USERSOCK multicast group, 1..32 (default ${DEFAULT-VALUE}).")
    int group;

    @Option(names = "--sample-group", defaultValue = "1", description = "PSAMPLE sample group, as in hsflowd's psample { group } (default ${DEFAULT-VALUE}).")
    int sampleGroup;

    @Override
    public Integer call() throws Exception {
        require(loops >= 1, "--loops", loops, "need >= 1");
        require(pps >= 0, "--pps", pps, "need >= 0 packets/s");
        require(workers >= 1 && workers <= 64, "--workers", workers, "need 1..64");
        require(samplingRate >= 0, "--sampling-rate", samplingRate, "need N >= 0");
        require(headerBytes >= 1 && headerBytes <= 256, "--header-bytes", headerBytes, "need 1..256");
        require(fifoSize >= 2, "--fifo-size", fifoSize, "need >= 2");
        require(group >= 1 && group <= 32, "--netlink-group", group, "need 1..32");
        require(sampleGroup >= 1, "--sample-group", sampleGroup, "need >= 1");
        PsampleTransport t = PsampleCommand.transport(transport);
        PrintWriter out = spec.commandLine().getOut();
        PcapFile pcap = CaptureLoader.load(capture, System.err);
        Dataplane.Settings s = new Dataplane.Settings();
        s.workers = workers;
        s.loops = loops;
        s.packetsPerSecond = pps;
        s.samplingRate = samplingRate;
        s.headerBytes = headerBytes;
        s.fifoCapacity = fifoSize;
        s.sampleGroup = sampleGroup;
        try (Shutdown sd = Shutdown.install();
                PsampleEmitter e = PsampleEmitter.open(t, group, Psample.Convention.VPP);
                Dataplane dp = new Dataplane(s, pcap, e)) {
            out.printf("dataplane: %d packets x %d loops on %d workers, sampling 1-in-%d, PSAMPLE over %s%s%n",
                    pcap.packets().size(), loops, workers, samplingRate, t,
                    t == PsampleTransport.USERSOCK ? " group " + group : "");
            out.flush();
            dp.start();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    dp.awaitCompletion();
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
            });
            while (waiter.isAlive() && !sd.signalled()) {
                waiter.join(100);
            }
            if (sd.signalled()) {
                dp.stop();
            }
            waiter.join();
            Dataplane.Stats st = dp.stats();
            out.printf("packets %,d, samples taken %,d, FIFO drops %,d, PSAMPLE sent %,d, failed %,d%s%n",
                    st.packetsReplayed(), st.samplesTaken(), st.fifoDrops(), st.psampleSent(), st.psampleFailed(),
                    sd.signalled() ? " (stopped by signal)" : "");
            out.flush();
        }
        return 0;
    }
}
