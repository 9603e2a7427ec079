package io.vecflow.hsflowd.config;

import io.vecflow.hsflowd.config.HsflowdConfig.AgentCidr;
import io.vecflow.hsflowd.config.HsflowdConfig.Collector;
import io.vecflow.hsflowd.config.HsflowdConfig.Dropmon;
import io.vecflow.hsflowd.config.HsflowdConfig.Psample;
import io.vecflow.hsflowd.config.HsflowdConfig.Vpp;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The hsflowd.conf reader behind {@link HsflowdConfig#parse}: a tokenizer (hsflowd's separators: whitespace and
 * {@code ;}; {@code { } =} as tokens; {@code #} comments; double-quoted values), a tree of blocks and settings, then
 * the interpretation of {@code sflow { }} and its {@code collector}, {@code psample}, {@code vpp} and {@code dropmon}
 * blocks with hsflowd's keys, defaults and ranges (host-sflow {@code src/Linux/hsflowconfig.c},
 * {@code hsflowtokens.h}, {@code hsflowd.h}; docs/netlink.md §5).
 */
final class HsflowdConfigParser {
    /** hsflowd's HSP_MAX_CONFIG_DEPTH: sflow { a { b { } } } at most. */
    static final int MAX_DEPTH = 3;
    /** hsflowd's HSP_MAX_TOKEN_LEN. */
    static final int MAX_TOKEN = 255;

    /** hsflowd settings of modules vecflow does not implement: accepted with a warning. */
    private static final Set<String> UNSUPPORTED_SETTINGS = Set.of("dnssd", "dnssd_domain", "modules", "loopback",
            "refreshadaptors", "checkadaptors", "refreshvms", "forgetvms", "xen.update.dominfo", "xen.dsk",
            "uloggroup", "nfloggroup", "ulogprobability", "nflogprobability", "jsonport", "jsonfifo",
            "samplingdirection");
    /** hsflowd module blocks vecflow does not implement: skipped with a warning. */
    private static final Set<String> UNSUPPORTED_BLOCKS = Set.of("dns-sd", "kvm", "xen", "docker", "containerd",
            "k8s", "ulog", "nflog", "pcap", "tcp", "cumulus", "dent", "ovs", "json", "nvml", "os10", "opx", "sonic",
            "dbus", "systemd", "eapi", "nlroute");
    /** Blocks vecflow reads. */
    private static final Set<String> BLOCKS = Set.of("collector", "psample", "vpp", "dropmon");
    /** Settings vecflow reads in sflow { } (lower case). */
    private static final Set<String> SETTINGS = Set.of("sampling", "packetsamplingrate", "polling",
            "counterpollinginterval", "headerbytes", "datagrambytes", "agentip", "agent", "agent.cidr", "subagentid",
            "uuid");

    private static final Pattern SPEED = Pattern.compile("[0-9]{1,15}[KMGTkmgt]?");
    private static final Pattern UUID = Pattern.compile(
            "(\\p{XDigit}{8})-?(\\p{XDigit}{4})-?(\\p{XDigit}{4})-?(\\p{XDigit}{4})-?(\\p{XDigit}{12})");
    private static final Pattern HOST_LABEL = Pattern.compile("[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?");

    /** A token: its text, 1-based line, and whether it was written in double quotes. */
    record Tok(String text, int line, boolean quoted) {
        boolean is(String s) {
            return !quoted && text.equals(s);
        }

        boolean structural() {
            return !quoted && (text.equals("{") || text.equals("}") || text.equals("="));
        }
    }

    sealed interface Node permits Setting, Block {}

    /** {@code key = value}. */
    record Setting(Tok key, Tok value) implements Node {
        String lower() {
            return key.text.toLowerCase(Locale.ROOT);
        }
    }

    /** {@code name { body }}. */
    record Block(Tok name, List<Node> body) implements Node {
        String lower() {
            return name.text.toLowerCase(Locale.ROOT);
        }
    }

    private final HsflowdConfig c;
    private List<Tok> toks;
    private int i;
    /** The block that closed last and the line of its '}' (for hints on unbalanced braces). */
    private Tok lastClosed;
    private int lastCloseLine;

    HsflowdConfigParser(HsflowdConfig c) {
        this.c = c;
    }

    void parse(String text) throws ConfigException {
        toks = tokenize(text);
        Block sflow = null;
        while (i < toks.size()) {
            Tok t = toks.get(i++);
            if (!t.quoted && t.text.equalsIgnoreCase("sflow") && i < toks.size() && toks.get(i).is("{")) {
                i++;
                Block b = new Block(t, body(t, 1));
                if (sflow != null) {
                    throw new ConfigException(t.line, "a second 'sflow {' block (the first opens at line "
                            + sflow.name.line + "): put every setting in one");
                }
                sflow = b;
            } else if (t.is("}")) {
                throw new ConfigException(t.line, "unexpected '}': no block is open here (one '}' too many)");
            } else if (sflow != null) {
                throw new ConfigException(lastCloseLine, "this '}' closes the 'sflow {' block of line "
                        + sflow.name.line + ", yet '" + t.text + "' follows at line " + t.line
                        + " (one '}' too many?)");
            } else {
                throw new ConfigException(t.line, "expected 'sflow {', found '" + t.text + "'");
            }
        }
        if (sflow == null) {
            throw new ConfigException(0, "no 'sflow { ... }' block");
        }
        sflow(sflow);
    }

    // ---------------------------------------------------------------- tokens and tree

    static List<Tok> tokenize(String text) throws ConfigException {
        List<Tok> out = new ArrayList<>();
        String[] lines = text.split("\r\n|\r|\n", -1);
        for (int ln = 0; ln < lines.length; ln++) {
            String l = lines[ln];
            int line = ln + 1;
            int hash = l.indexOf('#');
            if (hash >= 0) {
                l = l.substring(0, hash);
            }
            int p = 0;
            while (p < l.length()) {
                char ch = l.charAt(p);
                if (Character.isWhitespace(ch) || ch == ';') {
                    p++;
                } else if (ch == '{' || ch == '}' || ch == '=') {
                    out.add(new Tok(String.valueOf(ch), line, false));
                    p++;
                } else if (ch == '"') {
                    int end = l.indexOf('"', p + 1);
                    if (end < 0) {
                        throw new ConfigException(line, "unterminated quoted string: a \"...\" value must end on "
                                + "its line");
                    }
                    out.add(token(l.substring(p + 1, end), line, true));
                    p = end + 1;
                } else {
                    int start = p;
                    while (p < l.length() && !isBreak(l.charAt(p))) {
                        p++;
                    }
                    out.add(token(l.substring(start, p), line, false));
                }
            }
        }
        return out;
    }

    private static boolean isBreak(char ch) {
        return Character.isWhitespace(ch) || ch == ';' || ch == '{' || ch == '}' || ch == '=' || ch == '"';
    }

    private static Tok token(String s, int line, boolean quoted) throws ConfigException {
        if (s.length() > MAX_TOKEN) {
            throw new ConfigException(line, "a word of " + s.length() + " characters (at most " + MAX_TOKEN
                    + "): '" + s.substring(0, 40) + "...'");
        }
        return new Tok(s, line, quoted);
    }

    /** Reads a block body after its '{' up to the matching '}'. */
    private List<Node> body(Tok opener, int depth) throws ConfigException {
        List<Node> body = new ArrayList<>();
        while (true) {
            if (i >= toks.size()) {
                String hint = lastClosed == null || lastClosed == opener || lastCloseLine == lastClosed.line ? ""
                        : "; the last block to close, '" + lastClosed.text + " {' of line " + lastClosed.line
                                + ", took the '}' at line " + lastCloseLine;
                throw new ConfigException(opener.line, "'" + opener.text + " {' opened here is never closed: "
                        + "unexpected end of file (a '}' is missing" + hint + ")");
            }
            Tok k = toks.get(i++);
            if (k.is("}")) {
                lastClosed = opener;
                lastCloseLine = k.line;
                return body;
            }
            if (k.is("{")) {
                throw new ConfigException(k.line, "unexpected '{' without a block name before it");
            }
            if (k.is("=")) {
                throw new ConfigException(k.line, "unexpected '=' without a key before it");
            }
            if (k.quoted) {
                throw new ConfigException(k.line, "expected a key, found the quoted string \"" + k.text + "\"");
            }
            if (i < toks.size() && toks.get(i).is("{")) {
                i++;
                if (depth >= MAX_DEPTH) {
                    throw new ConfigException(k.line, "'" + k.text + " {' nests too deep: hsflowd.conf has at most "
                            + MAX_DEPTH + " levels of blocks");
                }
                body.add(new Block(k, body(k, depth + 1)));
                continue;
            }
            // A setting: '=' and the value on the key's line (else a missing value would swallow the next key).
            // As in hsflowd, '=' is a separator like a space: "key = value" and "key value" are the same setting.
            if (i >= toks.size() || toks.get(i).line != k.line) {
                throw new ConfigException(k.line, "missing value for '" + k.text + "' (expected '" + k.text
                        + " = VALUE' on one line)");
            }
            if (toks.get(i).is("=")) {
                i++;
            }
            if (i >= toks.size() || toks.get(i).line != k.line || toks.get(i).structural()) {
                throw new ConfigException(k.line, "missing value for '" + k.text + "'");
            }
            body.add(new Setting(k, toks.get(i++)));
        }
    }

    // ---------------------------------------------------------------- sflow { }

    private void sflow(Block s) throws ConfigException {
        Map<String, Integer> seen = new HashMap<>();
        Map<String, Integer> blocksSeen = new HashMap<>();
        for (Node n : s.body) {
            if (n instanceof Block b) {
                sflowBlock(b, blocksSeen);
            } else {
                sflowSetting((Setting) n, seen);
            }
        }
        if (c.collectors.isEmpty()) {
            throw new ConfigException(s.name.line, "no collector { ip = ... } block in 'sflow {': nowhere to send "
                    + "datagrams");
        }
        crossChecks(seen);
    }

    private void sflowSetting(Setting st, Map<String, Integer> seen) throws ConfigException {
        String key = st.lower();
        int line = st.key.line;
        switch (key) {
            case "sampling", "packetsamplingrate" -> {
                once(seen, "sampling", st);
                c.sampling = (int) number(st, 0, HsflowdConfig.MAX_SAMPLING);
            }
            case "polling", "counterpollinginterval" -> {
                once(seen, "polling", st);
                c.polling = (int) number(st, 0, HsflowdConfig.MAX_POLLING);
            }
            case "headerbytes" -> {
                once(seen, key, st);
                c.headerBytes = (int) number(st, 1, HsflowdConfig.MAX_HEADER_BYTES);
            }
            case "datagrambytes" -> {
                once(seen, key, st);
                c.datagramBytes = (int) number(st, HsflowdConfig.MIN_DATAGRAM_BYTES,
                        HsflowdConfig.MAX_DATAGRAM_BYTES);
            }
            case "agentip" -> {
                once(seen, key, st);
                c.agentIP = address(st);
            }
            case "agent" -> {
                once(seen, key, st);
                c.agentDevice = device(st);
            }
            case "agent.cidr" -> {
                seen.putIfAbsent(key, line);
                c.agentCidrs.add(cidr(st));
            }
            case "subagentid" -> {
                once(seen, key, st);
                c.subAgentId = number(st, 0, HsflowdConfig.MAX_SUB_AGENT_ID);
            }
            case "uuid" -> {
                once(seen, key, st);
                c.uuid = uuid(st);
            }
            default -> {
                if (BLOCKS.contains(key) || UNSUPPORTED_BLOCKS.contains(key)) {
                    throw new ConfigException(line, "'" + st.key.text + "' is a block, not a setting: write "
                            + st.key.text + " { ... }");
                } else if (UNSUPPORTED_SETTINGS.contains(key)) {
                    warn(line, "'" + st.key.text + "' is an hsflowd setting vecflow does not implement; ignored");
                } else if (key.startsWith("sampling.") && key.length() > 9) {
                    samplingDot(st, st.key.text.substring(9), seen);
                } else if (key.startsWith("polling.") && key.length() > 8) {
                    once(seen, key, st);
                    c.pollingByApp.put(st.key.text.substring(8), (int) number(st, 0, HsflowdConfig.MAX_POLLING));
                    warn(line, "'" + st.key.text + "' (application polling) is not used by vecflow; ignored");
                } else {
                    warn(line, "unknown key '" + st.key.text + "' in sflow { } ignored");
                }
            }
        }
    }

    /** sampling.bps_ratio, sampling.SPEED (100M, 1G, 10G, ...) or sampling.APPLICATION. */
    private void samplingDot(Setting st, String rest, Map<String, Integer> seen) throws ConfigException {
        int line = st.key.line;
        if (rest.equalsIgnoreCase("bps_ratio")) {
            once(seen, "sampling.bps_ratio", st);
            c.samplingBpsRatio = (int) number(st, 0, HsflowdConfig.MAX_SAMPLING);
        } else if (SPEED.matcher(rest).matches()) {
            char last = Character.toUpperCase(rest.charAt(rest.length() - 1));
            long mult = switch (last) {
                case 'K' -> 1_000L;
                case 'M' -> 1_000_000L;
                case 'G' -> 1_000_000_000L;
                case 'T' -> 1_000_000_000_000L;
                default -> 1L;
            };
            String digits = mult == 1 ? rest : rest.substring(0, rest.length() - 1);
            long bps;
            try {
                bps = Math.multiplyExact(Long.parseLong(digits), mult);
            } catch (ArithmeticException e) {
                throw new ConfigException(line, st.key.text + ": link speed " + rest + " is too large");
            }
            String canonical = HsflowdConfig.speedKey(bps);
            once(seen, "sampling." + canonical, st);
            int n = (int) number(st, 0, HsflowdConfig.MAX_SAMPLING);
            if (!canonical.equals(rest.toUpperCase(Locale.ROOT))) {
                warn(line, "'" + st.key.text + "': hsflowd names this link speed '" + canonical + "' and matches "
                        + "names exactly, so there it would never apply; vecflow applies it as sampling."
                        + canonical);
            }
            c.samplingBySpeed.put(canonical, n);
        } else {
            once(seen, "sampling." + rest.toLowerCase(Locale.ROOT), st);
            c.samplingByApp.put(rest, (int) number(st, 0, HsflowdConfig.MAX_SAMPLING));
            warn(line, "'" + st.key.text + "' (application sampling) is not used by vecflow; ignored");
        }
    }

    private void sflowBlock(Block b, Map<String, Integer> blocksSeen) throws ConfigException {
        String name = b.lower();
        int line = b.name.line;
        switch (name) {
            case "collector" -> collector(b);
            case "psample" -> {
                replaced(blocksSeen, b);
                c.psample = psample(b);
            }
            case "vpp" -> {
                replaced(blocksSeen, b);
                c.vpp = vpp(b);
            }
            case "dropmon" -> {
                replaced(blocksSeen, b);
                c.dropmon = dropmon(b);
            }
            default -> {
                if (SETTINGS.contains(name)) {
                    throw new ConfigException(line, "'" + b.name.text + "' is a setting, not a block: write "
                            + b.name.text + " = VALUE");
                } else if (UNSUPPORTED_BLOCKS.contains(name)) {
                    warn(line, "'" + b.name.text + " { }' is an hsflowd module vecflow does not implement; ignored");
                } else {
                    warn(line, "unknown block '" + b.name.text + " { }' ignored");
                }
            }
        }
    }

    private void replaced(Map<String, Integer> blocksSeen, Block b) {
        Integer first = blocksSeen.putIfAbsent(b.lower(), b.name.line);
        if (first != null) {
            warn(b.name.line, "a second '" + b.name.text + " { }' block (the first is at line " + first
                    + "): this one replaces it, as in hsflowd");
        }
    }

    private void collector(Block b) throws ConfigException {
        Collector col = new Collector();
        col.line = b.name.line;
        Map<String, Integer> seen = new HashMap<>();
        for (Setting st : settingsOnly(b)) {
            String key = st.lower();
            switch (key) {
                case "ip" -> {
                    once(seen, key, st);
                    col.ip = address(st);
                }
                case "udpport" -> {
                    once(seen, key, st);
                    col.udpPort = (int) number(st, 1, 65535);
                }
                case "dev" -> {
                    once(seen, key, st);
                    col.dev = device(st);
                }
                case "namespace" -> {
                    once(seen, key, st);
                    col.namespace = netns(st);
                }
                default -> warn(st.key.line, "unknown key '" + st.key.text + "' in collector { } ignored");
            }
        }
        if (col.ip == null) {
            throw new ConfigException(b.name.line, "collector block without ip=");
        }
        for (Collector other : c.collectors) {
            if (other.ip.equalsIgnoreCase(col.ip) && other.udpPort == col.udpPort
                    && Objects.equals(other.dev, col.dev) && Objects.equals(other.namespace, col.namespace)) {
                warn(col.line, "collector " + col + " is listed twice (also at line " + other.line + "): every "
                        + "datagram goes to it twice");
            }
        }
        c.collectors.add(col);
    }

    private Psample psample(Block b) throws ConfigException {
        Psample p = new Psample();
        Map<String, Integer> seen = new HashMap<>();
        for (Setting st : settingsOnly(b)) {
            String key = st.lower();
            switch (key) {
                case "group" -> p.group = (int) number(once(seen, key, st), 1, Integer.MAX_VALUE - 1);
                case "ingress" -> p.ingress = bool(once(seen, key, st));
                case "egress" -> p.egress = bool(once(seen, key, st));
                case "transport" -> {
                    once(seen, key, st);
                    String v = st.value.text.toLowerCase(Locale.ROOT);
                    if (!v.equals("genl") && !v.equals("usersock")) {
                        throw new ConfigException(st.key.line, st.key.text + ": must be genl or usersock, got '"
                                + st.value.text + "'");
                    }
                    p.transport = v;
                }
                case "usersockgroup" -> p.usersockGroup = (int) number(once(seen, key, st), 1, 32);
                case "lbdecisions" -> p.lbDecisions = bool(once(seen, key, st));
                // sFlow v5 data_format: a 20-bit enterprise; 0 is sFlow.org's own structures
                case "lbenterprise" -> p.lbEnterprise = (int) number(once(seen, key, st), 1,
                        io.vecflow.sflow.LbDecisionRecord.MAX_ENTERPRISE);
                default -> warn(st.key.line, "unknown key '" + st.key.text + "' in psample { } ignored");
            }
        }
        if (!p.ingress && !p.egress) {
            warn(b.name.line, "psample { ingress = off egress = off } takes no samples");
        }
        return p;
    }

    private Vpp vpp(Block b) throws ConfigException {
        Vpp v = new Vpp();
        Map<String, Integer> seen = new HashMap<>();
        for (Setting st : settingsOnly(b)) {
            String key = st.lower();
            switch (key) {
                case "ifoffset" -> v.ifOffset = number(once(seen, key, st), 0, 0xFFFFFFFFL);
                case "osindex" -> v.osIndex = bool(once(seen, key, st));
                case "usersockgroup" -> v.usersockGroup = (int) number(once(seen, key, st), 1, 32);
                case "lbcounters" -> v.lbCounters = bool(once(seen, key, st));
                case "lbsourcebase" -> v.lbSourceBase = number(once(seen, key, st), 0, 0xFFFFFFFFL - (1L << 21) + 1);
                default -> warn(st.key.line, "unknown key '" + st.key.text + "' in vpp { } ignored");
            }
        }
        return v;
    }

    private Dropmon dropmon(Block b) throws ConfigException {
        Dropmon d = new Dropmon();
        Map<String, Integer> seen = new HashMap<>();
        for (Setting st : settingsOnly(b)) {
            String key = st.lower();
            switch (key) {
                case "start" -> d.start = bool(once(seen, key, st));
                case "force" -> d.force = bool(once(seen, key, st));
                case "sw" -> d.sw = bool(once(seen, key, st));
                case "hw" -> d.hw = bool(once(seen, key, st));
                case "rn" -> d.rn = bool(once(seen, key, st));
                case "hw_unknown" -> d.hwUnknown = bool(once(seen, key, st));
                case "sw_passive" -> d.swPassive = bool(once(seen, key, st));
                case "hw_passive" -> d.hwPassive = bool(once(seen, key, st));
                case "limit" -> d.limit = (int) number(once(seen, key, st), 1, Dropmon.MAX_LIMIT);
                case "transport" -> {
                    once(seen, key, st);
                    String v = st.value.text.toLowerCase(Locale.ROOT);
                    if (!v.equals("genl") && !v.equals("usersock")) {
                        throw new ConfigException(st.key.line, st.key.text + ": must be genl or usersock, got '"
                                + st.value.text + "'");
                    }
                    d.transport = v;
                }
                case "usersockgroup" -> d.usersockGroup = (int) number(once(seen, key, st), 1, 32);
                case "max" -> d.max = number(once(seen, key, st), 1, 0xFFFFFFFFL);
                case "hide" -> {
                    once(seen, key, st);
                    try {
                        d.hidePattern = Pattern.compile(st.value.text);
                    } catch (PatternSyntaxException e) {
                        throw new ConfigException(st.key.line, st.key.text + ": '" + st.value.text + "' is not a "
                                + "valid regular expression: " + e.getDescription() + " at index " + e.getIndex());
                    }
                    d.hide = st.value.text;
                }
                case "group" -> {
                    number(st, 1, 0xFFFFFFFFL);
                    warn(st.key.line, "dropmon group is deprecated in hsflowd (NET_DM's group is fixed); ignored");
                }
                case "hw_function" -> {
                    bool(st);
                    warn(st.key.line, "dropmon hw_function is deprecated in hsflowd; ignored");
                }
                default -> warn(st.key.line, "unknown key '" + st.key.text + "' in dropmon { } ignored");
            }
        }
        return d;
    }

    /** The settings of a block that may not hold blocks. */
    private static List<Setting> settingsOnly(Block b) throws ConfigException {
        List<Setting> out = new ArrayList<>();
        for (Node n : b.body) {
            if (n instanceof Block inner) {
                throw new ConfigException(inner.name.line, "unexpected block '" + inner.name.text + " {' inside "
                        + b.name.text + " { }");
            }
            out.add((Setting) n);
        }
        return out;
    }

    private void crossChecks(Map<String, Integer> seen) {
        if (c.agentIP != null && c.agentDevice != null) {
            warn(seen.get("agent"), "agent = " + c.agentDevice + " is ignored: agentIP = " + c.agentIP
                    + " (line " + seen.get("agentip") + ") fixes the agent address");
        }
        if (c.agentIP != null && !c.agentCidrs.isEmpty()) {
            warn(seen.get("agent.cidr"), "agent.cidr is ignored: agentIP = " + c.agentIP + " (line "
                    + seen.get("agentip") + ") fixes the agent address");
        }
        if (c.vpp != null && c.psample != null) {
            Psample p = c.psample;
            boolean clash = (p.ingress && (p.group == 3 || p.group == 4))
                    || (p.egress && (p.group + 1 == 3 || p.group + 1 == 4));
            if (clash) {
                warn(0, "psample { group = " + p.group + " } with a vpp { } block: VPP's samples arrive on groups "
                        + "3 (ingress) and 4 (egress) and the vpp module takes them already, so they would be counted "
                        + "twice (host-sflow PR #91); use psample { group = 1 }");
            }
        }
    }

    // ---------------------------------------------------------------- values

    private Setting once(Map<String, Integer> seen, String canonicalKey, Setting st) {
        Integer first = seen.putIfAbsent(canonicalKey, st.key.line);
        if (first != null) {
            warn(st.key.line, "'" + st.key.text + "' is set again (first at line " + first + "); the last value "
                    + "wins");
        }
        return st;
    }

    private void warn(Integer line, String msg) {
        c.warnings.add(line != null && line > 0 ? "line " + line + ": " + msg : msg);
    }

    /**
     * An integer as hsflowd's expectInteger32 reads it: decimal digits with an optional K/M/G multiplier, or 0x
     * hex; checked against [lo, hi].
     */
    private long number(Setting st, long lo, long hi) throws ConfigException {
        String v = st.value.text;
        String key = st.key.text;
        int line = st.key.line;
        boolean negative = v.startsWith("-");
        String body = negative ? v.substring(1) : v;
        long mult = 1;
        long n;
        if (body.length() > 2 && (body.startsWith("0x") || body.startsWith("0X"))
                && body.substring(2).chars().allMatch(ch -> Character.digit(ch, 16) >= 0)) {
            if (body.length() > 2 + 12) {
                throw new ConfigException(line, key + ": " + v + " is out of range " + lo + ".." + hi);
            }
            n = Long.parseLong(body.substring(2), 16);
        } else {
            if (!body.isEmpty()) {
                char last = Character.toUpperCase(body.charAt(body.length() - 1));
                mult = switch (last) {
                    case 'K' -> 1_000L;
                    case 'M' -> 1_000_000L;
                    case 'G' -> 1_000_000_000L;
                    default -> 1L;
                };
                if (mult != 1) {
                    body = body.substring(0, body.length() - 1);
                }
            }
            if (body.isEmpty() || !body.chars().allMatch(ch -> ch >= '0' && ch <= '9')) {
                throw new ConfigException(line, key + ": '" + v + "' is not a number");
            }
            if (body.length() > 12) {
                throw new ConfigException(line, key + ": " + v + " is out of range " + lo + ".." + hi);
            }
            n = Long.parseLong(body) * mult;
            if (body.length() > 1 && body.charAt(0) == '0') {
                warn(line, key + " = " + v + " is read as decimal " + n + "; hsflowd would read the leading 0 as "
                        + "octal");
            }
        }
        if (negative) {
            n = -n;
        }
        if (n < lo || n > hi) {
            throw new ConfigException(line, key + ": " + v + (mult != 1 ? " (= " + n + ")" : "")
                    + " is out of range " + lo + ".." + hi);
        }
        return n;
    }

    private static boolean bool(Setting st) throws ConfigException {
        return switch (st.value.text.toLowerCase(Locale.ROOT)) {
            case "on", "yes", "true", "1" -> true;
            case "off", "no", "false", "0" -> false;
            default -> throw new ConfigException(st.key.line, st.key.text + ": '" + st.value.text
                    + "' is not on/off");
        };
    }

    /** An IPv4 or IPv6 literal, or a host name (resolved later, by {@link HsflowdConfig#runChecks}). */
    private static String address(Setting st) throws ConfigException {
        String v = st.value.text;
        String bad = addressProblem(v);
        if (bad != null) {
            throw new ConfigException(st.key.line, st.key.text + ": '" + v + "' is not an address (" + bad + ")");
        }
        return v;
    }

    /** @return why {@code v} is neither an IP literal nor a host name, or null if it is one */
    static String addressProblem(String v) {
        if (v.indexOf(':') >= 0) {
            // A zone (%eth0, %2) is checked for its form only: whether that interface exists is the host's state at
            // start (runChecks), not the file's syntax.
            int pct = v.indexOf('%');
            if (pct >= 0) {
                String zone = v.substring(pct + 1);
                if (!zone.matches("[A-Za-z0-9_.:@-]{1,15}")) {
                    return "bad IPv6 zone '" + zone + "' (an interface name or index)";
                }
                v = v.substring(0, pct);
            }
            try {
                InetAddress.ofLiteral(v);
                return null;
            } catch (IllegalArgumentException e) {
                return "not a valid IPv6 address";
            }
        }
        if (v.chars().allMatch(ch -> (ch >= '0' && ch <= '9') || ch == '.')) {
            return ipv4Problem(v);
        }
        if (v.length() > 253) {
            return "a host name has at most 253 characters";
        }
        for (String label : v.split("\\.", -1)) {
            if (!HOST_LABEL.matcher(label).matches()) {
                return "expected an IPv4 address, an IPv6 address or a host name";
            }
        }
        return null;
    }

    /** @return why {@code v} (digits and dots) is not a dotted-quad IPv4 address, or null */
    private static String ipv4Problem(String v) {
        String[] parts = v.split("\\.", -1);
        if (parts.length != 4) {
            return "an IPv4 address has 4 dot-separated parts";
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || Integer.parseInt(p) > 255) {
                return "IPv4 parts are 0..255, found '" + p + "'";
            }
        }
        return null;
    }

    private AgentCidr cidr(Setting st) throws ConfigException {
        String v = st.value.text;
        int line = st.key.line;
        boolean exclude = v.startsWith("!");
        String body = exclude ? v.substring(1) : v;
        int slash = body.indexOf('/');
        String usage = " (ADDRESS/BITS, e.g. 10.0.0.0/8 or 2001:db8::/32, '!' in front to exclude)";
        if (slash < 0 || slash != body.lastIndexOf('/')) {
            throw new ConfigException(line, st.key.text + ": '" + v + "' is not a CIDR" + usage);
        }
        String addr = body.substring(0, slash);
        String bits = body.substring(slash + 1);
        InetAddress a;
        if (addr.indexOf(':') >= 0) {
            try {
                a = InetAddress.ofLiteral(addr);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(line, st.key.text + ": '" + v + "' is not a CIDR: '" + addr
                        + "' is not a valid IPv6 address");
            }
        } else {
            String bad = addr.chars().allMatch(ch -> (ch >= '0' && ch <= '9') || ch == '.') ? ipv4Problem(addr)
                    : "not an IP address";
            if (bad != null) {
                throw new ConfigException(line, st.key.text + ": '" + v + "' is not a CIDR: '" + addr + "': " + bad);
            }
            a = InetAddress.ofLiteral(addr);
        }
        int max = a.getAddress().length * 8;
        if (bits.isEmpty() || bits.length() > 3 || !bits.chars().allMatch(ch -> ch >= '0' && ch <= '9')
                || Integer.parseInt(bits) > max) {
            throw new ConfigException(line, st.key.text + ": '" + v + "' is not a CIDR: the prefix length must be "
                    + "0.." + max + ", found '" + bits + "'");
        }
        int prefix = Integer.parseInt(bits);
        byte[] net = a.getAddress();
        boolean hostBits = false;
        for (int k = 0; k < net.length; k++) {
            int keep = Math.clamp(prefix - 8L * k, 0, 8);
            int mask = keep == 0 ? 0 : (0xFF << (8 - keep)) & 0xFF;
            if ((net[k] & ~mask & 0xFF) != 0) {
                hostBits = true;
            }
            net[k] = (byte) (net[k] & mask);
        }
        InetAddress network;
        try {
            network = InetAddress.getByAddress(net);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // 4 or 16 bytes: cannot happen
        }
        if (hostBits) {
            warn(line, st.key.text + " = " + v + " has host bits set: taken as " + (exclude ? "!" : "")
                    + HsflowdConfig.literal(network) + "/" + prefix);
        }
        return new AgentCidr(v, exclude, network, prefix, line);
    }

    /** A Linux interface name (kernel net/core/dev.c dev_valid_name: 1..15 bytes, not . or .., no / : or space). */
    private static String device(Setting st) throws ConfigException {
        String v = st.value.text;
        int bytes = v.getBytes(StandardCharsets.UTF_8).length;
        boolean ok = bytes >= 1 && bytes <= 15 && !v.equals(".") && !v.equals("..")
                && v.chars().noneMatch(ch -> ch == '/' || ch == ':' || Character.isWhitespace(ch) || ch < 0x20);
        if (!ok) {
            throw new ConfigException(st.key.line, st.key.text + ": '" + v + "' is not an interface name (1..15 "
                    + "characters, no '/', ':' or spaces)");
        }
        return v;
    }

    /** An {@code ip netns} name: a file name under /run/netns. */
    private static String netns(Setting st) throws ConfigException {
        String v = st.value.text;
        boolean ok = !v.isEmpty() && v.getBytes(StandardCharsets.UTF_8).length <= 255 && !v.equals(".")
                && !v.equals("..") && v.chars().noneMatch(ch -> ch == '/' || ch < 0x20);
        if (!ok) {
            throw new ConfigException(st.key.line, st.key.text + ": '" + v + "' is not a network namespace name "
                    + "(an `ip netns` name: no '/')");
        }
        return v;
    }

    private static String uuid(Setting st) throws ConfigException {
        var m = UUID.matcher(st.value.text);
        if (!m.matches()) {
            throw new ConfigException(st.key.line, st.key.text + ": '" + st.value.text + "' is not a UUID "
                    + "(32 hex digits, as 8-4-4-4-12)");
        }
        return (m.group(1) + "-" + m.group(2) + "-" + m.group(3) + "-" + m.group(4) + "-" + m.group(5))
                .toLowerCase(Locale.ROOT);
    }
}
