package io.vecflow.collector.inlet;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Kernel drop counters of UDP sockets, read from procfs: per socket, the {@code drops} column of
 * {@code /proc/net/udp} and {@code /proc/net/udp6} (datagrams dropped because the socket's receive buffer was full,
 * {@code sk_drops}), matched to this process's sockets by inode ({@code /proc/self/fd/N -> socket:[inode]}) and
 * local port; for the host, {@code RcvbufErrors} of {@code /proc/net/snmp} and {@code Udp6RcvbufErrors} of
 * {@code /proc/net/snmp6}. Read at scrape time; nothing on the receive path.
 */
public final class SocketDrops {
    private SocketDrops() {}

    /**
     * @param port the local UDP port of the sockets
     * @return the drops summed over this process's UDP sockets bound to {@code port}, IPv4 and IPv6 (0 where procfs
     *     cannot be read)
     */
    public static long ofPort(int port) {
        Set<Long> mine = socketInodes();
        return sum(Path.of("/proc/net/udp"), port, mine) + sum(Path.of("/proc/net/udp6"), port, mine);
    }

    /** @return {IPv4 RcvbufErrors, IPv6 Udp6RcvbufErrors} of the host (network namespace), 0 where unreadable. */
    public static long[] hostRcvbufErrors() {
        long v4 = 0, v6 = 0;
        try {
            List<String> snmp = Files.readAllLines(Path.of("/proc/net/snmp"));
            for (int i = 0; i + 1 < snmp.size(); i++) {
                if (snmp.get(i).startsWith("Udp: ") && snmp.get(i + 1).startsWith("Udp: ")) {
                    String[] names = snmp.get(i).split("\\s+"), values = snmp.get(i + 1).split("\\s+");
                    for (int k = 1; k < names.length && k < values.length; k++) {
                        if (names[k].equals("RcvbufErrors")) {
                            v4 = Long.parseLong(values[k]);
                        }
                    }
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or no procfs: 0
        }
        try {
            for (String l : Files.readAllLines(Path.of("/proc/net/snmp6"))) {
                String[] f = l.trim().split("\\s+");
                if (f.length == 2 && f[0].equals("Udp6RcvbufErrors")) {
                    v6 = Long.parseLong(f[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no IPv6, or no procfs: 0
        }
        return new long[] {v4, v6};
    }

    static long sum(Path table, int port, Set<Long> inodes) {
        long n = 0;
        try {
            List<String> lines = Files.readAllLines(table);
            for (int i = 1; i < lines.size(); i++) {
                String[] f = lines.get(i).trim().split("\\s+");
                // sl local_address rem_address st tx:rx tr:tm retrnsmt uid timeout inode ref pointer drops
                if (f.length < 13) {
                    continue;
                }
                String local = f[1];
                int colon = local.lastIndexOf(':');
                if (colon < 0 || Integer.parseInt(local.substring(colon + 1), 16) != port) {
                    continue;
                }
                if (inodes.isEmpty() || inodes.contains(Long.parseLong(f[9]))) {
                    n += Long.parseLong(f[12]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // no such table: 0
        }
        return n;
    }

    /**
     * @param inode a socket's inode
     * @return the bytes queued in the socket's receive buffer ({@code rx_queue} of {@code /proc/net/udp} or
     *     {@code udp6}), or -1 when the socket is not found
     */
    static long rxQueue(long inode) {
        for (String t : new String[] {"/proc/net/udp", "/proc/net/udp6"}) {
            try {
                List<String> lines = Files.readAllLines(Path.of(t));
                for (int i = 1; i < lines.size(); i++) {
                    String[] f = lines.get(i).trim().split("\\s+");
                    if (f.length >= 10 && Long.parseLong(f[9]) == inode) {
                        String q = f[4]; // tx_queue:rx_queue, hex
                        return Long.parseLong(q.substring(q.indexOf(':') + 1), 16);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // no such table
            }
        }
        return -1;
    }

    /** @return the inode of this process's socket file descriptor {@code fd}, or -1. */
    static long inodeOfFd(int fd) {
        try {
            String t = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
            return t.startsWith("socket:[") ? Long.parseLong(t.substring(8, t.length() - 1)) : -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static Set<Long> socketInodes() {
        Set<Long> out = new HashSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path p : ds) {
                try {
                    String t = Files.readSymbolicLink(p).toString();
                    if (t.startsWith("socket:[")) {
                        out.add(Long.parseLong(t.substring(8, t.length() - 1)));
                    }
                } catch (IOException | RuntimeException e) {
                    // closed meanwhile
                }
            }
        } catch (IOException e) {
            // no procfs
        }
        return out;
    }
}
