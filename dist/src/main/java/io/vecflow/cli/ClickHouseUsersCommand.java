package io.vecflow.cli;

import io.vecflow.collector.CollectorConfig;
import io.vecflow.collector.schema.ClickHouseUsers;
import io.vecflow.collector.schema.FlowSchema;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code vecflow clickhouse-users}: the ClickHouse users of a deployment ({@link ClickHouseUsers}: a writer for the
 * collector, a read-only reader for Grafana and the console) for the server version given, printed on standard
 * output: a {@code users.d/} XML file for 18.16, {@code CREATE USER} / {@code GRANT} statements from 20.5 on.
 * Passwords are read from files (never the command line) and printed only as SHA-256.
 */
@Command(name = "clickhouse-users", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = {"Print the ClickHouse users of a deployment: a writer (the collector: create, migrate, insert "
            + "into its database only) and a reader (Grafana, the console: SELECT only).",
            "For --server-version below 20.5 (Debian's 18.16): a users.d/ XML file; from 20.5: CREATE USER and "
            + "GRANT statements. Passwords come from files and appear only as SHA-256."})
final class ClickHouseUsersCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--server-version", required = true, paramLabel = "VERSION", description = "The server's "
            + "SELECT version(), e.g. 18.16.1 or 25.8.2.29.")
    String serverVersion;

    @Option(names = "--database", defaultValue = "vecflow", paramLabel = "DB", description =
            "The collector's database (default ${DEFAULT-VALUE}).")
    String database;

    @Option(names = "--writer", defaultValue = "vecflow_writer", paramLabel = "NAME", description =
            "The collector's user (default ${DEFAULT-VALUE}).")
    String writer;

    @Option(names = "--writer-password-file", required = true, paramLabel = "FILE", description =
            "A file holding the writer's password (not readable by every user).")
    Path writerPasswordFile;

    @Option(names = "--reader", defaultValue = "vecflow_reader", paramLabel = "NAME", description =
            "The read-only user (default ${DEFAULT-VALUE}).")
    String reader;

    @Option(names = "--reader-password-file", required = true, paramLabel = "FILE", description =
            "A file holding the reader's password (not readable by every user).")
    Path readerPasswordFile;

    @Option(names = "--network", split = ",", paramLabel = "CIDR", defaultValue = "127.0.0.1,::1", description =
            "Addresses or prefixes the users may connect from (default ${DEFAULT-VALUE}; repeat or comma-separate).")
    List<String> networks;

    private static String password(Path file, String option) {
        String p;
        try {
            p = CollectorConfig.secretFile(file, option);
        } catch (IllegalArgumentException e) {
            throw new VecflowCommand.UsageException(e.getMessage());
        }
        if (p.isEmpty()) {
            throw new VecflowCommand.UsageException(option + " " + file + ": the file is empty");
        }
        return p;
    }

    @Override
    public Integer call() {
        FlowSchema.ServerFeatures f;
        ClickHouseUsers.User w;
        ClickHouseUsers.User r;
        try {
            f = FlowSchema.ServerFeatures.fromVersion(serverVersion);
            w = new ClickHouseUsers.User(writer, ClickHouseUsers.sha256Hex(password(writerPasswordFile,
                    "--writer-password-file")), networks);
            r = new ClickHouseUsers.User(reader, ClickHouseUsers.sha256Hex(password(readerPasswordFile,
                    "--reader-password-file")), networks);
            java.io.PrintWriter out = spec.commandLine().getOut();
            if (f.sqlAccessControl()) {
                for (String s : ClickHouseUsers.sql(database, w, r)) {
                    out.println(s);
                }
            } else {
                out.print(ClickHouseUsers.usersXml(database, w, r));
            }
            out.flush();
        } catch (IllegalArgumentException e) {
            throw new VecflowCommand.UsageException(e.getMessage());
        }
        return 0;
    }
}
