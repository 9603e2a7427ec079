package io.vecflow.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code vecflow} command line: one subcommand per component, {@code --help} on each. */
@Command(name = "vecflow", mixinStandardHelpOptions = true, version = "vecflow 0.1.0",
        description = "Network telemetry pipeline: sampling dataplane -> netlink PSAMPLE -> sFlow v5 agent -> collector.",
        subcommands = {DemoCommand.class, DataplaneCommand.class, HsflowdCommand.class, CollectorCommand.class,
            PsampleCommand.class, CommandLine.HelpCommand.class})
public final class VecflowCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Entry point. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** @return the configured command line (shared by main and tests). */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new VecflowCommand());
        cl.setExecutionExceptionHandler((ex, cmd, parse) -> {
            cmd.getErr().println("vecflow " + cmd.getCommandName() + ": " + message(ex));
            if (System.getenv("VECFLOW_DEBUG") != null) {
                ex.printStackTrace(cmd.getErr());
            }
            return 1;
        });
        return cl;
    }

    static String message(Throwable t) {
        String m = t.getMessage();
        return m == null ? t.toString() : m;
    }
}
