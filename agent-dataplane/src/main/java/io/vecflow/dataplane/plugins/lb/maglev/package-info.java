/**
 * The load balancer's pure maths: the Maglev lookup table (Katran-exact), MurmurHash3, the flow key and
 * hash, the per-worker connection table. Allocation-free per packet; time is an argument, so {@code lab/} runs them.
 *
 * <p>May depend on {@code graph.mem} only.
 */
package io.vecflow.dataplane.plugins.lb.maglev;
