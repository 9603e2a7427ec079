package io.vecflow.hsflowd.config;

import io.vecflow.common.NetNamespace;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An hsflowd.conf (sflow/host-sflow {@code hsflowd.conf}, parser {@code src/Linux/hsflowconfig.c}), parsed and
 * validated. See docs/netlink.md §5 "hsflowd conventions".
 *
 * <p><b>Grammar.</b> One top-level {@code sflow { ... }} block holding {@code key = value} settings and nested
 * {@code name { ... }} blocks ({@code collector}, {@code psample}, {@code vpp}, {@code dropmon}). Keys are
 * case-insensitive; {@code #} starts a comment that runs to the end of the line; whitespace and {@code ;} separate
 * tokens, so several settings may share a line; {@code {}} and {@code =} need no spaces around them
 * ({@code collector{ip=10.0.0.1}}); a value in double quotes may hold any character but {@code "} (for
 * {@code dropmon { hide = "..." }}). A value must sit on its key's line; a block's opening brace may follow on a later
 * line. Blocks nest at most 3 deep (as hsflowd). Integers take hsflowd's suffixes {@code K}, {@code M}, {@code G}
 * (×1000, ×10⁶, ×10⁹) and a {@code 0x} hex form; switches are {@code on}/{@code off} (also yes/no, true/false,
 * 1/0).
 *
 * <p><b>Errors and warnings.</b> Syntax errors and invalid values throw {@link ConfigException} naming the line and
 * the reason. Unknown keys and blocks, hsflowd modules vecflow does not implement, deprecated keys and suspicious
 * combinations produce {@link #warnings} ({@code "line N: ..."}) and parsing continues. Differences from hsflowd,
 * all deliberate: hsflowd fails on unknown keys (we warn); hsflowd reads a leading {@code 0} as octal (we read
 * decimal and warn); hsflowd accepts {@code key value} without {@code =} and {@code headerBytes = 0} (we reject
 * both); hsflowd's {@code psample { group }} is 1..32 (we take 1..2³¹−2, as tc allows more);
 * hsflowd matches {@code sampling.<speed>} keys case-sensitively (we do not).
 *
 * <p><b>vecflow extensions</b>: {@code psample { transport = genl|usersock  usersockGroup = 1..32 }} and
 * {@code vpp { usersockGroup = 1..32 }} (VPP's channel is group 29).
 *
 * <p>The fields are public and mutable so that code can build a config by hand; {@link #parse} is the validated
 * way in. Not thread-safe; treat a parsed instance as read-only once shared.
 */
public final class HsflowdConfig {
    /** Largest hsflowd.conf {@link #load} reads, in bytes (a real one is a few hundred). */
    public static final int MAX_FILE_BYTES = 1 << 20;
    /** hsflowd's default sampling N (SFL_DEFAULT_SAMPLING_RATE). */
    public static final int DEFAULT_SAMPLING = 400;
    /** hsflowd's largest sampling N (HSP_MAX_SAMPLING_N). */
    public static final int MAX_SAMPLING = 10_000_000;
    /** hsflowd's largest polling interval in seconds (HSP_MAX_POLLING_S). */
    public static final int MAX_POLLING = 300;
    /** hsflowd's largest headerBytes (HSP_MAX_HEADER_BYTES). */
    public static final int MAX_HEADER_BYTES = 256;
    /** Smallest / largest datagramBytes (sFlow library SFL_MIN/MAX_DATAGRAM_SIZE). */
    public static final int MIN_DATAGRAM_BYTES = 200, MAX_DATAGRAM_BYTES = 8192;
    /** hsflowd's default and largest subAgentId (HSP_DEFAULT_SUBAGENTID, HSP_MAX_SUBAGENTID). */
    public static final int DEFAULT_SUB_AGENT_ID = 100_000, MAX_SUB_AGENT_ID = 199_999;
    /** hsflowd's default link-speed sampling ratio: N = ifSpeed / this (HSP_SPEED_SAMPLING_RATIO). */
    public static final long SPEED_SAMPLING_RATIO = 1_000_000L;
    /** Smallest N the default link-speed rule gives (HSP_SPEED_SAMPLING_MIN). */
    public static final long SPEED_SAMPLING_MIN = 100L;

    /** sampling: global 1-in-N (default 400; 0..10,000,000; 0 = off). Also read from {@code packetSamplingRate}. */
    public int sampling = DEFAULT_SAMPLING;
    /**
     * {@code sampling.<speed> = N}, keyed by hsflowd's link-speed name ({@link #speedKey}: "100M", "1G", "10G", ...),
     * in file order. See {@link #samplingFor}.
     */
    public final Map<String, Integer> samplingBySpeed = new LinkedHashMap<>();
    /**
     * {@code sampling.bps_ratio}: N = ifSpeed / ratio for links without a speed key; 0 = use {@link #sampling};
     * null = unset.
     */
    public Integer samplingBpsRatio;
    /** {@code sampling.<application>} (e.g. {@code sampling.http}), recorded but not used by vecflow (warned). */
    public final Map<String, Integer> samplingByApp = new LinkedHashMap<>();
    /** {@code polling.<application>}, recorded but not used by vecflow (warned). */
    public final Map<String, Integer> pollingByApp = new LinkedHashMap<>();
    /** polling: counter polling interval in seconds (default 30; 0..300; 0 = off). Alias counterPollingInterval. */
    public int polling = 30;
    /** headerBytes: sampled header bytes (default 128; 1..256). */
    public int headerBytes = 128;
    /** datagramBytes: datagram budget in bytes (default 1400; 200..8192). */
    public int datagramBytes = 1400;
    /** agentIP: the agent address (IP literal or host name), or null to choose one. Wins over agent, agent.cidr. */
    public String agentIP;
    /** agent: the interface whose address should be the agent address (hsflowd pegs the election to it), or null. */
    public String agentDevice;
    /** agent.cidr (repeatable, file order): preferred (or, with {@code !}, excluded) agent address ranges. */
    public final List<AgentCidr> agentCidrs = new ArrayList<>();
    /** subAgentId (default 100000; 0..199999). */
    public long subAgentId = DEFAULT_SUB_AGENT_ID;
    /** uuid: the host UUID for host_descr (lower case, dashed), or null to read the system's. */
    public String uuid;
    /**
     * {@code vecflow hsflowd -u UUID} (hsflowd's -u; not a config-file key), or null. The config's {@link #uuid}
     * wins over it, as in hsflowd, which reads the config after the command line.
     */
    public String commandLineUuid;
    /** {@code vecflow hsflowd -m MACHINE_ID} (hsflowd's -m; not a config-file key), or null for /etc/machine-id. */
    public String commandLineMachineId;
    /** collector blocks (repeatable), in file order. */
    public final List<Collector> collectors = new ArrayList<>();
    /** psample block, or null when absent. */
    public Psample psample;
    /** vpp block, or null when absent. */
    public Vpp vpp;
    /** dropmon block, or null when absent. */
    public Dropmon dropmon;
    /** Warnings (unknown or ignored keys, suspicious combinations), each starting with {@code "line N: "}. */
    public final List<String> warnings = new ArrayList<>();

    /** A {@code collector { ip= udpport= dev= namespace= }} block. */
    public static final class Collector {
        /** Collector address (IPv4 or IPv6 literal, or host name). Required. */
        public String ip;
        /** UDP port (default 6343; 1..65535). */
        public int udpPort = 6343;
        /**
         * dev: send through this interface (a VRF device, e.g. mgmt0; with {@link #namespace}, a device of that
         * namespace), or null. The collector's socket is bound to it with SO_BINDTODEVICE ({@code CollectorSocket}).
         */
        public String dev;
        /**
         * namespace: send from this network namespace (an {@code ip netns} name: {@code /var/run/netns/NAME}), or
         * null. The collector's socket is created inside it ({@link NetNamespace}, {@code CollectorSocket}).
         */
        public String namespace;
        /** Line of the {@code collector {}} block in the file (0 when built in code). */
        public int line;

        /** @return {@code ip:port}, then {@code dev X} / {@code netns Y} when set */
        @Override
        public String toString() {
            return ip + ":" + udpPort + (dev != null ? " dev " + dev : "") + (namespace != null ? " netns " + namespace
                    : "");
        }
    }

    /** A {@code psample { group= ingress= egress= transport= usersockGroup= }} block (hsflowd mod_psample). */
    public static final class Psample {
        /** PSAMPLE sample group of ingress samples (default 1; 1..2³¹−2). */
        public int group = 1;
        /** Take ingress samples from {@link #group} (default on). */
        public boolean ingress = true;
        /** Take egress samples from group + 1 (default off). */
        public boolean egress;
        /** "genl" (family psample, group "packets"; default) or "usersock" (vecflow extension). */
        public String transport = "genl";
        /** NETLINK_USERSOCK multicast group for the usersock transport (default 30; 1..32). */
        public int usersockGroup = 30;
        /**
         * vecflow extension {@code lbDecisions = on|off} (default on): a sample whose PSAMPLE user cookie holds a
         * load-balancer decision ({@code LbDecisionCookie}) gets a "vecflow LB decision" flow record.
         */
        public boolean lbDecisions = true;
        /**
         * vecflow extension {@code lbEnterprise = N} (1..2^20−1): the sFlow enterprise number of that record
         * (data_format = N &lt;&lt; 12 | 1). Default {@value io.vecflow.sflow.LbDecisionRecord#DEFAULT_ENTERPRISE}, RFC
         * 5612's documentation PEN; set your organisation's IANA PEN.
         */
        public int lbEnterprise = io.vecflow.sflow.LbDecisionRecord.DEFAULT_ENTERPRISE;
    }

    /** A {@code vpp { ifOffset= osIndex= usersockGroup= }} block (hsflowd mod_vpp). */
    public static final class Vpp {
        /** ifIndex offset for VPP ports without a Linux ifindex (default 1,000,000,000; 0..2³²−1). */
        public long ifOffset = 1_000_000_000L;
        /** Use VPP's OSINDEX (Linux ifindex) when present (default on). */
        public boolean osIndex = true;
        /** NETLINK_USERSOCK group of VPP's STATUS / IF_COUNTERS channel (default 29; 1..32). */
        public int usersockGroup = 29;
        /**
         * vecflow extension {@code lbCounters = on|off} (default on): the dataplane's LB_COUNTERS messages on the same
         * channel become counters samples carrying the "vecflow LB counters" record (enterprise
         * {@code psample { lbEnterprise }}, format 2).
         */
        public boolean lbCounters = true;
        /**
         * vecflow extension {@code lbSourceBase = N} (0..2^32−2^21; default 2,000,000,000): the LB counters' data
         * sources are ds_class 0 (ifIndex) with index {@code N + vipIndex × 8192 + backendIndex} — the LB's VIP slots
         * 0..255, an SRLB agent's VIPs at 256..271, backendIndex 0 for the VIP's totals else backend slot + 1 — a
         * range above VPP's {@link #ifOffset} ports so no interface shares it.
         */
        public long lbSourceBase = 2_000_000_000L;
    }

    /**
     * A {@code dropmon { ... }} block (hsflowd mod_dropmon; defaults per docs/netlink.md §5 and host-sflow's
     * hsflowconfig.c). The deprecated keys {@code group} and {@code hw_function} are validated, warned and ignored.
     */
    public static final class Dropmon {
        /**
         * Circuit-breaker trip time in seconds: over {@link #max} events/s this long stops the feed (docs/netlink.md
         * §5).
         */
        public static final int MAX_TRIP_SECONDS = 2;
        /** hsflowd's largest {@code limit} (HSP_MAX_NOTIFY_RATELIMIT). */
        public static final int MAX_LIMIT = 10_000;

        /** start: configure and start the kernel's NET_DM feed, stop it on exit if we started it (default on). */
        public boolean start = true;
        /** force: listed with start among the mod_dropmon defaults in docs/netlink.md §5 (default on). */
        public boolean force = true;
        /** sw: report software drops (default on). */
        public boolean sw = true;
        /** hw: report hardware (trap) drops (default on). */
        public boolean hw = true;
        /** rn: map drops by the kernel's REASON string (default on). */
        public boolean rn = true;
        /** hw_unknown: report hardware drops no rule classifies, as reason "unknown" (default off). */
        public boolean hwUnknown;
        /** sw_passive: take software drops from a feed someone else started (default off). */
        public boolean swPassive;
        /** hw_passive: take hardware drops from a feed someone else started (default off). */
        public boolean hwPassive;
        /** hide: drop points matching this regular expression are not reported, or null. */
        public String hide;
        /** {@link #hide} compiled (null when unset). */
        public Pattern hidePattern;
        /** limit: discard events per second sent (default 100; 1..10000); the excess counts as drops. */
        public int limit = 100;
        /** max: circuit breaker, events per second (default 100000; 1..2³²−1). */
        public long max = 100_000L;
        /** vecflow's: how NET_DM alerts arrive, {@code genl} (the kernel's drop_monitor) or {@code usersock}. */
        public String transport = "genl";
        /** vecflow's: the NETLINK_USERSOCK group for the usersock transport (default 31). */
        public int usersockGroup = io.vecflow.netlink.netdm.NetDm.USERSOCK_DEFAULT_GROUP;
    }

    /**
     * One {@code agent.cidr = [!]ADDRESS/BITS} line.
     *
     * @param text the value as written
     * @param exclude true for a {@code !} prefix: addresses in the range are never chosen
     * @param network the range's network address (host bits cleared)
     * @param prefixBits prefix length (0..32 for IPv4, 0..128 for IPv6)
     * @param line line in the file (0 when built in code)
     */
    public record AgentCidr(String text, boolean exclude, InetAddress network, int prefixBits, int line) {
        /** @return true if {@code a} is of the same family and inside the range */
        public boolean contains(InetAddress a) {
            byte[] n = network.getAddress();
            byte[] x = a.getAddress();
            if (n.length != x.length) {
                return false;
            }
            int full = prefixBits / 8;
            for (int i = 0; i < full; i++) {
                if (n[i] != x[i]) {
                    return false;
                }
            }
            int rest = prefixBits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return (n[full] & mask) == (x[full] & mask);
        }
    }

    /**
     * What the agent-address election is told by the file (hsflowd selectAgentAddress): a fixed address wins; else
     * the election among local addresses is pegged to {@code device} when set, and boosted by the CIDRs.
     *
     * @param agentIP agentIP, or null
     * @param device agent (interface name), or null
     * @param cidrs agent.cidr lines in file order (unmodifiable)
     */
    public record AgentSelection(String agentIP, String device, List<AgentCidr> cidrs) {
        /**
         * hsflowd's CIDR boost for one candidate address ({@code agentAddressPriority}): hsflowd keeps the CIDRs in
         * reverse file order and takes the first match in that order, boosting by its 1-based index. So the first
         * CIDR in the file boosts most, and an address matching several CIDRs gets the boost of the <em>last</em>
         * of them in the file.
         *
         * @return 0 when no CIDR matches; -1 when the matching CIDR is a {@code !} exclusion; else the boost, 1 (last
         *         CIDR in the file) .. {@code cidrs.size()} (first)
         */
        public int cidrBoost(InetAddress candidate) {
            for (int j = cidrs.size() - 1; j >= 0; j--) {
                AgentCidr c = cidrs.get(j);
                if (c.contains(candidate)) {
                    return c.exclude() ? -1 : cidrs.size() - j;
                }
            }
            return 0;
        }
    }

    /** @return the agent-address settings as one value (lists are copies; later edits of this config do not show) */
    public AgentSelection agentSelection() {
        return new AgentSelection(agentIP, agentDevice, List.copyOf(agentCidrs));
    }

    /**
     * hsflowd's link-speed name for a speed ({@code printSpeed} in host-sflow util.c): the decimal digits with the
     * last 12, 9, 6 or 3 replaced by T, G, M or K when there are more than that many; so 10⁹ → "1G", 2.5·10⁹ →
     * "2G" (truncated, as hsflowd), 100·10⁶ → "100M", 999 → "999".
     *
     * @param bitsPerSecond link speed, ≥ 0
     */
    public static String speedKey(long bitsPerSecond) {
        String d = Long.toString(bitsPerSecond);
        int n = d.length();
        if (n > 12) {
            return d.substring(0, n - 12) + "T";
        } else if (n > 9) {
            return d.substring(0, n - 9) + "G";
        } else if (n > 6) {
            return d.substring(0, n - 6) + "M";
        } else if (n > 3) {
            return d.substring(0, n - 3) + "K";
        }
        return d;
    }

    /**
     * The sampling N hsflowd would configure on a port of this speed ({@code lookupPacketSamplingRate} in
     * hsflowconfig.c; the "interface down → 0" case is the caller's): unknown speed (≤ 0) → {@link #sampling}; a
     * {@code sampling.<speedKey>} entry → its N; else with {@code sampling.bps_ratio = R}: R &gt; 0 → max(1,
     * speed /
     * R), R = 0 → {@link #sampling}; else hsflowd's default max(100, speed / 1,000,000). Note that this last rule
     * means {@code sampling =} does not apply to ports of known speed unless {@code sampling.bps_ratio = 0}.
     *
     * @param ifSpeedBitsPerSecond the port's speed in bits/s, or 0 if unknown
     * @return N (1-in-N; 0 = off), at most 2³²−1
     */
    public long samplingFor(long ifSpeedBitsPerSecond) {
        if (ifSpeedBitsPerSecond <= 0) {
            return sampling;
        }
        Integer bySpeed = samplingBySpeed.get(speedKey(ifSpeedBitsPerSecond));
        if (bySpeed != null) {
            return bySpeed;
        }
        long n;
        if (samplingBpsRatio != null) {
            if (samplingBpsRatio == 0) {
                return sampling;
            }
            n = Math.max(1, ifSpeedBitsPerSecond / samplingBpsRatio);
        } else {
            n = Math.max(SPEED_SAMPLING_MIN, ifSpeedBitsPerSecond / SPEED_SAMPLING_RATIO);
        }
        return Math.min(n, 0xFFFFFFFFL);
    }

    /** @return the collectors (unmodifiable view) */
    public List<Collector> collectors() {
        return Collections.unmodifiableList(collectors);
    }

    /**
     * Reads and validates a file (UTF-8, at most {@link #MAX_FILE_BYTES}).
     *
     * @throws IOException if the file cannot be read (the message names the file and says why)
     * @throws ConfigException on a syntax error or invalid value (message names the line and the reason), or a file
     *         larger than {@link #MAX_FILE_BYTES}
     */
    public static HsflowdConfig load(Path file) throws IOException, ConfigException {
        String text;
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_BYTES) {
                throw new ConfigException(0, file + " is " + size + " bytes: larger than any hsflowd.conf ("
                        + MAX_FILE_BYTES + " bytes at most)");
            }
            text = Files.readString(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new IOException("cannot read " + file + ": no such file", e);
        } catch (java.nio.file.AccessDeniedException e) {
            throw new IOException("cannot read " + file + ": permission denied", e);
        } catch (java.nio.charset.MalformedInputException e) {
            throw new ConfigException(0, file + " is not UTF-8 text");
        } catch (IOException e) {
            throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return parse(text);
    }

    /**
     * Parses hsflowd.conf text.
     *
     * @throws ConfigException on a syntax error or invalid value (message names the line and the reason)
     */
    public static HsflowdConfig parse(String text) throws ConfigException {
        HsflowdConfig c = new HsflowdConfig();
        new HsflowdConfigParser(c).parse(text);
        return c;
    }

    /**
     * The sub-agent id of the agent's datagrams, as hsflowd 2.1 sends them: hsflowd runs a packet agent
     * ({@code subAgentId}) and a poll agent ({@code subAgentId + 1}; host-sflow src/Linux/hsflowd.c
     * {@code sp->poll_agent}), and with a packet source configured its counter samples travel in the packet agent's
     * datagrams (observed on 2.1.25, docs/netlink.md §5). So {@code subAgentId} with a psample, vpp or dropmon block,
     * {@code subAgentId + 1} for a counters-only config.
     *
     * @return the sub-agent id of every datagram
     */
    public long datagramSubAgentId() {
        return psample != null || vpp != null || dropmon != null ? subAgentId : subAgentId + 1;
    }

    /**
     * What would stop the agent from running with this configuration, beyond the syntax {@link #parse} checks:
     * nothing to send (no psample, vpp or dropmon block and polling off — without a psample block the agent runs
     * counters-only, as hsflowd), collector or agent names that do not resolve, a
     * collector {@code namespace} with no {@code /var/run/netns/NAME} (or {@code /run/netns/NAME}), a collector
     * {@code dev} (without a namespace) that is not an interface of this namespace ({@code /sys/class/net/DEV}; a
     * device inside another namespace is checked when the agent opens the socket). Used by
     * {@code --check} and at start, so that a config that passes {@code --check} runs. May query DNS.
     *
     * @return problems, each naming the line where it applies; empty when the agent can start
     */
    public List<String> runChecks() {
        List<String> problems = new ArrayList<>();
        if (psample == null && vpp == null && dropmon == null && polling <= 0) {
            problems.add("nothing to send: no psample { }, vpp { } or dropmon { } block and polling = 0 (counters off)"
                    + " — remove polling = 0 for a counters-only agent, or add e.g. psample { group = 1 }");
        }
        for (Collector col : collectors) {
            try {
                InetAddress.getByName(col.ip);
            } catch (java.net.UnknownHostException e) {
                problems.add((col.line > 0 ? "line " + col.line + ": " : "") + "collector ip '" + col.ip
                        + "' does not resolve");
            }
            if (col.namespace != null && NetNamespace.find(col.namespace) == null) {
                problems.add((col.line > 0 ? "line " + col.line + ": " : "") + "collector namespace '"
                        + col.namespace + "': no such network namespace (neither /var/run/netns/" + col.namespace
                        + " nor /run/netns/" + col.namespace + " exists; `ip netns add " + col.namespace
                        + "` creates one)");
            }
            if (col.dev != null && col.namespace == null
                    && !java.nio.file.Files.exists(java.nio.file.Path.of("/sys/class/net", col.dev))) {
                problems.add((col.line > 0 ? "line " + col.line + ": " : "") + "collector dev '" + col.dev
                        + "': no such network device (not in /sys/class/net)");
            }
        }
        if (agentIP != null) {
            try {
                InetAddress.getByName(agentIP);
            } catch (java.net.UnknownHostException e) {
                problems.add("agentIP '" + agentIP + "' does not resolve");
            }
        }
        return problems;
    }

    /**
     * @return the effective configuration in hsflowd.conf syntax (for {@code -d} and {@code --check}), every
     *         setting vecflow uses with its value (defaults included); {@link #parse} of it yields the same values.
     *         Ignored settings (application sampling, unsupported modules) are left out.
     */
    public String describe() {
        StringBuilder b = new StringBuilder("sflow {\n");
        b.append("  sampling = ").append(sampling).append('\n');
        samplingBySpeed.forEach((k, v) -> b.append("  sampling.").append(k).append(" = ").append(v).append('\n'));
        if (samplingBpsRatio != null) {
            b.append("  sampling.bps_ratio = ").append(samplingBpsRatio).append('\n');
        }
        b.append("  polling = ").append(polling).append('\n');
        b.append("  headerBytes = ").append(headerBytes).append('\n');
        b.append("  datagramBytes = ").append(datagramBytes).append('\n');
        if (agentIP != null) {
            b.append("  agentIP = ").append(agentIP).append('\n');
        }
        if (agentDevice != null) {
            b.append("  agent = ").append(agentDevice).append('\n');
        }
        for (AgentCidr cidr : agentCidrs) {
            b.append("  agent.cidr = ").append(cidr.exclude() ? "!" : "").append(literal(cidr.network()))
                    .append('/').append(cidr.prefixBits()).append('\n');
        }
        b.append("  subAgentId = ").append(subAgentId);
        if (datagramSubAgentId() != subAgentId) {
            b.append("   # datagrams go out as ").append(datagramSubAgentId()).append(": counters only, as hsflowd's "
                    + "poll agent");
        }
        b.append('\n');
        if (uuid != null) {
            b.append("  uuid = ").append(uuid).append('\n');
        }
        for (Collector col : collectors) {
            b.append("  collector { ip = ").append(col.ip).append(" udpport = ").append(col.udpPort);
            if (col.dev != null) {
                b.append(" dev = ").append(col.dev);
            }
            if (col.namespace != null) {
                b.append(" namespace = ").append(col.namespace);
            }
            b.append(" }\n");
        }
        if (psample != null) {
            b.append("  psample { group = ").append(psample.group).append(" ingress = ").append(onOff(psample.ingress))
                    .append(" egress = ").append(onOff(psample.egress)).append(" transport = ")
                    .append(psample.transport).append(" usersockGroup = ").append(psample.usersockGroup).append(" }\n");
        }
        if (vpp != null) {
            b.append("  vpp { ifOffset = ").append(vpp.ifOffset).append(" osIndex = ").append(onOff(vpp.osIndex))
                    .append(" usersockGroup = ").append(vpp.usersockGroup).append(" }\n");
        }
        if (dropmon != null) {
            Dropmon d = dropmon;
            b.append("  dropmon { start = ").append(onOff(d.start)).append(" force = ").append(onOff(d.force))
                    .append(" sw = ").append(onOff(d.sw)).append(" hw = ").append(onOff(d.hw)).append(" rn = ")
                    .append(onOff(d.rn)).append("\n            hw_unknown = ").append(onOff(d.hwUnknown))
                    .append(" sw_passive = ").append(onOff(d.swPassive)).append(" hw_passive = ")
                    .append(onOff(d.hwPassive)).append(" limit = ").append(d.limit).append(" max = ").append(d.max);
            if (d.hide != null) {
                b.append(" hide = \"").append(d.hide).append('"');
            }
            b.append(" }\n");
        }
        return b.append("}\n").toString();
    }

    /** @return the address in its usual text form (IPv6 compressed with "::", RFC 5952 §4) */
    static String literal(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length == 4) {
            return a.getHostAddress();
        }
        int[] g = new int[8];
        for (int k = 0; k < 8; k++) {
            g[k] = (b[2 * k] & 0xFF) << 8 | (b[2 * k + 1] & 0xFF);
        }
        int bestAt = -1, bestLen = 1; // a single zero group is not compressed (RFC 5952 4.2.2)
        for (int k = 0; k < 8; ) {
            int run = 0;
            while (k + run < 8 && g[k + run] == 0) {
                run++;
            }
            if (run > bestLen) {
                bestAt = k;
                bestLen = run;
            }
            k += Math.max(run, 1);
        }
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < 8; k++) {
            if (k == bestAt) {
                s.append("::");
                k += bestLen - 1;
                continue;
            }
            if (!s.isEmpty() && s.charAt(s.length() - 1) != ':') {
                s.append(':');
            }
            s.append(Integer.toHexString(g[k]));
        }
        return s.toString();
    }

    private static String onOff(boolean b) {
        return b ? "on" : "off";
    }
}
