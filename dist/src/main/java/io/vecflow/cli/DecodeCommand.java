package io.vecflow.cli;

import static io.vecflow.cli.VecflowCommand.require;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import io.vecflow.collector.decode.DatagramJsonWriter;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.packet.PcapReader;
import io.vecflow.packet.PcapRecord;
import io.vecflow.sflow.SflowDecodeException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vecflow decode}: what vecflow understands of the sFlow datagrams in a capture. */
@Command(name = "decode", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = {"Reads sFlow datagrams from a capture (UDP to any port, or --port) and prints one JSON object "
            + "per datagram with every decoded field — datagram header, samples and records in wire order with the "
            + "sFlow spec's field names, decoded sampled headers, unknown samples/records with their ids and raw "
            + "bytes, and the error that stopped decoding, if any.",
            "Every \"offset\" (of a sample, of a record's or the datagram's error) counts bytes from the start of "
            + "the sFlow datagram (the UDP payload), not of the captured frame. A record that failed to decode "
            + "shows \"error\" {kind, field, offset} and no fields; when a record type repeats in a sample, the "
            + "earlier copies show \"superseded\": true and the last one its fields.",
            "A sample that failed inside its own length shows its \"error\" and the samples after it follow. Counters "
            + "are unsigned numbers; a sampled header cut short shows only the fields it holds.",
            "A summary (frames, datagrams, errors by kind, samples with errors by kind) goes to stderr."})
final class DecodeCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "FILE.pcap", description = "Capture to read (pcap; Ethernet, Linux cooked or raw IP).")
    Path file;

    @Option(names = "--json", description = "One compact JSON object per line (JSON Lines) instead of indented JSON.")
    boolean compact;

    @Option(names = "--port", paramLabel = "PORT", description =
            "Only UDP datagrams to or from this port, 1..65535 (default: every UDP datagram).")
    Integer port;

    @Override
    public Integer call() throws Exception {
        require(port == null || port >= 1 && port <= 65535, "--port", port, "need 1..65535");
        if (!Files.isRegularFile(file)) {
            throw new java.io.IOException("cannot read " + file + ": " + (Files.exists(file) ? "not a regular file"
                    : "no such file"));
        }
        LineEndWriter out = new LineEndWriter(spec.commandLine().getOut());
        try {
            return decode(out);
        } finally {
            out.endLine(); // whatever happened, stdout ends with a newline before the summary or error on stderr
        }
    }

    private int decode(LineEndWriter out) throws Exception {
        JsonGenerator g = new JsonFactory().createGenerator(out);
        g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        if (!compact) {
            g.setPrettyPrinter(new DefaultPrettyPrinter());
        }
        g.setRootValueSeparator(null);
        DatagramJsonWriter writer = new DatagramJsonWriter();
        ParsedPacket p = new ParsedPacket();
        PcapRecord rec = new PcapRecord();
        long frames = 0, datagrams = 0, failed = 0;
        TreeMap<String, Long> errors = new TreeMap<>();
        try (PcapReader r = PcapReader.open(file)) {
            while (r.next(rec)) {
                frames++;
                byte[] d = rec.data();
                int len = rec.capturedLength();
                PacketParser.parse(d, 0, len, r.linkType(), p);
                if (p.protocol() != 17 || p.l4Offset() < 0 || p.l4Offset() + 8 > len || p.isFragment()
                        && p.fragmentOffset() != 0) {
                    continue;
                }
                if (port != null && p.srcPort() != port && p.dstPort() != port) {
                    continue;
                }
                int udpLen = (d[p.l4Offset() + 4] & 0xFF) << 8 | (d[p.l4Offset() + 5] & 0xFF);
                int from = p.l4Offset() + 8;
                int to = Math.min(len, p.l4Offset() + Math.max(8, udpLen));
                long frame = frames;
                long ts = rec.timestampNanos();
                String src = hostPort(p.srcAddressString(), p.srcPort());
                String dst = hostPort(p.dstAddressString(), p.dstPort());
                SflowDecodeException e = writer.write(g, d, from, to - from, j -> {
                    j.writeNumberField("frame", frame);
                    j.writeStringField("time", Instant.ofEpochSecond(0, ts).toString());
                    j.writeStringField("source", src);
                    j.writeStringField("destination", dst);
                });
                g.writeRaw('\n');
                datagrams++;
                if (e != null) {
                    failed++;
                    errors.merge(e.kind().name(), 1L, Long::sum);
                }
            }
        } catch (io.vecflow.packet.PcapFormatException e) {
            g.flush();
            out.endLine();
            throw new java.io.IOException(file + ": " + e.getMessage(), e);
        }
        g.flush();
        out.endLine();
        PrintWriter err = spec.commandLine().getErr();
        java.util.Map<io.vecflow.sflow.DecodeError, Long> sampleErrors = writer.stats().sampleErrorsByKind();
        err.printf("%s: %d frames, %d UDP datagrams decoded, %d with errors%s, %d samples with errors%s%n", file,
                frames, datagrams, failed, errors.isEmpty() ? "" : " " + errors, writer.stats().badSamples(),
                sampleErrors.isEmpty() ? "" : " " + sampleErrors);
        err.flush();
        return 0;
    }

    /** Passes text through and remembers whether the last character written was a newline. */
    static final class LineEndWriter extends Writer {
        private final PrintWriter out;
        private boolean atLineStart = true;

        LineEndWriter(PrintWriter out) {
            this.out = out;
        }

        @Override
        public void write(char[] cbuf, int off, int len) {
            if (len > 0) {
                out.write(cbuf, off, len);
                atLineStart = cbuf[off + len - 1] == '\n';
            }
        }

        @Override
        public void write(String str, int off, int len) {
            if (len > 0) {
                out.write(str, off, len);
                atLineStart = str.charAt(off + len - 1) == '\n';
            }
        }

        /** Writes a newline unless the output is empty or already ends with one, then flushes. */
        void endLine() {
            if (!atLineStart) {
                out.write('\n');
                atLineStart = true;
            }
            out.flush();
        }

        @Override
        public void flush() {
            out.flush();
        }

        @Override
        public void close() {
            out.flush();
        }
    }

    private static String hostPort(String host, int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
