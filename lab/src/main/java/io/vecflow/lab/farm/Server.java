package io.vecflow.lab.farm;

import java.util.Arrays;

/**
 * One server of the farm: processor sharing (PS) with unit capacity among at most {@code workers} jobs in service,
 * and a FIFO backlog for the rest (docs/load-balancing.md §6, "Level 1: PS with μ = 1"; "Level 2: Apache-like, 32
 * workers sharing the CPU plus a FIFO backlog"). With {@code workers = Integer.MAX_VALUE} it is plain M/G/1-PS.
 *
 * <p>PS is simulated with a virtual clock: while {@code n} jobs are in service each receives service at rate 1/n, so
 * the attained service of every job in service grows like {@code V(t)}, dV/dt = 1/n. A job entering service at
 * virtual time V with work w finishes when V reaches V + w; the next completion is the smallest such finish tag, at
 * real time {@code t + (tag − V)·n}. Jobs are kept in a binary min-heap of finish tags (parallel primitive arrays,
 * grown by doubling up to {@link #MAX_JOBS}); nothing is allocated per job once the arrays are large enough.
 *
 * <p>Times are in mean service times. Not thread-safe.
 */
public final class Server {
    /** Most jobs one server may hold (in service plus backlog); beyond it the load is unstable and the run fails. */
    public static final int MAX_JOBS = 1 << 22;

    private final int workers;
    // in-service heap, keyed by finish tag
    private double[] tag = new double[64];
    private double[] arrival = new double[64];
    private boolean[] measured = new boolean[64];
    private int n;
    // backlog ring (FIFO)
    private double[] bWork = new double[16];
    private double[] bArrival = new double[16];
    private boolean[] bMeasured = new boolean[16];
    private int bHead;
    private int bSize;
    private double v;
    private double last;
    // time integral of jobs present (n + backlog), for the mean number present
    private double area;
    // time with at least one job in service (utilisation integral)
    private double busyArea;
    private long completions;
    private boolean lastMeasured;

    /**
     * @param workers jobs served at once (≥ 1); {@code Integer.MAX_VALUE} for plain PS
     * @throws IllegalArgumentException if {@code workers < 1}
     */
    public Server(int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("server workers must be >= 1, got " + workers);
        }
        this.workers = workers;
    }

    /** @return jobs in service = busy workers (what SRLB's apache-threshold policy reads) */
    public int busy() {
        return n;
    }

    /** @return jobs present: in service plus backlog (what JSQ compares) */
    public int jobs() {
        return n + bSize;
    }

    /** @return jobs completed so far */
    public long completions() {
        return completions;
    }

    /** @return ∫ jobs present dt from the last {@link #resetArea} up to time {@code t}, in job × time units */
    public double jobArea(double t) {
        advance(t);
        return area;
    }

    /** @return time busy (≥ 1 job in service) from the last {@link #resetArea} up to time {@code t} */
    public double busyTime(double t) {
        advance(t);
        return busyArea;
    }

    /** Resets the job-area and busy-time integrals (end of warm-up) at time {@code t}. */
    public void resetArea(double t) {
        advance(t);
        area = 0;
        busyArea = 0;
    }

    private void advance(double t) {
        double dt = t - last;
        if (dt > 0) {
            int present = n + bSize;
            area += present * dt;
            if (n > 0) {
                busyArea += dt;
            }
            if (n > 0) {
                v += dt / n;
            }
            last = t;
        }
    }

    /**
     * A job arrives at time {@code t} with {@code work} (mean service times).
     *
     * @param measured whether its response time counts (after warm-up, inside the measured window)
     * @throws IllegalStateException if the server already holds {@link #MAX_JOBS}
     */
    public void arrive(double t, double work, boolean measured) {
        advance(t);
        if (n + bSize >= MAX_JOBS) {
            throw new IllegalStateException("server holds " + MAX_JOBS + " jobs: the offered load is unstable");
        }
        if (n < workers) {
            push(v + work, t, measured);
        } else {
            if (bSize == bWork.length) {
                growBacklog();
            }
            int i = (bHead + bSize) & (bWork.length - 1);
            bWork[i] = work;
            bArrival[i] = t;
            bMeasured[i] = measured;
            bSize++;
        }
    }

    /** @return the real time of the next completion, or +∞ when idle */
    public double nextCompletion() {
        return n == 0 ? Double.POSITIVE_INFINITY : last + (tag[0] - v) * n;
    }

    /**
     * Completes the job with the smallest finish tag at time {@code t} (= {@link #nextCompletion()}) and moves the
     * backlog head into service.
     *
     * @return the job's response time (t − arrival); {@link #lastMeasured()} tells whether it counts
     * @throws IllegalStateException if the server is idle
     */
    public double complete(double t) {
        if (n == 0) {
            throw new IllegalStateException("completion on an idle server");
        }
        advance(t);
        double resp = t - arrival[0];
        boolean m = measured[0];
        pop();
        completions++;
        if (bSize > 0) {
            int i = bHead;
            bHead = (bHead + 1) & (bWork.length - 1);
            bSize--;
            push(v + bWork[i], bArrival[i], bMeasured[i]);
        }
        if (n == 0) {
            v = 0; // keep the virtual clock small: tags are relative to the last idle instant
        }
        lastMeasured = m;
        return resp;
    }

    /** @return whether the job of the last {@link #complete} was measured */
    public boolean lastMeasured() {
        return lastMeasured;
    }

    private void push(double finish, double arr, boolean meas) {
        if (n == tag.length) {
            int c = 2 * n;
            tag = Arrays.copyOf(tag, c);
            arrival = Arrays.copyOf(arrival, c);
            measured = Arrays.copyOf(measured, c);
        }
        int i = n++;
        while (i > 0) {
            int p = (i - 1) >>> 1;
            if (tag[p] <= finish) {
                break;
            }
            tag[i] = tag[p];
            arrival[i] = arrival[p];
            measured[i] = measured[p];
            i = p;
        }
        tag[i] = finish;
        arrival[i] = arr;
        measured[i] = meas;
    }

    private void pop() {
        int last = --n;
        if (last == 0) {
            return;
        }
        double ft = tag[last], fa = arrival[last];
        boolean fm = measured[last];
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= last) {
                break;
            }
            if (c + 1 < last && tag[c + 1] < tag[c]) {
                c++;
            }
            if (tag[c] >= ft) {
                break;
            }
            tag[i] = tag[c];
            arrival[i] = arrival[c];
            measured[i] = measured[c];
            i = c;
        }
        tag[i] = ft;
        arrival[i] = fa;
        measured[i] = fm;
    }

    private void growBacklog() {
        int c = bWork.length * 2;
        double[] w = new double[c], a = new double[c];
        boolean[] m = new boolean[c];
        for (int k = 0; k < bSize; k++) {
            int i = (bHead + k) & (bWork.length - 1);
            w[k] = bWork[i];
            a[k] = bArrival[i];
            m[k] = bMeasured[i];
        }
        bWork = w;
        bArrival = a;
        bMeasured = m;
        bHead = 0;
    }
}
