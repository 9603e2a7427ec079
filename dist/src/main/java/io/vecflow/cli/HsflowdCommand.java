package io.vecflow.cli;

import io.vecflow.hsflowd.ConfigException;
import io.vecflow.hsflowd.HsflowdConfig;
import io.vecflow.hsflowd.HsflowdDaemon;
import io.vecflow.hsflowd.SflowAgent;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vecflow hsflowd}: the hsflowd-compatible agent. */
@Command(name = "hsflowd", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = "hsflowd-compatible sFlow agent: reads hsflowd.conf, subscribes to PSAMPLE, sends sFlow v5 "
            + "datagrams to every collector. Runs until Ctrl-C or SIGTERM, then sends the pending datagram and "
            + "prints its counters.")
final class HsflowdCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "-f", defaultValue = "/etc/hsflowd.conf", paramLabel = "FILE", description = "Config file (default ${DEFAULT-VALUE}).")
    Path file;

    @Option(names = "-d", description = "Print the effective configuration, then run in the foreground.")
    boolean debug;

    @Option(names = "--check", description = "Validate the config (syntax, values, a packet source, resolvable "
            + "collectors), print what would run, exit: 0 if it can run, 2 if not.")
    boolean check;

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
        List<String> problems = c.runChecks();
        for (String p : problems) {
            err.println(file + ": " + p);
        }
        if (debug || check) {
            out.print(c.describe());
            if (problems.isEmpty()) {
                out.print(wouldRun(c));
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
        InetAddress agentAddr = c.agentIP != null ? InetAddress.getByName(c.agentIP) : chooseAgentAddress();
        SflowAgent agent = new SflowAgent(c, agentAddr);
        try (Shutdown sd = Shutdown.install()) {
            HsflowdDaemon d;
            try {
                d = new HsflowdDaemon(agent, HsflowdDaemon.openSubscriber(c));
            } catch (Exception e) {
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
                out.printf("vecflow hsflowd: agent %s, sub-agent %d, sampling %d, collectors %s, psample %s%n",
                        agentAddr.getHostAddress(), c.subAgentId, c.sampling, c.collectors,
                        c.psample.transport.equals("usersock") ? "usersock group " + c.psample.usersockGroup
                                : "genl group \"packets\"");
                out.flush();
                sd.await();
            } finally {
                if (dropmon != null) {
                    dropmon.close();
                }
                d.close();
                out.printf("samples received %,d, sent %,d (sub-sampled out %,d), drops from sequence gaps %,d, "
                        + "datagrams sent %,d (failed %,d)%n", agent.samplesIn(), agent.samplesSent(),
                        agent.subSampledOut(), agent.sequenceGapDrops(), agent.datagramsSent(), agent.sendFailures());
                out.flush();
            }
        }
        return 0;
    }

    /** @return a comment line saying what the agent would run with (agent address and how it was chosen). */
    static String wouldRun(HsflowdConfig c) throws Exception {
        InetAddress a = c.agentIP != null ? InetAddress.getByName(c.agentIP) : chooseAgentAddress();
        String how = c.agentIP != null ? "agentIP" : "chosen: lowest non-loopback IPv4"
                + (c.agentDevice != null || !c.agentCidrs.isEmpty() ? "; agent / agent.cidr not applied yet" : "");
        String psample = c.psample.transport.equals("usersock") ? "usersock group " + c.psample.usersockGroup
                : "genl group \"packets\"";
        return "# would run: agent " + a.getHostAddress() + " (" + how + "), sub-agent " + c.subAgentId
                + ", psample " + psample + ", collectors " + c.collectors + "\n";
    }

    /** Deterministic choice (hsflowd fault #11): the lowest non-loopback IPv4 address, else 127.0.0.1. */
    static InetAddress chooseAgentAddress() throws Exception {
        InetAddress best = null;
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!ni.isUp() || ni.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                if (a instanceof Inet4Address && (best == null
                        || Integer.compareUnsigned(toInt(a), toInt(best)) < 0)) {
                    best = a;
                }
            }
        }
        return best != null ? best : InetAddress.getByName("127.0.0.1");
    }

    private static int toInt(InetAddress a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }
}
