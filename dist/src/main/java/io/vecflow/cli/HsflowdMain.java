package io.vecflow.cli;

import picocli.CommandLine;

/**
 * Entry point of the {@code vecflow-hsflowd} Debian package: the hsflowd-compatible agent
 * ({@code vecflow hsflowd}) alone.
 * {@link VecflowCommand}'s subcommand list loads every command and with them every module's classes; this builds
 * a command line of {@link HsflowdCommand} only, so the package ships and loads only the jars that command needs
 * (the list comes from dist's pom; {@code HsflowdPackageIT} runs the installed daemon on it alone). Options, output
 * and exit status are those of {@code vecflow hsflowd}: 0 success, 1 runtime error, 2 bad option or
 * configuration.
 */
public final class HsflowdMain {
    private HsflowdMain() {}

    /** Runs {@code vecflow-hsflowd ARGS...} and exits with its status. */
    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new HsflowdCommand()).setCommandName("vecflow-hsflowd");
        System.exit(VecflowCommand.handleErrors(cl).execute(args));
    }
}
