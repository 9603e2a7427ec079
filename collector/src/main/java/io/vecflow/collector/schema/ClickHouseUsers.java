package io.vecflow.collector.schema;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The ClickHouse users of a vecflow deployment, one per role, and what each may do, rendered for the server at hand
 * (README "Security"):
 *
 * <ul>
 *   <li><b>writer</b> (the collector): creates and migrates the database's tables and views and inserts into them;
 *   <li><b>reader</b> (Grafana, the console): reads them, nothing else.
 * </ul>
 *
 * Servers with SQL access control (20.5 on, {@link FlowSchema.ServerFeatures#sqlAccessControl()}) get
 * {@code CREATE USER} and {@code GRANT} statements on {@code db.*} ({@link #sql}: the reader's time limit a
 * {@code READONLY} constraint); older ones (18.16) a {@code users.d/} XML file ({@link #usersXml}): a profile with
 * {@code readonly = 1} for the reader (reads only: no INSERT, no DDL, no setting changed, no table function such as
 * {@code url()} or {@code remote()}, which would reach other databases through the server's own ports) and
 * {@code allow_databases} for both (ClickHouse documentation: "Settings profiles", "allow_databases", "Access
 * rights"). 18.16 has no grants: its writer, like any user that is not read-only, can still run table functions;
 * on a server shared with other data, give the {@code default} user a password. Passwords appear only as SHA-256
 * hex ({@code password_sha256_hex}, {@code IDENTIFIED WITH sha256_hash}).
 */
public final class ClickHouseUsers {
    private ClickHouseUsers() {}

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    private static final Pattern NETWORK = Pattern.compile("([0-9A-Fa-f:.]{2,45})(?:/(\\d{1,3}))?");
    private static final java.util.Set<String> RESERVED_USERS = java.util.Set.of("default", "readonly");
    private static final java.util.Set<String> RESERVED_DATABASES = java.util.Set.of("system", "default",
            "information_schema", "INFORMATION_SCHEMA");

    /** An address or a CIDR prefix whose length fits the family and whose host bits are 0. */
    static boolean network(String n) {
        java.util.regex.Matcher m = NETWORK.matcher(n);
        if (!m.matches()) {
            return false;
        }
        byte[] a;
        try {
            a = java.net.InetAddress.ofLiteral(m.group(1)).getAddress();
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (m.group(2) == null) {
            return true;
        }
        int len = Integer.parseInt(m.group(2));
        if (len > a.length * 8) {
            return false;
        }
        for (int bit = len; bit < a.length * 8; bit++) {
            if ((a[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
                return false;
            }
        }
        return true;
    }

    /** What the writer is granted on the database (modern servers): exactly the statements the collector runs. */
    public static final List<String> WRITER_GRANTS = List.of("SELECT", "INSERT", "ALTER TABLE", "ALTER VIEW",
            "CREATE DATABASE", "CREATE TABLE", "CREATE VIEW", "DROP TABLE", "DROP VIEW", "SHOW TABLES");
    /** The reader's longest query, seconds (its profile's {@code max_execution_time}). */
    public static final int READER_MAX_EXECUTION_SECONDS = 60;

    /**
     * A user of one role.
     *
     * @param name the user's name ({@code [A-Za-z_][A-Za-z0-9_]*}, at most 64)
     * @param passwordSha256Hex SHA-256 of the password, 64 lowercase hex digits ({@link #sha256Hex})
     * @param networks the client addresses or CIDR prefixes it may connect from (at least one)
     */
    public record User(String name, String passwordSha256Hex, List<String> networks) {
        /** Checks the name, the hash and the networks. */
        public User {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("user name '" + name + "': expected [A-Za-z_][A-Za-z0-9_]*");
            }
            if (passwordSha256Hex == null || !passwordSha256Hex.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("user " + name + ": the password hash must be 64 hex digits");
            }
            networks = List.copyOf(networks);
            if (networks.isEmpty()) {
                throw new IllegalArgumentException("user " + name + ": no network it may connect from");
            }
            for (String n : networks) {
                if (!network(n)) {
                    throw new IllegalArgumentException("user " + name + ": network '" + n
                            + "' is not an address or CIDR prefix (IPv4 /0../32, IPv6 /0../128, no host bits set)");
                }
            }
            if (RESERVED_USERS.contains(name)) {
                throw new IllegalArgumentException("user name " + name + " is the server's own: pick another, e.g. "
                        + "vecflow_writer");
            }
        }
    }

    /**
     * @param password a password
     * @return its SHA-256, 64 lowercase hex digits (UTF-8)
     */
    public static String sha256Hex(String password) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(password.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void checkDatabase(String database, User writer, User reader) {
        if (!NAME.matcher(database).matches()) {
            throw new IllegalArgumentException("database '" + database + "': expected [A-Za-z_][A-Za-z0-9_]*");
        }
        if (RESERVED_DATABASES.contains(database)) {
            throw new IllegalArgumentException("database " + database + " is the server's own: the collector's "
                    + "database must be its own, e.g. vecflow");
        }
        if (writer.name().equals(reader.name())) {
            throw new IllegalArgumentException("the writer and the reader must be two users, not " + writer.name());
        }
    }

    /**
     * The users as a {@code users.d/} file for servers without SQL access control (18.16): merged into
     * {@code users.xml} by the server at start and on change.
     *
     * @param database the collector's database
     * @param writer the collector's user (profile {@code default}, this database only)
     * @param reader the read-only user (its own profile: {@code readonly = 1}, {@code max_execution_time})
     * @return the XML text
     * @throws IllegalArgumentException a bad database name, or one user for both roles
     */
    public static String usersXml(String database, User writer, User reader) {
        checkDatabase(database, writer, reader);
        StringBuilder b = new StringBuilder("""
                <?xml version="1.0"?>
                <!-- vecflow clickhouse-users: the writer (collector) and the reader (Grafana, console) of database
                     %s. Put in /etc/clickhouse-server/users.d/ (mode 0640, group clickhouse). 18.16 has no
                     grants: the writer can run table functions (url, remote), which reach the server's other
                     databases as the default user; give default a password on a server shared with other data. -->
                <yandex>
                    <profiles>
                        <%s>
                            <readonly>1</readonly>
                            <max_execution_time>%d</max_execution_time>
                        </%s>
                    </profiles>
                    <users>
                """.formatted(database, reader.name(), READER_MAX_EXECUTION_SECONDS, reader.name()));
        user(b, writer, "default", database);
        user(b, reader, reader.name(), database);
        return b.append("    </users>\n</yandex>\n").toString();
    }

    private static void user(StringBuilder b, User u, String profile, String database) {
        b.append("        <").append(u.name()).append(">\n");
        b.append("            <password_sha256_hex>").append(u.passwordSha256Hex()).append("</password_sha256_hex>\n");
        b.append("            <networks>\n");
        for (String n : u.networks()) {
            b.append("                <ip>").append(n).append("</ip>\n");
        }
        b.append("            </networks>\n");
        b.append("            <profile>").append(profile).append("</profile>\n");
        b.append("            <quota>default</quota>\n");
        b.append("            <allow_databases>\n                <database>").append(database)
                .append("</database>\n            </allow_databases>\n");
        b.append("        </").append(u.name()).append(">\n");
    }

    /**
     * The users as SQL for servers with access control (20.5 on): {@code CREATE USER IF NOT EXISTS} with the hash and
     * the hosts, then the grants on {@code database.*}; run once as an administrator.
     *
     * @param database the collector's database
     * @param writer the collector's user ({@link #WRITER_GRANTS})
     * @param reader the read-only user ({@code SELECT} only)
     * @return the statements, one per line, each ending in {@code ;}
     * @throws IllegalArgumentException as {@link #usersXml}
     */
    public static List<String> sql(String database, User writer, User reader) {
        checkDatabase(database, writer, reader);
        List<String> out = new ArrayList<>();
        for (User u : List.of(writer, reader)) {
            List<String> hosts = new ArrayList<>();
            for (String n : u.networks()) {
                hosts.add("IP '" + n + "'");
            }
            out.add("CREATE USER IF NOT EXISTS " + u.name() + " IDENTIFIED WITH sha256_hash BY '"
                    + u.passwordSha256Hex() + "' HOST " + String.join(", ", hosts)
                    + (u == reader ? " SETTINGS max_execution_time = " + READER_MAX_EXECUTION_SECONDS + " READONLY"
                    : "") + ";");
        }
        out.add("GRANT " + String.join(", ", WRITER_GRANTS) + " ON " + database + ".* TO " + writer.name() + ";");
        out.add("GRANT SELECT ON " + database + ".* TO " + reader.name() + ";");
        return out;
    }
}
