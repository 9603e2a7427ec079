package io.vecflow.cli;

import picocli.CommandLine;

/**
 * Entry point of the {@code vecflow-dataplane} Debian package: the dataplane ({@code vecflow dataplane}) alone.
 * {@link VecflowCommand}'s subcommand list loads every command and with them every module's classes; this builds
 * a command line of {@link DataplaneCommand} only, so the package ships and loads only the jars that command needs
 * (the list comes from dist's pom; {@code DataplanePackageIT} runs the installed daemon on it alone). Options, output
 * and exit status are those of {@code vecflow dataplane}: 0 success, 1 runtime error, 2 bad option or
 * configuration.
 */
public final class DataplaneMain {
    private DataplaneMain() {}

    /** Runs {@code vecflow-dataplane ARGS...} and exits with its status. */
    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new DataplaneCommand()).setCommandName("vecflow-dataplane");
        System.exit(VecflowCommand.handleErrors(cl).execute(args));
    }
}
