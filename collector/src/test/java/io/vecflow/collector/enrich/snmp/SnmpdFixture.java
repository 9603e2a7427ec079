package io.vecflow.collector.enrich.snmp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real net-snmp agent (Debian's {@code snmpd}) for tests, with its own configuration in a temporary directory and
 * nothing of the system's: {@code snmpd -f -C -c DIR/snmpd.conf -Lf DIR/snmpd.log -p DIR/snmpd.pid}, MIB loading off,
 * {@code SNMP_PERSISTENT_DIR} in the directory. It listens on one address (127.0.0.1 by default, ::1, or an address
 * inside a network namespace; then it runs as {@code ip netns exec NS snmpd ...} and serves that namespace's
 * interfaces) and a free port, and is killed by {@link #close()}.
 *
 * <p>It answers SNMPv2c for {@link #COMMUNITY} (read-only, from anywhere), and SNMPv3 for each of {@link #USERS}
 * ({@code createUser} lines in the configuration). A second, random community may write, from the agent's own address
 * only: {@link #setIfAlias} uses it, since net-snmp 5.9 does not read the kernel's interface alias
 * ({@code ip link set dev X alias ...}) for ifAlias; {@link #copyKernelAliases()} copies them all.
 *
 * <p>The judge: {@link #snmpget} runs the real {@code snmpget} (package {@code snmp}) against the agent.
 *
 * <p>Needs root for namespaces. A missing {@code snmpd} or {@code snmpget} fails the test (never skips): install
 * them with {@code apt-get install snmpd snmp} ({@code scripts/test.sh} does).
 *
 * <pre>{@code
 * try (SnmpdFixture snmpd = SnmpdFixture.start()) {                       // 127.0.0.1, free port
 *     poller.poll(snmpd.agent(), SnmpCredentials.v2c(SnmpdFixture.COMMUNITY), new long[] {1});
 * }
 * try (SnmpdFixture snmpd = SnmpdFixture.builder().namespace("ns1").address("10.251.7.2")
 *         .sysName("edge1.example").start()) {                              // inside ns1, reached over a veth
 *     snmpd.copyKernelAliases();
 *     Map<String, String> judge = snmpd.snmpget("1.3.6.1.2.1.1.5.0");
 * }
 * }</pre>
 */
public final class SnmpdFixture implements AutoCloseable {
    /** Read-only SNMPv2c community. */
    public static final String COMMUNITY = "vecflow-ro";

    /**
     * An SNMPv3 user the agent knows, with vecflow's protocol names ({@link SnmpCredentials}); null protocols for a
     * lower security level.
     *
     * @param name user name
     * @param authProtocol authentication protocol (MD5, SHA, SHA224, ...), or null
     * @param authPassphrase its passphrase, or null
     * @param privProtocol privacy protocol (DES, AES, AES256C, ...), or null
     * @param privPassphrase its passphrase, or null
     */
    public record User(String name, String authProtocol, String authPassphrase, String privProtocol,
            String privPassphrase) {
        /** @return the credentials a poller uses for this user */
        public SnmpCredentials credentials() {
            return SnmpCredentials.v3(name, authProtocol, authPassphrase, privProtocol, privPassphrase);
        }

        String confLine() {
            StringBuilder b = new StringBuilder("createUser ").append(name);
            if (authProtocol != null) {
                b.append(' ').append(netSnmpName(authProtocol)).append(' ').append(authPassphrase);
                if (privProtocol != null) {
                    b.append(' ').append(netSnmpName(privProtocol)).append(' ').append(privPassphrase);
                }
            }
            String level = authProtocol == null ? "noauth" : privProtocol == null ? "auth" : "priv";
            return b.append("\nrouser ").append(name).append(' ').append(level).append('\n').toString();
        }

        /** net-snmp's spelling: SHA-256, AES-256, AES-256-C. */
        private static String netSnmpName(String vecflowName) {
            return switch (vecflowName) {
                case "SHA224", "SHA256", "SHA384", "SHA512" -> "SHA-" + vecflowName.substring(3);
                case "AES192", "AES256" -> "AES-" + vecflowName.substring(3);
                case "AES192C", "AES256C" -> "AES-" + vecflowName.substring(3, 6) + "-C";
                default -> vecflowName;
            };
        }
    }

    /** The main SNMPv3 user: SHA + AES (authPriv). */
    public static final User USER = new User("vecflow", "SHA", "vecflow-auth-pass", "AES", "vecflow-priv-pass");
    /** Every SNMPv3 user the agent knows: {@link #USER} and one per other protocol and security level. */
    public static final List<User> USERS = List.of(
            USER,
            new User("vf-md5-des", "MD5", "md5-auth-pass", "DES", "des-priv-pass"),
            new User("vf-sha224-aes192", "SHA224", "sha224-auth-pass", "AES192", "aes192-priv-pass"),
            new User("vf-sha256-auth", "SHA256", "sha256-auth-pass", null, null),
            new User("vf-sha384-aes", "SHA384", "sha384-auth-pass", "AES", "aes-priv-pass1"),
            new User("vf-sha512-aes256", "SHA512", "sha512-auth-pass", "AES256", "aes256-priv-pass"),
            new User("vf-sha-aes256c", "SHA", "sha1-auth-pass", "AES256C", "aes256c-priv-pass"),
            new User("vf-md5-aes192c", "MD5", "md5-auth-pass2", "AES192C", "aes192c-priv-pass"),
            new User("vf-noauth", null, null, null, null));

    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(15);
    private static final int PORT_ATTEMPTS = 5;

    private final String namespace;
    private final InetAddress address;
    private final int port;
    private final Path dir;
    private final String writeCommunity;
    private final Process process;
    private final Thread shutdownHook;

    private SnmpdFixture(String namespace, InetAddress address, int port, Path dir, String writeCommunity,
            Process process) {
        this.namespace = namespace;
        this.address = address;
        this.port = port;
        this.dir = dir;
        this.writeCommunity = writeCommunity;
        this.process = process;
        this.shutdownHook = new Thread(process::destroyForcibly, "snmpd-fixture-kill");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** How to start an agent. */
    public static final class Builder {
        private String namespace;
        private String address = "127.0.0.1";
        private int port;
        private String sysName;

        private Builder() {}

        /**
         * @param name an existing network namespace ({@code ip netns add}) to run snmpd in; null = this one
         * @return this
         */
        public Builder namespace(String name) {
            this.namespace = name;
            return this;
        }

        /**
         * @param listen the address snmpd listens on (IPv4 or IPv6 literal; inside the namespace if one is set);
         *     default 127.0.0.1
         * @return this
         */
        public Builder address(String listen) {
            this.address = listen;
            return this;
        }

        /**
         * @param udpPort the port; 0 (default) = a free one
         * @return this
         */
        public Builder port(int udpPort) {
            this.port = udpPort;
            return this;
        }

        /**
         * @param name sysName.0 the agent reports (a {@code sysName} line); null (default) = the host name
         * @return this
         */
        public Builder sysName(String name) {
            this.sysName = name;
            return this;
        }

        /**
         * Writes the configuration, starts snmpd and waits (at most 15 s) until it answers snmpget.
         *
         * @return the running agent
         * @throws IOException if snmpd cannot be started or does not answer (the message holds its log)
         * @throws AssertionError if snmpd or snmpget is not installed
         */
        public SnmpdFixture start() throws IOException {
            return SnmpdFixture.start(this);
        }
    }

    /** @return a builder (127.0.0.1, free port, this namespace, sysName = host name) */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts an agent on 127.0.0.1 and a free port in this namespace.
     *
     * @return the running agent
     * @throws IOException if snmpd cannot be started or does not answer
     */
    public static SnmpdFixture start() throws IOException {
        return builder().start();
    }

    private static SnmpdFixture start(Builder b) throws IOException {
        requireTool("snmpd");
        requireTool("snmpget");
        requireTool("snmpset");
        InetAddress address = InetAddress.getByName(b.address);
        Path dir = Files.createTempDirectory("vecflow-snmpd-");
        String write = "vecflow-rw-" + HexFormat.of().formatHex(randomBytes(6));
        IOException last = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            int port = b.port != 0 ? b.port : freePort(b.namespace, address);
            Path conf = dir.resolve("snmpd.conf");
            Files.writeString(conf, conf(address, port, write, b.sysName));
            Files.deleteIfExists(dir.resolve("snmpd.log"));
            List<String> cmd = new ArrayList<>();
            if (b.namespace != null) {
                cmd.addAll(List.of("ip", "netns", "exec", b.namespace));
            }
            cmd.addAll(List.of(tool("snmpd"), "-f", "-C", "-c", conf.toString(), "-Lf",
                    dir.resolve("snmpd.log").toString(), "-p", dir.resolve("snmpd.pid").toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("snmpd.out").toFile());
            environment(pb, dir);
            Process p = pb.start();
            SnmpdFixture f = new SnmpdFixture(b.namespace, address, port, dir, write, p);
            try {
                f.awaitAnswer();
                return f;
            } catch (IOException e) {
                String log = f.log();
                f.stop();
                last = e;
                if (b.port != 0 || !log.contains("Error opening specified endpoint")) {
                    break; // not a port clash: no point in another port
                }
            }
        }
        deleteTree(dir);
        throw last;
    }

    private static String conf(InetAddress address, int port, String write, String sysName) {
        boolean v6 = address instanceof Inet6Address;
        String host = address.getHostAddress();
        StringBuilder c = new StringBuilder("# written by vecflow's SnmpdFixture\n");
        c.append("agentAddress ").append(v6 ? "udp6:[" + host + "]:" : "udp:" + host + ":").append(port).append('\n');
        c.append(v6 ? "rocommunity6 " : "rocommunity ").append(COMMUNITY).append(" default\n");
        c.append(v6 ? "rwcommunity6 " : "rwcommunity ").append(write).append(' ').append(host).append('\n');
        if (sysName != null) {
            c.append("sysName ").append(sysName).append('\n');
        }
        for (User u : USERS) {
            c.append(u.confLine());
        }
        return c.toString();
    }

    /** MIB loading off and every net-snmp file in the fixture's directory (no system or user configuration). */
    private static void environment(ProcessBuilder pb, Path dir) throws IOException {
        Map<String, String> env = pb.environment();
        Files.createDirectories(dir.resolve("mibs"));
        Files.createDirectories(dir.resolve("persist"));
        env.put("MIBS", "");
        env.put("MIBDIRS", dir.resolve("mibs").toString());
        env.put("SNMPCONFPATH", dir.resolve("conf").toString());
        env.put("SNMP_PERSISTENT_DIR", dir.resolve("persist").toString());
    }

    private void awaitAnswer() throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
        String last = "";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("snmpd exited " + process.exitValue() + " at start: " + log());
            }
            Outcome o = client("snmpget", List.of("-t", "0.3", "-r", "0"), List.of("1.3.6.1.2.1.1.3.0"));
            if (o.code == 0) {
                return;
            }
            last = o.output;
            sleep(50);
        }
        throw new IOException("snmpd on " + label() + " did not answer within 15 s (last snmpget: " + last.strip()
                + "); log: " + log());
    }

    /** @return the namespace snmpd runs in, or null for this one */
    public String namespace() {
        return namespace;
    }

    /** @return the address snmpd listens on */
    public InetAddress address() {
        return address;
    }

    /** @return the UDP port snmpd listens on */
    public int port() {
        return port;
    }

    /** @return address and port, as a poller takes them */
    public InetSocketAddress agent() {
        return new InetSocketAddress(address, port);
    }

    /** @return the fixture's directory (snmpd.conf, snmpd.log, persistent files) */
    public Path directory() {
        return dir;
    }

    /** @return snmpd's log so far (its -Lf file and its output) */
    public String log() {
        StringBuilder b = new StringBuilder();
        for (String f : List.of("snmpd.log", "snmpd.out")) {
            try {
                Path p = dir.resolve(f);
                if (Files.exists(p)) {
                    b.append(Files.readString(p, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                b.append("(cannot read ").append(f).append(": ").append(e).append(')');
            }
        }
        return b.toString();
    }

    /**
     * Runs the real {@code snmpget -v2c -c vecflow-ro -On -Oq} against the agent (inside its namespace).
     *
     * @param oids numeric OIDs (with or without the leading dot)
     * @return numeric OID without the leading dot → value as snmpget prints it, quotes of strings removed (e.g.
     *     {@code "lo"} → lo, a Gauge32 → its digits, a missing instance → "No Such Instance currently exists at this
     *     OID"), in the order asked
     * @throws IOException if snmpget fails (the message holds its output)
     */
    public Map<String, String> snmpget(String... oids) throws IOException {
        Outcome o = client("snmpget", List.of("-On", "-Oq", "-t", "1", "-r", "2"), List.of(oids));
        if (o.code != 0) {
            throw new IOException("snmpget " + String.join(" ", oids) + " exited " + o.code + ": " + o.output);
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : o.output.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            int sp = line.indexOf(' ');
            String oid = (sp < 0 ? line : line.substring(0, sp)).replaceFirst("^\\.", "");
            String v = sp < 0 ? "" : line.substring(sp + 1);
            if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
                v = v.substring(1, v.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
            }
            values.put(oid, v);
        }
        return values;
    }

    /**
     * Sets ifAlias.{@code ifIndex} in the agent with the real {@code snmpset} (the write community, from the agent's
     * own address).
     *
     * @param ifIndex the interface
     * @param alias the text (at most 64 characters, IF-MIB)
     * @throws IOException if snmpset fails
     */
    public void setIfAlias(long ifIndex, String alias) throws IOException {
        List<String> args = List.of("-v2c", "-c", writeCommunity, "-On", "-t", "1", "-r", "2", target(),
                "1.3.6.1.2.1.31.1.1.1.18." + ifIndex, "s", alias);
        Outcome o = run(namespaced(tool("snmpset"), args), dir);
        if (o.code != 0) {
            throw new IOException("snmpset ifAlias." + ifIndex + " exited " + o.code + ": " + o.output);
        }
    }

    /**
     * Copies every kernel interface alias of the agent's namespace ({@code /sys/class/net/X/ifalias}) into the
     * agent's ifAlias (net-snmp 5.9 does not read them).
     *
     * @return ifIndex → alias copied
     * @throws IOException if reading or snmpset fails
     */
    public Map<Long, String> copyKernelAliases() throws IOException {
        String script = "for d in /sys/class/net/*; do a=$(cat \"$d/ifalias\" 2>/dev/null); "
                + "if [ -n \"$a\" ]; then printf '%s\\t%s\\n' \"$(cat \"$d/ifindex\")\" \"$a\"; fi; done";
        Outcome o = run(namespaced("sh", List.of("-c", script)), dir);
        if (o.code != 0) {
            throw new IOException("reading the interface aliases exited " + o.code + ": " + o.output);
        }
        Map<Long, String> copied = new LinkedHashMap<>();
        for (String line : o.output.split("\n")) {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                long ifIndex = Long.parseLong(line.substring(0, tab).strip());
                String alias = line.substring(tab + 1);
                setIfAlias(ifIndex, alias);
                copied.put(ifIndex, alias);
            }
        }
        return copied;
    }

    /**
     * @param namespace a network namespace, or null for this one
     * @param name an interface name
     * @return its ifIndex ({@code /sys/class/net/NAME/ifindex}; net-snmp's ifIndex on Linux is the kernel's)
     * @throws IOException if the interface does not exist
     */
    public static long ifIndex(String namespace, String name) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (namespace != null) {
            cmd.addAll(List.of("ip", "netns", "exec", namespace));
        }
        cmd.addAll(List.of("cat", "/sys/class/net/" + name + "/ifindex"));
        Outcome o = run(cmd, null);
        if (o.code != 0) {
            throw new IOException("no interface " + name + (namespace == null ? "" : " in " + namespace) + ": "
                    + o.output);
        }
        return Long.parseLong(o.output.strip());
    }

    /**
     * Runs a command (30 s at most), failing on a non-zero exit.
     *
     * @param cmd the command and its arguments
     * @return its output (stdout and stderr)
     * @throws IOException naming the command, its exit status and output
     */
    public static String sh(String... cmd) throws IOException {
        Outcome o = run(List.of(cmd), null);
        if (o.code != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + o.code + ": " + o.output.strip());
        }
        return o.output;
    }

    /** Kills snmpd (SIGTERM, then SIGKILL after 5 s) and removes the directory. */
    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // shutting down already
        }
        deleteTree(dir);
    }

    private void stop() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private String target() {
        return (address instanceof Inet6Address ? "udp6:[" + address.getHostAddress() + "]" : "udp:"
                + address.getHostAddress()) + ":" + port;
    }

    private String label() {
        return target() + (namespace == null ? "" : " in namespace " + namespace);
    }

    private Outcome client(String tool, List<String> options, List<String> oids) throws IOException {
        List<String> args = new ArrayList<>(List.of("-v2c", "-c", COMMUNITY));
        args.addAll(options);
        args.add(target());
        args.addAll(oids);
        return run(namespaced(tool(tool), args), dir);
    }

    private List<String> namespaced(String program, List<String> args) {
        List<String> cmd = new ArrayList<>();
        if (namespace != null) {
            cmd.addAll(List.of("ip", "netns", "exec", namespace));
        }
        cmd.add(program);
        cmd.addAll(args);
        return cmd;
    }

    private record Outcome(int code, String output) {}

    private static Outcome run(List<String> cmd, Path env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (env != null) {
            environment(pb, env);
        }
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + ": timed out");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        }
        return new Outcome(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private static int freePort(String namespace, InetAddress address) throws IOException {
        if (namespace != null) {
            return ThreadLocalRandom.current().nextInt(20_000, 61_000); // a clash is retried with another
        }
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(address, 0))) {
            return s.getLocalPort();
        }
    }

    private static void requireTool(String name) {
        tool(name);
    }

    private static String tool(String name) {
        String path = System.getenv("PATH");
        List<String> dirs = new ArrayList<>(List.of((path == null ? "" : path).split(":")));
        dirs.addAll(List.of("/usr/sbin", "/usr/bin", "/sbin", "/bin"));
        for (String d : dirs) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                return Path.of(d, name).toString();
            }
        }
        throw new AssertionError(name + " is not installed: apt-get install -y snmpd snmp (scripts/test.sh installs "
                + "them); the SNMP tests need the real agent and its client");
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("removing " + dir, e);
        }
    }
}
