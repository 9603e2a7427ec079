package io.vecflow.cli;

import picocli.CommandLine;

/**
 * Entry point of the {@code vecflow-collector} Debian package: the collector ({@code vecflow collector}) alone.
 * {@link VecflowCommand}'s subcommand list loads every command and with them every module's classes; this builds
 * a command line of {@link CollectorCommand} only, so the package ships and loads only the jars that command needs
 * (the list comes from dist's pom; {@code CollectorPackageIT} runs the installed daemon on it alone). Options, output
 * and exit status are those of {@code vecflow collector}: 0 success, 1 runtime error, 2 bad option or
 * configuration.
 */
public final class CollectorMain {
    private CollectorMain() {}

    /** Runs {@code vecflow-collector ARGS...} and exits with its status. */
    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new CollectorCommand()).setCommandName("vecflow-collector");
        System.exit(VecflowCommand.handleErrors(cl).execute(args));
    }
}
