package io.vecflow.dataplane.plugins.srlb.load;

/**
 * A load source whose value is set by the caller: tests, the SRLB namespace test's "controllable test metric", and
 * simulations (which set it from the simulated server's busy count before each decision). Thread-safe (volatile).
 */
public final class SettableLoadSource implements LoadSource {
    private final String name;
    private volatile double value;

    /**
     * @param name    what the value means, e.g. {@code test busy-workers}
     * @param initial the initial value (NaN = unknown)
     */
    public SettableLoadSource(String name, double initial) {
        this.name = name;
        this.value = initial;
    }

    /** Sets the value that {@link #load()} returns from now on. */
    public void set(double v) {
        value = v;
    }

    @Override
    public double load() {
        return value;
    }

    @Override
    public String name() {
        return name;
    }
}
