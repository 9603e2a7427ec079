package io.vecflow.dataplane.port;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Two fresh network namespaces joined by a veth pair, for tests (needs root: fails loudly otherwise). Names start with
 * {@code afpacket} (namespaces {@code afpacket-XXXX-a/-b}, interfaces {@code afpacketXXXXa/b}); IPv6 is disabled in
 * both namespaces so the kernel sends nothing of its own on the link (no router solicitations, MLD, DAD). {@link
 * #close()} deletes both namespaces, which removes the veth pair; stale ones of earlier crashed runs are removed first.
 */
final class VethLab implements AutoCloseable {
    final String nsA;
    final String nsB;
    final String ifA;
    final String ifB;

    private VethLab(String id) {
        nsA = "afpacket-" + id + "-a";
        nsB = "afpacket-" + id + "-b";
        ifA = "afpacket" + id + "a";
        ifB = "afpacket" + id + "b";
    }

    /** Creates both namespaces and the link; on failure removes what it made and throws. */
    static VethLab create() throws IOException, InterruptedException {
        removeStale();
        VethLab lab = new VethLab(String.format("%04x", ThreadLocalRandom.current().nextInt(0x10000)));
        try {
            for (String ns : List.of(lab.nsA, lab.nsB)) {
                run("ip", "netns", "add", ns);
                run("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                        "net.ipv6.conf.default.disable_ipv6=1");
            }
            run("ip", "link", "add", lab.ifA, "netns", lab.nsA, "type", "veth", "peer", "name", lab.ifB, "netns",
                    lab.nsB);
            run("ip", "-n", lab.nsA, "link", "set", lab.ifA, "up");
            run("ip", "-n", lab.nsB, "link", "set", lab.ifB, "up");
            return lab;
        } catch (IOException | RuntimeException | InterruptedException e) {
            lab.close();
            throw e;
        }
    }

    /** Runs an iproute2 command inside namespace {@code ns}. */
    void exec(String ns, String... cmd) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        c.addAll(List.of(cmd));
        run(c.toArray(String[]::new));
    }

    /**
     * Removes namespaces an earlier crashed run left behind: only {@code afpacket-*} ones older than 30 minutes, so a
     * concurrent run's live namespaces are never touched.
     */
    private static void removeStale() throws IOException, InterruptedException {
        String list = output("ip", "netns", "list");
        long cutoff = System.currentTimeMillis() - 30 * 60_000L;
        for (String line : list.split("\n")) {
            String name = line.split(" ")[0].trim();
            java.nio.file.Path f = java.nio.file.Path.of("/run/netns", name);
            if (name.startsWith("afpacket-") && java.nio.file.Files.exists(f)
                    && java.nio.file.Files.getLastModifiedTime(f).toMillis() < cutoff) {
                run("ip", "netns", "del", name);
            }
        }
    }

    static void run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + ", this test needs root "
                    + "and network namespaces): " + out.trim());
        }
    }

    private static String output(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out.trim());
        }
        return out;
    }

    @Override
    public void close() {
        for (String ns : List.of(nsA, nsB)) {
            try {
                run("ip", "netns", "del", ns);
            } catch (IOException | InterruptedException e) {
                // not created (failure during create) or already gone
            }
        }
    }
}
