package io.vecflow.cli;

import io.vecflow.hsflowd.ConfigException;
import io.vecflow.hsflowd.HsflowdConfig;
import io.vecflow.hsflowd.HsflowdDaemon;
import io.vecflow.hsflowd.SflowAgent;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.file.Path;
import java.util.Collections;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vecflow hsflowd}: the hsflowd-compatible agent. */
@Command(name = "hsflowd", mixinStandardHelpOptions = true,
        description = "hsflowd-compatible sFlow agent: reads hsflowd.conf, subscribes to PSAMPLE, sends sFlow v5 "
            + "datagrams to every collector.")
final class HsflowdCommand implements Callable<Integer> {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "-f", defaultValue = "/etc/hsflowd.conf", paramLabel = "FILE", description = "Config file (default ${DEFAULT-VALUE}).")
    Path file;

    @Option(names = "-d", description = "Print the effective configuration, then run in the foreground.")
    boolean debug;

    @Option(names = "--check", description = "Validate the config, print what would run, exit (non-zero on errors).")
    boolean check;

    @Override
    public Integer call() throws Exception {
        java.io.PrintWriter out = spec.commandLine().getOut();
        java.io.PrintWriter err = spec.commandLine().getErr();
        HsflowdConfig c;
        try {
            c = HsflowdConfig.load(file);
        } catch (ConfigException e) {
            err.println(file + ": " + e.getMessage());
            err.flush();
            return 2;
        }
        for (String w : c.warnings) {
            err.println(file + ": warning: " + w);
        }
        if (debug || check) {
            out.print(c.describe());
        }
        out.flush();
        err.flush();
        if (check) {
            return 0;
        }
        InetAddress agentAddr = c.agentIP != null ? InetAddress.getByName(c.agentIP) : chooseAgentAddress();
        SflowAgent agent = new SflowAgent(c, agentAddr);
        try (HsflowdDaemon d = new HsflowdDaemon(agent, HsflowdDaemon.openSubscriber(c))) {
            System.err.printf("vecflow hsflowd: agent %s, sampling %d, collectors %s%n", agentAddr.getHostAddress(),
                    c.sampling, c.collectors);
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
            stop.await();
        }
        return 0;
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
