package io.vecflow.lab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
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
        ObjectMapper m = new ObjectMapper();
        HexFormat hex = HexFormat.of();
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("{")) {
                JsonNode n = m.readTree(line);
                List<Attr> attrs = new ArrayList<>();
                for (JsonNode a : n.get("attrs")) {
                    attrs.add(new Attr(a.get(0).asInt(), a.get(1).asInt(), hex.parseHex(a.get(2).asText())));
                }
                messages.add(new Message(hex.parseHex(n.get("raw").asText()), n.get("len").asInt(), n.get("type").asInt(), n.get("flags").asInt(),
                        n.get("seq").asLong(), n.get("pid").asLong(), n.get("cmd").asInt(), n.get("version").asInt(),
                        attrs));
            } else {
                end = line;
                System.out.println("judge: " + line);
            }
        }
        process.waitFor(10, TimeUnit.SECONDS);
        return List.copyOf(messages);
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
