package io.vecflow.cli;

import io.vecflow.common.PrivilegeDrop;
import io.vecflow.hsflowd.AgentAddressWatcher;
import io.vecflow.hsflowd.HsflowdDaemon;
import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.hsflowd.config.ConfigException;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.counters.CounterPoller;
import io.vecflow.hsflowd.net.AgentAddressSelector;
import io.vecflow.hsflowd.net.RtnetlinkAddresses;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.vpp.VppUsersockSubscriber;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code vecflow hsflowd}: the hsflowd-compatible agent. */
@Command(name = "hsflowd", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = "hsflowd-compatible sFlow agent: reads hsflowd.conf, subscribes to PSAMPLE, sends sFlow v5 "
            + "datagrams to every collector. Runs until Ctrl-C or SIGTERM, then sends the pending datagram and "
            + "prints its counters.")
final class HsflowdCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "-f", defaultValue = "/etc/hsflowd.conf", paramLabel = "FILE", description =
            "Config file (default ${DEFAULT-VALUE}).")
    Path file;

    @Option(names = "-d", description = "Print the effective configuration, then run in the foreground.")
    boolean debug;

    @Option(names = "--check", description = "Validate the config (syntax, values, something to send, resolvable "
            + "collectors, the --user), open and close every source it names (psample, vpp, dropmon) as the agent "
            + "would, print what would run, exit: 0 if it can run, 2 if not.")
    boolean check;

    @Option(names = "-u", paramLabel = "UUID", description = "The host UUID sent in host_descr, as hsflowd's -u "
            + "(the config's uuid wins over it; without either: the DMI UUID, else one built from the machine id).")
    String uuid;

    @Option(names = "-m", paramLabel = "MACHINE_ID", description = "The machine id the host UUID is built from when "
            + "there is no other, as hsflowd's -m (default: /etc/machine-id, what systemd's %%m names).")
    String machineId;

    @Option(names = "--user", defaultValue = PrivilegeDrop.DEFAULT_USER, paramLabel = "USER",
            description = "Started as root, the agent opens its netlink sockets, then becomes USER (setgroups(0), "
                + "setgid, setuid) and holds no capability (default ${DEFAULT-VALUE}; root keeps root). "
                + "Ignored when not started as root.")
    String user;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        HsflowdConfig c;
        try {
            c = HsflowdConfig.load(file);
        } catch (ConfigException e) {
            err.println(file + ": " + e.getMessage());
            err.flush();
            return 2;
        } catch (java.io.IOException e) {
            err.println("vecflow hsflowd: " + e.getMessage());
            err.flush();
            return 2;
        }
        for (String w : c.warnings) {
            err.println(file + ": warning: " + w);
        }
        List<String> problems = new java.util.ArrayList<>(c.runChecks());
        c.commandLineUuid = uuid;
        c.commandLineMachineId = machineId;
        io.vecflow.hsflowd.counters.HostUuid.Choice hostUuid = null; // set when -u, -m and the config's uuid parse
        // hsflowd rejects a bad -u / -m while parsing its command line, whatever the config's uuid says
        if (uuid != null && io.vecflow.hsflowd.counters.HostUuid.parse(uuid) == null) {
            problems.add("-u: '" + uuid + "' is not a UUID (16 bytes of hex, e.g. "
                    + "3e8f5a60-0b3c-4d2e-9f11-5a6b7c8d9e0f)");
        } else if (machineId != null && io.vecflow.hsflowd.counters.HostUuid.parse(machineId) == null) {
            problems.add("-m: '" + machineId + "' is not a machine id (16 bytes of hex, as in /etc/machine-id)");
        } else {
            try {
                hostUuid = io.vecflow.hsflowd.counters.HostUuid.forConfig(c); // once: it may run dmidecode
            } catch (IllegalArgumentException e) {
                problems.add(e.getMessage());
            }
        }
        try {
            PrivilegeDrop.checkUser(user);
        } catch (PrivilegeDrop.PrivilegeDropException e) {
            problems.add(e.getMessage());
        }
        if (check && problems.isEmpty()) {
            problems.addAll(probeSources(c));
            String fit = hostSampleFit(c);
            if (fit != null) {
                err.println(file + ": warning: " + fit);
            }
        }
        for (String p : problems) {
            err.println(file + ": " + p);
        }
        if (debug || check) {
            out.print(c.describe());
            if (problems.isEmpty()) {
                out.print(wouldRun(c, hostUuid));
            }
        }
        out.flush();
        err.flush();
        if (!problems.isEmpty()) {
            return 2;
        }
        if (check) {
            return 0;
        }
        // agent address as hsflowd chooses it (agentIP, agent.cidr, agent=DEV, priorities), re-checked every 10 s
        RtnetlinkAddresses rtnl = c.agentIP == null ? RtnetlinkAddresses.open() : null;
        AgentAddressSelector.Choice choice = AgentAddressSelector.select(c.agentIP, cidrs(c), c.agentDevice,
                rtnl == null ? List.of() : rtnl.read());
        InetAddress agentAddr = choice != null ? choice.address() : InetAddress.getByName("127.0.0.1");
        SflowAgent agent = new SflowAgent(c, agentAddr);
        AgentAddressWatcher watcher = rtnl == null ? null : new AgentAddressWatcher(agent, c, rtnl::read, 10_000);
        try (Shutdown sd = Shutdown.install(); RtnetlinkAddresses closeRtnl = rtnl) {
            HsflowdDaemon d;
            VppUsersockSubscriber vpp = null;
            try {
                vpp = HsflowdDaemon.openVppSubscriber(c); // joins group 29 while privileged
                PsampleSubscriber sub = HsflowdDaemon.openSubscriber(c);
                CounterPoller poller;
                try {
                    poller = CounterPoller.open(c, agent, hostUuid.bytes()); // null when polling = 0
                } catch (Exception e) {
                    sub.close();
                    throw e;
                }
                d = new HsflowdDaemon(agent, sub, vpp, watcher, poller);
            } catch (Exception e) {
                if (vpp != null) {
                    vpp.close();
                }
                agent.close();
                throw e;
            }
            io.vecflow.hsflowd.dropmon.DropmonDaemon dropmon = null;
            if (c.dropmon != null) {
                try {
                    io.vecflow.hsflowd.dropmon.DropmonSettings ds =
                            io.vecflow.hsflowd.dropmon.DropmonSettings.from(c.dropmon);
                    dropmon = new io.vecflow.hsflowd.dropmon.DropmonDaemon(agent, ds, c.headerBytes,
                            io.vecflow.hsflowd.dropmon.DropmonDaemon.openSubscriber(ds));
                } catch (Exception e) {
                    d.close();
                    throw e;
                }
            }
            try {
                PrivilegeDrop.Result r;
                try {
                    r = PrivilegeDrop.dropTo(user);
                } catch (PrivilegeDrop.PrivilegeDropException e) {
                    err.println("vecflow hsflowd: " + e.getMessage());
                    err.flush();
                    return 2;
                }
                out.println("vecflow hsflowd: " + r.note());
                out.printf("vecflow hsflowd: agent %s, sub-agent %d, sampling %d, collectors %s, psample %s%n",
                        agentAddr.getHostAddress(), SflowAgent.subAgentIdOf(c), c.sampling, c.collectors,
                        psampleSource(c));
                out.flush();
                sd.await();
            } finally {
                if (dropmon != null) {
                    dropmon.close();
                }
                d.close();
                out.printf("samples received %,d, sent %,d (sub-sampled out %,d, other producer's port %,d, VPP port "
                        + "unknown or without OSINDEX %,d, group not configured %,d), drops from sequence gaps %,d, "
                        + "VPP drops added %,d, counter samples %,d (refused %,d), datagrams sent %,d (failed %,d)%n",
                        agent.samplesIn(), agent.samplesSent(), agent.subSampledOut(), agent.duplicateSamples(),
                        agent.vppInactiveSamples(), agent.samplesIgnored(), agent.sequenceGapDrops(),
                        agent.vppDropsCharged(), agent.counterSamplesSent(),
                        agent.counterSamplesRefused() + agent.counterSamplesDropped(), agent.datagramsSent(),
                        agent.sendFailures());
                out.flush();
            }
        }
        return 0;
    }

    /**
     * Opens and closes every packet, counter and drop source the config names (psample, vpp, dropmon), as the agent
     * would at start, so {@code --check} fails on a source that cannot run here (e.g. genl without the psample
     * module, or not running as root).
     *
     * @return one line per source that cannot be opened
     */
    /**
     * Whether this host's counters sample fits {@code datagramBytes} (hsflowd allows 200): the host sample of this
     * machine, as the poller would build it now, in an otherwise empty datagram.
     *
     * @return a warning naming the sizes, or null when it fits (or polling is off, or the interfaces cannot be read)
     */
    static String hostSampleFit(HsflowdConfig c) {
        if (c.polling <= 0) {
            return null;
        }
        try (io.vecflow.hsflowd.counters.RtnlLinkDumper d = io.vecflow.hsflowd.counters.RtnlLinkDumper.open()) {
            io.vecflow.hsflowd.counters.LinkTable links = new io.vecflow.hsflowd.counters.LinkTable();
            d.dump(links);
            io.vecflow.sflow.CounterSample s = new io.vecflow.sflow.CounterSample();
            new io.vecflow.hsflowd.counters.HostCounters(Path.of("/proc"), Path.of("/sys"), new byte[16])
                    .fill(links, 1, s); // the size only: no UUID choice (dmidecode) for it
            if (new io.vecflow.sflow.DatagramBuilder(c.datagramBytes, new byte[16], 0).addCounterSample(s)) {
                return null;
            }
            io.vecflow.sflow.XdrWriter w = new io.vecflow.sflow.XdrWriter(65_536);
            io.vecflow.sflow.CounterSampleEncoder.encode(s, w);
            return "datagramBytes = " + c.datagramBytes + " cannot hold this host's counters sample (" + w.position()
                    + " bytes plus the datagram header): no host counters would be sent";
        } catch (Exception e) {
            return null;
        }
    }

    static List<String> probeSources(HsflowdConfig c) {
        List<String> out = new java.util.ArrayList<>();
        try (var s = HsflowdDaemon.openSubscriber(c)) {
            // opened, or null without a psample block: fine
        } catch (Exception e) {
            out.add("psample: " + e.getMessage());
        }
        try (var v = HsflowdDaemon.openVppSubscriber(c)) {
            // null without a vpp block
        } catch (Exception e) {
            out.add("vpp: " + e.getMessage());
        }
        if (c.dropmon != null) {
            try (var d = io.vecflow.hsflowd.dropmon.DropmonDaemon.openSubscriber(
                    io.vecflow.hsflowd.dropmon.DropmonSettings.from(c.dropmon))) {
                // opened: fine
            } catch (Exception e) {
                out.add("dropmon: " + e.getMessage());
            }
        }
        return out;
    }

    /** @return a comment line saying what the agent would run with (agent address and how it was chosen). */
    static String wouldRun(HsflowdConfig c, io.vecflow.hsflowd.counters.HostUuid.Choice uuid) throws Exception {
        AgentAddressSelector.Choice choice;
        if (c.agentIP != null) {
            choice = AgentAddressSelector.select(c.agentIP, cidrs(c), c.agentDevice, List.of());
        } else {
            try (RtnetlinkAddresses rtnl = RtnetlinkAddresses.open()) {
                choice = AgentAddressSelector.select(null, cidrs(c), c.agentDevice, rtnl.read());
            }
        }
        String agent = choice == null ? "127.0.0.1 (no usable address)" : choice.address().getHostAddress() + " ("
                + choice.reason() + ")";
        return "# would run: agent " + agent + ", sub-agent " + SflowAgent.subAgentIdOf(c) + ", counters "
                + (c.polling > 0 ? "every " + c.polling + " s" : "off") + ", psample " + psampleSource(c)
                + ", collectors " + c.collectors + ", host uuid " + uuid.text() + " (from "
                + uuid.source().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ")\n";
    }

    /** @return where packet samples come from, for the start line and {@code --check} */
    static String psampleSource(HsflowdConfig c) {
        if (c.psample == null) {
            return "none (no psample { } block: counters only)";
        }
        return c.psample.transport.equals("usersock") ? "usersock group " + c.psample.usersockGroup
                : "genl group \"packets\"";
    }

    private static List<String> cidrs(HsflowdConfig c) {
        return c.agentCidrs.stream().map(HsflowdConfig.AgentCidr::text).toList();
    }
}
