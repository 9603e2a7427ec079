package io.vecflow.dataplane.netns;

import io.vecflow.common.NetNamespace;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * A test fixture for topologies of network namespaces and veth pairs (ip-netns(8), veth(4)): every namespace, veth and
 * process it creates is removed by {@link #close()}, which always runs every step (namespaces go last, and with them
 * their veths and routes). Shared by agent-dataplane's and dist's namespace tests (dist through agent-dataplane's
 * test-jar).
 *
 * <p>Names: namespace {@code name} of a lab opened with prefix {@code P} is {@code P-p<pid>-<id>-name} ({@link #ns}),
 * where pid is this JVM's and id 4 random hex digits; veth device {@code name} is {@code <first 3 chars of P><id>name}
 * ({@link #dev}, at most 15 bytes: IFNAMSIZ − 1, linux/if.h). {@link #open} first deletes namespaces
 * {@code P-p<pid>-*} left by an earlier run whose JVM is gone (a crash, a kill), never those of a live run (another
 * test session).
 *
 * <p>Needs root and iproute2's {@code ip}: {@link #open} fails loudly (an {@link IllegalStateException}) without them
 * — a namespace test must fail, not skip. Every command is bounded in time ({@link #COMMAND_TIMEOUT} unless given),
 * its stdout and stderr are captured together, and a non-zero exit status or a timeout throws an {@link IOException}
 * naming the command and its output.
 *
 * <pre>{@code
 * try (NetnsLab lab = NetnsLab.open("vfxx")) {
 *     String a = lab.namespace("a"), b = lab.namespace("b");
 *     lab.link(a, lab.dev("a0"), "10.1.0.1/24", b, lab.dev("b0"), "10.1.0.2/24");
 *     lab.route(b, "10.2.0.0/24 via 10.1.0.1");
 *     String out = lab.exec(a, Duration.ofSeconds(5), "ping", "-c1", "10.1.0.2");
 * }
 * }</pre>
 */
public final class NetnsLab implements AutoCloseable {
    /** Bound on each {@code ip}/{@code sysctl} command that is not given its own timeout: 30 s. */
    public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
    /** How long {@link #close()} waits for a started process to end after SIGTERM before SIGKILL: 5 s. */
    private static final long PROCESS_STOP_MS = 5_000;
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9]{2,7}");
    private static final int IFNAMSIZ = 16;

    private final String prefix;
    private final String id;
    private final List<String> namespaces = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private boolean closed;

    private NetnsLab(String prefix, String id) {
        this.prefix = prefix;
        this.id = id;
    }

    /**
     * Checks root and {@code ip}, deletes leftovers of dead runs with the same prefix, and returns an empty lab.
     *
     * @param prefix 3–8 lower-case letters and digits, starting with a letter, unique to the test class (e.g.
     *        {@code vflb}); its first 3 characters start every device name
     * @return a lab with no namespaces yet
     * @throws IllegalStateException not root (effective uid ≠ 0), or {@code ip} missing or not working
     * @throws IllegalArgumentException {@code prefix} does not have that shape
     * @throws IOException listing or deleting leftover namespaces failed
     * @throws InterruptedException interrupted while a command ran
     */
    public static NetnsLab open(String prefix) throws IOException, InterruptedException {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("prefix '" + prefix + "': want 3-8 of [a-z0-9], starting with a letter");
        }
        requireRoot();
        try {
            run(COMMAND_TIMEOUT, "ip", "-V");
        } catch (IOException e) {
            throw new IllegalStateException("namespace tests need iproute2's `ip` on PATH: " + e.getMessage(), e);
        }
        removeLeftovers(prefix);
        return new NetnsLab(prefix, String.format("%04x", ThreadLocalRandom.current().nextInt(0x10000)));
    }

    private static void requireRoot() throws IOException {
        // /proc/self/status "Uid:" real, effective, saved, filesystem (proc(5))
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                String[] f = line.substring(4).trim().split("\\s+");
                if (!f[1].equals("0")) {
                    throw new IllegalStateException("namespace tests need root (network namespaces, veth, setns): "
                            + "effective uid is " + f[1] + "; run them as root, they do not skip");
                }
                return;
            }
        }
        throw new IllegalStateException("no Uid: line in /proc/self/status: cannot tell whether this runs as root");
    }

    /** Deletes namespaces {@code prefix-p<pid>-…} whose pid names no live process (a crashed or killed run). */
    private static void removeLeftovers(String prefix) throws IOException, InterruptedException {
        String head = prefix + "-p";
        for (String line : run(COMMAND_TIMEOUT, "ip", "netns", "list").split("\n")) {
            String name = line.trim().split("\\s+")[0]; // "name (id: 3)"
            if (!name.startsWith(head)) {
                continue;
            }
            int dash = name.indexOf('-', head.length());
            long pid;
            try {
                pid = Long.parseLong(name.substring(head.length(), dash < 0 ? name.length() : dash));
            } catch (NumberFormatException e) {
                continue; // not one of ours
            }
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                continue; // a live run's, perhaps another test session's
            }
            try {
                // its processes (e.g. an http.server of the crashed run) would outlive the namespace's name
                for (String p : run(COMMAND_TIMEOUT, "ip", "netns", "pids", name).split("\\s+")) {
                    if (!p.isEmpty()) {
                        ProcessHandle.of(Long.parseLong(p)).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
                run(COMMAND_TIMEOUT, "ip", "netns", "del", name);
                System.err.println("NetnsLab: deleted leftover namespace " + name + " of dead process " + pid);
            } catch (IOException e) {
                // deleted meanwhile by another run cleaning up the same leftover
            }
        }
    }

    /** The 4 hex digits that make this lab's names unique (in {@link #ns} and {@link #dev}). */
    public String id() {
        return id;
    }

    /** The full name of this lab's namespace {@code name}: {@code prefix-p<pid>-<id>-name} (created or not). */
    public String ns(String name) {
        return prefix + "-p" + ProcessHandle.current().pid() + "-" + id + "-" + name;
    }

    /**
     * The device name {@code <first 3 chars of prefix><id>name}.
     *
     * @throws IllegalArgumentException the result would exceed 15 bytes (IFNAMSIZ − 1)
     */
    public String dev(String name) {
        String d = prefix.substring(0, 3) + id + name;
        if (d.length() >= IFNAMSIZ) {
            throw new IllegalArgumentException("device name '" + d + "' is longer than " + (IFNAMSIZ - 1)
                    + " bytes (IFNAMSIZ): shorten '" + name + "'");
        }
        return d;
    }

    /**
     * Creates namespace {@link #ns ns(name)} with its loopback up; {@link #close()} deletes it.
     *
     * @return the namespace's full name
     * @throws IOException {@code ip netns add} or {@code ip link set lo up} failed
     */
    public String namespace(String name) throws IOException, InterruptedException {
        String n = ns(name);
        checkOpen();
        run(COMMAND_TIMEOUT, "ip", "netns", "add", n);
        namespaces.add(n);
        ip(n, "link", "set", "lo", "up");
        return n;
    }

    /**
     * Creates a veth pair, end {@code ifA} in namespace {@code nsA} and {@code ifB} in {@code nsB} (may be the same
     * namespace), both down and with kernel-chosen MACs. Use {@link #link} for the usual addressed, up pair.
     *
     * @throws IOException {@code ip link add … type veth} failed
     */
    public void veth(String nsA, String ifA, String nsB, String ifB) throws IOException, InterruptedException {
        checkOpen();
        run(COMMAND_TIMEOUT, "ip", "link", "add", ifA, "netns", nsA, "type", "veth", "peer", "name", ifB, "netns", nsB);
    }

    /**
     * Creates a veth pair ({@link #veth}), adds an address to each end and sets both up.
     *
     * @param addrA address with prefix length on {@code ifA} ({@code 10.0.0.1/24}, {@code fd00::1/64}; IPv6 ones
     *        without duplicate address detection, {@code nodad}), or null for none
     * @param addrB the same for {@code ifB}
     * @throws IOException an {@code ip} command failed
     */
    public void link(String nsA, String ifA, String addrA, String nsB, String ifB, String addrB)
            throws IOException, InterruptedException {
        veth(nsA, ifA, nsB, ifB);
        address(nsA, ifA, addrA);
        address(nsB, ifB, addrB);
        ip(nsA, "link", "set", ifA, "up");
        ip(nsB, "link", "set", ifB, "up");
    }

    /**
     * Adds {@code addr} (with prefix length; IPv6 with {@code nodad}) to device {@code dev} in namespace {@code ns};
     * nothing when {@code addr} is null.
     */
    public void address(String ns, String dev, String addr) throws IOException, InterruptedException {
        if (addr == null) {
            return;
        }
        if (addr.indexOf(':') >= 0) {
            ip(ns, "-6", "addr", "add", addr, "dev", dev, "nodad");
        } else {
            ip(ns, "addr", "add", addr, "dev", dev);
        }
    }

    /**
     * Adds a route in namespace {@code ns}: {@code ip -n ns [-6] route add <route>}, {@code -6} when the destination
     * (the first word) is an IPv6 prefix; e.g. {@code route(ns, "10.200.0.0/24 via 10.202.1.1 dev r1")}.
     *
     * @param route the words after {@code route add}, separated by spaces
     */
    public void route(String ns, String route) throws IOException, InterruptedException {
        String[] words = route.trim().split("\\s+");
        List<String> args = new ArrayList<>();
        if (words[0].indexOf(':') >= 0) {
            args.add("-6");
        }
        args.addAll(List.of("route", "add"));
        args.addAll(Arrays.asList(words));
        ip(ns, args.toArray(String[]::new));
    }

    /**
     * Runs {@code ip -n ns args…} (bounded by {@link #COMMAND_TIMEOUT}).
     *
     * @return its output (stdout and stderr)
     * @throws IOException it failed or timed out
     */
    public String ip(String ns, String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 3];
        cmd[0] = "ip";
        cmd[1] = "-n";
        cmd[2] = ns;
        System.arraycopy(args, 0, cmd, 3, args.length);
        return run(COMMAND_TIMEOUT, cmd);
    }

    /**
     * Sets sysctls in namespace {@code ns}: {@code sysctl -qw key=value…} (bounded by {@link #COMMAND_TIMEOUT}).
     *
     * @param settings {@code key=value} strings, e.g. {@code net.ipv4.conf.all.rp_filter=0}
     */
    public void sysctl(String ns, String... settings) throws IOException, InterruptedException {
        String[] cmd = new String[settings.length + 2];
        cmd[0] = "sysctl";
        cmd[1] = "-qw";
        System.arraycopy(settings, 0, cmd, 2, settings.length);
        exec(ns, COMMAND_TIMEOUT, cmd);
    }

    /**
     * Turns off TX checksum offload of device {@code dev} in namespace {@code ns}, so that its frames carry full
     * checksums: veth leaves a TCP/UDP checksum CHECKSUM_PARTIAL (only the pseudo-header sum in the frame, which
     * AF_PACKET flags TP_STATUS_CSUM_NOT_READY), and a dataplane that forwards frames as received would pass that on.
     * {@code ethtool -K dev tx off} as its ioctl (SIOCETHTOOL with ETHTOOL_STXCSUM, linux/ethtool.h), from python3,
     * as ethtool itself may not be installed.
     */
    public void txChecksumOff(String ns, String dev) throws IOException, InterruptedException {
        exec(ns, COMMAND_TIMEOUT, "python3", "-c", """
                import array, fcntl, socket, struct, sys
                buf = array.array('B', struct.pack('II', 0x17, 0))
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                fcntl.ioctl(s.fileno(), 0x8946,
                            struct.pack('16sP', sys.argv[1].encode(), buf.buffer_info()[0]))
                """, dev);
    }

    /**
     * Runs {@code args} in namespace {@code ns} ({@code ip netns exec}) and waits for it at most {@code timeout}.
     *
     * @return its stdout and stderr together
     * @throws IOException it could not start, exited non-zero, or was still running after {@code timeout} (then
     *         killed); the message holds the command and its output
     */
    public String exec(String ns, Duration timeout, String... args) throws IOException, InterruptedException {
        return run(timeout, inNs(ns, args));
    }

    /**
     * Starts a long-running {@code args} in namespace {@code ns} with stdout and stderr to {@code log};
     * {@link #close()} stops it (SIGTERM, then SIGKILL after 5 s).
     */
    public Process start(String ns, Path log, String... args) throws IOException {
        checkOpen();
        Process p = new ProcessBuilder(inNs(ns, args)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        processes.add(p);
        return p;
    }

    /**
     * Starts {@code python3 -m http.server} in namespace {@code ns} serving {@code directory} on {@code bind}:{@code
     * port} (TCP), its log in {@code log}; wait for it with {@link #awaitListening}.
     */
    public Process httpServer(String ns, String bind, int port, Path directory, Path log) throws IOException {
        return start(ns, log, "python3", "-m", "http.server", "--bind", bind, "--directory", directory.toString(),
                String.valueOf(port));
    }

    /**
     * Waits until a TCP connect from inside namespace {@code ns} to {@code address}:{@code port} succeeds (a 500 ms
     * connect every 100 ms).
     *
     * @throws IOException nothing accepted within {@code timeout}
     */
    public void awaitListening(String ns, String address, int port, Duration timeout)
            throws IOException, InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            boolean up = NetNamespace.callIn(ns, () -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(address, port), 500);
                    return true;
                } catch (IOException e) {
                    return false;
                }
            });
            if (up) {
                return;
            }
            if (System.nanoTime() - end > 0) {
                throw new IOException("nothing listening on " + address + " port " + port + " in " + ns + " within "
                        + timeout.toMillis() + " ms");
            }
            Thread.sleep(100);
        }
    }

    /**
     * Stops the started processes, then deletes the namespaces (with their veths); every step runs whatever the
     * others did, and a second call does nothing. Failures go to stderr: cleanup never hides the test's own failure.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Process p : processes) {
            p.destroy();
            try {
                if (!p.waitFor(PROCESS_STOP_MS, TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        for (String n : namespaces) {
            try {
                run(COMMAND_TIMEOUT, "ip", "netns", "del", n);
            } catch (Exception e) {
                System.err.println("NetnsLab: could not delete namespace " + n + ": " + e.getMessage());
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("NetnsLab " + prefix + "-" + id + " is closed");
        }
    }

    private static String[] inNs(String ns, String... args) {
        String[] cmd = new String[args.length + 4];
        cmd[0] = "ip";
        cmd[1] = "netns";
        cmd[2] = "exec";
        cmd[3] = ns;
        System.arraycopy(args, 0, cmd, 4, args.length);
        return cmd;
    }

    /** Runs {@code cmd}, its output read on a virtual thread so that a hung command cannot outlast {@code timeout}. */
    private static String run(Duration timeout, String... cmd) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException(String.join(" ", cmd) + ": could not start: " + e.getMessage(), e);
        }
        AtomicReference<byte[]> out = new AtomicReference<>(new byte[0]);
        Thread reader = Thread.ofVirtual().start(() -> {
            try (InputStream in = p.getInputStream()) {
                out.set(in.readAllBytes());
            } catch (IOException e) {
                // the process was killed: keep what was read (nothing)
            }
        });
        boolean ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            p.destroyForcibly();
            p.waitFor(PROCESS_STOP_MS, TimeUnit.MILLISECONDS);
        }
        reader.join(PROCESS_STOP_MS);
        String text = new String(out.get(), StandardCharsets.UTF_8);
        if (!ended) {
            throw new IOException(String.join(" ", cmd) + ": still running after " + timeout.toMillis()
                    + " ms (killed): " + text.trim());
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + text.trim());
        }
        return text;
    }
}
