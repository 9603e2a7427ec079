/** Development A/B harness (not a JMH benchmark): one LbGraphBenchmark mode, 4 s warm-up, then 8 × 0.7 s; prints the thread CPU time and the wall time per packet (min and median). Run: java -Xms3g -Xmx3g --enable-native-access=ALL-UNNAMED -cp benchmarks.jar:. Ab MODE LABEL */
import io.vecflow.bench.LbGraphBenchmark;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
public class Ab {
  public static void main(String[] a) throws Exception {
    ThreadMXBean tm = ManagementFactory.getThreadMXBean();
    String m = a[0];
    LbGraphBenchmark b = new LbGraphBenchmark(); b.mode = m; b.setUp();
    long end = System.nanoTime() + 4_000_000_000L; while (System.nanoTime() < end) b.round();
    double[] v = new double[8]; double[] wv = new double[8];
    for (int it = 0; it < 8; it++) {
      long c0 = tm.getCurrentThreadCpuTime(), w0 = System.nanoTime(), pk = 0;
      while (System.nanoTime() - w0 < 700_000_000L) pk += b.round();
      v[it] = (tm.getCurrentThreadCpuTime() - c0) / (double) pk; wv[it] = (System.nanoTime() - w0) / (double) pk;
    }
    java.util.Arrays.sort(v); java.util.Arrays.sort(wv);
    System.out.printf("%s %s cpu ns/pkt min %.1f med %.1f | wall min %.1f med %.1f%n", a[1], m, v[0], (v[3]+v[4])/2, wv[0], (wv[3]+wv[4])/2);
    b.tearDown();
    System.exit(0);
  }
}
