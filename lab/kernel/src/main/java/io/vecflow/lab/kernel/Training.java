package io.vecflow.lab.kernel;

import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.nio.file.Path;
import java.util.List;

/**
 * The host-side class-loading run behind the guest's class-data-sharing archive ({@code run.sh}: {@code java
 * -XX:ArchiveClassesAtExit=lab/kernel/target/guest.jsa … KernelLabChecks --train}). It walks the checks' paths that
 * need no kernel module — collector, agent on the usersock transport, decoder, JSON rows, pcap reader, probe frames,
 * judge parser — so the guest JVM maps those classes instead of loading and verifying them under emulation (class
 * loading dominates the guest's ~20× slower start). Not a check: a failure here only makes the archive smaller.
 */
final class Training {
    private Training() {}

    /** USERSOCK group of the training run (host; any free 1..32 group works). */
    static final int GROUP = 27;

    static void run() throws Exception {
        List<PcapPacket> frames = PcapReader.readAll(Path.of(System.getProperty("vflab.root", "."),
                "testdata/traffic/tcpreplay-test.pcap")).packets();
        try (AgentUnderTest a = new AgentUnderTest("train", "sampling = 1\n  headerBytes = 128\n  psample { transport "
                + "= usersock usersockGroup = " + GROUP + " }");
             PsampleEmitter em = PsampleEmitter.open(PsampleTransport.USERSOCK, GROUP, Psample.Convention.KERNEL)) {
            PcapPacket f = frames.getFirst();
            em.emit(new PsampleSample().iifIndex(1).origSize(f.capturedLength()).sampleGroup(1).groupSeq(0)
                    .sampleRate(1).data(f.data(), 0, Math.min(128, f.capturedLength())));
            a.awaitSamples(s -> true, 1);
            a.stopAndReadRows();
        }
        byte[] probe = ProbeFrames.udp4(new byte[6], new byte[6], ProbeFrames.ip4("10.99.0.2"),
                ProbeFrames.ip4("10.99.0.1"), 1, 9,
                "train");
        Check.equal("training probe length", ProbeFrames.MIN_FRAME, probe.length);
        Sh.run("true");
        // the host's /tmp keeps nothing of the run (in the guest these files live in its tmpfs)
        java.nio.file.Files.deleteIfExists(Path.of("/tmp/vflab-train.jsonl"));
        java.nio.file.Files.deleteIfExists(Path.of("/tmp/vflab-train.conf"));
        Check.log("training run done");
    }
}
