package io.vecflow.cli;

import static io.vecflow.cli.VecflowCommand.require;

import io.vecflow.common.PrivilegeDrop;
import io.vecflow.dataplane.Dataplane;
import io.vecflow.dataplane.DataplaneAssembly;
import io.vecflow.dataplane.config.DataplaneConfig;
import io.vecflow.dataplane.config.DataplaneConfigException;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.packet.PcapFile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code vecflow dataplane}: replays a capture through the dataplane and emits PSAMPLE for any listening agent. */
@Command(name = "dataplane", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = {"Runs the vector dataplane. With --config FILE: the ports, cross-connects, routes and sFlow "
            + "settings of a YAML file (see --example-config), AF_PACKET ports in network namespaces, a control "
            + "socket for `vecflow ctl`, PSAMPLE / NET_DM / IF_COUNTERS over netlink; runs until Ctrl-C (or until "
            + "every replay/generator port is done).",
            "Without --config: replays a capture (port-input -> sflow -> ethernet-input -> l2-xconnect) and emits "
            + "every sample as a PSAMPLE message; pair it with `vecflow hsflowd` or watch with `vecflow psample "
            + "listen`. Stops at the end of the replay or on Ctrl-C, and prints its counters."})
final class DataplaneCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description =
            "Dataplane YAML configuration (the replay options below are then ignored).")
    Path config;

    @Option(names = "--example-config", description = "Print a documented example configuration and exit.")
    boolean exampleConfig;

    @Option(names = "--check-config", description = "Validate --config and exit (0 = valid).")
    boolean checkConfig;

    @Option(names = "--user", paramLabel = "USER", description = "With --config, started as root: once the ports and "
            + "sockets are open, become USER with no capability, except CAP_NET_ADMIN on the main thread when "
            + "sflow.transport is genl (each PSAMPLE / NET_DM send needs it). Default: keep the identity started "
            + "with.")
    String user;

    @Option(names = "--capture", paramLabel = "FILE", description = "Ethernet pcap (default: the bundled capture).")
    Path capture;

    @Option(names = "--loops", defaultValue = "1", description = "Replays, >= 1 (default ${DEFAULT-VALUE}).")
    long loops;

    @Option(names = "--pps", defaultValue = "0", description =
            "Packets/s over all workers, 0 = as fast as possible (default ${DEFAULT-VALUE}).")
    double pps;

    @Option(names = "--workers", defaultValue = "2", description = "Worker threads, 1..64 (default ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--sampling-rate", defaultValue = "10000", paramLabel = "N", description =
            "1-in-N sampling, 0 = off (default ${DEFAULT-VALUE}, VPP's default; a short replay may see no sample).")
    int samplingRate;

    @Option(names = "--header-bytes", defaultValue = "128", description =
            "Header bytes per sample, 1..256 (default ${DEFAULT-VALUE}).")
    int headerBytes;

    @Option(names = "--fifo-size", defaultValue = "2047", description =
            "Sample FIFO slots per worker, >= 2 (default ${DEFAULT-VALUE}).")
    int fifoSize;

    @Option(names = "--transport", defaultValue = "usersock", description =
            "genl (needs the psample kernel module) or usersock (default ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--netlink-group", defaultValue = "30", description =
            "USERSOCK multicast group, 1..32 (default ${DEFAULT-VALUE}).")
    int group;

    @Option(names = "--sample-group", defaultValue = "1", description =
            "PSAMPLE sample group, as in hsflowd's psample { group } (default ${DEFAULT-VALUE}).")
    int sampleGroup;

    @Override
    public Integer call() throws Exception {
        PrintWriter out0 = spec.commandLine().getOut();
        if (exampleConfig) {
            out0.print(DataplaneConfig.example());
            out0.flush();
            return 0;
        }
        if (config != null) {
            return runConfig(out0);
        }
        if (user != null && config == null) {
            throw new VecflowCommand.UsageException("--user needs --config (the replay without it opens no port "
                    + "that needs root)");
        }
        if (user != null) {
            try {
                PrivilegeDrop.checkUser(user);
            } catch (PrivilegeDrop.PrivilegeDropException e) {
                throw new VecflowCommand.UsageException(e.getMessage());
            }
        }
        if (checkConfig) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--check-config needs --config FILE");
        }
        require(loops >= 1, "--loops", loops, "need >= 1");
        require(pps >= 0, "--pps", pps, "need >= 0 packets/s");
        require(workers >= 1 && workers <= 64, "--workers", workers, "need 1..64");
        require(samplingRate >= 0, "--sampling-rate", samplingRate, "need N >= 0");
        require(headerBytes >= 1 && headerBytes <= 256, "--header-bytes", headerBytes, "need 1..256");
        require(fifoSize >= 2, "--fifo-size", fifoSize, "need >= 2");
        require(group >= 1 && group <= 32, "--netlink-group", group, "need 1..32");
        require(sampleGroup >= 1, "--sample-group", sampleGroup, "need >= 1");
        PsampleTransport t = PsampleCommand.transport(transport);
        PrintWriter out = spec.commandLine().getOut();
        PcapFile pcap = CaptureLoader.load(capture, System.err);
        Dataplane.Settings s = new Dataplane.Settings();
        s.workers = workers;
        s.loops = loops;
        s.packetsPerSecond = pps;
        s.samplingRate = samplingRate;
        s.headerBytes = headerBytes;
        s.fifoCapacity = fifoSize;
        s.sampleGroup = sampleGroup;
        try (Shutdown sd = Shutdown.install();
                PsampleEmitter e = PsampleEmitter.open(t, group, Psample.Convention.VPP);
                Dataplane dp = new Dataplane(s, pcap, e)) {
            out.printf("dataplane: %d packets x %d loops on %d workers, sampling 1-in-%d, PSAMPLE over %s%s%n",
                    pcap.packets().size(), loops, workers, samplingRate, t,
                    t == PsampleTransport.USERSOCK ? " group " + group : "");
            out.flush();
            dp.start();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    dp.awaitCompletion();
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
            });
            while (waiter.isAlive() && !sd.signalled()) {
                waiter.join(100);
            }
            if (sd.signalled()) {
                dp.stop();
            }
            waiter.join();
            Dataplane.Stats st = dp.stats();
            out.printf("packets %,d, samples taken %,d, FIFO drops %,d, PSAMPLE sent %,d, failed %,d%s%n",
                    st.packetsReplayed(), st.samplesTaken(), st.fifoDrops(), st.psampleSent(), st.psampleFailed(),
                    sd.signalled() ? " (stopped by signal)" : "");
            out.flush();
        }
        return 0;
    }

    private int runConfig(PrintWriter out) throws Exception {
        DataplaneConfig c;
        try {
            c = DataplaneConfig.load(config);
        } catch (DataplaneConfigException e) {
            throw new VecflowCommand.UsageException(e.getMessage()); // every problem with its line: exit 2
        } catch (java.nio.file.NoSuchFileException | java.nio.file.AccessDeniedException e) {
            throw new VecflowCommand.UsageException(VecflowCommand.message(e)); // a usage error: exit 2
        }
        if (checkConfig) {
            out.printf("%s: valid (%d ports, %d xconnects, %d routes, %d neighbours%s%s%s)%n", config, c.ports.size(),
                    c.xconnects.size(), c.routes.size(), c.neighbours.size(),
                    c.lb == null ? "" : ", lb " + c.lb.vips.size() + " VIPs",
                    c.srlbAgent == null ? "" : ", srlb-agent",
                    c.clove == null ? "" : ", clove " + c.clove.destinations.size() + " destinations");
            out.flush();
            return 0;
        }
        try (Shutdown sd = Shutdown.install();
                DataplaneAssembly a = DataplaneAssembly.open(c, msg -> System.err.println("dataplane: " + msg),
                        true)) {
            Dataplane dp = a.dataplane();
            String sflow = c.sflow.samplingRate == 0 || c.sflow.interfaces.isEmpty() ? "sflow sampling off"
                    : "sflow 1-in-" + c.sflow.samplingRate + " on " + String.join(", ", c.sflow.interfaces);
            out.printf("dataplane: %d workers, %d ports, %s%s%s, control socket %s%n", c.workers, c.ports.size(),
                    sflow, c.lb == null ? "" : ", lb " + c.lb.vips.size() + " VIPs",
                    c.clove == null ? "" : ", clove vtep " + c.clove.vtep, c.controlSocket);
            out.print(dp.showInterfaces());
            out.flush();
            if (user != null && PrivilegeDrop.effectiveUid() == 0) {
                out.println("dataplane: " + dropPrivileges(dp, c.sflow.genl()));
                out.flush();
            } else {
                if (user != null) {
                    out.println("dataplane: not started as root (euid " + PrivilegeDrop.effectiveUid()
                            + "): --user " + user + " changes nothing");
                }
                dp.start();
            }
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    dp.awaitCompletion();
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
            });
            while (waiter.isAlive() && !sd.signalled()) {
                waiter.join(100);
            }
            if (sd.signalled()) {
                dp.stop();
            }
            waiter.join();
            out.print(dp.showInterfaces());
            out.print(dp.showErrors());
            out.print(dp.showSflow());
            out.flush();
        }
        return 0;
    }

    /**
     * Starts the dataplane as {@link #user} holding only what it still needs (README "Security"): every port and
     * socket is open, so this thread keeps CAP_NET_ADMIN through the set*id broadcast when {@code genl} (the main
     * thread it starts next inherits it: each generic-netlink multicast send is checked), the workers drop theirs
     * before their first packet, this thread drops its own, and every thread of the process is then checked.
     *
     * @return the line for the log
     * @throws PrivilegeDrop.PrivilegeDropException a call failed or a thread holds more than it should
     */
    private String dropPrivileges(Dataplane dp, boolean genl) throws Exception {
        long keep = genl ? 1L << PrivilegeDrop.CAP_NET_ADMIN : 0;
        PrivilegeDrop.Result r = PrivilegeDrop.dropTo(user, keep);
        if (!r.dropped()) { // --user root (or uid 0): nothing changes, said once
            dp.start();
            return r.note();
        }
        dp.start(() -> {
            PrivilegeDrop.dropThreadCapabilities();
            return null;
        });
        PrivilegeDrop.dropThreadCapabilities();
        PrivilegeDrop.noNewPrivileges();
        java.util.List<String> problems = PrivilegeDrop.threadProblems(r.uid(), r.gid(),
                (tid, comm) -> comm.equals("vecflow-main") ? keep : 0);
        if (!problems.isEmpty()) {
            dp.stop(); // the workers end before their ports close
            throw new PrivilegeDrop.PrivilegeDropException("after dropping to " + user + ", " + problems.size()
                    + " thread(s) hold more than they should (the dataplane stops): " + String.join("; ",
                    problems.subList(0, Math.min(4, problems.size()))) + (problems.size() > 4 ? "; ..." : ""));
        }
        return "running as " + user + " (uid " + Integer.toUnsignedString(r.uid()) + ", gid "
                + Integer.toUnsignedString(r.gid()) + "), " + (keep == 0 ? "no capability on any thread"
                : "CAP_NET_ADMIN on vecflow-main only (genl), no capability on any other thread");
    }
}
