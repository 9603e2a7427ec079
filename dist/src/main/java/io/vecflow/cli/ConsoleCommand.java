package io.vecflow.cli;

import io.vecflow.collector.CollectorConfig;
import io.vecflow.collector.console.ConsoleSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vecflow console}: the web console (docs/console-api.md) over a DuckDB file no collector is writing, or a
 * ClickHouse server; or, with {@code --hash-password}, the PBKDF2 hash of a password read from standard input for
 * the collector's {@code console.users}.
 */
@Command(name = "console", mixinStandardHelpOptions = true, versionProvider = VecflowCommand.Version.class,
        description = {"The web console over a store: Visualize (filters, dimensions, top-N, sankey), Drops, Load "
            + "balancer, Pipeline. Read-only; binds to loopback by default.",
            "A running collector serves its own console (console: in its config, or vecflow demo --serve); this "
            + "command reads a DuckDB file no process is writing (--store), or a ClickHouse server (--clickhouse).",
            "--hash-password reads a password from standard input and prints its hash for console.users."})
final class ConsoleCommand implements Callable<Integer> {
    @Option(names = "--store", paramLabel = "FILE", description = "A DuckDB file (the collector's duckdb.path, "
            + "the demo's OUT/store/vecflow.duckdb), opened read-only.")
    Path store;

    @Option(names = "--clickhouse", paramLabel = "URL", description = "A ClickHouse HTTP URL, e.g. "
            + "http://127.0.0.1:8123 (queries run with readonly=1).")
    String clickhouse;

    @Option(names = "--database", defaultValue = "vecflow", paramLabel = "DB", description =
            "The ClickHouse database, or the DuckDB schema (default ${DEFAULT-VALUE}).")
    String database;

    @Option(names = "--user", defaultValue = "default", description = "ClickHouse user (default ${DEFAULT-VALUE}); "
            + "the password comes from --password-file or the environment variable VECFLOW_CLICKHOUSE_PASSWORD.")
    String user;

    @Option(names = "--password-file", paramLabel = "FILE", description = "A file holding the ClickHouse password "
            + "(refused when every user may read it).")
    Path passwordFile;

    @Option(names = "--ca-file", paramLabel = "PEM", description = "CA certificates that sign an https:// "
            + "ClickHouse's certificate (default: the JVM's CAs).")
    Path caFile;

    @Option(names = "--listen", defaultValue = "127.0.0.1:8080", paramLabel = "ADDR:PORT", description =
            "Where the console listens (default ${DEFAULT-VALUE}; [v6]:PORT for IPv6, port 0 = any free port).")
    String listen;

    @Option(names = "--hash-password", description = "Read a password from standard input, print its hash "
            + "(pbkdf2-sha256$...) for console.users, and exit.")
    boolean hashPassword;

    /**
     * @param listen {@code ADDR:PORT}
     * @param option the option's name, for the message
     * @return console settings on that address, without authentication
     * @throws VecflowCommand.UsageException when the address does not parse
     */
    static ConsoleSettings listen(String listen, String option) {
        CollectorConfig.Console c = new CollectorConfig.Console();
        c.listen = listen;
        try {
            return c.settings();
        } catch (IllegalArgumentException e) {
            throw new VecflowCommand.UsageException(option + " " + listen + ": " + e.getMessage());
        }
    }

    @Override
    public Integer call() throws Exception {
        if (hashPassword) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line = in.readLine();
            if (line == null || line.isEmpty()) {
                throw new VecflowCommand.UsageException("--hash-password: no password on standard input");
            }
            System.out.println(io.vecflow.common.BasicCredentials.hashPassword(line.toCharArray()));
            return 0;
        }
        if ((store == null) == (clickhouse == null)) {
            throw new VecflowCommand.UsageException("give one store: --store FILE or --clickhouse URL");
        }
        if (clickhouse != null && clickhouse.matches("(?s)[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*@.*")) {
            throw new VecflowCommand.UsageException("--clickhouse: no user or password in the URL (it would show in "
                    + "the process list and the log): --user NAME and --password-file FILE");
        }
        ConsoleSettings settings = listen(listen, "--listen");
        String password = System.getenv("VECFLOW_CLICKHOUSE_PASSWORD");
        if (passwordFile != null) {
            try {
                password = CollectorConfig.secretFile(passwordFile, "--password-file");
            } catch (IllegalArgumentException e) {
                throw new VecflowCommand.UsageException(e.getMessage());
            }
        }
        try (Shutdown sd = Shutdown.install();
                Consoles.Running console = store != null ? Consoles.duckDbFile(store, database, settings)
                        : Consoles.clickHouse(URI.create(clickhouse), database, user, password == null ? ""
                                : password, caFile, settings)) {
            System.out.println("vecflow console on " + console.url() + " over " + (store != null ? store
                    : clickhouse) + "   (Ctrl-C stops it)");
            System.out.flush();
            sd.await();
        }
        return 0;
    }
}
