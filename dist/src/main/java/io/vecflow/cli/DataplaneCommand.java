package io.vecflow.cli;

import io.vecflow.dataplane.Dataplane;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapReader;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vecflow dataplane}: replays a capture through the dataplane and emits PSAMPLE for any listening agent. */
@Command(name = "dataplane", mixinStandardHelpOptions = true,
        description = "Replays a capture through the sampling dataplane (port-input -> ethernet-input -> sflow -> "
            + "l2-xconnect) and emits every sample as a PSAMPLE netlink message; pair it with `vecflow hsflowd` "
            + "or watch with `vecflow psample listen`.")
final class DataplaneCommand implements Callable<Integer> {
    @Option(names = "--capture", paramLabel = "FILE", description = "Ethernet pcap (default: the bundled capture).")
    Path capture;

    @Option(names = "--loops", defaultValue = "1", description = "Replays (default ${DEFAULT-VALUE}).")
    long loops;

    @Option(names = "--pps", defaultValue = "0", description = "Packets/s, 0 = as fast as possible (default ${DEFAULT-VALUE}).")
    double pps;

    @Option(names = "--workers", defaultValue = "2", description = "Worker threads (default ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--sampling-rate", defaultValue = "10000", paramLabel = "N", description = "1-in-N sampling, 0 = off (default ${DEFAULT-VALUE}, as VPP).")
    int samplingRate;

    @Option(names = "--header-bytes", defaultValue = "128", description = "Header bytes per sample (default ${DEFAULT-VALUE}).")
    int headerBytes;

    @Option(names = "--fifo-size", defaultValue = "2047", description = "Sample FIFO slots per worker (default ${DEFAULT-VALUE}).")
    int fifoSize;

    @Option(names = "--transport", defaultValue = "usersock", description = "genl (psample kernel module) or usersock (default ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--netlink-group", defaultValue = "30", description = "USERSOCK multicast group (default ${DEFAULT-VALUE}).")
    int group;

    @Option(names = "--sample-group", defaultValue = "1", description = "PSAMPLE sample group (default ${DEFAULT-VALUE}).")
    int sampleGroup;

    @Override
    public Integer call() throws Exception {
        PsampleTransport t = PsampleCommand.transport(transport);
        PcapFile pcap = capture == null ? Demo.loadBundled() : PcapReader.readAll(capture);
        Dataplane.Settings s = new Dataplane.Settings();
        s.workers = workers;
        s.loops = loops;
        s.packetsPerSecond = pps;
        s.samplingRate = samplingRate;
        s.headerBytes = headerBytes;
        s.fifoCapacity = fifoSize;
        s.sampleGroup = sampleGroup;
        try (PsampleEmitter e = PsampleEmitter.open(t, group, Psample.Convention.VPP);
                Dataplane dp = new Dataplane(s, pcap, e)) {
            dp.start();
            dp.awaitCompletion();
            Dataplane.Stats st = dp.stats();
            System.out.printf("packets %,d, samples taken %,d, FIFO drops %,d, PSAMPLE sent %,d, failed %,d%n",
                    st.packetsReplayed(), st.samplesTaken(), st.fifoDrops(), st.psampleSent(), st.psampleFailed());
        }
        return 0;
    }
}
