package io.vecflow.dataplane.control;

import io.vecflow.dataplane.control.DataplaneControl.Direction;
import io.vecflow.dataplane.plugins.lb.EncapType;
import io.vecflow.dataplane.plugins.lb.Protocol;
import io.vecflow.dataplane.plugins.lb.Vip;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable;
import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses one control command line into one {@link DataplaneControl} call, VPP-style: words separated by blanks,
 * keywords in lower case, checked in full before anything runs (a bad line never half-applies). Errors name the
 * offending word, its position and column ({@link CommandSyntaxException}).
 *
 * <p>Commands (VPP's words; sources: FDio/vpp {@code src/plugins/sflow/sflow.c} and {@code src/plugins/lb/cli.c}):
 * <pre>
 * sflow sampling-rate N               N = 0 disables, else 1..2147483647 (VPP default 10000)
 * sflow polling-interval S            seconds, 1..86400 (0 rejected: VPP divides by it, docs/netlink.md §6 rule 15)
 * sflow header-bytes B                64..256 in steps of 32 (VPP rounds and clamps; vecflow rejects)
 * sflow direction rx|tx|both
 * sflow enable IF | sflow disable IF  (VPP's sflow enable-disable IF [disable] is accepted too)
 * sflow drop-monitoring enable|disable
 * show sflow | show errors | show interfaces | show runtime | show lb | show lb flows | show srlb | show clove
 * srlb load N                          the SRLB server agent's test load metric (a finite number,
 *                                      docs/load-balancing.md §3)
 * lb vip [add|del] PREFIX [protocol tcp|udp port N] [encap gre4|gre6|ipip|srv6|srlb] [new_len M] [del]
 * lb as [add|del] VIP-PREFIX [protocol tcp|udp port N] ADDRESS... [del] [flush]
 * help
 * </pre>
 * VPP's lb writes {@code del} last and has no {@code add}; both placements are accepted. {@code new_len} is the
 * Maglev table size, a prime in 2..{@value MaglevTable#MAX_SIZE} (default {@value #DEFAULT_NEW_LEN}; VPP's is a power
 * of two for its own hash). VPP's {@code encap l3dsr|nat4|nat6}, {@code dscp}, {@code type} and {@code target_port} are
 * recognised and rejected as unsupported. Addresses are IP literals only (no name lookups); a VIP prefix must have its
 * host bits clear. Stateless and thread-safe.
 */
public final class CommandParser {
    private CommandParser() {}

    /** Default Maglev table size for {@code new_len} (Katran's and the paper's 65537). */
    public static final int DEFAULT_NEW_LEN = MaglevTable.DEFAULT_SIZE;
    /** Largest polling interval accepted, seconds (one day). */
    public static final int MAX_POLLING_INTERVAL_S = 86_400;
    /** Header-bytes range and step (VPP: 64..256, multiples of 32). */
    public static final int MIN_HEADER_BYTES = 64, MAX_HEADER_BYTES = 256, HEADER_BYTES_STEP = 32;

    /** One parsed command: run it against a dataplane. */
    @FunctionalInterface
    public interface Action {
        /**
         * @return the text to show (empty for the setting commands)
         * @throws ControlException the dataplane could not do it
         */
        String run(DataplaneControl control) throws ControlException;
    }

    /**
     * A parsed command line.
     *
     * @param words  the words, as typed
     * @param action the single call it makes
     */
    public record Command(List<String> words, Action action) {
        /** Runs the call. @throws ControlException as {@link Action#run} */
        public String run(DataplaneControl control) throws ControlException {
            return action.run(control);
        }

        /** The words joined by single spaces (for logs). */
        public String text() {
            return String.join(" ", words);
        }
    }

    /** The help text ({@code help}): the commands, lines under 80 columns. */
    public static String help() {
        return """
                sflow sampling-rate N          1-in-N sampling (mean random skip); 0 = off
                sflow polling-interval S       interface counters every S s (1..86400)
                sflow header-bytes B           bytes per sample: 64..256, a multiple of 32
                sflow direction rx|tx|both     directions sampled
                sflow enable IF | sflow disable IF
                                               sampling on one interface (by name)
                sflow drop-monitoring enable|disable
                                               NET_DM alerts for dropped packets
                show sflow | errors | interfaces | runtime | lb | lb flows | srlb | clove
                srlb load N                    SRLB server agent: set the test load metric
                lb vip [add|del] PREFIX [protocol tcp|udp port N]
                       [encap gre4|gre6|ipip|srv6|srlb] [new_len M] [del]
                lb as [add|del] VIP-PREFIX [protocol tcp|udp port N] ADDRESS... [del] [flush]
                help
                """;
    }

    /**
     * Parses a command line.
     *
     * @param line one line (without the newline)
     * @return the command, ready to run
     * @throws CommandSyntaxException an empty line, an unknown word, a missing argument, a value out of range (the
     *                                message names the word, its position and column, and what was expected)
     */
    public static Command parse(String line) throws CommandSyntaxException {
        Cursor c = new Cursor(line);
        if (c.atEnd()) {
            throw c.error("an empty command: type help for the list");
        }
        Tok first = c.next("a command: sflow, show, lb, srlb or help");
        Action a = switch (first.text) {
            case "help" -> {
                c.end();
                yield d -> help();
            }
            case "sflow" -> sflow(c);
            case "show" -> show(c);
            case "lb" -> lb(c);
            case "srlb" -> srlb(c);
            default -> throw c.errorAt(first, "unknown command; expected sflow, show, lb, srlb or help");
        };
        return new Command(c.words(), a);
    }

    private static Action sflow(Cursor c) throws CommandSyntaxException {
        Tok t = c.next("sampling-rate, polling-interval, header-bytes, direction, enable, disable or drop-monitoring");
        switch (t.text) {
            case "sampling-rate" -> {
                int n = c.number("a sampling rate N (0 disables, else 1..2147483647)", 0, Integer.MAX_VALUE);
                c.end();
                return d -> {
                    d.setSamplingRate(n);
                    return "";
                };
            }
            case "polling-interval" -> {
                Tok v = c.peek();
                int s = c.number("a polling interval in seconds (1.." + MAX_POLLING_INTERVAL_S + ")", 0,
                        MAX_POLLING_INTERVAL_S);
                if (s == 0) {
                    throw c.errorAt(v, "a polling interval of 0 s is not allowed (VPP divides by it); use 1.."
                            + MAX_POLLING_INTERVAL_S);
                }
                c.end();
                return d -> {
                    d.setPollingInterval(s);
                    return "";
                };
            }
            case "header-bytes" -> {
                Tok v = c.peek();
                int b = c.number("header bytes (64..256, a multiple of 32)", 0, Integer.MAX_VALUE);
                if (b < MIN_HEADER_BYTES || b > MAX_HEADER_BYTES || b % HEADER_BYTES_STEP != 0) {
                    throw c.errorAt(v, "header bytes must be 64..256 and a multiple of 32 (64, 96, 128, 160, 192, "
                            + "224 or 256)");
                }
                c.end();
                return d -> {
                    d.setHeaderBytes(b);
                    return "";
                };
            }
            case "direction" -> {
                Tok v = c.next("rx, tx or both");
                Direction dir = switch (v.text) {
                    case "rx" -> Direction.RX;
                    case "tx" -> Direction.TX;
                    case "both" -> Direction.BOTH;
                    default -> throw c.errorAt(v, "expected rx, tx or both");
                };
                c.end();
                return d -> {
                    d.setDirection(dir);
                    return "";
                };
            }
            case "enable", "disable" -> {
                boolean on = t.text.equals("enable");
                String ifName = c.next("an interface name").text;
                c.end();
                return d -> {
                    d.setInterfaceSampling(ifName, on);
                    return "";
                };
            }
            case "enable-disable" -> { // VPP: sflow enable-disable <interface> [disable]
                String ifName = c.next("an interface name").text;
                boolean on = true;
                if (!c.atEnd()) {
                    Tok v = c.next("disable");
                    if (!v.text.equals("disable")) {
                        throw c.errorAt(v, "expected disable or the end of the line");
                    }
                    on = false;
                }
                c.end();
                boolean enable = on;
                return d -> {
                    d.setInterfaceSampling(ifName, enable);
                    return "";
                };
            }
            case "drop-monitoring" -> {
                Tok v = c.next("enable or disable");
                boolean on = switch (v.text) {
                    case "enable" -> true;
                    case "disable" -> false;
                    default -> throw c.errorAt(v, "expected enable or disable");
                };
                c.end();
                return d -> {
                    d.setDropMonitoring(on);
                    return "";
                };
            }
            default -> throw c.errorAt(t, "unknown sflow setting; expected sampling-rate, polling-interval, "
                    + "header-bytes, direction, enable, disable or drop-monitoring");
        }
    }

    private static Action show(Cursor c) throws CommandSyntaxException {
        Tok t = c.next("sflow, errors, interfaces, runtime, lb, srlb or clove");
        Action a = switch (t.text) {
            case "sflow" -> DataplaneControl::showSflow;
            case "errors" -> DataplaneControl::showErrors;
            case "interfaces" -> DataplaneControl::showInterfaces;
            case "runtime" -> DataplaneControl::showRuntime;
            case "lb" -> {
                if (c.atEnd()) {
                    yield DataplaneControl::showLb;
                }
                Tok v = c.next("flows");
                if (!v.text.equals("flows")) {
                    throw c.errorAt(v, "expected flows or the end of the line");
                }
                yield DataplaneControl::showLbFlows;
            }
            case "srlb" -> DataplaneControl::showSrlb;
            case "clove" -> DataplaneControl::showClove;
            default -> throw c.errorAt(t, "expected sflow, errors, interfaces, runtime, lb, srlb or clove");
        };
        c.end();
        return a;
    }

    private static Action srlb(Cursor c) throws CommandSyntaxException {
        Tok t = c.next("load");
        if (!t.text.equals("load")) {
            throw c.errorAt(t, "expected load");
        }
        Tok v = c.next("a load value N (a finite number, e.g. 3 busy workers)");
        double n;
        try {
            n = Double.parseDouble(v.text);
        } catch (NumberFormatException e) {
            throw c.errorAt(v, "expected a number");
        }
        if (!Double.isFinite(n) || !v.text.matches("[-+]?[0-9]+(\\.[0-9]+)?")) {
            throw c.errorAt(v, "expected a finite decimal number");
        }
        c.end();
        return d -> {
            d.setSrlbLoad(n);
            return "";
        };
    }

    private static Action lb(Cursor c) throws CommandSyntaxException {
        Tok t = c.next("vip or as");
        return switch (t.text) {
            case "vip" -> lbVip(c);
            case "as" -> lbAs(c);
            default -> throw c.errorAt(t, "expected vip or as");
        };
    }

    /** The add|del word VPP does not have, before the prefix; returns null if absent. */
    private static Tok leadingVerb(Cursor c) throws CommandSyntaxException {
        Tok p = c.peek();
        if (p != null && (p.text.equals("add") || p.text.equals("del"))) {
            return c.next("");
        }
        return null;
    }

    /** protocol tcp|udp and port N, shared by lb vip and lb as. */
    private static final class L4 {
        Tok protocolTok, portTok;
        Protocol protocol;
        int port;

        boolean accept(Cursor c, Tok t) throws CommandSyntaxException {
            switch (t.text) {
                case "protocol" -> {
                    once(c, protocolTok, t);
                    protocolTok = t;
                    Tok v = c.next("tcp or udp");
                    protocol = switch (v.text) {
                        case "tcp" -> Protocol.TCP;
                        case "udp" -> Protocol.UDP;
                        default -> throw c.errorAt(v, "expected tcp or udp");
                    };
                    return true;
                }
                case "port" -> {
                    once(c, portTok, t);
                    portTok = t;
                    port = c.number("a port number (1..65535)", 1, 65535);
                    return true;
                }
                default -> {
                    return false;
                }
            }
        }

        void check(Cursor c) throws CommandSyntaxException {
            if (protocolTok != null && portTok == null) {
                throw c.errorAt(protocolTok, "protocol needs port N too (a per-port VIP); leave both out for an "
                        + "all-port VIP");
            }
            if (portTok != null && protocolTok == null) {
                throw c.errorAt(portTok, "port needs protocol tcp or udp too (a per-port VIP)");
            }
        }
    }

    private static void once(Cursor c, Tok earlier, Tok t) throws CommandSyntaxException {
        if (earlier != null) {
            throw c.errorAt(t, "given twice (first as token " + earlier.index + ")");
        }
    }

    private static Action lbVip(Cursor c) throws CommandSyntaxException {
        Tok verb = leadingVerb(c);
        Prefix p = prefix(c, "a VIP prefix such as 192.0.2.1/32 or 2001:db8::1/128");
        L4 l4 = new L4();
        Tok encapTok = null, newLenTok = null, delTok = verb != null && verb.text.equals("del") ? verb : null;
        EncapType encap = EncapType.GRE4;
        int newLen = DEFAULT_NEW_LEN;
        while (!c.atEnd()) {
            Tok t = c.next("");
            if (l4.accept(c, t)) {
                continue;
            }
            switch (t.text) {
                case "encap" -> {
                    once(c, encapTok, t);
                    encapTok = t;
                    Tok v = c.next("gre4, gre6, ipip, srv6 or srlb");
                    encap = switch (v.text) {
                        case "gre4" -> EncapType.GRE4;
                        case "gre6" -> EncapType.GRE6;
                        case "ipip" -> EncapType.IPIP;
                        case "srv6" -> EncapType.SRV6;
                        case "srlb" -> EncapType.SRLB;
                        case "l3dsr", "nat4", "nat6" -> throw c.errorAt(v, "VPP's encap " + v.text
                                + " is not implemented by vecflow; use gre4, gre6, ipip, srv6 or srlb");
                        default -> throw c.errorAt(v, "expected gre4, gre6, ipip, srv6 or srlb");
                    };
                }
                case "new_len" -> {
                    once(c, newLenTok, t);
                    newLenTok = t;
                    Tok v = c.peek();
                    newLen = c.number("a Maglev table size (a prime, 2.." + MaglevTable.MAX_SIZE + ")", 2,
                            MaglevTable.MAX_SIZE);
                    if (!BigInteger.valueOf(newLen).isProbablePrime(50)) {
                        throw c.errorAt(v, "new_len must be a prime (the Maglev table size; e.g. 65537, 1009, "
                                + "16777213)");
                    }
                }
                case "del" -> {
                    if (verb != null && verb.text.equals("add")) {
                        throw c.errorAt(t, "del contradicts add (token " + verb.index + ")");
                    }
                    once(c, delTok, t);
                    delTok = t;
                }
                case "dscp", "type", "target_port" -> throw c.errorAt(t, "VPP's " + t.text
                        + " applies to its l3dsr/nat encaps, which vecflow does not implement");
                default -> throw c.errorAt(t, "expected protocol, port, encap, new_len or del");
            }
        }
        l4.check(c);
        VipKey key = vipKey(c, p, l4);
        if (delTok != null) {
            Tok extra = encapTok != null ? encapTok : newLenTok;
            if (extra != null) {
                throw c.errorAt(extra, extra.text + " applies only when adding a VIP");
            }
            return d -> {
                d.delVip(key);
                return "";
            };
        }
        Vip vip = new Vip(key, encap, newLen);
        return d -> {
            d.addVip(vip);
            return "";
        };
    }

    private static Action lbAs(Cursor c) throws CommandSyntaxException {
        Tok verb = leadingVerb(c);
        Prefix p = prefix(c, "the VIP prefix the servers belong to, e.g. 192.0.2.1/32");
        L4 l4 = new L4();
        Tok delTok = verb != null && verb.text.equals("del") ? verb : null, flushTok = null;
        List<InetAddress> addresses = new ArrayList<>();
        List<Tok> addressToks = new ArrayList<>();
        while (!c.atEnd()) {
            Tok t = c.next("");
            if (l4.accept(c, t)) {
                continue;
            }
            switch (t.text) {
                case "del" -> {
                    if (verb != null && verb.text.equals("add")) {
                        throw c.errorAt(t, "del contradicts add (token " + verb.index + ")");
                    }
                    once(c, delTok, t);
                    delTok = t;
                }
                case "flush" -> {
                    once(c, flushTok, t);
                    flushTok = t;
                }
                default -> {
                    InetAddress a = address(t.text);
                    if (a == null) {
                        throw c.errorAt(t, t.text.contains("/") ? "expected a server address, not a prefix"
                                : "expected a server address (IPv4 or IPv6 literal), protocol, port, del or flush");
                    }
                    int dup = addresses.indexOf(a);
                    if (dup >= 0) {
                        throw c.errorAt(t, "address given twice (first as token " + addressToks.get(dup).index + ")");
                    }
                    addresses.add(a);
                    addressToks.add(t);
                }
            }
        }
        if (addresses.isEmpty()) {
            throw c.error("expected one or more server addresses");
        }
        if (flushTok != null && delTok == null) {
            throw c.errorAt(flushTok, "flush applies only with del (it drops the removed servers' flows)");
        }
        l4.check(c);
        VipKey key = vipKey(c, p, l4);
        List<InetAddress> as = List.copyOf(addresses);
        if (delTok != null) {
            boolean flush = flushTok != null;
            return d -> {
                d.delBackends(key, as, flush);
                return "";
            };
        }
        return d -> {
            d.addBackends(key, as);
            return "";
        };
    }

    private record Prefix(Tok tok, InetAddress address, int length) {}

    private static VipKey vipKey(Cursor c, Prefix p, L4 l4) {
        return new VipKey(p.address, p.length, l4.protocol, l4.protocolTok == null ? 0 : l4.port);
    }

    private static Prefix prefix(Cursor c, String expected) throws CommandSyntaxException {
        Tok t = c.next(expected);
        int slash = t.text.indexOf('/');
        InetAddress a = slash < 0 ? null : address(t.text.substring(0, slash));
        if (a == null) {
            throw c.errorAt(t, "expected " + expected);
        }
        String len = t.text.substring(slash + 1);
        int max = a.getAddress().length * 8;
        if (!len.matches("[0-9]{1,3}") || Integer.parseInt(len) > max) {
            throw c.errorAt(t, "prefix length must be 0.." + max);
        }
        int n = Integer.parseInt(len);
        byte[] b = a.getAddress();
        boolean hostBits = false;
        for (int bit = n; bit < max; bit++) {
            if ((b[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
                hostBits = true;
                b[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
            }
        }
        if (hostBits) {
            String net;
            try {
                net = InetAddress.getByAddress(b).getHostAddress();
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(e); // cannot happen: 4 or 16 bytes
            }
            throw c.errorAt(t, "host bits are set; did you mean " + net + "/" + n + "?");
        }
        return new Prefix(t, a, n);
    }

    /** An IPv4 dotted quad or an IPv6 literal (no zone), without any name lookup; null otherwise. */
    static InetAddress address(String s) {
        try {
            if (s.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
                return Inet4Address.ofLiteral(s);
            }
            if (s.indexOf(':') >= 0 && s.indexOf('%') < 0 && s.matches("[0-9A-Fa-f:.]+")) {
                return Inet6Address.ofLiteral(s);
            }
        } catch (IllegalArgumentException e) {
            return null;
        }
        return null;
    }

    /** One word with its 1-based index and column. */
    private record Tok(String text, int index, int column) {}

    /** Walks the words of a line. */
    private static final class Cursor {
        private final List<Tok> toks = new ArrayList<>();
        private final int lineLength;
        private int i;

        Cursor(String line) {
            lineLength = line.length();
            int n = 0;
            int p = 0;
            while (p < line.length()) {
                while (p < line.length() && Character.isWhitespace(line.charAt(p))) {
                    p++;
                }
                int start = p;
                while (p < line.length() && !Character.isWhitespace(line.charAt(p))) {
                    p++;
                }
                if (p > start) {
                    toks.add(new Tok(line.substring(start, p), ++n, start + 1));
                }
            }
        }

        List<String> words() {
            List<String> w = new ArrayList<>(toks.size());
            for (Tok t : toks) {
                w.add(t.text);
            }
            return w;
        }

        boolean atEnd() {
            return i >= toks.size();
        }

        Tok peek() {
            return atEnd() ? null : toks.get(i);
        }

        Tok next(String expected) throws CommandSyntaxException {
            if (atEnd()) {
                throw error("expected " + expected);
            }
            return toks.get(i++);
        }

        int number(String expected, long min, long max) throws CommandSyntaxException {
            Tok t = next(expected);
            if (!t.text.matches("[0-9]{1,10}")) {
                throw errorAt(t, "expected " + expected);
            }
            long v = Long.parseLong(t.text);
            if (v < min || v > max) {
                throw errorAt(t, v + " is out of range: expected " + expected);
            }
            return (int) v;
        }

        void end() throws CommandSyntaxException {
            if (!atEnd()) {
                throw errorAt(toks.get(i), "unexpected word; the command ends before it");
            }
        }

        CommandSyntaxException error(String problem) {
            return new CommandSyntaxException(toks.size() + 1, null, lineLength + 1, problem);
        }

        CommandSyntaxException errorAt(Tok t, String problem) {
            return new CommandSyntaxException(t.index, t.text, t.column, problem);
        }
    }
}
