package io.vecflow.bench;

import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapFormatException;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The real captures the benchmarks run on: {@code testdata/sflow} (sFlow datagrams from real agents and peer test
 * suites) and {@code testdata/traffic} (packets), as listed with their sources in {@code testdata/MANIFEST.md}. They
 * are embedded in the benchmarks jar; {@code -Dvecflow.testdata=DIR} reads them from a checkout instead.
 */
public final class BenchData {
    private BenchData() {}

    /** Which sFlow datagrams a benchmark cycles over. */
    public enum Mix {
        /**
         * Every UDP payload of every capture in testdata/sflow (counter-only datagrams, NetFlow v5, a truncated one).
         */
        ALL,
        /**
         * The payloads the loopback replay sends (bench/peers/extract.py): sFlow v5 datagrams that carry at least one
         * flow sample (0:1 or 0:3) and end exactly after their declared samples.
         */
        REPLAY
    }

    /** One packet of a traffic capture with its link type. */
    public record Packet(byte[] data, LinkType linkType) {}

    /** @return the capture directory {@code testdata/<sub>}, embedded or from {@code -Dvecflow.testdata}. */
    static Path dir(String sub) {
        String override = System.getProperty("vecflow.testdata");
        if (override != null) {
            return Path.of(override, sub);
        }
        URL u = BenchData.class.getClassLoader().getResource("testdata/" + sub);
        if (u == null) {
            throw new IllegalStateException("testdata/" + sub
                    + " is not on the class path; pass -Dvecflow.testdata=DIR");
        }
        try {
            URI uri = u.toURI();
            if ("jar".equals(uri.getScheme())) {
                FileSystem fs;
                try {
                    fs = FileSystems.newFileSystem(uri, Map.of());
                } catch (FileSystemAlreadyExistsException e) {
                    fs = FileSystems.getFileSystem(uri);
                }
                return fs.getPath("testdata", sub);
            }
            return Path.of(uri);
        } catch (URISyntaxException | IOException e) {
            throw new IllegalStateException("cannot open " + u, e);
        }
    }

    static List<Path> pcaps(String sub) {
        try (Stream<Path> s = Files.list(dir(sub))) {
            List<Path> l = s.filter(p -> p.getFileName().toString().endsWith(".pcap"))
                    .sorted((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString())).toList();
            if (l.isEmpty()) {
                throw new IllegalStateException("no .pcap in " + dir(sub));
            }
            return l;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the UDP payloads (sFlow datagrams) of every capture in testdata/sflow, in file and packet order. */
    public static List<byte[]> sflowDatagrams(Mix mix) {
        List<byte[]> out = new ArrayList<>();
        ParsedPacket pp = new ParsedPacket();
        for (Path f : pcaps("sflow")) {
            PcapFile file;
            try {
                file = PcapReader.readAll(f);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (PcapPacket p : file.packets()) {
                byte[] d = p.data();
                PacketParser.parse(d, 0, d.length, file.linkType(), pp);
                if (pp.protocol() != 17 || pp.l4Offset() < 0 || pp.l4Offset() + 8 > d.length) {
                    continue;
                }
                int udpLen = ((d[pp.l4Offset() + 4] & 0xFF) << 8) | (d[pp.l4Offset() + 5] & 0xFF);
                byte[] payload = Arrays.copyOfRange(d, pp.l4Offset() + 8, Math.min(d.length, pp.l4Offset() + udpLen));
                if (mix == Mix.ALL || replayable(payload)) {
                    out.add(payload);
                }
            }
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no datagram for mix " + mix);
        }
        return out;
    }

    /**
     * @return every packet of every capture in testdata/traffic, in file and packet order, except captures whose link
     *     type the packet module rejects at file level (mpls-traceroute.pcap is PPP, LINKTYPE 9)
     */
    public static List<Packet> trafficPackets() {
        List<Packet> out = new ArrayList<>();
        for (Path f : pcaps("traffic")) {
            try {
                PcapFile file = PcapReader.readAll(f);
                for (PcapPacket p : file.packets()) {
                    out.add(new Packet(p.data(), file.linkType()));
                }
            } catch (PcapFormatException e) {
                System.err.println("bench: skipping " + f.getFileName() + ": " + e.getMessage());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** The selection rule of bench/peers/extract.py (parse_sflow), so that REPLAY is the loopback mix. */
    static boolean replayable(byte[] pl) {
        if (pl.length < 28 || u32(pl, 0) != 5) {
            return false;
        }
        long at = u32(pl, 4);
        int alen = at == 1 ? 4 : at == 2 ? 16 : -1;
        if (alen < 0) {
            return false;
        }
        int p = 8 + alen;
        if (p + 16 > pl.length) {
            return false;
        }
        long ns = u32(pl, p + 12);
        p += 16;
        int nflow = 0;
        for (long i = 0; i < ns; i++) {
            if (p + 8 > pl.length) {
                return false;
            }
            long tag = u32(pl, p);
            long slen = u32(pl, p + 4);
            int body = p + 8;
            if (body + slen > pl.length) {
                return false;
            }
            if (tag >>> 12 == 0 && ((tag & 0xFFF) == 1 || (tag & 0xFFF) == 3)) {
                nflow++;
            }
            p = (int) (body + slen);
        }
        return p == pl.length && nflow > 0;
    }

    private static long u32(byte[] b, int i) {
        return ((b[i] & 0xFFL) << 24) | ((b[i + 1] & 0xFFL) << 16) | ((b[i + 2] & 0xFFL) << 8) | (b[i + 3] & 0xFFL);
    }
}
