package io.vecflow.cli;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code vecflow} command line: one subcommand per component, {@code --help} and {@code --version} on each.
 * Exit status: 0 success, 1 a runtime error (message on stderr, no stack trace unless VECFLOW_DEBUG is set), 2 a
 * usage error (bad option or config), 130/143 after SIGINT/SIGTERM only if the command could not finish cleanly.
 */
@Command(name = "vecflow", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description =
                "Network telemetry pipeline: sampling dataplane -> netlink PSAMPLE -> sFlow v5 agent -> collector.",
        subcommands = {DemoCommand.class, ConsoleCommand.class, DataplaneCommand.class, HsflowdCommand.class,
            ClickHouseUsersCommand.class,
            CollectorCommand.class, DecodeCommand.class, PsampleCommand.class, CtlCommand.class, LabCommand.class,
            CommandLine.HelpCommand.class})
public final class VecflowCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Version text for every command's {@code --version}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = VecflowCommand.class.getPackage().getImplementationVersion();
            return new String[] {"vecflow " + (v == null ? "0.1.0-SNAPSHOT" : v) + " (Java "
                    + Runtime.version().feature() + ")"};
        }
    }

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
        CommandLine ctl = cl.getSubcommands().get("ctl");
        ctl.setStopAtPositional(true); // `vecflow ctl show sflow`: every word after the first belongs to the command
        CtlCommand.addHelpFooter(ctl);
        return handleErrors(cl);
    }

    /**
     * Sets the exit-status convention of every vecflow command on {@code cl} (its subcommands included): a
     * {@link UsageException} exits 2, any other exception 1, each with a one-line message on stderr. Shared by
     * {@link #commandLine()} and the single-daemon entry points of the Debian packages ({@link HsflowdMain},
     * {@link CollectorMain}, {@link DataplaneMain}).
     *
     * @return {@code cl}
     */
    static CommandLine handleErrors(CommandLine cl) {
        cl.setExecutionExceptionHandler((ex, cmd, parse) -> {
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + message(ex));
            if (System.getenv("VECFLOW_DEBUG") != null) {
                ex.printStackTrace(cmd.getErr());
            }
            cmd.getErr().flush();
            return ex instanceof UsageException ? 2 : 1;
        });
        return cl;
    }

    /** A user mistake found after parsing (an option out of range, a config that cannot run): exit 2. */
    static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** @return a one-line, user-facing description of what went wrong and where. */
    static String message(Throwable t) {
        if (t instanceof NoSuchFileException e) {
            return "cannot open " + e.getFile() + ": no such file or directory";
        }
        if (t instanceof AccessDeniedException e) {
            return "cannot open " + e.getFile() + ": permission denied";
        }
        if (t instanceof FileAlreadyExistsException e) {
            return e.getFile() + " exists and is not a directory";
        }
        if (t instanceof FileSystemException e) {
            return e.getFile() + ": " + (e.getReason() != null ? e.getReason() : e.getClass().getSimpleName());
        }
        String m = t.getMessage();
        return m == null ? t.toString() : m;
    }

    /** Fails with a usage error naming the option unless {@code ok}. */
    static void require(boolean ok, String option, Object value, String rule) {
        if (!ok) {
            throw new UsageException(option + " " + value + " is out of range: " + rule);
        }
    }
}
