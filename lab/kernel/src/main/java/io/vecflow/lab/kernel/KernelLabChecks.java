package io.vecflow.lab.kernel;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Entry point of the guest checks ({@code lab/kernel/guest/checks.sh} runs it as root inside the QEMU guest):
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -Dvflab.root=REPO -cp CLASSPATH io.vecflow.lab.kernel.KernelLabChecks
 * [NAME...]</pre>
 *
 * Runs the named checks (default: all, in the order kernel-to-agent, dataplane-to-kernel, drops) one after the other
 * in this JVM (one JVM start: ~20× slower under TCG than on the host), each to its end even when an earlier one
 * failed; prints PASS/FAIL with the time taken; exits 0 when all passed, 1 otherwise, 2 for an unknown name.
 * {@code --train} alone runs {@link Training} on the host instead (the class-data-sharing archive run.sh makes).
 */
public final class KernelLabChecks {
    private KernelLabChecks() {}

    /** The checks by name, in run order. */
    static Map<String, GuestCheck> all() {
        Map<String, GuestCheck> m = new LinkedHashMap<>();
        for (GuestCheck c : List.of(new KernelToAgentCheck(), new DataplaneToKernelCheck(), new DropsCheck())) {
            m.put(c.name(), c);
        }
        return m;
    }

    /** @param args check names (none = all) */
    public static void main(String[] args) {
        if (args.length == 1 && args[0].equals("--train")) {
            try {
                Training.run();
            } catch (Exception | AssertionError e) {
                System.out.println("training run stopped early (the archive is only smaller): " + e);
            }
            System.exit(0);
        }
        Map<String, GuestCheck> all = all();
        List<GuestCheck> run = new ArrayList<>();
        for (String a : args) {
            GuestCheck c = all.get(a);
            if (c == null) {
                System.err.println("unknown check " + a + "; known: " + all.keySet());
                System.exit(2);
            }
            run.add(c);
        }
        if (run.isEmpty()) {
            run.addAll(all.values());
        }
        int failed = 0;
        for (GuestCheck c : run) {
            System.out.println("---- " + c.name() + " ----");
            long t0 = System.nanoTime();
            try {
                c.run();
                System.out.printf("PASS %s (%.1f s)%n", c.name(), (System.nanoTime() - t0) / 1e9);
            } catch (Throwable t) {
                failed++;
                System.out.printf("FAIL %s (%.1f s): %s%n", c.name(), (System.nanoTime() - t0) / 1e9, t);
                t.printStackTrace(System.out);
            }
            System.out.flush();
        }
        System.out.printf("%d of %d kernel-lab checks passed%n", run.size() - failed, run.size());
        System.exit(failed == 0 ? 0 : 1);
    }
}
