package io.vecflow.cli;

import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapFormatException;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import io.vecflow.packet.PcapRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Loads a capture for replay: the bundled one or a file. Errors name the file; a capture cut short in its last
 * record (a copy interrupted mid-write) is replayed up to the last complete packet, with a warning, as tshark does.
 */
final class CaptureLoader {
    /** Name of the bundled capture (tcpreplay's test capture, 179 packets; see testdata/SOURCES.md). */
    static final String BUNDLED = "tcpreplay-test.pcap";

    private CaptureLoader() {}

    /**
     * @param file capture file, or null for the bundled one
     * @param warnings where a truncation warning goes
     * @return the packets
     * @throws IOException naming the file and what is wrong with it
     */
    static PcapFile load(Path file, PrintStream warnings) throws IOException {
        if (file == null) {
            try (InputStream in = CaptureLoader.class.getResourceAsStream("/io/vecflow/demo/" + BUNDLED)) {
                if (in == null) {
                    throw new IOException("bundled capture " + BUNDLED + " missing from the jar");
                }
                return read(new PcapReader(in), BUNDLED, warnings);
            }
        }
        if (!Files.exists(file)) {
            throw new IOException("cannot read capture " + file + ": no such file");
        }
        if (!Files.isRegularFile(file)) {
            throw new IOException("cannot read capture " + file + ": not a regular file");
        }
        try {
            return read(PcapReader.open(file), file.toString(), warnings);
        } catch (PcapFormatException e) {
            throw new IOException("capture " + file + ": " + e.getMessage(), e);
        }
    }

    private static PcapFile read(PcapReader r, String name, PrintStream warnings) throws IOException {
        try (r) {
            List<PcapPacket> packets = new ArrayList<>();
            PcapRecord rec = new PcapRecord();
            try {
                while (r.next(rec)) {
                    packets.add(new PcapPacket(rec.timestampNanos(), rec.originalLength(),
                            Arrays.copyOf(rec.data(), rec.capturedLength())));
                }
            } catch (PcapFormatException e) {
                if (packets.isEmpty() || !e.getMessage().contains("truncated")) {
                    throw e;
                }
                warnings.printf("warning: capture %s is cut short (%s); using its %d complete packets%n", name,
                        e.getMessage(), packets.size());
            }
            if (packets.isEmpty()) {
                throw new IOException("capture " + name + " holds no packets");
            }
            return new PcapFile(r.linkType(), r.snapLength(), packets);
        }
    }
}
