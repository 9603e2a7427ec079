import java.util.SplittableRandom;

/**
 * Dependent-load latency over a 128 MiB int[] (the size of the 1M-flow connection table's records): one random
 * cyclic permutation (Sattolo), chased for 20M steps; prints ns per load. Run with -Xms1g -Xmx1g, once without and
 * once with -XX:+UseTransparentHugePages (the Java heap on 4-KiB or on 2-MiB pages).
 */
public class Latency {
    public static void main(String[] a) {
        int n = 32 << 20; // 32 Mi ints = 128 MiB
        int[] next = new int[n];
        for (int i = 0; i < n; i++) {
            next[i] = i;
        }
        SplittableRandom r = new SplittableRandom(1);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i);
            int t = next[i];
            next[i] = next[j];
            next[j] = t;
        }
        for (int round = 0; round < 5; round++) {
            int p = 0;
            long t0 = System.nanoTime();
            for (int s = 0; s < 20_000_000; s++) {
                p = next[p];
            }
            long t1 = System.nanoTime();
            System.out.printf("round %d: %.1f ns per dependent load (p=%d)%n", round, (t1 - t0) / 2e7, p);
        }
    }
}
