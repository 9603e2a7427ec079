package io.vecflow.cli;

import io.vecflow.dataplane.control.CommandParser;
import io.vecflow.dataplane.control.ControlClient;
import io.vecflow.dataplane.control.ControlProtocol;
import io.vecflow.dataplane.control.ControlServer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vecflow ctl COMMAND...}: sends one command to a running dataplane's control socket
 * ({@link ControlClient}; framing {@link ControlProtocol}) and prints the reply. Exit status: the dataplane's — 0 done,
 * 1 refused (e.g. an unknown interface) or the socket unreachable, 2 the command does not parse, 3 an internal error.
 */
@Command(name = "ctl", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = "Sends one command to a running `vecflow dataplane` over its control socket and prints the "
            + "reply, e.g. `vecflow ctl sflow sampling-rate 1000` or `vecflow ctl show runtime`.",
        footer = {"", "Commands:"})
final class CtlCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-s", "--socket"}, paramLabel = "PATH",
            description = "Control socket of the dataplane (default: ${DEFAULT-VALUE}).")
    Path socket = ControlServer.DEFAULT_SOCKET;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "Seconds to wait for the reply, > 0 (default: ${DEFAULT-VALUE}).")
    double timeoutSeconds;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The command words (see below).")
    List<String> words;

    /** Adds the command list to the help footer. */
    static void addHelpFooter(CommandLine ctl) {
        List<String> footer = new java.util.ArrayList<>(List.of(ctl.getCommandSpec().usageMessage().footer()));
        for (String l : CommandParser.help().split("\n")) {
            footer.add("  " + l.replace("%", "%%"));
        }
        ctl.getCommandSpec().usageMessage().footer(footer.toArray(String[]::new));
    }

    @Override
    public Integer call() throws Exception {
        VecflowCommand.require(timeoutSeconds > 0 && timeoutSeconds <= 3600, "--timeout", timeoutSeconds,
                "need 0 < SECONDS <= 3600");
        ControlProtocol.Reply r = ControlClient.send(socket, String.join(" ", words),
                Duration.ofMillis(Math.max(1, Math.round(timeoutSeconds * 1000))));
        PrintWriter w = r.rc() == ControlProtocol.RC_OK ? spec.commandLine().getOut() : spec.commandLine().getErr();
        w.print(r.text());
        w.flush();
        return r.rc();
    }
}
