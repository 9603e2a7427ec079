package io.vecflow.hsflowd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An hsflowd.conf (sflow/host-sflow {@code hsflowd.conf(5)}): {@code sflow { key = value ... collector { ... }
 * psample { ... } vpp { ... } }}. Keys are case-insensitive; {@code #} starts a comment; several {@code key=value}
 * pairs may share a line. Unknown keys produce warnings with their line numbers; invalid values fail with
 * {@link ConfigException} naming the line. Defaults and ranges follow hsflowd.
 *
 * <p>vecflow extensions: {@code psample { transport = genl|usersock  usersockGroup = 1..32 }} and
 * {@code vpp { usersockGroup = 1..32 }} (VPP's channel is group 29).
 */
public final class HsflowdConfig {
    /** sampling: 1-in-N (default 400; 0..10,000,000). */
    public int sampling = 400;
    /** polling interval in seconds (default 30; 0..300). */
    public int polling = 30;
    /** headerBytes: sampled header bytes (default 128; 1..256). */
    public int headerBytes = 128;
    /** datagramBytes: datagram budget (default 1400; 200..8192). */
    public int datagramBytes = 1400;
    /** agentIP: the agent address in datagrams, or null to choose one. */
    public String agentIP;
    /** agent: interface whose address is the agent address (recorded; not used yet). */
    public String agentDevice;
    /** subAgentId (default 100000; ≤ 199999). */
    public long subAgentId = 100000;
    /** collector blocks (repeatable). */
    public final List<Collector> collectors = new ArrayList<>();
    /** psample block, or null when absent. */
    public Psample psample;
    /** vpp block, or null when absent. */
    public Vpp vpp;
    /** Warnings (unknown keys), each with its line. */
    public final List<String> warnings = new ArrayList<>();

    /** A {@code collector { ip= udpport= }} block. */
    public static final class Collector {
        /** Collector address (IPv4 or IPv6 literal, or host name). */
        public String ip;
        /** UDP port (default 6343). */
        public int udpPort = 6343;
        /** Line of the {@code collector {}} block in the file (0 when built in code). */
        public int line;

        @Override
        public String toString() {
            return ip + ":" + udpPort;
        }
    }

    /** A {@code psample { group= ingress= egress= transport= usersockGroup= }} block. */
    public static final class Psample {
        /** PSAMPLE sample group of ingress samples (default 1). */
        public int group = 1;
        /** Take ingress samples (default on). */
        public boolean ingress = true;
        /** Take egress samples from group + 1 (default off). */
        public boolean egress;
        /** "genl" (family psample, group "packets") or "usersock" (vecflow extension). */
        public String transport = "genl";
        /** NETLINK_USERSOCK multicast group for the usersock transport (default 30). */
        public int usersockGroup = 30;
    }

    /** A {@code vpp { ifOffset= osIndex= usersockGroup= }} block. */
    public static final class Vpp {
        /** ifIndex offset for VPP ports without a Linux ifindex (default 1,000,000,000). */
        public long ifOffset = 1_000_000_000L;
        /** Use VPP's OSINDEX (Linux ifindex) when present (default on). */
        public boolean osIndex = true;
        /** NETLINK_USERSOCK group of VPP's STATUS / IF_COUNTERS channel (default 29). */
        public int usersockGroup = 29;
    }

    /**
     * Reads and validates a file.
     *
     * @throws IOException if the file cannot be read
     * @throws ConfigException on a syntax error or invalid value (message names the line)
     */
    public static HsflowdConfig load(Path file) throws IOException, ConfigException {
        String text;
        try {
            text = Files.readString(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("cannot read " + file + ": no such file", e);
        } catch (IOException e) {
            throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return parse(text);
    }

    /**
     * Parses hsflowd.conf text.
     *
     * @throws ConfigException on a syntax error or invalid value (message names the line)
     */
    public static HsflowdConfig parse(String text) throws ConfigException {
        HsflowdConfig c = new HsflowdConfig();
        int sflowLine = new Parser(tokenize(text), c).parseTop();
        if (c.collectors.isEmpty()) {
            throw new ConfigException(sflowLine, "no collector { ip = ... } block in 'sflow {': nowhere to send "
                    + "datagrams");
        }
        return c;
    }

    private record Token(String text, int line) {}

    private static List<Token> tokenize(String text) {
        List<Token> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int ln = 0; ln < lines.length; ln++) {
            String l = lines[ln];
            int hash = l.indexOf('#');
            if (hash >= 0) {
                l = l.substring(0, hash);
            }
            StringBuilder cur = new StringBuilder();
            for (int i = 0; i < l.length(); i++) {
                char ch = l.charAt(i);
                if (ch == '{' || ch == '}' || ch == '=' || Character.isWhitespace(ch)) {
                    if (!cur.isEmpty()) {
                        out.add(new Token(cur.toString(), ln + 1));
                        cur.setLength(0);
                    }
                    if (!Character.isWhitespace(ch)) {
                        out.add(new Token(String.valueOf(ch), ln + 1));
                    }
                } else {
                    cur.append(ch);
                }
            }
            if (!cur.isEmpty()) {
                out.add(new Token(cur.toString(), ln + 1));
            }
        }
        return out;
    }

    private static final class Parser {
        private final List<Token> t;
        private final HsflowdConfig c;
        private int i;

        Parser(List<Token> t, HsflowdConfig c) {
            this.t = t;
            this.c = c;
        }

        /** @return the line of the first {@code sflow {} */
        int parseTop() throws ConfigException {
            int sflowLine = 0;
            while (i < t.size()) {
                Token name = t.get(i++);
                if (name.text.equalsIgnoreCase("sflow") && peek("{")) {
                    i++;
                    if (sflowLine == 0) {
                        sflowLine = name.line;
                    }
                    parseSflowBody(name.line);
                } else {
                    throw new ConfigException(name.line, "expected 'sflow {', found '" + name.text + "'");
                }
            }
            if (sflowLine == 0) {
                throw new ConfigException(0, "no 'sflow { ... }' block");
            }
            return sflowLine;
        }

        private boolean peek(String s) {
            return i < t.size() && t.get(i).text.equals(s);
        }

        private Token next(String what, int line) throws ConfigException {
            if (i >= t.size()) {
                throw new ConfigException(line, "unexpected end of file: expected " + what);
            }
            return t.get(i++);
        }

        /** Reads "key = value" or "key {" and returns the key; value in lastValue. */
        private String lastValue;
        private String lastKey;
        private int lastLine;

        private String keyOrBlock(Token key) throws ConfigException {
            lastLine = key.line;
            lastKey = key.text;
            if (peek("{")) {
                i++;
                lastValue = null;
                return key.text.toLowerCase(Locale.ROOT);
            }
            // Errors name the key's line: the offending token may sit on a later line.
            Token eq = next("'=' after '" + key.text + "'", key.line);
            if (!eq.text.equals("=")) {
                throw new ConfigException(key.line, "expected '=' after '" + key.text + "', found '" + eq.text
                        + "'");
            }
            // The value must be on the key's line, or a missing value would swallow the next line's key.
            if (i >= t.size() || t.get(i).line != key.line) {
                throw new ConfigException(key.line, "missing value for '" + key.text + "'");
            }
            Token v = t.get(i++);
            if (v.text.equals("{") || v.text.equals("}") || v.text.equals("=")) {
                throw new ConfigException(key.line, "missing value for '" + key.text + "'");
            }
            lastValue = v.text;
            return key.text.toLowerCase(Locale.ROOT);
        }

        private void parseSflowBody(int openLine) throws ConfigException {
            while (true) {
                Token k = next("'}' closing 'sflow {'", openLine);
                if (k.text.equals("}")) {
                    return;
                }
                String key = keyOrBlock(k);
                if (lastValue == null) {
                    switch (key) {
                        case "collector" -> parseCollector();
                        case "psample" -> parsePsample();
                        case "vpp" -> parseVpp();
                        default -> {
                            c.warnings.add("line " + k.line + ": unknown block '" + k.text + " { }' ignored");
                            skipBlock();
                        }
                    }
                    continue;
                }
                switch (key) {
                    case "sampling" -> c.sampling = intIn(0, 10_000_000);
                    case "polling" -> c.polling = intIn(0, 300);
                    case "headerbytes" -> c.headerBytes = intIn(1, 256);
                    case "datagrambytes" -> c.datagramBytes = intIn(200, 8192);
                    case "agentip" -> c.agentIP = ip();
                    case "agent" -> c.agentDevice = lastValue;
                    case "subagentid" -> c.subAgentId = intIn(0, 199_999);
                    default -> c.warnings.add("line " + k.line + ": unknown key '" + k.text + "' ignored");
                }
            }
        }

        private void skipBlock() throws ConfigException {
            int depth = 1;
            int line = lastLine;
            while (depth > 0) {
                Token x = next("'}'", line);
                if (x.text.equals("{")) {
                    depth++;
                } else if (x.text.equals("}")) {
                    depth--;
                }
            }
        }

        private void parseCollector() throws ConfigException {
            Collector col = new Collector();
            int line = lastLine;
            col.line = line;
            while (true) {
                Token k = next("'}' closing 'collector {'", line);
                if (k.text.equals("}")) {
                    break;
                }
                String key = keyOrBlock(k);
                if (lastValue == null) {
                    throw new ConfigException(k.line, "unexpected block '" + k.text + " {' inside collector");
                }
                switch (key) {
                    case "ip" -> col.ip = ip();
                    case "udpport" -> col.udpPort = intIn(1, 65535);
                    case "dev", "namespace" -> c.warnings.add("line " + k.line + ": collector '" + k.text
                            + "' is not supported yet and was ignored");
                    default -> c.warnings.add("line " + k.line + ": unknown collector key '" + k.text + "' ignored");
                }
            }
            if (col.ip == null) {
                throw new ConfigException(line, "collector block without ip=");
            }
            c.collectors.add(col);
        }

        private void parsePsample() throws ConfigException {
            Psample p = new Psample();
            int line = lastLine;
            while (true) {
                Token k = next("'}' closing 'psample {'", line);
                if (k.text.equals("}")) {
                    break;
                }
                String key = keyOrBlock(k);
                if (lastValue == null) {
                    throw new ConfigException(k.line, "unexpected block '" + k.text + " {' inside psample");
                }
                switch (key) {
                    case "group" -> p.group = intIn(1, Integer.MAX_VALUE - 1); // egress uses group + 1
                    case "ingress" -> p.ingress = bool();
                    case "egress" -> p.egress = bool();
                    case "transport" -> {
                        String v = lastValue.toLowerCase(Locale.ROOT);
                        if (!v.equals("genl") && !v.equals("usersock")) {
                            throw new ConfigException(k.line, "psample transport must be genl or usersock, got '"
                                    + lastValue + "'");
                        }
                        p.transport = v;
                    }
                    case "usersockgroup" -> p.usersockGroup = intIn(1, 32);
                    default -> c.warnings.add("line " + k.line + ": unknown psample key '" + k.text + "' ignored");
                }
            }
            c.psample = p;
        }

        private void parseVpp() throws ConfigException {
            Vpp v = new Vpp();
            int line = lastLine;
            while (true) {
                Token k = next("'}' closing 'vpp {'", line);
                if (k.text.equals("}")) {
                    break;
                }
                String key = keyOrBlock(k);
                if (lastValue == null) {
                    throw new ConfigException(k.line, "unexpected block '" + k.text + " {' inside vpp");
                }
                switch (key) {
                    case "ifoffset" -> v.ifOffset = intIn(0, Integer.MAX_VALUE);
                    case "osindex" -> v.osIndex = bool();
                    case "usersockgroup" -> v.usersockGroup = intIn(1, 32);
                    default -> c.warnings.add("line " + k.line + ": unknown vpp key '" + k.text + "' ignored");
                }
            }
            c.vpp = v;
        }

        private int intIn(int lo, int hi) throws ConfigException {
            long v;
            try {
                v = Long.parseLong(lastValue);
            } catch (NumberFormatException e) {
                throw new ConfigException(lastLine, lastKey + ": '" + lastValue + "' is not a number");
            }
            if (v < lo || v > hi) {
                throw new ConfigException(lastLine, lastKey + ": " + lastValue + " is out of range " + lo + ".."
                        + hi);
            }
            return (int) v;
        }

        private boolean bool() throws ConfigException {
            switch (lastValue.toLowerCase(Locale.ROOT)) {
                case "on", "yes", "true", "1" -> {
                    return true;
                }
                case "off", "no", "false", "0" -> {
                    return false;
                }
                default -> throw new ConfigException(lastLine, lastKey + ": '" + lastValue + "' is not on/off");
            }
        }

        private String ip() throws ConfigException {
            String v = lastValue;
            boolean ok = v.matches("[0-9A-Za-z.:%_-]+");
            if (!ok) {
                throw new ConfigException(lastLine, lastKey + ": '" + v + "' is not an address");
            }
            return v;
        }
    }

    /**
     * What would stop the agent from running with this configuration, beyond the syntax {@link #parse} checks: a
     * missing {@code psample { }} block (no packet source), collector addresses that do not resolve. Used by
     * {@code --check} and at start, so that a config that passes {@code --check} runs.
     *
     * @return problems, each naming the line where it applies; empty when the agent can start
     */
    public java.util.List<String> runChecks() {
        java.util.List<String> problems = new java.util.ArrayList<>();
        if (psample == null) {
            problems.add("no psample { } block: the agent has no packet-sample source (add e.g. "
                    + "psample { group = 1 transport = usersock })");
        }
        for (Collector col : collectors) {
            try {
                java.net.InetAddress.getByName(col.ip);
            } catch (java.net.UnknownHostException e) {
                problems.add((col.line > 0 ? "line " + col.line + ": " : "") + "collector ip '" + col.ip
                        + "' does not resolve");
            }
        }
        return problems;
    }

    /**
     * @return the effective configuration in hsflowd.conf syntax (for {@code -d}); {@link #parse} of it yields the
     *         same values (warnings aside)
     */
    public String describe() {
        StringBuilder b = new StringBuilder("sflow {\n");
        b.append("  sampling = ").append(sampling).append('\n');
        b.append("  polling = ").append(polling).append("  # counter samples are not sent yet\n");
        b.append("  headerBytes = ").append(headerBytes).append('\n');
        b.append("  datagramBytes = ").append(datagramBytes).append('\n');
        if (agentIP != null) {
            b.append("  agentIP = ").append(agentIP).append('\n');
        }
        if (agentDevice != null) {
            b.append("  agent = ").append(agentDevice).append('\n');
        }
        b.append("  subAgentId = ").append(subAgentId).append('\n');
        for (Collector col : collectors) {
            b.append("  collector { ip = ").append(col.ip).append(" udpport = ").append(col.udpPort).append(" }\n");
        }
        if (psample != null) {
            b.append("  psample { group = ").append(psample.group).append(" ingress = ")
                    .append(psample.ingress ? "on" : "off").append(" egress = ").append(psample.egress ? "on" : "off")
                    .append(" transport = ").append(psample.transport)
                    .append(" usersockGroup = ").append(psample.usersockGroup).append(" }\n");
        }
        if (vpp != null) {
            b.append("  vpp { ifOffset = ").append(vpp.ifOffset).append(" osIndex = ").append(vpp.osIndex ? "on" : "off")
                    .append(" usersockGroup = ").append(vpp.usersockGroup).append(" }\n");
        }
        return b.append("}\n").toString();
    }
}
