package io.vecflow.dataplane.plugins.clove.path;

/**
 * Seeded pseudo-random numbers for path choices: SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; the finaliser of {@link java.util.SplittableRandom}). Written out here so that a seed gives
 * the same sequence on every JDK, which a simulation's results depend on. One {@code long} of state, no allocation;
 * not thread-safe (one per worker or per simulation).
 */
public final class SplitMix64 {
    private static final long GAMMA = 0x9E3779B97F4A7C15L;
    private long state;

    /** @param seed any value; equal seeds give equal sequences */
    public SplitMix64(long seed) {
        this.state = seed;
    }

    /** @return the next 64 uniformly distributed bits */
    public long nextLong() {
        long z = (state += GAMMA);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** @return a double uniform in [0, 1), 53 random bits */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /**
     * @param bound exclusive upper bound, &gt; 0
     * @return an int uniform in [0, bound) (multiply-shift; bias below 2<sup>−32</sup> for bounds up to 2<sup>31</sup>)
     */
    public int nextInt(int bound) {
        return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }
}
