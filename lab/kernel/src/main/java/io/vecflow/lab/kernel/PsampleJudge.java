package io.vecflow.lab.kernel;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The independent judge of the PSAMPLE "packets" group: {@code lab/kernel/guest/psample_judge.py} (plain python3
 * sockets, no vecflow code) run as a child process. {@link #start} returns once it has joined the group; {@link #await}
 * returns the messages it printed.
 */
public final class PsampleJudge implements AutoCloseable {
    /** One PSAMPLE message as the judge saw it: its bytes, header fields and attributes in wire order. */
    public record Message(byte[] raw, int length, int type, int flags, long seq, long pid, int cmd, int version,
            List<Attr> attrs) {
        /** @return the first attribute of {@code type}, or null. */
        public Attr attr(int attrType) {
            for (Attr a : attrs) {
                if (a.type == attrType) {
                    return a;
                }
            }
            return null;
        }
    }

    /**
     * One attribute.
     *
     * @param type    nla_type without flags
     * @param length  payload length, bytes (nla_len − 4)
     * @param payload payload bytes
     */
    public record Attr(int type, int length, byte[] payload) {
        /** Payload as an unsigned little-endian integer (u8/u16/u32/u64 by length). */
        public long value() {
            long v = 0;
            for (int i = Math.min(payload.length, 8) - 1; i >= 0; i--) {
                v = v << 8 | payload[i] & 0xFF;
            }
            return v;
        }
    }

    private final Process process;
    private final BufferedReader out;
    private final List<Message> messages = new ArrayList<>();
    private String end;

    private PsampleJudge(Process process) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Starts the judge and waits until it has joined "packets".
     *
     * @param count      messages to collect
     * @param pid        only messages with this nlmsg_pid (0 = the kernel), or -1 for all
     * @param timeoutS   the judge's own time limit, seconds
     * @throws IllegalStateException it did not report "ready" (its output is in the message)
     */
    public static PsampleJudge start(int count, long pid, int timeoutS) throws IOException {
        Path script = Path.of(System.getProperty("vflab.root", "."), "lab/kernel/guest/psample_judge.py");
        Process p = new ProcessBuilder("python3", script.toString(), "--count", Integer.toString(count), "--pid",
                Long.toString(pid), "--timeout", Integer.toString(timeoutS)).redirectErrorStream(true).start();
        PsampleJudge j = new PsampleJudge(p);
        String line = j.out.readLine();
        if (line == null || !line.startsWith("ready ")) {
            p.destroyForcibly();
            throw new IllegalStateException("psample_judge.py did not start: " + line);
        }
        System.out.println("judge: " + line);
        return j;
    }

    /**
     * Reads the judge's output to its end ("done N" or "timeout K").
     *
     * @return the messages, in arrival order
     */
    public List<Message> await() throws IOException, InterruptedException {
        HexFormat hex = HexFormat.of();
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("msg ")) {
                messages.add(parse(hex.parseHex(line, 4, line.length())));
            } else {
                end = line;
                System.out.println("judge: " + line);
            }
        }
        process.waitFor(10, TimeUnit.SECONDS);
        return List.copyOf(messages);
    }

    /**
     * Splits one message the judge printed: nlmsghdr (u32 len, u16 type, u16 flags, u32 seq, u32 pid), genlmsghdr
     * (u8 cmd, u8 version, u16 reserved), then attributes (u16 nla_len, u16 nla_type; next at align4(nla_len)) —
     * little-endian, Linux {@code include/uapi/linux/netlink.h}. Written here, not taken from psample-bridge, so the
     * judge's side shares no code with what it judges.
     *
     * @throws IllegalStateException a length that runs past the message
     */
    static Message parse(byte[] m) {
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
        int len = b.getInt(0);
        if (len != m.length || len < 20) {
            throw new IllegalStateException("judge message: nlmsg_len " + len + " for " + m.length + " bytes");
        }
        List<Attr> attrs = new ArrayList<>();
        int off = 20;
        while (off + 4 <= len) {
            int alen = b.getShort(off) & 0xFFFF;
            int type = b.getShort(off + 2) & 0x3FFF;
            if (alen < 4 || off + alen > len) {
                throw new IllegalStateException("judge message: nla_len " + alen + " at offset " + off);
            }
            attrs.add(new Attr(type, alen - 4, Arrays.copyOfRange(m, off + 4, off + alen)));
            off += (alen + 3) & ~3;
        }
        return new Message(m, len, b.getShort(4) & 0xFFFF, b.getShort(6) & 0xFFFF, b.getInt(8) & 0xFFFFFFFFL,
                b.getInt(12) & 0xFFFFFFFFL, m[16] & 0xFF, m[17] & 0xFF, List.copyOf(attrs));
    }

    /** @return the judge's last line ("done N" / "timeout K"), or null before {@link #await}. */
    public String end() {
        return end;
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
