package io.vecflow.bench;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * JMH secondary results, reported per second next to the primary score (datagrams/s): {@code samples} = every
 * sample decoded (flow 0:1/0:3, counters 0:2/0:4, discard 0:5), {@code flowSamples} = flow samples only (what the
 * collector turns into rows). Reset every iteration.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class SamplesCounter {
    /** Every sample decoded. */
    public long samples;
    /** Flow samples (0:1, 0:3), i.e. flow rows in the collector pipeline. */
    public long flowSamples;

    /** Clears the counters. */
    @Setup(Level.Iteration)
    public void clear() {
        samples = 0;
        flowSamples = 0;
    }
}
