package io.vecflow.cli;

import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleFormatter;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.psample.PsampleTransport;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vecflow psample}: PSAMPLE tools. */
@Command(name = "psample", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = "PSAMPLE netlink tools.",
        subcommands = {PsampleCommand.Listen.class})
final class PsampleCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    static PsampleTransport transport(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "genl" -> PsampleTransport.GENL;
            case "usersock" -> PsampleTransport.USERSOCK;
            default -> throw new VecflowCommand.UsageException("--transport must be genl or usersock, got " + name);
        };
    }

    /** {@code vecflow psample listen}: prints each PSAMPLE message decoded. */
    @Command(name = "listen", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
            description = "Subscribes to PSAMPLE and prints each message decoded (group, seq, rate, ifindexes and "
                + "their attribute width, size, header bytes). Joining a group needs root (CAP_NET_ADMIN). Stops "
                + "after --count samples, --timeout seconds, or Ctrl-C, and prints its counters.")
    static final class Listen implements Callable<Integer> {
        @Option(names = "--transport", defaultValue = "usersock",
                description = "usersock (what `vecflow dataplane` emits by default) or genl (family psample, group "
                    + "\"packets\": kernel tc/ASIC and VPP samples; needs `modprobe psample`) (default "
                            + "${DEFAULT-VALUE}).")
        String transport;

        @Option(names = "--netlink-group", defaultValue = "30", description =
                "USERSOCK multicast group (default ${DEFAULT-VALUE}).")
        int group;

        @Option(names = "--count", defaultValue = "0", description =
                "Stop after this many samples, 0 = run until interrupted (default ${DEFAULT-VALUE}).")
        long count;

        @Option(names = "--timeout", defaultValue = "0", description =
                "Stop after this many seconds, 0 = never (default ${DEFAULT-VALUE}).")
        long timeoutSeconds;

        @Override
        public Integer call() throws Exception {
            VecflowCommand.require(count >= 0, "--count", count, "need >= 0");
            VecflowCommand.require(timeoutSeconds >= 0, "--timeout", timeoutSeconds, "need >= 0 seconds");
            VecflowCommand.require(group >= 1 && group <= 32, "--netlink-group", group, "need 1..32");
            PsampleTransport t = transport(transport);
            long end = timeoutSeconds > 0 ? System.currentTimeMillis() + timeoutSeconds * 1000 : Long.MAX_VALUE;
            long[] seen = {0};
            try (Shutdown sd = Shutdown.install(); PsampleSubscriber s = PsampleSubscriber.open(t, group)) {
                System.err.printf("listening: %s%s (port id %d)%n", t,
                        t == PsampleTransport.USERSOCK ? " group " + group : " family " + Psample.GENL_NAME,
                        s.portId());
                Duration poll = Duration.ofMillis(200);
                while ((count == 0 || seen[0] < count) && System.currentTimeMillis() < end && !sd.signalled()) {
                    s.poll(poll, smp -> {
                        if (count == 0 || seen[0] < count) {
                            System.out.println(PsampleFormatter.format(smp));
                            seen[0]++;
                        }
                    });
                }
                System.out.flush();
                System.err.printf("%d samples, %d decode errors, %d overruns%n", s.samples(), s.decodeErrors(),
                        s.overruns());
            }
            return 0;
        }
    }
}
