package io.vecflow.hsflowd.counters;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Test helpers for the tshark judge: a pcap of sFlow datagrams, and tshark's field output per frame. */
final class CounterJudge {
    private CounterJudge() {}

    /** Writes each datagram as an Ethernet/IPv4/UDP frame 192.0.2.1:50000 → 192.0.2.2:6343 (pcap, DLT_EN10MB). */
    static void writePcap(Path file, List<byte[]> datagrams) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
            out.write(h.array());
            int sec = 1_700_000_000;
            for (byte[] d : datagrams) {
                int len = 14 + 20 + 8 + d.length;
                ByteBuffer f = ByteBuffer.allocate(16 + len);
                f.order(ByteOrder.LITTLE_ENDIAN).putInt(sec++).putInt(0).putInt(len).putInt(len);
                f.order(ByteOrder.BIG_ENDIAN);
                f.put(new byte[] {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}).putShort((short) 0x0800);
                int ip = f.position();
                f.put((byte) 0x45).put((byte) 0).putShort((short) (20 + 8 + d.length)).putShort((short) 0)
                        .putShort((short) 0).put((byte) 64).put((byte) 17).putShort((short) 0)
                        .put(new byte[] {(byte) 192, 0, 2, 1, (byte) 192, 0, 2, 2});
                int sum = 0;
                for (int i = 0; i < 20; i += 2) {
                    sum += (f.get(ip + i) & 0xFF) << 8 | (f.get(ip + i + 1) & 0xFF);
                }
                sum = (sum & 0xFFFF) + (sum >>> 16);
                sum = (sum & 0xFFFF) + (sum >>> 16);
                f.putShort(ip + 10, (short) ~sum);
                f.putShort((short) 50000).putShort((short) 6343).putShort((short) (8 + d.length)).putShort((short) 0);
                f.put(d);
                out.write(f.array());
            }
        }
    }

    /**
     * Runs {@code tshark -r pcap -d udp.port==6343,sflow -T fields} with one column per field (first occurrence).
     *
     * @return one row per frame, one string per field ("" when tshark shows no such field)
     */
    static List<String[]> tsharkFields(Path pcap, List<String> fields) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-d", "udp.port==6343,sflow",
                "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new IOException("tshark is needed as the judge of counter datagrams (apt-get install tshark)", e);
        }
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("tshark failed on " + pcap + ": exit " + (p.isAlive() ? "timeout" : p.exitValue()));
        }
        List<String[]> rows = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isEmpty()) {
                rows.add(line.split("\\|", -1));
            }
        }
        return rows;
    }
}
